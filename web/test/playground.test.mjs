// The playground in a real browser (ctest browser.playground, via
// tests/browser_playground.sh): serves the built page (scripts/build-wasm.sh
// + scripts/build-web.sh) from 127.0.0.1, drives Debian's headless Chromium
// with playwright-core (never a downloaded browser) and checks, against the
// CLI (`redscope run --format json --engine enum`):
//   - a dozen tests of litmus/ and NVIDIA .test files: the page's outcome set
//     and verdict equal the CLI's;
//   - a malformed test shows its located error (line:col, as the CLI) in place;
//   - the model edited (Atomicity dropped) shows the lost update, run and
//     atomicity; a malformed model shows its located error;
//   - explain of the forbidden outcome names the CLI's axioms;
//   - a share link reopens the same test and model;
//   - Stop ends a long run and the engine answers again;
//   - with the server gone, the page reloads from its offline copy and runs.
// Usage: node playground.test.mjs --page DIR --redscope BIN --root REPO
//        [--screenshots DIR] [--only NAME]
// Prints one line per check and 'N passed, N failed'; exit 0, 1, or 77 (skip)
// when the page has no wasm module.

import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') || all[i + 1] === undefined ? true : all[i + 1]]);
  return acc;
}, []));
const pageDir = path.resolve(args.page ?? 'build-wasm/web');
const root = path.resolve(args.root ?? '.');
const redscope = path.resolve(args.redscope ?? 'build/redscope');
const shots = args.screenshots ? path.resolve(args.screenshots) : null;

if (!fs.existsSync(path.join(pageDir, 'redscope.wasm')) || !fs.existsSync(path.join(pageDir, 'redscope.js'))) {
  console.log(`SKIP: no wasm module in ${pageDir} (scripts/build-wasm.sh builds it)`);
  process.exit(77);
}
const nvlitmus = path.resolve(root, '../shared/conformance/nvlitmus');

// The tests compared with the CLI: one or more per kind the issue names.
const CASES = [
  'litmus/classic/MP.litmus',
  'litmus/classic/IRIW+fence.sc-cta.litmus',
  'litmus/scope/atom-cas-cta-2cta-lost.litmus',
  'litmus/red/red-add-u32-two-ctas.litmus',
  'litmus/sured/b-and-or-two-orders.litmus',
  'litmus/multimem/commit-without-wait.litmus',
  'litmus/sass/MP+membar.gl-2gpu.litmus',
  'litmus/pto/hazard-no-barrier.litmus',
  'litmus/proxy/alias-mp-cta-nofence.litmus',
  'litmus/vector/vec-red-two-threads-per-element.litmus',
  'litmus/sm6x/store-vs-atom-shared-sm60-lost.litmus',
  'litmus/cuda/LU+atomicAdd_block-2cta.litmus',   // CUDA: nvcc's PTX compiled ahead
  `${nvlitmus}/SB_cta.test`,
  `${nvlitmus}/MP_gpu.test`,   // a template: 18 tests, one per row
];

// ---- checks ----------------------------------------------------------------------

let passed = 0;
let failed = 0;
const timings = [];
function check(ok, what, detail = '') {
  if (ok) { passed++; console.log(`ok: ${what}`); } else { failed++; console.log(`FAILED: ${what}${detail ? `\n  ${detail}` : ''}`); }
  return ok;
}

function cli(argv) {
  const t0 = performance.now();
  const r = spawnSync(redscope, argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { ...r, ms: performance.now() - t0 };
}

const outcomeKey = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
const outcomeSet = (outcomes) => [...new Set(outcomes.map(outcomeKey))].sort();
const sameSet = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// ---- a static server on 127.0.0.1 (closed for the offline check) -----------------------

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.cat': 'text/plain', '.litmus': 'text/plain',
  '.test': 'text/plain', '.png': 'image/png' };
function serve(dir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = path.join(dir, decodeURIComponent(url.pathname));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- the page --------------------------------------------------------------------------

const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redscope-chromium-'));
const started = performance.now();
const server = await serve(pageDir);
const base = `http://127.0.0.1:${server.address().port}/`;
const context = await chromium.launchPersistentContext(userDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1440, height: 960 },
});
const page = context.pages()[0] ?? await context.newPage();
// The page asks before dropping edits (confirm, beforeunload): yes, except
// where a check answers itself (page.once before the default handler runs).
page.on('dialog', (d) => { if (page.listenerCount('dialog') === 1) d.accept().catch(() => {}); });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));

