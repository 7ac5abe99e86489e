// The playground page: wires the editors, the engine worker, the outcome
// table, the witness graphs (Graphviz in wasm, vendored @viz-js/viz), explain,
// atomicity, examples and share links. docs/playground.md describes it.

import { Editor } from './editor.js';
import { dialectOf, DIALECT_NAMES, escapeHtml, tokenize } from './highlight.js';
import { Engine } from './engine.js';
import { encodeState, decodeFragment } from './share.js';
import { evalCondition, conditionAsOutcome } from './condition.js';
import { withWitnessEdges } from './witness.js';
import { OutcomeTable } from './table.js';

const $ = (sel) => document.querySelector(sel);
const MY_MODEL_FILE = 'mine.cat';
const DEFAULT_EXAMPLE = 'classic/MP.litmus';

const ui = {
  status: $('#status'), run: $('#run'), stop: $('#stop'), share: $('#share'),
  examples: $('#examples'), fileName: $('#file-name'), dialect: $('#dialect'),
  modelSelect: $('#model-select'), modelPane: $('#model-pane'), modelStatus: $('#model-status'),
  message: $('#message'), verdict: $('#verdict'), outcomes: $('#outcomes'),
  rows: $('#rows'), rowSelect: $('#row-select'), progress: $('#progress'),
};

const state = {
  models: [],            // shipped model names, from the module
  modelBase: null,       // the shipped model the cat editor's copy started from
  modelEdited: false,    // the cat editor holds a model of one's own
  results: [],           // the last run's test objects (a .test template: one per row)
  current: null,         // the shown test object
  row: 0,                // the shown row of a .test template (0-based)
  runOptions: {},        // the options of the run the table shows: a witness asks with them
  loaded: '',            // the test text as opened (an example, a file, a link): edits differ
};

// ---- editors -------------------------------------------------------------------

const testEditor = new Editor($('#test-editor'), {
  dialectFn: () => dialectOf(ui.fileName.value, $('#test-text').value),
  onChange: () => onTestEdit(),
});
const modelEditor = new Editor($('#model-editor'), {
  dialectFn: () => 'cat',
  onChange: () => { state.modelEdited = true; ui.modelSelect.value = 'mine'; scheduleModelCheck(); },
});

function showDialect() {
  ui.dialect.textContent = DIALECT_NAMES[dialectOf(ui.fileName.value, testEditor.value)];
}
ui.fileName.addEventListener('input', () => { showDialect(); testEditor.render(); });

// An edit makes a shown error of the test stale (its marks go with the edit,
// the box with them), and the text is no longer the example's: the menu and
// the link stop naming it.
function onTestEdit() {
  showDialect();
  if (state.errorIn === 'test') {
    showMessage('');
    state.errorIn = null;
    delete document.body.dataset.error;
  }
  if (ui.examples.value && testEditor.value !== state.loaded) {
    ui.examples.value = '';
    if (location.hash.startsWith('#example=')) history.replaceState(null, '', location.pathname);
  }
}

// A file name for a pasted test, from its header (`PTX SB` is SB.litmus) or,
// for NVIDIA's format (`.global x;` first), pasted.test; null: keep the name.
function fileNameOf(text) {
  const first = text.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('//'));
  if (!first) return null;
  if (/^\.(global|shared)\b/.test(first)) return 'pasted.test';
  const m = first.match(/^(PTX|SASS|PTO|CUDA)\s+(\S+)/);
  return m ? `${m[2].replace(/[^\w.+-]/g, '_')}.litmus` : null;
}

// A paste that replaces the whole test (or fills an empty editor) is a new
// test: its name comes from its header, so errors and the dialect are its own.
$('#test-text').addEventListener('paste', (e) => {
  const ta = e.target;
  const all = ta.selectionStart === 0 && ta.selectionEnd === ta.value.length;
  const whole = !ta.value.trim() || all;
  const name = whole ? fileNameOf(e.clipboardData?.getData('text/plain') ?? '') : null;
  if (!name) return;
  setTimeout(() => {
    ui.fileName.value = name;
    showDialect();
    testEditor.render();
  });
});

// Unsaved work: the test or the model edited since it was opened (a share
// link saves both: its URL reopens them).
function dirty() {
  return testEditor.value !== state.loaded ||
    (state.modelEdited && modelEditor.value !== state.modelLoaded);
}
window.addEventListener('beforeunload', (e) => {
  if (!dirty()) return;
  e.preventDefault();
  e.returnValue = '';
});

// ---- the engine ----------------------------------------------------------------

// Run waits while an example is fetched: a click in between would run the
// test being replaced, and its table would then be cleared by setTest.
let opening = 0;
const engine = new Engine({
  onReady: (msg) => {
    // The first start, or a restart after Stop (whose state, 'stopped', stays).
    if (document.body.dataset.state === 'loading') document.body.dataset.state = 'ready';
    ui.run.disabled = opening > 0;
    setStatus(`engine ready (${(msg.ms / 1000).toFixed(1)} s)`);
    const v = msg.version;
    if (v) {
      $('#version').textContent = `This is redscope ${v.version ?? ''}, engines ${(v.engines ?? ['enum']).join(', ')}` +
        `${v.z3 ? ', with Z3' : ', without Z3'}.`;
    }
  },
  // A run's further outcomes (worker.js streams them after its result).
  onRows: (msg) => {
    const r = state.results[msg.test];
    if (msg.id !== state.runId || !r) return;
    for (const o of msg.outcomes) r.outcomes.push(o);
    if (state.current === r) table.grow();
    document.body.dataset.rows = String(state.results.reduce((n, t) => n + t.outcomes.length, 0));
  },
  onFatal: (message) => {
    document.body.dataset.state = 'fatal';
    setStatus('the engine could not start');
    showMessage(`The engine could not start: ${message}. Was the page built with ` +
      'scripts/build-wasm.sh (redscope.js and redscope.wasm beside index.html)?');
  },
});

