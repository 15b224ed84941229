// viewer.js -- plays the runs of a mechanism side by side (one view per
// run, in a grid as near square as the page allows: grid()) or together in
// one view (arrange(); a convoy), one orbit camera for all, shifted per
// view to follow its run(s): each run is a .glb written by sim/gltf.c
// (embedded in the page as base64, with its per-body error samples), shown
// at the same time t. Bodies are coloured by the largest positional error
// of the joints at them. window.ldlpgsViewer lets tests read the state.
import {
  AmbientLight, Box3, Color, DirectionalLight, Fog, GridHelper, HemisphereLight, Mesh, MeshStandardMaterial,
  PerspectiveCamera, PlaneGeometry, Quaternion, Scene, Sphere, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Error colour scale: log10 of the error from ERR_LO to ERR_HI (m).
const ERR_LO = -6, ERR_HI = -1;
// Views narrower than this (px) take compact labels (page.html's #views.compact).
const COMPACT_VIEW = 420;
const RAMP = [[0.30, 0.58, 0.86], [0.36, 0.74, 0.45], [0.95, 0.80, 0.20], [0.89, 0.47, 0.16], [0.82, 0.14, 0.12]];

function errorColor(e, out) {
  const x = e > 0 ? Math.min(Math.max((Math.log10(e) - ERR_LO) / (ERR_HI - ERR_LO), 0), 1) : 0;
  const f = x * (RAMP.length - 1), i = Math.min(Math.floor(f), RAMP.length - 2), a = f - i;
  const c0 = RAMP[i], c1 = RAMP[i + 1];
  return out.setRGB(c0[0] + a * (c1[0] - c0[0]), c0[1] + a * (c1[1] - c0[1]), c0[2] + a * (c1[2] - c0[2]));
}

function legend() {
  const stops = RAMP.map((c, i) => `rgb(${c.map((v) => Math.round(v * 255)).join(',')}) ${(100 * i) / (RAMP.length - 1)}%`);
  $('legend-bar').style.background = `linear-gradient(to right, ${stops.join(', ')})`;
  const names = { '-6': '1 µm', '-5': '10 µm', '-4': '0.1 mm', '-3': '1 mm', '-2': '1 cm', '-1': '10 cm' };
  $('legend-ticks').innerHTML = '';
  for (let d = ERR_LO; d <= ERR_HI; d++) {
    const s = document.createElement('span');
    s.textContent = names[d];
    $('legend-ticks').appendChild(s);
  }
}

function bytesOf(base64) {
  const bin = atob(base64), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function fmtError(e) {
  const two = (x) => (x >= 100 ? x.toFixed(0) : x.toPrecision(2));
  if (!(e > 0)) return '0 m';
  if (e < 1e-8) return `${e.toExponential(1)} m`;
  if (e < 1e-3) return `${two(e * 1e6)} µm`;
  if (e < 0.1) return `${two(e * 1e3)} mm`;
  return `${two(e)} m`;
}

// A scene with the page's background and lights.
function lit() {
  const scene = new Scene();
  scene.background = new Color(0xe9edf2);
  scene.add(new HemisphereLight(0xffffff, 0x8d8a80, 1.6));
  scene.add(new AmbientLight(0xffffff, 0.3));
  const sun = new DirectionalLight(0xffffff, 2.2);
  sun.position.set(4, 10, 6);
  scene.add(sun);
  return scene;
}

// One run: its three.js scene, the nodes' sampled poses and errors.
async function loadRun(run, sceneData) {
  const loader = new GLTFLoader();
  const gltf = await loader.parseAsync(bytesOf(run.glb).buffer, '');
  const json = gltf.parser.json, nbody = json.nodes.length;
  const nodes = await Promise.all(json.nodes.map((_, i) => gltf.parser.getDependency('node', i)));
  const anim = json.animations && json.animations[0];
  const acc = (k) => gltf.parser.getDependency('accessor', k).then((a) => a.array);
  let times = new Float32Array([0]);
  const pos = [], rot = [];
  if (anim) {
    times = await acc(anim.samplers[0].input);
    for (const ch of anim.channels) {
      const values = await acc(anim.samplers[ch.sampler].output);
      (ch.target.path === 'translation' ? pos : rot)[ch.target.node] = values;
    }
  }
  const error = new Float32Array(bytesOf(run.error).buffer);
  const materials = nodes.map((node) => {
    const list = [];
    node.traverse((o) => {
      if (!o.material) return;
      o.material = o.material.clone();
      o.material.vertexColors = false;
      list.push(o.material);
    });
    return list;
  });
  const scene = lit();
  scene.add(gltf.scene);
  return { run, scene, root: gltf.scene, nodes, nbody, times, pos, rot, error, materials, sceneData,
           fixed: json.nodes.map((n) => json.meshes[n.mesh] && /\(fixed\)$/.test(json.meshes[n.mesh].name)),
           duration: times[times.length - 1], errorNow: 0 };
}

const qa = new Quaternion(), qb = new Quaternion(), tmpColor = new Color();

// Poses and colours of run r at time t (held at its last sample after its end).
function pose(r, t) {
  const n = r.times.length;
  let lo = 0, hi = n - 1;
  if (t >= r.times[hi]) lo = hi;
  else {
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (r.times[mid] <= t) lo = mid; else hi = mid; }
  }
  const k1 = Math.min(lo + 1, n - 1), span = r.times[k1] - r.times[lo];
  const a = span > 0 ? Math.min(Math.max((t - r.times[lo]) / span, 0), 1) : 0;
  let worst = 0;
  for (let i = 0; i < r.nbody; i++) {
    const node = r.nodes[i], p = r.pos[i], q = r.rot[i];
    if (p) node.position.set(p[3 * lo] + a * (p[3 * k1] - p[3 * lo]), p[3 * lo + 1] + a * (p[3 * k1 + 1] - p[3 * lo + 1]),
                             p[3 * lo + 2] + a * (p[3 * k1 + 2] - p[3 * lo + 2]));
    if (q) {
      qa.fromArray(q, 4 * lo);
      qb.fromArray(q, 4 * k1);
      node.quaternion.slerpQuaternions(qa, qb, a);
    }
    const e = r.error[lo * r.nbody + i] || 0;
    if (e > worst) worst = e;
    errorColor(e, tmpColor);
    for (const m of r.materials[i]) m.color.copy(tmpColor);
  }
  r.errorNow = worst;
}

// Where a run is: the median of its dynamic bodies' centres, axis by axis
// (bodies flying off an exploding run do not move it). What `follow` keeps
// in the middle of the run's view.
const axisValues = [[], [], []];
function centre(r, out) {
  for (const a of axisValues) a.length = 0;
  for (let i = 0; i < r.nbody; i++) {
    if (r.fixed[i]) continue;
    const p = r.nodes[i].position;
    axisValues[0].push(p.x); axisValues[1].push(p.y); axisValues[2].push(p.z);
  }
  if (axisValues[0].length === 0) return out.set(0, 0, 0);
  const median = (a) => { a.sort((u, v) => u - v); return a[a.length >> 1]; };
  return out.set(median(axisValues[0]), median(axisValues[1]), median(axisValues[2]));
}

// Where a view is: its run's centre, or the mean of its runs' centres.
const runAt = new Vector3();
function viewCentre(v, out) {
  out.set(0, 0, 0);
  for (const r of v.runs) out.add(centre(r, runAt));
  return out.divideScalar(v.runs.length);
}

const data = JSON.parse($('ldlpgs-data').textContent);
const canvas = document.createElement('canvas');
$('stage').prepend(canvas);
const renderer = new WebGLRenderer({ canvas, antialias: !/[?&]noaa/.test(location.search) });
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
renderer.setScissorTest(true);
const camera = new PerspectiveCamera(40, 1, 0.01, 2000);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = true;
// Frames are drawn only when something changed (time, camera, size): a
// paused page costs nothing.
let dirty = true;
controls.addEventListener('change', () => { dirty = true; });

const state = { runs: [], t: 0, playing: true, speed: 1, duration: 0, frames: 0, ready: false,
                origin: new Vector3(), loading: 0, cols: 1, rows: 1, compact: false, views: [], shared: null };
window.ldlpgsViewer = {
  get ready() { return state.ready; },
  get time() { return state.t; },
  get playing() { return state.playing; },
  get frames() { return state.frames; },
  get duration() { return state.duration; },
  get runs() { return state.runs.map((r) => ({ label: r.run.label, bodies: r.nbody, samples: r.times.length })); },
  get layout() { return { cols: state.cols, rows: state.rows, views: state.views.length }; },
};

// The grid for n views on a w x h stage: about as many columns as square
// views would need (a row of 2 or 3 on a wide page; 8, 4 x 2), then as few
// as fill the rows.
function grid(n, w, h) {
  let cols = Math.max(1, Math.min(n, Math.ceil(Math.sqrt((n * w) / Math.max(h, 1)))));
  const rows = Math.ceil(n / cols);
  cols = Math.ceil(n / rows);
  return { cols, rows };
}

function labels() {
  const box = $('views');
  box.innerHTML = '';
  for (const v of state.views) {
    const d = document.createElement('div');
    d.className = 'view';
    const l = document.createElement('div');
    l.className = 'label';
    d.appendChild(l);
    box.appendChild(d);
    v.label = l;
    v.labelHtml = '';
    /* runs together: a tag over each, its label up to a colon ("tank 3") */
    v.tags = v.runs.length > 1 ? v.runs.map((r) => {
      const tag = document.createElement('div');
      tag.className = 'tag';
      tag.textContent = r.run.label.split(':')[0];
      d.appendChild(tag);
      return tag;
    }) : [];
  }
}

// The tags of view v (w x h) over its runs' centres, as its camera sees them.
const onScreen = new Vector3();
function placeTags(v, w, h) {
  v.runs.forEach((r, k) => {
    centre(r, onScreen).project(v.camera);
    const shown = onScreen.z < 1 && Math.abs(onScreen.x) <= 1 && Math.abs(onScreen.y) <= 1;
    v.tags[k].style.display = shown ? '' : 'none';
    v.tags[k].style.left = `${((onScreen.x + 1) / 2) * w}px`;
    v.tags[k].style.top = `${((1 - onScreen.y) / 2) * h}px`;
  });
}

// A view's label: its run's name and errors, or for runs together their
// count and the worst of their errors; when a run exploded, when and why.
function updateLabels() {
  for (const v of state.views) {
    const one = v.runs.length === 1, r0 = v.runs[0];
    const now = Math.max(...v.runs.map((r) => r.errorNow)), max = Math.max(...v.runs.map((r) => r.run.max_error));
    const name = one ? r0.run.label : `${v.runs.length} runs together`;
    const errors = `error now ${fmtError(now)}, max ${fmtError(max)}`;
    let html = `<div><b>${esc(name)}</b><span class="err">${errors}</span></div>`, title = `${name}  ${errors}`;
    for (const r of v.runs) {
      const run = r.run;
      if (!run.exploded) continue;
      const at = (run.steps * r.sceneData.dt).toFixed(2);
      const bad = `${one ? '' : `${run.label}: `}${state.t >= r.duration ? 'exploded' : 'explodes'} at ${at} s: ${run.why}`;
      html += `<div class="bad">${esc(bad)}</div>`;
      title += `\n${bad}`;
    }
    if (v.labelHtml !== html) {
      v.label.innerHTML = html;
      v.label.title = title; /* the whole label, where a narrow view cuts it */
      v.labelHtml = html;
    }
  }
}

// The views: a run each, side by side, or (the `together` box: a convoy's
// tanks, each at its own place) all runs in one view of their own scene.
function arrange() {
  const together = state.runs.length > 1 && $('together').checked;
  for (const r of state.runs) (together ? state.shared : r.scene).add(r.root);
  const view = (scene, runs) => ({ scene, camera: new PerspectiveCamera(), runs }); /* its camera: the orbit camera, shifted */
  state.views = together ? [view(state.shared, state.runs)] : state.runs.map((r) => view(r.scene, [r]));
  labels();
  frameCamera(); /* it posed the runs at their start */
  state.posedAt = -1;
  dirty = true;
}

// Every sampled body centre of run r near the start (within ten times the
// mechanism's size: an exploded run's last bodies fly off), as f(x, y, z).
function visited(r, centre, radius, f) {
  const reach = 10 * radius + 5;
  for (const p of r.pos) {
      if (!p) continue;
      for (let k = 0; k < p.length; k += 3) {
        const x = p[k], y = p[k + 1], z = p[k + 2];
        if (Math.abs(x - centre.x) < reach && Math.abs(y - centre.y) < reach && Math.abs(z - centre.z) < reach) f(x, y, z);
      }
  }
}

// The box of view v's runs at their start.
function startBox(v) {
  const box = new Box3();
  for (const r of v.runs) {
    pose(r, 0);
    r.root.updateMatrixWorld(true);
    box.union(new Box3().setFromObject(r.root));
  }
  return box;
}

// The camera frames the first view's start; with `follow`, each view's
// camera moves along with its run (its runs' mean centre) from there.
// Each view's ground lies around its own start (a convoy's tanks start
// apart), laid once per scene.
function frameCamera() {
  const box = startBox(state.views[0]), sphere = box.getBoundingSphere(new Sphere());
  const radius = Math.max(sphere.radius, 0.5), many = state.views[0].runs.length > 1;
  /* a margin around one mechanism; runs together (a convoy's line) fill the box's sphere less */
  const dist = ((many ? 1.0 : 1.5) * radius) / Math.sin((camera.fov * Math.PI) / 360);
  controls.target.copy(sphere.center);
  camera.position.copy(sphere.center).add(new Vector3(0.55, 0.45, 1).normalize().multiplyScalar(dist));
  camera.near = dist / 100;
  camera.far = dist * 100;
  camera.updateProjectionMatrix();
  controls.update();
  viewCentre(state.views[0], state.origin);
  for (const v of state.views) {
    if (v.scene.userData.ground) continue;
    const b = startBox(v), s = b.getBoundingSphere(new Sphere());
    ground(v, b, s.center, Math.max(s.radius, 0.5));
    v.scene.fog = new Fog(0xe9edf2, 3 * dist, 12 * dist); // the plane fades out
    v.scene.userData.ground = true;
  }
}

// View v's ground: the plane (and a grid) at its height, or without one a
// grid under the lowest point its runs' bodies' centres reach; square,
// around everything they visit, 1 m cells (5 m past 60 m).
function ground(v, box, c0, radius) {
  const lo = box.min.clone(), hi = box.max.clone();
  for (const r of v.runs) visited(r, c0, radius, (x, y, z) => { lo.min(new Vector3(x, y, z)); hi.max(new Vector3(x, y, z)); });
  const sd = v.runs[0].sceneData, margin = Math.max(2, radius);
  const half = Math.ceil(Math.max(hi.x - lo.x, hi.z - lo.z) / 2 + margin);
  const cell = half > 30 ? 5 : 1, size = 2 * Math.ceil(half / cell) * cell;
  const cx = Math.round((lo.x + hi.x) / 2), cz = Math.round((lo.z + hi.z) / 2);
  const y = sd.ground !== null ? sd.ground : lo.y - 0.05 * radius;
  const grid = new GridHelper(size, size / cell, 0x9aa3ae, 0xc4cbd4);
  grid.position.set(cx, y + 1e-3 * radius, cz);
  v.scene.add(grid);
  if (sd.ground !== null) {
    const plane = new Mesh(new PlaneGeometry(size * 40, size * 40),
                           new MeshStandardMaterial({ color: 0xdde2e8, roughness: 1, metalness: 0 }));
    plane.rotation.x = -Math.PI / 2;
    plane.position.set(cx, y, cz);
    v.scene.add(plane);
  }
}

async function showScene(index) {
  const token = ++state.loading;
  state.ready = false;
  $('message').style.display = '';
  const sd = data.scenes[index];
  const runs = [];
  for (const run of sd.runs) runs.push(await loadRun(run, sd));
  if (token !== state.loading) return;
  state.runs = runs;
  state.shared = lit();
  state.duration = Math.max(...runs.map((r) => r.duration));
  state.t = 0;
  state.posedAt = -1;
  $('caption').textContent = sd.caption || '';
  $('together').checked = !!sd.together;
  $('together-box').style.display = runs.length > 1 ? '' : 'none';
  arrange();
  $('message').style.display = 'none';
  state.ready = true;
}

function resize() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    dirty = true;
  }
  return [w, h];
}