const body = (key) => page.evaluate((k) => document.body.dataset[k] ?? null, key);
async function waitIdle(timeout = 60000) {
  await page.waitForFunction(() => !['running', 'loading'].includes(document.body.dataset.state) &&
    document.body.dataset.loaded === 'yes', null, { timeout });
}
async function load(url) {
  await page.goto(url);
  await waitIdle();
}
async function setTest(file, text) {
  await page.setInputFiles('#open-file', { name: path.basename(file), mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction((n) => document.querySelector('#file-name').value === n, path.basename(file));
}
async function runPage() {
  const t0 = performance.now();
  await page.click('#run');
  await page.waitForFunction(() => document.body.dataset.state !== 'running' && !document.querySelector('#run').disabled,
    null, { timeout: 60000 });
  return performance.now() - t0;
}
// The page's results: every row of a template (the row menu), each as
// {test, holds, outcomes} read from the table and the verdict.
async function pageResults() {
  const rows = await page.$$eval('#row-select option', (os) => os.map((o) => o.value));
  const out = [];
  for (const value of rows.length > 1 ? rows : [null]) {
    if (value !== null) await page.selectOption('#row-select', value);
    out.push(await page.evaluate(() => ({
      outcomes: [...document.querySelectorAll('#outcomes tr[data-outcome]')].map((tr) => JSON.parse(tr.dataset.outcome)),
      holds: document.querySelector('#verdict .pill')?.textContent === 'Yes',
      rows: document.querySelectorAll('#outcomes tr[data-outcome]').length,
    })));
  }
  return out;
}

async function compareWithCli(file) {
  const abs = path.resolve(root, file);
  const name = path.relative(root, abs);
  if (!fs.existsSync(abs)) { console.log(`note: ${name} is absent (../shared not beside the tree): not compared`); return; }
  if (file.startsWith('litmus/')) {
    await page.selectOption('#examples', file.slice('litmus/'.length));
    await page.waitForFunction((n) => document.querySelector('#file-name').value === n, path.basename(file));
  } else {
    await setTest(file, fs.readFileSync(abs, 'utf8'));
  }
  const ms = await runPage();
  const expected = JSON.parse(cli(['run', '--format', 'json', '--engine', 'enum', '-j', '1', abs]).stdout);
  const cliMs = cli(['run', '-q', '--engine', 'enum', '-j', '1', abs]).ms;
  const got = await pageResults();
  const ok = got.length === expected.length && expected.every((e, k) =>
    sameSet(outcomeSet(e.outcomes), outcomeSet(got[k].outcomes)) && e.condition?.holds === got[k].holds);
  check(ok, `${name}: outcomes and verdict as the CLI (${expected.length} test${expected.length > 1 ? 's' : ''}, ` +
    `${expected.reduce((n, e) => n + e.outcomes.length, 0)} outcomes)`,
  ok ? '' : `CLI ${JSON.stringify(expected.map((e) => [e.condition?.holds, outcomeSet(e.outcomes)]))}\n  page ${JSON.stringify(got.map((g) => [g.holds, outcomeSet(g.outcomes)]))}`);
  timings.push({ name, page: ms, call: +(await body('ms')), cli: cliMs });
}

async function malformedTest() {
  const bad = fs.readFileSync(path.join(root, 'litmus/classic/MP.litmus'), 'utf8').replace('ld.weak r1, x', 'ld.foo r1, x');
  const tmp = path.join(userDir, 'MP-bad.litmus');
  fs.writeFileSync(tmp, bad);
  const err = cli(['run', tmp]).stderr.match(/:(\d+):(\d+): error: (.*)/);
  await setTest(tmp, bad);
  await runPage();
  const at = await body('error');
  const msg = await page.textContent('#test-editor .err-msg').catch(() => '');
  const marked = await page.$$eval('#test-editor mark.err-at', (m) => m.length);
  check(err && at === `${err[1]}:${err[2]}` && marked === 1 && msg.includes(err[3]),
    `a malformed test shows its located error in place (${msg.replace(/^\s*\S+\s*/, '').slice(0, 70)})`,
    `CLI ${err?.[0]}; page ${at}, ${marked} marks, '${msg}'`);
  if (shots) await page.screenshot({ path: path.join(shots, 'playground-error.png') });
}

async function modelWithoutAtomicity() {
  const file = 'litmus/red/red-defaults-relaxed-gpu.litmus';
  await page.selectOption('#examples', file.slice(7));
  await page.click('#edit-model');
  await page.waitForFunction(() => document.querySelector('#model-text').value.includes('Atomicity'));
  const cat = fs.readFileSync(path.join(root, 'models/ptx.cat'), 'utf8');
  const noAtomicity = cat.split('\n').filter((l) => !l.includes('as Atomicity')).join('\n');
  // A malformed model first: its error is located in the cat editor.
  await page.fill('#model-text', `${noAtomicity}\nlet broken = rf ;; co\n`);
  await page.click('#check-model');
  await page.waitForFunction(() => document.body.dataset.modelError, null, { timeout: 20000 });
  const catFile = path.join(userDir, 'broken.cat');
  fs.writeFileSync(catFile, `${noAtomicity}\nlet broken = rf ;; co\n`);
  const catErr = cli(['run', '--model', catFile, file]).stderr.match(/:(\d+):(\d+): error/);
  const modelAt = await body('modelError');
  const status = await page.textContent('#model-status');
  check(catErr && modelAt === `${catErr[1]}:${catErr[2]}` && await page.$('#model-editor mark.err-at') &&
    (status.match(/error:/g) ?? []).length === 1,
  `a malformed model shows its located error in the cat editor (${modelAt}), "error:" once`,
  `CLI ${catErr?.[0]}, page ${modelAt}, status '${status}'`);
  await page.fill('#model-text', noAtomicity);
  await page.click('#check-model');
  await page.waitForFunction(() => !document.body.dataset.modelError);
  const noAtFile = path.join(userDir, 'no-atomicity.cat');
  fs.writeFileSync(noAtFile, noAtomicity);
  await runPage();
  const expected = JSON.parse(cli(['run', '--format', 'json', '--engine', 'enum', '--model', noAtFile, file]).stdout)[0];
  const [got] = await pageResults();
  check(sameSet(outcomeSet(expected.outcomes), outcomeSet(got.outcomes)) && got.outcomes.some((o) => o.x === '1'),
    `without Atomicity the page finds the lost update x=1 (${got.outcomes.length} outcomes, as the CLI)`);
  await page.click('[data-tab=atomicity]');
  await page.click('#atomicity-run');
  await page.waitForFunction(() => document.body.dataset.atomicity || document.body.dataset.error, null, { timeout: 30000 });
  check(await body('atomicity') === 'lost' && (await page.textContent('#atomicity-out')).includes('LOST'),
    'atomicity reports the lost update under the edited model (the enumerator answers it)',
    await page.textContent('#message'));
  return noAtomicity;
}

async function shareLink(noAtomicity) {
  await page.fill('#test-text', (await page.inputValue('#test-text')) + '\n(* shared *)\n');
  await page.click('#share');
  await page.waitForFunction(() => document.body.dataset.shared);
  const link = page.url();
  const text = await page.inputValue('#test-text');
  const other = await context.newPage();
  await other.goto(link);
  await other.waitForFunction(() => document.body.dataset.loaded === 'yes' && document.body.dataset.state !== 'running', null, { timeout: 60000 });
  const st = await other.evaluate(() => ({
    test: document.querySelector('#test-text').value, file: document.querySelector('#file-name').value,
    model: document.querySelector('#model-select').value, cat: document.querySelector('#model-text').value,
    rows: document.querySelectorAll('#outcomes tr[data-outcome]').length,
    lost: [...document.querySelectorAll('#outcomes tr[data-outcome]')].some((tr) => JSON.parse(tr.dataset.outcome).x === '1'),
  }));
  check(link.includes('#z=') && st.test === text && st.file === 'red-defaults-relaxed-gpu.litmus' &&
    st.model === 'mine' && st.cat === noAtomicity && st.lost,
  `a share link (${link.length - base.length} characters) reopens the test and the edited model, and runs it`,
  JSON.stringify({ ...st, cat: st.cat.length }));
  await other.close();
}

async function explainForbidden() {
  await page.selectOption('#examples', 'scope/red-gpu-2cta-safe.litmus');
  await page.selectOption('#model-select', '');
  await runPage();
  await page.click('[data-tab=explain]');
  await page.fill('#explain-outcome', 'x=1');
  await page.click('#explain-run');
  await page.waitForFunction(() => document.body.dataset.explain, null, { timeout: 30000 });
  if (await page.$('#explain-out .graph')) await page.waitForSelector('#explain-out .graph svg', { timeout: 20000 });
  const expected = JSON.parse(cli(['explain', '--format', 'json', 'litmus/scope/red-gpu-2cta-safe.litmus', '--outcome', 'x=1']).stdout);
  const text = await page.textContent('#explain-out');
  check(await body('explain') === expected.verdict && expected.axioms.every((a) => text.includes(a)),
    `explain x=1: ${expected.verdict}, axioms ${expected.axioms.join(', ')} (as the CLI)`);
  // As much as the CLI says: each breach's derivation (why the accesses are
  // morally strong) and its cycle drawn with its own edges, not rf alone.
  const drawn = await page.$$eval('#explain-out .graph svg .edge title', (ts) => ts.length);
  const labels = await page.$$eval('#explain-out .graph svg .edge text', (ts) => ts.map((t) => t.textContent));
  check(/morally strong because/.test(text) && drawn > 0 && labels.some((l) => l !== 'rf'),
    `explain says why the accesses are morally strong and draws the cycle (${[...new Set(labels)].join(', ')})`,
    text.slice(0, 300));
  if (shots) await page.screenshot({ path: path.join(shots, 'playground-explain.png') });
}

async function witness() {
  await page.selectOption('#examples', 'classic/MP.litmus');
  await runPage();
  await page.click('#outcomes tr[data-index="2"]');
  await page.waitForFunction(() => document.body.dataset.witness === '2', null, { timeout: 30000 });
  const svg = await page.$('#witness-graph svg');
  const drawn = await page.textContent('#witness-graph');
  check(!!svg && drawn.includes('st.release.gpu') && /\brf\b/.test(drawn),
    'a witness is drawn as an event graph with its rf edges (Graphviz in wasm)');
  // Its labels do not fall on one another (MP's two rf cross).
  const boxes = await page.$$eval('#witness-graph svg .edge text', (ts) => ts.map((t) => {
    const b = t.getBBox();
    return [b.x, b.y, b.width, b.height];
  }));
  const overlap = boxes.some((a, i) => boxes.some((b, j) => i < j && a[0] < b[0] + b[2] &&
    b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]));
  check(boxes.length >= 2 && !overlap, `the witness's ${boxes.length} edge labels do not overlap`,
    JSON.stringify(boxes));
  // Saved as SVG and as DOT (herd-www saves its pictures).
  const saved = {};
  for (const [label, kind] of [['Save SVG', 'svg'], ['Save DOT', 'dot']]) {
    const [download] = await Promise.all([page.waitForEvent('download'),
      page.click(`#witness-graph button:has-text("${label}")`)]);
    saved[kind] = fs.readFileSync(await download.path(), 'utf8');
  }
  check(saved.svg.startsWith('<svg') && saved.svg.includes('st.release.gpu') &&
    /^digraph/.test(saved.dot) && saved.dot.includes('rf'),
    `the witness saves as SVG (${saved.svg.length} bytes) and DOT (${saved.dot.length} bytes)`);
  // Every execution of the outcome, each drawn (MP's r0=1, r1=1: one).
  await page.click('#executions-all');
  await page.waitForFunction(() => document.body.dataset.executions, null, { timeout: 20000 });
  check(await body('executions') === '1' && !!await page.$('#executions-graph svg'),
    'every execution of MP\'s outcome r0=1, r1=1 is listed and drawn (one)');
  // herd7's text output, as `redscope run` prints it (the Time line aside).
  await page.click('[data-tab=text]');
  await page.waitForFunction(() => document.body.dataset.text === 'yes', null, { timeout: 20000 });
  const text = await page.textContent('#text-out');
  const want = cli(['run', '--engine', 'enum', 'litmus/classic/MP.litmus']).stdout;
  const noTime = (t) => t.split('\n').filter((l) => !l.startsWith('Time ')).join('\n').trim();
  check(noTime(text) === noTime(want), 'the Text tab shows herd7\'s output, as `redscope run` prints it',
    `page:\n${text}\ncli:\n${want}`);
  await page.click('[data-tab=witness]');
  if (shots) await page.screenshot({ path: path.join(shots, 'playground.png') });
}

// IRIW with `readers` readers, all observed: 4^readers outcomes (8: 65,536;
// CLI 0.3 s, the module several seconds).
function iriwText(readers) {
  const head = ['P0@cta 0,gpu 0', 'P1@cta 1,gpu 0'];
  const c0 = ['st.relaxed.gpu x, 1', 'st.relaxed.gpu y, 1'];
  const c1 = ['', ''];
  const cond = [];
  for (let k = 0; k < readers; k++) {
    cond.push(`P${k + 2}:r0 == 1 /\\ P${k + 2}:r1 == 0`);
    head.push(`P${k + 2}@cta ${k + 2},gpu 0`);
    c0.push(`ld.relaxed.gpu r0, ${k % 2 ? 'y' : 'x'}`);
    c1.push(`ld.relaxed.gpu r1, ${k % 2 ? 'x' : 'y'}`);
  }
  return `PTX IRIW-${readers}\n"SLOW: long enough to be stopped."\n{\nx=0; y=0;\n}\n ${head.join(' | ')} ;\n ${c0.join(' | ')} ;\n ${c1.join(' | ')} ;\n` +
    `exists (${cond.join(' /\\ ')})\n`;
}

async function stop() {
  await setTest('IRIW-8.litmus', iriwText(8));
  const setMax = (n) => page.evaluate((v) => { document.querySelector('#max-outcomes').value = v; }, n);
  await setMax('1000000');
  await page.click('#run');
  await page.waitForTimeout(400);
  const running = await body('state') === 'running';
  const progress = await page.textContent('#progress span');
  await page.click('#stop');
  await page.waitForFunction(() => document.body.dataset.state === 'stopped', null, { timeout: 5000 }).catch(() => {});
  const stopped = await body('state') === 'stopped';
  await setMax('10000');
  await page.selectOption('#examples', 'classic/MP.litmus');
  await page.waitForSelector('#run:not([disabled])');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('ready'), null, { timeout: 30000 });
  await runPage();
  const [after] = await pageResults();
  check(running && stopped && after.outcomes.length === 3,
    `Stop ends a long run (progress shown: '${progress.trim()}') and a fresh engine runs the next test`,
    JSON.stringify({ running, stopped, after: after.outcomes.length }));
}