function setStatus(text) { ui.status.textContent = text; }

function showMessage(text, kind = 'error') {
  ui.message.hidden = !text;
  ui.message.className = kind === 'error' ? 'error-box' : 'note-box';
  ui.message.textContent = text || '';
}

// An error of the JSON API ({file, line, column, message, text}) or of a run
// object ("F:L:C: error: M") as {file, line, column, message, text}.
function parseError(err) {
  if (!err) return null;
  if (typeof err === 'object') return err;
  const m = String(err).match(/^(.*?):(\d+):(\d+): error: ([\s\S]*)$/);
  if (m) return { file: m[1], line: +m[2], column: +m[3], message: m[4], text: String(err) };
  return { file: null, line: 0, column: 0, message: String(err), text: String(err) };
}

// The module's heap cannot grow past 2 GiB (Emscripten's cap for a growing
// heap, docs/playground.md "Limits"): a call that needs more ends with
// std::bad_alloc (or the module aborts). Say what happened and where it runs.
const OUT_OF_MEMORY = /bad_alloc|out of memory|Cannot enlarge memory|Aborted\(OOM\)/i;
function withMemoryHint(text) {
  if (!OUT_OF_MEMORY.test(text)) return text;
  return `${text}\nThe engine ran out of memory: this page's WebAssembly module can use at ` +
    'most 2 GiB. The command line has no such cap (redscope run FILE, with --max-memory ' +
    'as large as the machine allows) and lists every outcome of this test there.';
}

// Shows a located error in the editor it belongs to (the cat editor for the
// model file, else the test editor), and its text above the results.
function showLocatedError(err) {
  const e = parseError(err);
  e.text = withMemoryHint(e.text || e.message);
  const inModel = e.file && (e.file === MY_MODEL_FILE || e.file.endsWith('.cat'));
  // A refused request (file "request": an option out of range) is located
  // in the request's JSON, in neither editor.
  const inTest = !inModel && e.file !== 'request';
  if (e.line > 0 && (inModel || inTest)) (inModel ? modelEditor : testEditor).setErrors([e]);
  if (inModel) { ui.modelPane.hidden = false; }
  showMessage(e.text || e.message);
  state.errorIn = inModel ? 'model' : inTest ? 'test' : null;
  document.body.dataset.error = e.line > 0 ? `${e.line}:${e.column}` : 'unlocated';
}

// A number field's value (`empty` when the field is empty) as the API's
// whole number: times `scale` (seconds to ms) to the nearest unit, a
// positive value never to 0 (no limit). The module refuses, naming the
// option, a fraction left or a value out of range.
function numberOr(value, empty, scale = 1) {
  const v = String(value).trim();
  const x = (v === '' ? empty : +v) * scale;
  return scale === 1 ? x : x > 0 ? Math.max(1, Math.round(x)) : x;
}

function request(command, options = {}) {
  const model = ui.modelSelect.value;
  const req = {
    command, test: testEditor.value, file: ui.fileName.value.trim() || 'test.litmus',
    model: model && model !== 'mine' ? model : null, model_text: null, model_file: MY_MODEL_FILE,
    // An empty field: the default; 0 means what it means on the CLI (no limit).
    options: { timeout_ms: numberOr($('#timeout').value, 300, 1000), ...options },
  };
  // The calls about one shown result of a .test template (its witness,
  // explain) name its row: options.row, 0-based, as the run's array.
  if (command !== 'run' && state.results.length > 1) req.options.row = state.row;
  if (model === 'mine') req.model_text = modelEditor.value;
  return req;
}