const here = new Vector3();
let last = performance.now();
function tick(now) {
  requestAnimationFrame(tick);
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  if (!state.ready) return;
  if (state.playing) {
    state.t += dt * state.speed;
    if (state.t > state.duration) state.t = 0;
    dirty = true;
  }
  if (state.posedAt !== state.t) {
    for (const r of state.runs) pose(r, state.t);
    state.posedAt = state.t;
  }
  if (controls.update()) dirty = true;
  const [w, h] = resize(), { cols, rows } = grid(state.views.length, w, h), vw = w / cols, vh = h / rows;
  const compact = vw < COMPACT_VIEW;
  if (cols !== state.cols || rows !== state.rows || compact !== state.compact) { /* the labels' grid follows */
    state.cols = cols;
    state.rows = rows;
    state.compact = compact;
    $('views').style.gridTemplateColumns = `repeat(${cols}, 1fr)`;
    $('views').style.gridTemplateRows = `repeat(${rows}, 1fr)`;
    $('views').classList.toggle('compact', compact);
    dirty = true;
  }
  if (!dirty) return;
  dirty = false;
  camera.aspect = vw / vh;
  camera.updateProjectionMatrix();
  const follow = $('follow').checked;
  state.views.forEach((v, i) => {
    v.camera.copy(camera);
    if (follow) v.camera.position.add(viewCentre(v, here).sub(state.origin));
    const x = (i % cols) * vw, y = (rows - 1 - Math.floor(i / cols)) * vh; /* from the bottom left */
    renderer.setViewport(x, y, vw, vh);
    renderer.setScissor(x, y, vw, vh);
    renderer.render(v.scene, v.camera);
    if (v.tags.length) placeTags(v, vw, vh);
  });
  state.frames++;
  if (!sliding) $('slider').value = String(Math.round((1000 * state.t) / (state.duration || 1)));
  $('clock').textContent = `${state.t.toFixed(2)} s / ${state.duration.toFixed(2)} s`;
  updateLabels();
}