// ---- issue 49: a large run, notes, PTO witnesses, stale state, layout, a11y ----

// IRIW-8's 65,536 outcomes arrive without a main-thread task over 200 ms
// (longtask entries), into a virtualised table; a witness asks with the run's
// limit (the error was "more than 10000 outcomes").
async function bigRun() {
  await setTest('IRIW-8.litmus', iriwText(8));
  await page.evaluate(() => {
    document.querySelector('#max-outcomes').value = '100000';
    window.longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); })
      .observe({ type: 'longtask' });
  });
  const t0 = performance.now();
  await page.click('#run');
  await page.waitForFunction(() => document.body.dataset.rows === '65536', null, { timeout: 120000 });
  const ms = performance.now() - t0;
  await page.waitForTimeout(300);
  const { tasks, rows, count } = await page.evaluate(() => ({
    tasks: window.longTasks, rows: document.querySelectorAll('#outcomes tr[data-index]').length,
    count: document.querySelector('#verdict').textContent.match(/([\d,]+) outcomes/)?.[1],
  }));
  const worst = Math.max(0, ...tasks);
  check(worst < 200 && rows < 400 && count === '65536',
    `IRIW-8's 65,536 outcomes arrive with no main-thread task over 200 ms (longest ${worst.toFixed(0)} ms,` +
    ` ${tasks.length} over 50 ms; ${rows} rows in the DOM; ${(ms / 1000).toFixed(1)} s)`,
    JSON.stringify({ tasks, rows, count }));
  // The last outcome is reachable by scrolling, and its witness draws.
  await page.evaluate(() => { const w = document.querySelector('#table-wrap'); w.scrollTop = w.scrollHeight; });
  await page.waitForSelector('#outcomes tr[data-index="65535"]', { timeout: 5000 });
  // A DOM click on the row (no hit test: the virtualised rows are redrawn
  // as the view scrolls).
  await page.$eval('#outcomes tr[data-index="65535"] td', (td) => td.click());
  await page.waitForFunction(() => document.body.dataset.witness === '65535' || document.body.dataset.error,
    null, { timeout: 60000 }).catch(() => {});
  check(await body('witness') === '65535' && !!await page.$('#witness-graph svg'),
    'the witness of outcome 65,536 draws (the kept witness, with the run\'s outcome limit)',
    JSON.stringify({ witness: await body('witness'), state: await body('state'),
      message: await page.textContent('#message') }));
  await page.evaluate(() => { document.querySelector('#max-outcomes').value = '10000'; });
}