let clock = null;
// Runs one call with progress and Stop; returns the answer, or null when it
// was stopped or failed (the message then says why).
async function call(command, options = {}, label = command) {
  if (engine.busy) return null;
  testEditor.setErrors([]);
  modelEditor.setErrors([]);
  showMessage('');
  delete document.body.dataset.error;
  document.body.dataset.state = 'running';
  ui.run.disabled = true;
  ui.stop.disabled = false;
  const t0 = performance.now();
  setStatus(`${label}: running…`);
  let progress = null;
  ui.progress.hidden = false;
  const tick = () => {
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    const p = progress;
    const bar = ui.progress.querySelector('.bar > div');
    if (p && p.total > 0) {
      bar.style.width = `${Math.min(100, (100 * p.done) / p.total).toFixed(1)}%`;
      bar.parentElement.classList.remove('busy');
    } else {
      bar.parentElement.classList.add('busy');
    }
    ui.progress.querySelector('span').textContent = p
      ? `${label}: ${p.phase ?? ''} ${p.done ?? ''}${p.total ? ` / ${p.total}` : ''} · ${s} s`
      : `${label}… ${s} s`;
  };
  tick();
  clock = setInterval(tick, 100);
  try {
    const { answer, ms, id } = await engine.call(request(command, options), {
      onProgress: (p) => { progress = p; },
    });
    if (command === 'run' && options.format !== 'text') state.runId = id;
    setStatus(`${label}: ${(ms / 1000).toFixed(2)} s`);
    document.body.dataset.ms = ms.toFixed(1);   // the worker's time for the call
    document.body.dataset.state = 'done';
    return answer;
  } catch (e) {
    document.body.dataset.state = e.stopped ? 'stopped' : 'error';
    if (e.stopped && command === 'run') clearResults();   // the old verdict is not this test's
    showMessage(e.stopped ? `Stopped after ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
      'the engine was restarted.' : withMemoryHint(e.message), e.stopped ? 'note' : 'error');
    setStatus(e.stopped ? 'stopped' : 'failed');
    return null;
  } finally {
    clearInterval(clock);
    ui.progress.hidden = true;
    ui.stop.disabled = true;
    ui.run.disabled = opening > 0;
  }
}

ui.stop.addEventListener('click', () => engine.stop());

// ---- running and the outcome table -------------------------------------------------

async function run() {
  const runOptions = {
    observe_all: $('#observe-all').checked, max_outcomes: numberOr($('#max-outcomes').value, 10000),
  };
  const answer = await call('run', runOptions, 'run');
  if (!answer) return;
  state.runOptions = runOptions;
  if (answer.error && !Array.isArray(answer) && !('outcomes' in answer)) {
    clearResults();
    showLocatedError(answer.error);
    document.body.dataset.state = 'error';
    return;
  }
  state.results = Array.isArray(answer) ? answer : [answer];
  ui.rows.hidden = state.results.length < 2;
  ui.rowSelect.innerHTML = state.results.map((r, k) =>
    `<option value="${k}">${escapeHtml(r.test)}${r.metadata?.claim ? ` (${escapeHtml(r.metadata.claim)})` : ''}: ${escapeHtml(r.observation ?? 'error')}</option>`).join('');
  showResult(0);
  if (!$('#tab-text').hidden) showText();
}
ui.run.addEventListener('click', run);
ui.rowSelect.addEventListener('change', () => showResult(+ui.rowSelect.value));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !ui.run.disabled) { e.preventDefault(); run(); }
});

function clearResults() {
  state.results = [];
  state.current = null;
  state.runId = null;
  ui.verdict.hidden = true;
  $('#compiled').hidden = true;
  table.clear();
  ui.rows.hidden = true;
  $('#witness-graph').innerHTML = '';
  $('#witness-text').innerHTML = '';
  $('#witness-hint').hidden = false;
  $('#executions').hidden = true;
  $('#text-out').textContent = '';
  state.textFor = null;
}

// The verdict as herd7 users read it, and what it means for the condition's
// outcome: exists holds = allowed, exists fails = forbidden (forall the other
// way round; NVIDIA's permit/assert/check claims as the CLI counts them).
function verdictHtml(r) {
  const c = r.condition;
  if (!c) return '';
  const q = c.quantifier;
  const holds = c.holds;
  let meaning;
  if (q === 'exists' || q === 'permit') {
    meaning = holds ? 'allowed: some execution reaches it' : 'forbidden: no execution reaches it';
  } else if (q === '~exists') {
    meaning = holds ? 'forbidden: no execution reaches it' : 'allowed: some execution reaches it';
  } else {
    meaning = holds ? 'every execution satisfies it' : 'some execution violates it';
  }
  const cls = holds ? 'yes' : 'no';
  const count = r.outcome_count ?? r.outcomes.length;
  return `<div class="verdict-line"><span class="pill ${cls}">${holds ? 'Yes' : 'No'}</span>
    <code>${escapeHtml(q)} ${escapeHtml(c.text)}</code> <span>${escapeHtml(meaning)}</span></div>
    <div class="muted">${[`Test <strong>${escapeHtml(r.test)}</strong>`,
    `observation <strong>${escapeHtml(r.observation ?? '')}</strong>`,
    `${count} outcome${count === 1 ? '' : 's'}`,
    r.model && `model ${escapeHtml(r.model)}`, r.target && escapeHtml(r.target),
    r.engine && `engine ${escapeHtml(r.engine)}`, `${(+r.seconds).toFixed(3)} s`,
    r.incomplete_paths && `<span class="warn">${r.incomplete_paths} incomplete paths</span>`,
  ].filter(Boolean).join(' · ')}</div>${notesHtml(r.notes)}`;
}

// The CLI's notes on a test (a data race, a read of memory nothing wrote, a
// PTO read without a barrier): printed as `run` prints them, after the verdict.
function notesHtml(notes) {
  if (!notes?.length) return '';
  return `<ul class="notes" aria-label="notes">${notes.map((n) =>
    `<li><strong>note:</strong> ${escapeHtml(n)}</li>`).join('')}</ul>`;
}

function showResult(k) {
  const r = state.results[k];
  state.current = r;
  if (!r) return;
  state.row = k;
  if (r.error) {
    ui.verdict.hidden = true;
    table.clear();
    showLocatedError(r.error_kind && r.error_kind !== 'input' ? `${r.error_kind}: ${r.error}` : r.error);
    document.body.dataset.state = 'error';
    return;
  }
  ui.verdict.hidden = false;
  ui.verdict.innerHTML = verdictHtml(r);
  showCompiled(r.compiled);
  renderTable(r);
  const guess = conditionAsOutcome(r.condition?.text);
  if (guess && !$('#explain-outcome').value) $('#explain-outcome').value = guess;
  $('#witness-hint').hidden = false;
  $('#witness-graph').innerHTML = '';
  $('#witness-text').innerHTML = '';
}

const table = new OutcomeTable(ui.outcomes, $('#table-wrap'));

// A CUDA test: each thread's C++ beside the PTX nvcc made of it (the run's
// JSON carries both; in the page the PTX was compiled ahead by the build).
// nvcc's .loc lines (debug line records) are left out.
function showCompiled(compiled) {
  const box = $('#compiled');
  box.hidden = !compiled?.length;
  if (box.hidden) return;
  const ptx = (t) => t.split('\n').filter((l) => !/^\s*\.loc\b/.test(l)).join('\n')
    .replace(/\n{3,}/g, '\n\n');
  $('#compiled-out').innerHTML = compiled.map((c) => `<h3>${escapeHtml(c.thread)}</h3>` +
    '<div class="side-by-side">' +
    `<pre aria-label="${escapeHtml(c.thread)}'s CUDA C++">${escapeHtml(c.source.trim())}</pre>` +
    `<pre aria-label="${escapeHtml(c.thread)}'s PTX from nvcc">${escapeHtml(ptx(c.ptx))}</pre>` +
    '</div>').join('');
}

function renderTable(r) {
  table.show(r, (o) => evalCondition(r.condition?.text, o));
  ui.verdict.insertAdjacentHTML('beforeend', ' <button class="link" id="download-json">' +
    'download the JSON</button>');
}

// The run's JSON, as `run --format json` prints it: the worker keeps it and
// hands it over as a Blob only when asked (it can be tens of megabytes).
async function downloadJson() {
  if (engine.busy) return;
  const { answer } = await engine.call({ command: 'kept.json' });
  if (answer.error) { showMessage(answer.error.message); return; }
  saveBlob(answer.blob, `${state.results[0]?.test ?? 'run'}.json`);
}

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
ui.verdict.addEventListener('click', (e) => {
  if (e.target.id === 'download-json') downloadJson();
});

ui.outcomes.addEventListener('click', (e) => {
  const tr = e.target.closest('tr[data-index]');
  if (tr) showWitness(+tr.dataset.index);
});
ui.outcomes.addEventListener('keydown', (e) => {
  const tr = e.target.closest('tr[data-index]');
  if (tr && e.key === 'Enter') showWitness(+tr.dataset.index);
});

// ---- witnesses: Graphviz in wasm ------------------------------------------------------

let vizPromise = null;
async function viz() {
  vizPromise ??= import('./vendor/viz.js').then((m) => m.instance());
  return vizPromise;
}

// Draws a DOT graph as SVG; `name` is its accessible name (a graph is an
// image to assistive technology: role img, labelled).
async function drawDot(dot, into, name) {
  try {
    const v = await viz();
    const svg = v.renderSVGElement(dot);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', name);
    into.replaceChildren(svg, saveButtons(dot, svg, name));
  } catch (e) {
    into.innerHTML = `<pre class="error-box">cannot draw the graph: ${escapeHtml(String(e.message || e))}</pre>`;
  }
}

// "Save SVG" and "Save DOT" under a graph (herd-www saves its pictures).
function saveButtons(dot, svg, name) {
  const bar = document.createElement('div');
  bar.className = 'row graph-tools';
  const stem = (state.current?.test ?? 'graph').replace(/[^\w.+-]/g, '_');
  const button = (label, what, make) => {
    const b = Object.assign(document.createElement('button'), { textContent: label });
    b.setAttribute('aria-label', `${label}: ${name}`);
    b.addEventListener('click', () => saveBlob(make(), `${stem}.${what}`));
    bar.append(b);
  };
  button('Save SVG', 'svg', () => new Blob([new XMLSerializer().serializeToString(svg)],
    { type: 'image/svg+xml' }));
  button('Save DOT', 'dot', () => new Blob([dot], { type: 'text/vnd.graphviz' }));
  return bar;
}

function witnessText(w) {
  if (!w) return '';
  const list = (name, items) => items?.length
    ? `<div><strong>${name}</strong><ul>${items.map((x) => `<li><code>${escapeHtml(x)}</code></li>`).join('')}</ul></div>` : '';
  return list('rf', w.rf) + list('co', w.co) +
    list('the interleaving (the explorer\'s choices, in order)', w.choices);
}

async function showWitness(i) {
  const r = state.current;
  if (!r || engine.busy) return;
  table.pick(i);
  selectTab('witness');
  $('#witness-hint').hidden = true;
  // The run's witnesses stay in the worker (worker.js): this outcome's only.
  const kept = await engine.call({ command: 'kept.witness', test: state.row, index: i });
  if (kept.answer.error) { showMessage(kept.answer.error.message); return; }
  const w = kept.answer.witness;
  $('#witness-text').innerHTML = `<p>Outcome ${i + 1}: <code>${escapeHtml(outcomeString(r.outcomes[i]))}</code></p>` +
    witnessText(w);
  if (w?.choices?.length && !w.rf?.length && !w.co?.length) {
    // A PTO program's witness is the order its vector operations completed
    // in (the explorer's choices): there is no event graph to draw.
    $('#witness-graph').replaceChildren();
    document.body.dataset.witness = String(i);
    return;
  }
  // The kept witness drawn as it is (no second run, however many outcomes).
  const answer = await call('dot', w?.rf ? { witness: { rf: w.rf, co: w.co ?? [] } }
    : { outcome: r.outcomes[i], ...state.runOptions }, 'witness');
  if (!answer) return;
  if (answer.error) { showLocatedError(answer.error); return; }
  state.witnessIndex = i;
  $('#executions').hidden = false;
  $('#executions-nav').hidden = true;
  $('#executions-text').innerHTML = '';
  $('#executions-graph').replaceChildren();
  await drawDot(withWitnessEdges(answer.dot, w), $('#witness-graph'),
    `The witness execution of outcome ${i + 1}, ${outcomeString(r.outcomes[i])}: ` +
    'its events by thread, with program order, rf and co edges');
  document.body.dataset.witness = String(i);
}

// Every execution of the picked outcome (herd-www draws each candidate; the
// run keeps one witness an outcome): the module's `executions`, at most
// EXECUTIONS of them, each drawn in turn.
const EXECUTIONS = 100;
async function allExecutions() {
  const r = state.current;
  const i = state.witnessIndex;
  if (!r || i === undefined) return;
  const answer = await call('executions', { outcome: r.outcomes[i], limit: EXECUTIONS,
    observe_all: !!state.runOptions.observe_all }, 'executions');
  if (!answer) return;
  if (answer.error) { showLocatedError(answer.error); return; }
  state.executions = answer;
  $('#executions-nav').hidden = false;
  await showExecution(0);
  document.body.dataset.executions = String(answer.executions.length);
}

async function showExecution(k) {
  const all = state.executions?.executions ?? [];
  if (!all.length) return;
  state.executionAt = (k + all.length) % all.length;
  const x = all[state.executionAt];
  $('#executions-at').textContent = `execution ${state.executionAt + 1} of ${all.length}` +
    (state.executions.complete ? '' : ` (the first ${all.length}; there are more)`);
  $('#executions-text').innerHTML = witnessText(x);
  await drawDot(x.dot, $('#executions-graph'), `Execution ${state.executionAt + 1} of ` +
    `${all.length} of outcome ${state.witnessIndex + 1}`);
}
$('#executions-all').addEventListener('click', allExecutions);
$('#executions-prev').addEventListener('click', () => showExecution(state.executionAt - 1));
$('#executions-next').addEventListener('click', () => showExecution(state.executionAt + 1));

const outcomeString = (o) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('; ');

// ---- explain -------------------------------------------------------------------------

// A breach as a graph: its cycle's edges when explain names them (the solver's
// derivation), else the execution that would need the axiom broken (its rf
// and co, as the enumerator gives them).
function breachEdges(b) {
  if (b.edges?.length) return b.edges;
  const out = [];
  for (const kind of ['rf', 'co']) {
    for (const pair of b.execution?.[kind] ?? []) {
      const [from, to] = pair.split(' -> ');
      if (from && to) out.push({ kind, from, to });
    }
  }
  return out;
}

function explainDot(b) {
  const names = new Map();
  const id = (s) => { if (!names.has(s)) names.set(s, `n${names.size}`); return names.get(s); };
  const colours = { rf: '#d62728', co: '#1f77b4', fr: '#8a5a00', po: '#333333' };
  const edges = breachEdges(b).map((e) =>
    `${id(e.from)} -> ${id(e.to)} [label="${e.kind}", color="${colours[e.kind] || '#6a1b9a'}", fontcolor="${colours[e.kind] || '#6a1b9a'}"];`);
  const nodes = [...names].map(([label, n]) => `${n} [label="${label.replace(/(["\\])/g, '\\$1')}"];`);
  const title = b.edges?.length ? b.axiom : `${b.axiom}: the execution that would break it`;
  return `digraph G { graph [fontname=Helvetica, label="${title}", labelloc=t]; ` +
    'node [fontname=Helvetica, fontsize=11, shape=box, style=rounded]; edge [fontname=Helvetica, fontsize=10]; ' +
    `${nodes.join(' ')} ${edges.join(' ')} }`;
}

