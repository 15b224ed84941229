// viewer_test.mjs -- the viewer's page in Debian's headless Chromium,
// driven by playwright-core (tools/viewer/node_modules):
//
//   node tests/browser/viewer_test.mjs PAGE.html SHOT.png
//
// Opens the page from disk with every non-file request refused and checks
// that it loads with no console error and no uncaught exception, that it
// shows its runs, that the animation time advances while playing, stands
// still when paused and follows the time slider, and that the screenshot
// (1024 x 576, paused at a quarter of the runs, saved to SHOT.png) is not
// blank in the middle of the frame (variance of the pixels); then that
// every other scene of the page loads too. Prints "N passed, N failed"; exits 1 on any failure. Run by
// `make check-view` (part of `make test`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(new URL('../../tools/viewer/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [pagePath, shotPath] = process.argv.slice(2);
if (!pagePath || !shotPath) {
  console.error('usage: node tests/browser/viewer_test.mjs PAGE.html SHOT.png');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const started = Date.now();
const results = [];
function check(name, ok, detail = '') {
  results.push(ok);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const profile = mkdtempSync(join(tmpdir(), 'ldlpgs-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1024, height: 576 },
    deviceScaleFactor: 1,
    timeout: 30000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
           '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const page = context.pages()[0] || (await context.newPage());
  const errors = [], remote = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    remote.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(resolve(pagePath)).href, { waitUntil: 'load' });
  let ready = true;
  try {
    await page.waitForFunction(() => window.ldlpgsViewer && window.ldlpgsViewer.ready, null, { timeout: 20000 });
  } catch {
    ready = false;
  }
  check('page loads and shows its runs', ready, ready ? '' : await page.locator('#message').innerText());
  if (ready) {
    const runs = await page.evaluate(() => window.ldlpgsViewer.runs);
    check('runs', runs.length >= 1 && runs.every((r) => r.bodies > 0 && r.samples > 1),
          runs.map((r) => `${r.label} (${r.bodies} bodies, ${r.samples} samples)`).join(', '));
    const t0 = await page.evaluate(() => window.ldlpgsViewer.time);
    await sleep(600);
    const t1 = await page.evaluate(() => window.ldlpgsViewer.time);
    check('time advances while playing', t1 > t0, `${t0.toFixed(3)} s -> ${t1.toFixed(3)} s`);
    await page.click('#play');
    const p0 = await page.evaluate(() => window.ldlpgsViewer.time);
    await sleep(300);
    const p1 = await page.evaluate(() => window.ldlpgsViewer.time);
    check('time stands still when paused', p1 === p0, `${p0.toFixed(3)} s, ${p1.toFixed(3)} s`);
    await page.locator('#slider').fill('500');
    const half = await page.evaluate(() => [window.ldlpgsViewer.time, window.ldlpgsViewer.duration]);
    check('the slider sets the time', Math.abs(half[0] - half[1] / 2) < 0.01 * half[1],
          `${half[0].toFixed(3)} s of ${half[1].toFixed(3)} s`);
    // the screenshot: paused at a quarter of the runs (a paused page draws a
    // frame only when something changes)
    await page.locator('#slider').fill('250');
    await sleep(200);
    const frames = await page.evaluate(() => window.ldlpgsViewer.frames);
    const shot = await page.screenshot({ path: shotPath });
    // pixel statistics of the middle of the frame, decoded by the browser
    const stats = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const x0 = Math.floor(img.width / 4), y0 = Math.floor(img.height / 4);
      const d = g.getImageData(x0, y0, img.width / 2, img.height / 2).data;
      let n = 0, s = 0, s2 = 0;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4) {
        const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
        s += y; s2 += y * y; n++;
        colours.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | d[i + 2] >> 3);
      }
      const mean = s / n;
      return { mean, std: Math.sqrt(Math.max(s2 / n - mean * mean, 0)), colours: colours.size };
    }, shot.toString('base64'));
    check('the middle of the frame is not blank', stats.std > 4 && stats.colours > 20,
          `luminance mean ${stats.mean.toFixed(1)}, std ${stats.std.toFixed(1)}, ${stats.colours} colours, ` +
          `${frames} frames drawn; screenshot ${shotPath}`);
    // every other scene of the page (make demo's has two)
    const scenes = await page.locator('#scene option').count();
    for (let k = 1; k < scenes; k++) {
      await page.selectOption('#scene', String(k));
      let shown = true;
      try {
        await page.waitForFunction(() => window.ldlpgsViewer.ready, null, { timeout: 20000 });
      } catch {
        shown = false;
      }
      const rs = shown ? await page.evaluate(() => window.ldlpgsViewer.runs) : [];
      check(`scene ${k + 1} of ${scenes} shows its runs`, shown && rs.length >= 1,
            rs.map((r) => `${r.label} (${r.bodies} bodies)`).join(', '));
    }
  }
  check('no console error', errors.length === 0, errors.slice(0, 5).join(' | '));
  check('no network request', remote.length === 0, remote.slice(0, 5).join(' '));
} catch (e) {
  check('browser run', false, String(e && e.stack ? e.stack : e));
} finally {
  if (context) await context.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}
const failed = results.filter((r) => !r).length;
console.log(`viewer in headless Chromium (${((Date.now() - started) / 1000).toFixed(1)} s): ` +
            `${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