// IRIW-10 with the limit raised needs more than the module's 2 GiB: the page
// says so and names the command line (was "std::bad_alloc" alone).
async function outOfMemory() {
  await setTest('IRIW-10.litmus', iriwText(10));
  await page.evaluate(() => { document.querySelector('#max-outcomes').value = '2000000'; });
  const t0 = performance.now();
  await page.click('#run');
  await page.waitForFunction(() => !['running'].includes(document.body.dataset.state), null,
    { timeout: 180000 });
  const msg = await page.textContent('#message');
  check(/out of memory/.test(msg) && /2 GiB/.test(msg) && /redscope run/.test(msg),
    `IRIW-10 past the module's memory says so: 2 GiB, and the command line lists it ` +
    `(${((performance.now() - t0) / 1000).toFixed(1)} s)`, msg);
  await page.evaluate(() => { document.querySelector('#max-outcomes').value = '10000'; });
  await page.waitForFunction(() => !document.querySelector('#run').disabled, null, { timeout: 30000 });
}

// PTO: the CLI's notes are shown, and a row's witness is its interleaving.
async function ptoNotesAndWitness() {
  const file = 'litmus/pto/hazard-no-barrier.litmus';
  await pickExample(file.slice(7));
  await runPage();
  const [expected] = JSON.parse(cli(['run', '--format', 'json', file]).stdout);
  const notes = await page.textContent('#verdict .notes').catch(() => '');
  check(expected.notes.length > 0 && expected.notes.every((n) => notes.includes(n)),
    `the CLI's notes are shown (${expected.notes.length}: ${expected.notes[0].slice(0, 50)}…)`);
  await page.click('#outcomes tr[data-index="0"]');
  await page.waitForFunction(() => document.body.dataset.witness === '0', null, { timeout: 20000 });
  const text = await page.textContent('#witness-text');
  check(expected.witnesses[0].choices.every((c) => text.includes(c)) && await page.isHidden('#message'),
    'a PTO outcome\'s witness shows its interleaving (no "no such outcome" error)', text);
}