async function explain(options) {
  selectTab('explain');
  const answer = await call('explain', options, 'explain');
  const out = $('#explain-out');
  if (!answer) return;
  if (answer.error) { out.innerHTML = ''; showLocatedError(answer.error); return; }
  const forbidden = answer.verdict === 'forbidden';
  out.innerHTML = `<div class="verdict-line"><span class="pill ${forbidden ? 'no' : 'yes'}">${escapeHtml(answer.verdict)}</span>
    <code>${escapeHtml(answer.outcome ?? '')}</code>
    ${answer.axioms?.length ? `broken axioms: <strong>${answer.axioms.map(escapeHtml).join(', ')}</strong>` : ''}</div>` +
    (answer.breaches || []).map((b, k) => `<div class="breach"><h3>${escapeHtml(b.axiom)}</h3>
      <p>${escapeHtml(b.why)}</p>${breachEdges(b).length ? `<div class="graph" id="breach-${k}"></div>` : ''}
      ${b.execution ? `<details><summary>the execution that would need it broken</summary>${witnessText(b.execution)}</details>` : ''}</div>`).join('') +
    (!forbidden && answer.message ? `<p>${escapeHtml(answer.message)}</p>` : '');
  document.body.dataset.explain = answer.verdict ?? '';
  for (const [k, b] of (answer.breaches || []).entries()) {
    if (breachEdges(b).length) {
      await drawDot(explainDot(b), $(`#breach-${k}`), `Why ${b.axiom} is broken: ` +
        breachEdges(b).map((e) => `${e.from} ${e.kind} ${e.to}`).join(', '));
    }
  }
}
$('#explain-run').addEventListener('click', () => {
  const outcome = $('#explain-outcome').value.trim();
  if (outcome) explain({ outcome });
});
$('#explain-condition').addEventListener('click', () => explain({ condition: true }));

