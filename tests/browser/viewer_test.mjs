// viewer_test.mjs -- the viewer's page in Debian's headless Chromium,
// driven by playwright-core (tools/viewer/node_modules):
//
//   node tests/browser/viewer_test.mjs PAGE.html SHOT.png [SCENE]
//
// Opens the page from disk with every non-file request refused and checks
// that it loads with no console error and no uncaught exception, that it
// shows its runs, that the animation time advances while playing, stands
// still when paused and follows the time slider, and that the screenshot
// (1024 x 576, paused at a quarter of the runs, saved to SHOT.png) is not
// blank in the middle of the frame (variance of the pixels) -- all on the
// scene named SCENE, if given, else the first; then that
// every other scene of the page loads too, and that 8 runs take a grid of
// 4 x 2 views (manyRuns). Prints "N passed, N failed"; exits 1 on any
// failure. Run by `make check-view` (part of `make test`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(new URL('../../tools/viewer/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [pagePath, shotPath, sceneName] = process.argv.slice(2);
if (!pagePath || !shotPath) {
  console.error('usage: node tests/browser/viewer_test.mjs PAGE.html SHOT.png [SCENE]');
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

// Pixel statistics of regions of a screenshot (fractions x, y, w, h of the
// frame), decoded by the browser: luminance mean and spread, colours, and
// the mean difference of its pixels from the first region's (over the
// size all regions share; 0 to 255 a channel).
async function regionStats(page, shot, regions) {
  return page.evaluate(async ([b64, rs]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const w = Math.min(...rs.map((r) => Math.floor(r[2] * img.width)));
    const h = Math.min(...rs.map((r) => Math.floor(r[3] * img.height)));
    const at = (r, cw, ch) => g.getImageData(Math.floor(r[0] * img.width), Math.floor(r[1] * img.height), cw, ch).data;
    const first = at(rs[0], w, h);
    return rs.map((r) => {
      const d = at(r, Math.floor(r[2] * img.width), Math.floor(r[3] * img.height));
      let n = 0, s = 0, s2 = 0;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4) {
        const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
        s += y; s2 += y * y; n++;
        colours.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | d[i + 2] >> 3);
      }
      const e = at(r, w, h);
      let diff = 0;
      for (let i = 0; i < e.length; i += 4)
        diff += Math.abs(e[i] - first[i]) + Math.abs(e[i + 1] - first[i + 1]) + Math.abs(e[i + 2] - first[i + 2]);
      const mean = s / n;
      return { mean, std: Math.sqrt(Math.max(s2 / n - mean * mean, 0)), colours: colours.size,
               diff: diff / (3 * (e.length / 4)) };
    });
  }, [shot.toString('base64'), regions]);
}