// What is shown always belongs to the test in the editor.
// Picks an example and waits until the editor holds it.
async function pickExample(rel) {
  await page.selectOption('#examples', rel);
  await page.waitForFunction((n) => document.querySelector('#file-name').value === n &&
    !document.querySelector('#run').disabled, path.basename(rel));
}

async function staleState() {
  await pickExample('classic/MP.litmus');
  // A paste over the whole test is a new test: its name, no #example=.
  const sb = fs.readFileSync(path.join(root, 'litmus/classic/SB.litmus'), 'utf8');
  await page.evaluate((text) => {
    const ta = document.querySelector('#test-text');
    ta.focus();
    ta.setSelectionRange(0, ta.value.length);
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true }));
    ta.value = text;
    ta.dispatchEvent(new Event('input'));
  }, sb);
  await page.waitForFunction(() => document.querySelector('#file-name').value === 'SB.litmus', null,
    { timeout: 2000 }).catch(() => {});
  const st = await page.evaluate(() => ({ file: document.querySelector('#file-name').value,
    hash: location.hash, example: document.querySelector('#examples').value }));
  check(st.file === 'SB.litmus' && !st.hash.includes('MP') && st.example === '',
    'a pasted test takes its own name (SB.litmus) and the link no longer names MP', JSON.stringify(st));
  // An error's box goes with the edit that fixes it; the status says a run runs.
  await page.fill('#test-text', sb.replace('ld.weak r1', 'ld.foo r1'));
  await runPage();
  const shown = await page.isVisible('#message');
  await page.fill('#test-text', sb);
  const gone = await page.isHidden('#message');
  const status = page.evaluate(() => new Promise((resolve) => {
    const seen = [];
    const o = new MutationObserver(() => seen.push(document.querySelector('#status').textContent));
    o.observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true });
    setTimeout(() => { o.disconnect(); resolve(seen); }, 1500);
  }));
  await runPage();
  const seen = await status;
  check(shown && gone && seen.some((t) => /running/.test(t)),
    'an error\'s box goes when the test is edited; the status says "running" during a run',
    JSON.stringify({ shown, gone, seen }));
  // Stop clears the old verdict.
  await setTest('IRIW-8.litmus', iriwText(8));
  await page.evaluate(() => { document.querySelector('#max-outcomes').value = '1000000'; });
  await page.click('#run');
  await page.waitForTimeout(300);
  await page.click('#stop');
  await page.waitForFunction(() => document.body.dataset.state === 'stopped', null, { timeout: 5000 });
  check(await page.isHidden('#verdict') && await page.isHidden('#outcomes'),
    'after Stop no verdict or table of an earlier run stays');
  await page.evaluate(() => { document.querySelector('#max-outcomes').value = '10000'; });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('ready'), null,
    { timeout: 30000 });
  // Edits are not dropped without asking: the example menu asks first.
  await pickExample('classic/MP.litmus');
  await page.fill('#test-text', `${sb}\n// my edit\n`);
  let asked = '';
  page.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await page.selectOption('#examples', 'classic/SB.litmus');
  await page.waitForTimeout(200);
  const kept = (await page.inputValue('#test-text')).includes('// my edit');
  check(/edits/.test(asked) && kept, `changing the example over edits asks first ("${asked.slice(0, 60)}…")`);
  // A damaged link opens the default example with the reason, not an empty editor.
  await page.goto(`${base}?damaged#z=AAAA-not-deflate`);
  await waitIdle();
  const damaged = await page.evaluate(() => ({ text: document.querySelector('#test-text').value,
    msg: document.querySelector('#message').textContent }));
  check(damaged.text.startsWith('PTX MP') && /damaged/.test(damaged.msg),
    `a damaged share link says so over the default example (${damaged.msg.slice(0, 50)}…)`);
}