// ---- atomicity -----------------------------------------------------------------------

async function atomicity() {
  selectTab('atomicity');
  const answer = await call('atomicity', {}, 'atomicity');
  const out = $('#atomicity-out');
  if (!answer) return;
  const tests = Array.isArray(answer) ? answer : [answer];
  if (!Array.isArray(answer) && answer.error && !answer.pairs) {
    out.innerHTML = ''; showLocatedError(answer.error); return;
  }
  let lost = 0;
  out.innerHTML = tests.map((t) => {
    if (t.error) return `<pre class="error-box">${escapeHtml(t.error)}</pre>`;
    if (!t.pairs?.length) return `<p>${escapeHtml(t.test)}: no pair of RMWs on one location.</p>`;
    return '<div class="table-scroll"><table class="pairs"><thead><tr><th>location</th>' +
      '<th>a</th><th>b</th><th>in each other\'s scope</th><th>lost update</th></tr></thead><tbody>' +
      t.pairs.map((p) => {
        if (p.lost_update) lost++;
        const side = (s) => `${escapeHtml(s.thread)}: <code>${escapeHtml(s.instruction)}</code> <span class="muted">line ${s.line}</span>`;
        const final = p.witness?.final ? ` final ${escapeHtml(outcomeString(p.witness.final))}` : '';
        return `<tr class="${p.lost_update ? 'lost' : ''}"><td>${escapeHtml(p.location)}</td><td>${side(p.a)}</td><td>${side(p.b)}</td>
          <td title="${escapeHtml(p.scope_reason ?? '')}">${p.mutually_in_scope ? 'yes' : 'no'}</td>
          <td>${p.lost_update ? `<strong class="warn">LOST</strong> ${escapeHtml(p.how ?? '')}${final}` : 'no'}${p.lost_update_reason ? ` <span class="muted">${escapeHtml(p.lost_update_reason)}</span>` : ''}</td></tr>`;
      }).join('') + '</tbody></table></div>';
  }).join('');
  document.body.dataset.atomicity = lost ? 'lost' : 'safe';
  out.insertAdjacentHTML('afterbegin', `<p class="verdict-line"><span class="pill ${lost ? 'no' : 'yes'}">${lost ? `${lost} lost update${lost > 1 ? 's' : ''}` : 'no lost update'}</span></p>`);
}
$('#atomicity-run').addEventListener('click', atomicity);