let sliding = false;
function controlsUi() {
  $('title').textContent = data.title || 'ldlpgs';
  document.title = data.title || 'ldlpgs viewer';
  data.scenes.forEach((s, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = s.name;
    $('scene').appendChild(o);
  });
  $('scene').style.display = data.scenes.length > 1 ? '' : 'none';
  $('scene').addEventListener('change', () => showScene(Number($('scene').value)).catch(fail));
  $('play').addEventListener('click', () => {
    state.playing = !state.playing;
    $('play').textContent = state.playing ? 'pause' : 'play';
  });
  const slider = $('slider');
  slider.addEventListener('input', () => {
    sliding = true;
    state.t = (Number(slider.value) / 1000) * state.duration;
    dirty = true;
  });
  slider.addEventListener('change', () => { sliding = false; });
  $('speed').addEventListener('change', () => { state.speed = Number($('speed').value); });
  $('follow').addEventListener('change', () => { dirty = true; });
  $('together').addEventListener('change', () => { if (state.ready) arrange(); });
  addEventListener('keydown', (e) => { if (e.key === ' ' && e.target === document.body) { e.preventDefault(); $('play').click(); } });
  legend();
}

function fail(err) {
  console.error('ldlpgs viewer:', err);
  $('message').textContent = `cannot show the run: ${err && err.message ? err.message : err}`;
  $('message').style.display = '';
}

controlsUi();
requestAnimationFrame(tick);
showScene(0).catch(fail);