// axe-core (npm, web/node_modules) on every tab: no WCAG 2.1 A/AA violation.
async function accessibility() {
  await pickExample('scope/atom-cas-cta-2cta-lost.litmus');
  await runPage();
  await page.click('#outcomes tr[data-index="0"]');
  await page.waitForFunction(() => document.body.dataset.witness === '0', null, { timeout: 20000 });
  await page.addScriptTag({ path: path.join(root, 'web/node_modules/axe-core/axe.min.js') });
  const axe = () => page.evaluate(async () => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes[0]?.target}`);
  });
  const found = [];
  for (const tab of ['witness', 'explain', 'atomicity', 'text', 'campaign']) {
    await page.click(`[data-tab=${tab}]`);
    if (tab === 'text') await page.waitForFunction(() => document.body.dataset.text, null, { timeout: 20000 });
    if (tab === 'campaign') {
      await page.selectOption('#campaign-folder', 'words');
      await page.click('#campaign-run');
      await page.waitForFunction(() => document.body.dataset.campaign, null, { timeout: 60000 });
    }
    if (tab === 'explain') {
      await page.click('#explain-condition');
      await page.waitForFunction(() => document.body.dataset.explain, null, { timeout: 30000 });
    }
    if (tab === 'atomicity') {
      await page.click('#atomicity-run');
      await page.waitForFunction(() => document.body.dataset.atomicity, null, { timeout: 30000 });
    }
    for (const v of await axe()) found.push(`${tab}: ${v}`);
  }
  check(found.length === 0, 'axe-core finds no WCAG 2.1 A/AA violation on any tab', found.join('\n  '));
  // The tabs follow the WAI-ARIA pattern: arrow keys move and select.
  await page.focus('[data-tab=witness]');
  await page.click('[data-tab=witness]');
  await page.keyboard.press('ArrowRight');
  const tabs = await page.evaluate(() => ({
    focused: document.activeElement?.dataset.tab,
    selected: document.querySelector('[aria-selected=true]')?.dataset.tab,
    panel: !document.querySelector('#tab-explain').hidden,
    open: document.querySelector('#open-file-button')?.tabIndex,
  }));
  check(tabs.focused === 'explain' && tabs.selected === 'explain' && tabs.panel && tabs.open >= 0,
    'ArrowRight moves to the Explain tab and shows it; "Open file…" is in the Tab order', JSON.stringify(tabs));
}

// At 390 px (a phone) nothing is wider than the screen, on every tab, and
// the header does not stay over the page.
async function narrow() {
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = [];
  for (const tab of ['witness', 'explain', 'atomicity', 'text', 'campaign']) {
    await page.click(`[data-tab=${tab}]`);
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    if (w > 390) wide.push(`${tab}: ${w} px`);
  }
  const header = await page.evaluate(() => {
    const h = document.querySelector('header');
    return { position: getComputedStyle(h).position, height: h.getBoundingClientRect().height };
  });
  await page.setViewportSize({ width: 1440, height: 960 });
  const atom = await page.evaluate(() => {
    const t = document.querySelector('#tab-atomicity');
    return t.scrollWidth - t.clientWidth;
  });
  check(wide.length === 0 && (header.position !== 'sticky' || header.height <= 84) && atom <= 0,
    `at 390 px the page is no wider than the screen and the header scrolls away (${header.height.toFixed(0)} px,` +
    ` ${header.position}); the Atomicity table stays in its panel`,
    JSON.stringify({ wide, header, atom }));
}

// A model's cat file read in the page, and the files it includes; a model of
// one's own includes a shipped one (herd7's libdir).
async function modelView() {
  await pickExample('sass/MP+membar.gl-2gpu.litmus');
  await page.selectOption('#model-select', 'sass-sm30.cat');
  await page.click('#view-model');
  await page.waitForFunction(() => document.body.dataset.modelView === 'sass-sm30.cat');
  const sass = await page.textContent('#model-view-text');
  await page.click('#model-view-includes button[data-include="ptx.cat"]');
  await page.waitForFunction(() => document.body.dataset.modelView === 'ptx.cat');
  const ptx = await page.textContent('#model-view-text');
  check(sass === fs.readFileSync(path.join(root, 'models/sass-sm30.cat'), 'utf8') &&
    ptx === fs.readFileSync(path.join(root, 'models/ptx.cat'), 'utf8'),
  'a model reads in the page (sass-sm30.cat), and the file it includes opens from it (ptx.cat)');
  await page.click('#model-view-close');
  await pickExample('classic/MP.litmus');
  await page.selectOption('#model-select', '');
  await page.click('#edit-model');
  await page.waitForFunction(() => document.querySelector('#model-text').value.includes('Atomicity'));
  await page.fill('#model-text', 'include "ptx.cat"\n');
  await runPage();
  const [got] = await pageResults();
  const [want] = JSON.parse(cli(['run', '--format', 'json', '--engine', 'enum', 'litmus/classic/MP.litmus']).stdout);
  check(sameSet(outcomeSet(got.outcomes), outcomeSet(want.outcomes)) && await page.isHidden('#message'),
    `a model of one's own that includes "ptx.cat" runs (${got.outcomes.length} outcomes, as ptx)`,
    await page.textContent('#message'));
  await page.click('#reset-model');
}