// ---- campaign: many tests against expected verdicts (herd-www's campaign) ---------

// The tests of the campaign: a folder of the examples (each with its
// expected verdict from the build's index) or files of one's own.
const campaign = { groups: [], own: [] };

function campaignTests() {
  const v = $('#campaign-folder').value;
  if (v === 'own') return campaign.own;
  const g = campaign.groups.find((x) => x.name === v);
  return (g?.files ?? []).map((f) => ({ name: f.path, path: f.path, expected: f.expected }));
}

function campaignRow(t, k) {
  const exp = t.expected === undefined ? '—' : t.expected ? 'holds' : 'does not hold';
  const got = t.error ? `error: ${t.error}` : t.holds === undefined ? '…'
    : `${t.holds ? 'holds' : 'does not hold'} (${t.observation})`;
  const verdict = t.holds === undefined && !t.error ? '' : t.expected === undefined ? 'run'
    : !t.error && t.holds === !!t.expected ? 'as expected' : 'DIFFERS';
  const cls = verdict === 'as expected' ? 'pass' : verdict === 'DIFFERS' ? 'lost' : '';
  return `<tr class="${cls}"><td><button class="link" data-campaign="${k}">` +
    `${escapeHtml(t.name)}</button></td>` +
    `<td>${exp}</td><td>${escapeHtml(got)}</td><td><strong>${verdict}</strong></td>` +
    `<td>${t.ms === undefined ? '' : `${(t.ms / 1000).toFixed(2)} s`}</td></tr>`;
}

function drawCampaign(tests, done) {
  const table = $('#campaign-table');
  table.hidden = false;
  table.innerHTML = '<thead><tr><th scope="col">test</th><th scope="col">expected</th>' +
    '<th scope="col">redscope</th><th scope="col">verdict</th><th scope="col">time</th>' +
    '</tr></thead>' +
    `<tbody>${tests.map(campaignRow).join('')}</tbody>`;
  const checked = tests.filter((t) => t.holds !== undefined || t.error);
  const judged = (t) => t.expected !== undefined;
  const pass = checked.filter((t) => !t.error && judged(t) && t.holds === !!t.expected);
  const fail = checked.filter((t) => t.error || (judged(t) && t.holds !== !!t.expected));
  $('#campaign-summary').innerHTML = '<p class="verdict-line">' +
    `<span class="pill ${fail.length ? 'no' : 'yes'}">` +
    `${pass.length} passed, ${fail.length} failed</span> ` +
    `${checked.length} of ${tests.length} tests checked` +
    `${done ? '' : ' …'}</p>`;
  document.body.dataset.campaign = done ? `${pass.length}/${fail.length}` : '';
}

async function runCampaign() {
  if (engine.busy) return;
  const tests = campaignTests().map((t) => ({ ...t }));
  if (!tests.length) return;
  delete document.body.dataset.campaign;
  document.body.dataset.state = 'running';
  ui.stop.disabled = false;
  ui.run.disabled = true;
  drawCampaign(tests, false);
  try {
    for (const t of tests) {
      const text = t.text ?? await (await fetch(`examples/${t.path}`)).text();
      setStatus(`campaign: ${t.name}`);
      const timeout = numberOr($('#timeout').value, 300, 1000);
      const { answer, ms } = await engine.call({ command: 'run', test: text,
        file: t.name.split('/').pop(), options: { verdict: true, timeout_ms: timeout } });
      const r = Array.isArray(answer) ? answer[0] : answer;
      t.ms = ms;
      if (!r || r.error) {
        t.error = typeof r?.error === 'object' ? r.error.text : String(r?.error ?? 'no answer');
      }
      else { t.holds = !!r.condition?.holds; t.observation = r.observation; }
      drawCampaign(tests, false);
    }
    setStatus('campaign done');
  } catch (e) {
    setStatus(e.stopped ? 'campaign stopped' : `campaign failed: ${e.message}`);
  } finally {
    drawCampaign(tests, true);
    document.body.dataset.state = 'done';
    ui.stop.disabled = true;
    ui.run.disabled = opening > 0;
  }
}
$('#campaign-run').addEventListener('click', runCampaign);
$('#campaign-files').addEventListener('click', () => $('#campaign-input').click());
$('#campaign-input').addEventListener('change', async (e) => {
  campaign.own = await Promise.all([...e.target.files].map(async (f) =>
    ({ name: f.name, text: await f.text() })));
  $('#campaign-folder').value = 'own';
  e.target.value = '';
  drawCampaign(campaign.own, true);
});
$('#campaign-table').addEventListener('click', async (e) => {
  const k = e.target.dataset.campaign;
  if (k === undefined) return;
  const t = campaignTests()[+k];
  if (t.path) await openExample(t.path);
  else setTest(t.name, t.text);
  run();
});