// A scene of 8 runs (make demo's convoy has 8 tanks): the page's first
// run 8 times, in a page of its own. The views tile the stage 4 x 2
// (1024 x 576), each label in its view's cell in reading order, and every
// cell shows the run below its label (not blank); the `together` box puts
// them in one view, a tag over each, and back, and a scene marked together
// starts so.
// (their labels as long as the convoy's, with markup that must show as text)
const LONG = ': <i>driven its own way</i> & for long enough to wrap';
async function manyRuns(page) {
  const html = readFileSync(pagePath, 'utf8'), open = '<script type="application/json" id="ldlpgs-data">';
  const a = html.indexOf(open) + open.length, b = html.indexOf('</script>', a);
  const data = JSON.parse(html.slice(a, b)), run = data.scenes[0].runs[0];
  data.scenes = [{ ...data.scenes[0], runs: Array.from({ length: 8 }, (_, k) => ({ ...run, label: `copy ${k + 1}${LONG}` })) }];
  const dir = mkdtempSync(join(tmpdir(), 'ldlpgs-many-')), many = join(dir, 'many.html');
  try {
    writeFileSync(many, html.slice(0, a) + JSON.stringify(data).replace(/</g, '\\u003c') + html.slice(b));
    await page.goto(pathToFileURL(many).href, { waitUntil: 'load' });
    let shown = true;
    try {
      await page.waitForFunction(() => window.ldlpgsViewer && window.ldlpgsViewer.ready, null, { timeout: 20000 });
    } catch {
      shown = false;
    }
    const layout = shown ? await page.evaluate(() => window.ldlpgsViewer.layout) : {};
    check('8 runs in a grid of 4 x 2 views', shown && layout.cols === 4 && layout.rows === 2,
          `${layout.cols} x ${layout.rows}`);
    if (!shown) return;
    await page.click('#play');
    await page.locator('#slider').fill('250');
    await sleep(200);
    const stage = await page.locator('#stage').boundingBox();
    const labels = await page.locator('.view .label').evaluateAll((ls) => ls.map((l) => {
      const r = l.getBoundingClientRect();
      return { x: r.x, y: r.y, right: r.right, bottom: r.bottom, text: l.textContent, title: l.title,
               markup: l.querySelector('i') !== null };
    }));
    const cell = (x, y) => [Math.floor(((x - stage.x) / stage.width) * 4), Math.floor(((y - stage.y) / stage.height) * 2)];
    check('each label in its view', labels.length === 8 && labels.every((l, k) => {
      const [cx, cy] = cell(l.x + 1, l.y + 1);
      return cx === k % 4 && cy === Math.floor(k / 4) && l.text.startsWith(`copy ${k + 1}`);
    }), labels.map((l) => `${l.text.split(' ').slice(0, 2).join(' ')} at ${cell(l.x + 1, l.y + 1)}`).join(', '));
    // narrow views' labels: a line for the name and one for the errors,
    // cut inside their cell (not wrapped over the view), whole on hover
    check('narrow labels: two lines, inside their cell, whole as a title', labels.length === 8 &&
          labels.every((l, k) => l.bottom - l.y <= 40 && l.right <= stage.x + ((k % 4) + 1) * (stage.width / 4) &&
                       !l.markup && l.title.startsWith(`copy ${k + 1}${LONG}  error now`)),
          labels.map((l) => `${(l.bottom - l.y).toFixed(0)} px${l.markup ? ' (markup)' : ''}`).join(', '));
    const shot = await page.screenshot();
    // each cell below its label (whose text would count as content)
    const cells = labels.map((l, k) => {
      const y0 = l.bottom + 4, y1 = stage.y + ((Math.floor(k / 4) + 1) * stage.height) / 2;
      return [(k % 4) / 4, y0 / 576, 1 / 4, (y1 - y0) / 576];
    });
    const st = await regionStats(page, shot, cells);
    check('every view shows its run', st.every((s) => s.std > 4 && s.colours > 10),
          st.map((s) => s.std.toFixed(1)).join(' '));
    // the same run in views of one size: the same picture in every cell, to
    // the rounding of the rows' pixels (1.6 here; views laid out as 8
    // slivers instead differed by 8.1)
    check('every view the same picture of the same run', st.every((s) => s.diff < 4),
          `mean difference from the first view: ${st.map((s) => s.diff.toFixed(2)).join(' ')}`);
    // `together`: the 8 runs in one view, one label naming them, not blank
    await page.click('#together');
    await sleep(200);
    const one = await page.evaluate(() => window.ldlpgsViewer.layout);
    const texts = await page.locator('.view .label').allTextContents();
    const tags = await page.locator('.view .tag').evaluateAll((ts) => ts.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, shown: e.style.display !== 'none', x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }));
    check('together: a tag over each run, in the view', tags.length === 8 &&
          tags.every((g, k) => g.text === `copy ${k + 1}` && g.shown && g.x > stage.x && g.x < stage.x + stage.width &&
                     g.y > stage.y && g.y < stage.y + stage.height),
          tags.map((g) => `${g.text}${g.shown ? '' : ' (hidden)'} at ${g.x.toFixed(0)},${g.y.toFixed(0)}`).join(', '));
    const [whole] = await regionStats(page, await page.screenshot(), [[0.25, 0.25, 0.5, 0.5]]);
    check('together: one view of the 8 runs', one.views === 1 && one.cols === 1 && one.rows === 1 &&
          texts.length === 1 && texts[0].startsWith('8 runs together') && whole.std > 4,
          `${one.views} views, ${one.cols} x ${one.rows}, label "${texts.join('" "')}", std ${whole.std.toFixed(1)}`);
    await page.click('#together');
    await sleep(200);
    const back = await page.evaluate(() => window.ldlpgsViewer.layout);
    check('and back side by side', back.views === 8 && back.cols === 4 && back.rows === 2,
          `${back.views} views, ${back.cols} x ${back.rows}`);
    // a scene whose data says together starts so
    data.scenes[0].together = true;
    writeFileSync(many, html.slice(0, a) + JSON.stringify(data).replace(/</g, '\\u003c') + html.slice(b));
    await page.goto(pathToFileURL(many).href, { waitUntil: 'load' });
    await page.waitForFunction(() => window.ldlpgsViewer && window.ldlpgsViewer.ready, null, { timeout: 20000 });
    const start = await page.evaluate(() => [window.ldlpgsViewer.layout.views, document.getElementById('together').checked]);
    check('a scene marked together starts in one view', start[0] === 1 && start[1] === true, `${start[0]} views`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
  if (ready && sceneName) { /* the checks and the screenshot on that scene */
    const k = await page.evaluate((name) => [...document.querySelectorAll('#scene option')]
      .findIndex((o) => o.textContent === name), sceneName);
    if (k > 0) {
      await page.selectOption('#scene', String(k));
      await page.waitForFunction(() => window.ldlpgsViewer.ready, null, { timeout: 20000 }).catch(() => {});
    }
    ready = k >= 0 && (await page.evaluate(() => window.ldlpgsViewer.ready));
    check(`scene ${sceneName} shown`, ready);
  }
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
    // pixel statistics of the middle of the frame
    const [stats] = await regionStats(page, shot, [[0.25, 0.25, 0.5, 0.5]]);
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
    await manyRuns(page);
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