// CUDA: an example runs from the PTX shipped with the page, its C++ shown
// beside that PTX; an edited CUDA test says the page has no nvcc.
async function cuda() {
  await pickExample('cuda/LU+atomicAdd_block-2cta.litmus');
  await runPage();
  await page.click('#compiled summary');
  const shown = await page.textContent('#compiled-out');
  const [want] = JSON.parse(cli(['run', '--format', 'json', 'litmus/cuda/LU+atomicAdd_block-2cta.litmus']).stdout);
  check(want.compiled.every((c) => shown.includes(c.source.trim())) && shown.includes('atom.global.cta.add.u32'),
    `a CUDA example shows each thread's C++ beside nvcc's PTX (${want.compiled.length} threads)`);
  const text = await page.inputValue('#test-text');
  await page.fill('#test-text', text.replace('atomicAdd_block(x, 1)', 'atomicAdd_block(x, 2)'));
  await runPage();
  const msg = await page.textContent('#message');
  check(/no nvcc/.test(msg) && /redscope run/.test(msg),
    `an edited CUDA test says why it cannot run here (${msg.slice(msg.indexOf('error:'), msg.indexOf('error:') + 60)}…)`);
}

// A campaign (herd-www's): a folder of litmus/ against its expected.csv,
// rows marked; the CLI's `run --expect` over the same folder agrees.
async function campaign() {
  await page.click('[data-tab=campaign]');
  await page.selectOption('#campaign-folder', 'sm6x');
  await page.click('#campaign-run');
  await page.waitForFunction(() => document.body.dataset.campaign, null, { timeout: 120000 });
  const [pass, fail] = (await body('campaign')).split('/').map(Number);
  const rows = await page.$$eval('#campaign-table tbody tr', (trs) => trs.map((tr) => tr.className));
  const want = cli(['run', '-q', '--expect', 'litmus/sm6x/expected.csv', 'litmus/sm6x']).stdout
    .match(/(\d+) passed, (\d+) failed/);
  check(want && pass === +want[1] && fail === +want[2] && rows.length === pass + fail &&
    rows.every((c) => c === 'pass'),
  `a campaign over litmus/sm6x: ${pass} passed, ${fail} failed, rows marked (as run --expect)`,
  JSON.stringify({ pass, fail, rows, want: want?.[0] }));
}