// ---- tabs ----------------------------------------------------------------------------

// WAI-ARIA's tabs pattern: the selected tab alone is in the Tab order, the
// arrow keys (and Home, End) move between tabs and select them.
// herd7's text output of the shown run (`redscope run` prints it): asked of
// the module once per run, when the tab is opened.
async function showText() {
  const out = $('#text-out');
  if (!state.results.length) {
    out.textContent = 'Run the test: its output as herd7 prints it appears here.';
    return;
  }
  if (state.textFor === state.runId) return;
  const answer = await call('run', { ...state.runOptions, format: 'text' }, 'text');
  if (!answer) return;
  if (answer.error) { showLocatedError(answer.error); return; }
  state.textFor = state.runId;
  out.textContent = answer.text;
  document.body.dataset.text = 'yes';
}
$('#text-save').addEventListener('click', () => {
  const text = $('#text-out').textContent;
  saveBlob(new Blob([text], { type: 'text/plain' }), `${state.results[0]?.test ?? 'run'}.txt`);
});

function selectTab(name, focus = false) {
  for (const b of document.querySelectorAll('[role=tab]')) {
    const on = b.dataset.tab === name;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
    if (on && focus) b.focus();
  }
  for (const t of document.querySelectorAll('.tab')) t.hidden = t.id !== `tab-${name}`;
  if (name === 'text') showText();
}
const tabButtons = [...document.querySelectorAll('[role=tab]')];
for (const b of tabButtons) {
  b.addEventListener('click', () => selectTab(b.dataset.tab));
  b.addEventListener('keydown', (e) => {
    const k = tabButtons.indexOf(b);
    const to = { ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: tabButtons.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    selectTab(tabButtons[(to + tabButtons.length) % tabButtons.length].dataset.tab, true);
  });
}

// ---- models --------------------------------------------------------------------------

async function shippedModelText(name) {
  const res = await fetch(`models/${name}`);
  if (!res.ok) throw new Error(`cannot load models/${name}`);
  return res.text();
}

async function loadModels() {
  await engine.readyPromise;
  const answer = await engine.call({ command: 'models' });
  state.models = answer.answer.models || [];
  for (const m of state.models) ui.modelSelect.add(new Option(m, m), ui.modelSelect.options.length);
  ui.modelSelect.add(new Option('my model (the cat editor)', 'mine'));
}

async function editCopy() {
  const base = ui.modelSelect.value && ui.modelSelect.value !== 'mine' ? ui.modelSelect.value
    : (dialectOf(ui.fileName.value, testEditor.value) === 'sass' ? 'sass-sm30.cat' : 'ptx.cat');
  if (state.modelEdited && ui.modelSelect.value === 'mine') { ui.modelPane.hidden = false; return; }
  modelEditor.value = await shippedModelText(base);
  state.modelLoaded = modelEditor.value;
  state.modelBase = base;
  state.modelEdited = true;
  ui.modelSelect.value = 'mine';
  ui.modelPane.hidden = false;
  ui.modelStatus.textContent = `a copy of ${base}`;
}
$('#edit-model').addEventListener('click', editCopy);

// A readable view of a model's cat file, coloured, with the files it
// includes (herd-www shows a model and its includes): each opens in turn.
const includesOf = (text) => [...text.matchAll(/^\s*include\s+"([^"]+)"/gm)].map((m) => m[1]);
async function viewModel(name) {
  const text = name === 'mine' ? modelEditor.value : await shippedModelText(name);
  const span = ({ cls, text: t }) =>
    (cls ? `<span class="t-${cls === 'opq' ? 'op' : cls}">${escapeHtml(t)}</span>` : escapeHtml(t));
  const html = tokenize(text, 'cat').map(span).join('');
  $('#model-view-text').innerHTML = html;
  $('#model-view-name').textContent = name === 'mine' ? 'your model' : name;
  const inc = includesOf(text);
  const link = (f) =>
    `<button class="link" data-include="${escapeHtml(f)}">${escapeHtml(f)}</button>`;
  $('#model-view-includes').innerHTML = inc.length ? `includes ${inc.map(link).join(', ')}`
    : 'includes no file';
  $('#model-view').hidden = false;
  document.body.dataset.modelView = name;
}
$('#view-model').addEventListener('click', () => {
  const v = ui.modelSelect.value;
  const sass = dialectOf(ui.fileName.value, testEditor.value) === 'sass';
  viewModel(v || (sass ? 'sass-sm30.cat' : 'ptx.cat')).catch((e) => showMessage(e.message));
});
$('#model-view-includes').addEventListener('click', (e) => {
  const f = e.target.dataset.include;
  if (f) viewModel(f).catch((err) => showMessage(`${f}: ${err.message} (not a shipped model)`));
});
$('#model-view-close').addEventListener('click', () => { $('#model-view').hidden = true; });
$('#reset-model').addEventListener('click', () => {
  state.modelEdited = false;
  ui.modelSelect.value = state.modelBase ?? '';
  ui.modelPane.hidden = true;
  ui.modelStatus.textContent = '';
});
ui.modelSelect.addEventListener('change', () => {
  if (ui.modelSelect.value === 'mine') editCopy();
  else ui.modelPane.hidden = true;
});

let modelTimer = null;
function scheduleModelCheck() {
  clearTimeout(modelTimer);
  modelTimer = setTimeout(() => { if (!engine.busy) checkModel(false); }, 500);
}

async function checkModel(loud = true) {
  if (engine.busy || !engine.ready) return;
  const { answer } = await engine.call({ command: 'check_model', model_text: modelEditor.value, model_file: MY_MODEL_FILE });
  const err = answer.error || answer.errors?.[0];
  if (err) {
    const e = parseError(err);
    modelEditor.setErrors(e.line > 0 ? [e] : []);
    ui.modelStatus.textContent = e.text && /\berror:/.test(e.text) ? e.text : `error: ${e.message}`;
    ui.modelStatus.className = 'warn';
    document.body.dataset.modelError = `${e.line}:${e.column}`;
  } else {
    modelEditor.setErrors([]);
    ui.modelStatus.textContent = loud ? 'the model is well formed' : `your model (from ${state.modelBase ?? 'scratch'})`;
    ui.modelStatus.className = 'muted';
    delete document.body.dataset.modelError;
  }
}
$('#check-model').addEventListener('click', () => checkModel(true));

// ---- examples, files, share links ------------------------------------------------------

async function loadExamples() {
  const res = await fetch('examples/index.json');
  const index = await res.json();
  campaign.groups = index.groups;
  $('#campaign-folder').innerHTML = index.groups.map((g) =>
    `<option value="${escapeHtml(g.name)}">${escapeHtml(g.name)} (${g.files.length} tests` +
    `${g.files.some((f) => f.expected !== undefined) ? ', expected.csv' : ''})</option>`).join('') +
    '<option value="own">files of your own</option>';
  ui.examples.innerHTML = '<option value="">— pick a test from litmus/ —</option>' + index.groups.map((g) =>
    `<optgroup label="${escapeHtml(g.name)} (${g.files.length})">${g.files.map((f) =>
      `<option value="${escapeHtml(f.path)}">${escapeHtml(f.name)}</option>`).join('')}</optgroup>`).join('');
}

async function openExample(path) {
  opening += 1;
  ui.run.disabled = true;
  try {
    const res = await fetch(`examples/${path}`);
    if (!res.ok) { showMessage(`no example ${path}`); return; }
    setTest(path.split('/').pop(), await res.text());
    ui.examples.value = path;
    state.example = path;
  } finally {
    opening -= 1;
    if (!opening) ui.run.disabled = !engine.ready || engine.busy;
  }
}

function setTest(fileName, text) {
  ui.fileName.value = fileName;
  testEditor.value = text;
  state.loaded = text;
  state.example = null;
  state.errorIn = null;
  delete document.body.dataset.error;
  showDialect();
  clearResults();
  showMessage('');
  $('#explain-outcome').value = '';
  $('#explain-out').innerHTML = '';
  $('#atomicity-out').innerHTML = '';
}

ui.examples.addEventListener('change', async () => {
  const path = ui.examples.value;
  if (!path) return;
  if (dirty() && !confirm(`Open ${path}? Your edits to ${ui.fileName.value} will be lost ` +
      '(Share link keeps them in the address).')) {
    ui.examples.value = state.example ?? '';
    return;
  }
  await openExample(path);
  history.replaceState(null, '', `#example=${encodeURIComponent(path)}`);
});

$('#open-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (file) {
    setTest(file.name, await file.text());
    ui.examples.value = '';
    if (location.hash.startsWith('#example=')) history.replaceState(null, '', location.pathname);
  }
  e.target.value = '';
});
$('#open-file-button').addEventListener('click', () => $('#open-file').click());