async function offline() {
  await page.waitForFunction(() => document.body.dataset.offline === 'ready', null, { timeout: 30000 });
  // Wait until the install finished caching (controller present after claim()).
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  const closed = new Promise((r) => server.close(r));
  server.closeAllConnections();   // chromium's keep-alive connections would hold close()
  await closed;
  // A query makes it a new document (a new fragment alone would not reload).
  await page.goto(`${base}?offline#example=classic/SB.litmus`);
  await waitIdle();
  await runPage();
  const [got] = await pageResults();
  check(got.outcomes.length > 0 && await body('state') === 'done',
    `with the server gone the page reloads from its offline copy and runs (${got.outcomes.length} outcomes)`);
}

try {
  await load(base);
  const loadMs = performance.now() - started;
  check(await body('state') === 'done' || await body('state') === 'ready', `the page loads and its engine starts (${(loadMs / 1000).toFixed(1)} s)`);
  const only = args.only;
  const steps = [['cases', async () => { for (const f of CASES) await compareWithCli(f); }],
    ['witness', witness], ['error', malformedTest], ['explain', explainForbidden],
    ['model', async () => shareLink(await modelWithoutAtomicity())], ['stop', stop],
    ['big', bigRun], ['memory', outOfMemory], ['pto', ptoNotesAndWitness], ['stale', staleState], ['a11y', accessibility],
    ['narrow', narrow], ['campaign', campaign], ['modelview', modelView], ['cuda', cuda], ['offline', offline]];
  for (const [name, fn] of steps) {
    if (only && only !== name) continue;
    const t0 = performance.now();
    try { await fn(); } catch (e) { check(false, `${name}: ${e.message.split('\n')[0]}`); }
    console.log(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  check(pageErrors.length === 0, 'no uncaught error on the page', pageErrors.join('; '));
} finally {
  await context.close();
  server.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}

if (timings.length) {
  console.log('times (ms): page = click to table, call = the worker\'s redscope_call, cli = the CLI process:');
  for (const t of timings) console.log(`  ${t.name}: page ${t.page.toFixed(0)}, call ${t.call.toFixed(1)}, cli ${t.cli.toFixed(0)}`);
}
console.log(`browser test: ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