ui.share.addEventListener('click', async () => {
  const s = { file: ui.fileName.value, test: testEditor.value, model: ui.modelSelect.value === 'mine' ? null : (ui.modelSelect.value || null) };
  if (ui.modelSelect.value === 'mine') { s.model_text = modelEditor.value; s.model_base = state.modelBase; }
  const fragment = await encodeState(s);
  history.replaceState(null, '', `#${fragment}`);
  state.loaded = s.test;   // the link holds the edits now: a reload reopens them
  state.modelLoaded = s.model_text;
  const link = location.href;
  try { await navigator.clipboard.writeText(link); setStatus(`link copied (${link.length} characters)`); } catch (e) {
    setStatus(`link in the address bar (${link.length} characters)`);
  }
  document.body.dataset.shared = fragment.slice(0, 1);
});

async function applyState(s) {
  setTest(s.file || 'test.litmus', s.test);
  if (typeof s.model_text === 'string') {
    modelEditor.value = s.model_text;
    state.modelLoaded = s.model_text;
    state.modelEdited = true;
    state.modelBase = s.model_base ?? null;
    ui.modelSelect.value = 'mine';
    ui.modelPane.hidden = false;
    ui.modelStatus.textContent = 'the model from the link';
  } else {
    ui.modelSelect.value = s.model && state.models.includes(s.model) ? s.model : '';
    ui.modelPane.hidden = true;
  }
}

async function openFragment() {
  try {
    const frag = await decodeFragment(location.hash);
    if (!frag) { await openExample(DEFAULT_EXAMPLE); return false; }
    if (frag.kind === 'example') { await openExample(frag.path); return false; }
    await applyState(frag.state);
    return true;
  } catch (e) {
    // A damaged link: say so over the default example, never an empty editor.
    await openExample(DEFAULT_EXAMPLE);
    showMessage(`${e.message}; opened ${DEFAULT_EXAMPLE} instead.`);
    return false;
  }
}
window.addEventListener('hashchange', async () => {
  if (await openFragment()) run();
});

// ---- start -------------------------------------------------------------------------------

async function main() {
  showDialect();
  await loadExamples().catch((e) => showMessage(`cannot load the examples: ${e.message}`));
  await loadModels().catch((e) => showMessage(`cannot list the models: ${e.message}`));
  const shared = await openFragment();
  if (shared) { await run(); }
  document.body.dataset.loaded = 'yes';
}
main();

if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
  navigator.serviceWorker.register('sw.js').then(
    () => navigator.serviceWorker.ready.then(() => { document.body.dataset.offline = 'ready'; }),
    (e) => console.warn('no offline copy:', e));
}
