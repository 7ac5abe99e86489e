#!/usr/bin/env node
// The WebAssembly module against the CLI (ctest wasm.node, issue 35): every
// litmus/ test the playground can run goes through the module's one call
// (redscope_call, {"command": "run"}) in Node, and its outcome set, its
// observation and whether the condition holds must equal those of
// `redscope run --format json --engine enum` for the same file (the module
// has no Z3: auto is the enumerator there, so the CLI is asked for it by
// name), and atomicity on a lost update and a safe test. Also: a malformed
// test answers with its located error, a witness is drawn with its rf and co
// edges, the module lists the shipped models, and a run reports progress
// through Module.onProgress ({done, total, phase}; total 0: unknown), and
// requests past the stack's size are whole and bounded (bounds, below).
//
// Usage: node tests/wasm_node.js MODULE.js REDSCOPE LITMUS_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');

// Tests the page cannot answer, with the reason. Every other litmus/ test is
// an event graph the enumerator checks, a PTO program its explorer runs, or a
// CUDA test the page runs from PTX compiled ahead (examples/cuda-ptx.json,
// written by scripts/build-web.sh and loaded here as web/worker.js does).
const LOCKS = 'past the enumerator\'s candidate limit (the page has no Z3): minutes, no answer';
const THREE_GPUS = 'three GPUs\' bulk reductions (18 async RMWs each): the enumerator takes ' +
    '17 s on one and gives up on the other (the page has no Z3; the CLI answers in 0.3 s)';
const EXCLUDED = new Map([
  ['cuda/Lock+atomicCAS+threadfence.litmus', LOCKS],
  ['cuda/Lock+cas-acq+st-rel.block-2cta.litmus', LOCKS],
  ['cuda/Lock+cas-acq+st-rel.dev.litmus', LOCKS],
  ['cuda/Lock+cas-relaxed.dev.litmus', LOCKS],
  ['multimem/three-gpus-no-lost-update.litmus', THREE_GPUS],
  ['multimem/three-gpus-wait-own-replica.litmus', THREE_GPUS],
]);

// The CUDA examples' PTX, compiled ahead, into the module's file system
// (web/worker.js's loadCompiledPtx).
function loadCompiledPtx(M) {
  const bundle = path.join(path.dirname(moduleJs), 'examples', 'cuda-ptx.json');
  const entries = fs.existsSync(bundle) ? JSON.parse(fs.readFileSync(bundle, 'utf8')) : {};
  M.FS.mkdirTree('/cuda-ptx');
  for (const [name, text] of Object.entries(entries))
    if (/^[0-9a-f]{32}\.ptx$/.test(name)) M.FS.writeFile(`/cuda-ptx/${name}`, text);
  return Object.keys(entries).length;
}

const [moduleJs, redscope, litmusDir] = process.argv.slice(2);
if (!litmusDir) {
  console.error('usage: wasm_node.js MODULE.js REDSCOPE LITMUS_DIR');
  process.exit(2);
}

function litmusFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...litmusFiles(p));
    else if (/\.(litmus|test)$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

// What must agree: the outcome set (order-free), the observation, holds.
function summary(r) {
  if (r.error) return {error: true};  // the CLI's is a string, the module's located parts
  const outcomes = (r.outcomes || []).map(o => JSON.stringify(o, Object.keys(o).sort())).sort();
  return {outcomes, observation: r.observation, holds: r.condition && r.condition.holds};
}

// The lost-update question through the module (the enumerator answers it,
// analysis/execution_search.hpp): a test that loses an update and one that
// cannot, each pair's verdict as `redscope atomicity --engine enum` gives it.
const ATOMICITY = [['sm6x/store-vs-red-shared-lost.litmus', true],
                   ['scope/red-gpu-2cta-safe.litmus', false]];

function atomicity(call) {
  let failures = 0;
  const verdicts = r => (r.pairs || []).map(p => [p.location, p.a.line, p.b.line,
                                                  p.mutually_in_scope, p.lost_update]);
  for (const [name, lost] of ATOMICITY) {
    const f = path.join(litmusDir, name);
    const r = call({command: 'atomicity', test: fs.readFileSync(f, 'utf8'),
                    file: path.basename(f)});
    const [want] = JSON.parse(execFileSync(
        redscope, ['atomicity', '--format', 'json', '--engine', 'enum', f]));
    const a = JSON.stringify(verdicts(r)), b = JSON.stringify(verdicts(want));
    const anyLost = (r.pairs || []).some(p => p.lost_update);
    if (r.error || a !== b || anyLost !== lost || (lost && !r.pairs.some(p => p.witness))) {
      ++failures;
      console.log(`atomicity ${name}: module ${JSON.stringify(r)}\n  cli pairs: ${b}`);
    }
  }
  return failures;
}

// The enumerator's reports while a run goes on: the first at once, then at
// most ~10 a second; candidates tried so far, their total unknown (0).
function progress(M, call) {
  const seen = [];
  M.onProgress = p => seen.push(p);
  const name = 'IRIW+relaxed-gpu.litmus';
  const iriw = fs.readFileSync(path.join(litmusDir, 'classic', name), 'utf8');
  call({command: 'run', test: iriw, file: name});
  delete M.onProgress;
  const ok = seen.length > 0 && seen.every(p => p.total === 0 && p.phase === 'enumerate' &&
                                              Number.isInteger(p.done));
  if (!ok) console.log(`progress: ${JSON.stringify(seen.slice(0, 5))}`);
  return ok ? 0 : 1;
}

// A .test template's rows (NVIDIA's MP_gpu.test, 18 tests, from
// ../shared when it is there): `dot` and `explain` take options.row and
// answer about that row's test, not the first one.
function templateRows(call) {
  const f = path.join(litmusDir, '..', '..', 'shared', 'conformance', 'nvlitmus', 'MP_gpu.test');
  if (!fs.existsSync(f)) {
    console.log(`template rows: ${f} absent, not checked`);
    return 0;
  }
  const text = fs.readFileSync(f, 'utf8');
  const runs = call({command: 'run', test: text, file: 'MP_gpu.test'});
  const row = 2, r = Array.isArray(runs) ? runs[row] : null;
  const outcome = r && r.outcomes && r.outcomes[0];
  const dot = outcome && call({command: 'dot', test: text, file: 'MP_gpu.test',
                               options: {outcome, row}}).dot;
  const bad = call({command: 'dot', test: text, file: 'MP_gpu.test',
                    options: {outcome: outcome || {}, row: runs.length}});
  if (!dot || !dot.includes(r.test) || !bad.error || !/options\.row/.test(bad.error.message)) {
    console.log(`template rows: row ${row}: ${JSON.stringify(r && r.test)}, dot ` +
                `${JSON.stringify((dot || '').slice(0, 200))}, past the end ${JSON.stringify(bad)}`);
    return 1;
  }
  return 0;
}

// Issue 49 item 5: explain on the enumerator (the module has no Z3) says
// what the CLI's says: the axioms, each breach derived on the execution that
// breaks it (its edges beyond rf, and why the accesses are morally strong),
// as the CLI's explain derives it on the solver's execution.
function explainWords(call, cli) {
  const file = path.join(litmusDir, 'scope', 'red-gpu-2cta-safe.litmus');
  const text = fs.readFileSync(file, 'utf8');
  const e = call({command: 'explain', test: text, file: 'red-gpu-2cta-safe.litmus',
                  options: {outcome: 'x=1'}});
  const want = JSON.parse(cli(['explain', '--format', 'json', file, '--outcome', 'x=1']));
  const atom = (e.breaches || []).find(b => b.axiom === 'Atomicity');
  const kinds = new Set((atom && atom.edges || []).map(x => x.kind));
  const ok = e.verdict === want.verdict && JSON.stringify(e.axioms) === JSON.stringify(want.axioms) &&
      atom && /morally strong because/.test(atom.why) && kinds.has('fr') && kinds.has('co') &&
      kinds.has('rmw');
  if (!ok) console.log(`explain x=1: module ${JSON.stringify(e).slice(0, 600)}`);
  return ok ? 0 : 1;
}

// Issue 43 item 12: large requests go through the heap as the page's worker
// passes them (ccall's 'string' copied them onto the 16 MB stack: past
// 4 MiB a request trapped or overwrote static data); the module bounds a
// test at options.max_file_size (16 MiB) and refuses a mistyped option,
// located in the request.
function bounds(call) {
  const mp = fs.readFileSync(path.join(litmusDir, 'classic', 'MP.litmus'), 'utf8');
  const want = JSON.stringify(summary(call({command: 'run', test: mp, file: 'MP.litmus'})));
  const padded = mp + ' '.repeat(6 << 20);  // spaces: a newline is a token (1 M at most)
  const six = call({command: 'run', test: padded, file: 'MP.litmus'});
  const over = call({command: 'run', test: mp + ' '.repeat(16 << 20), file: 'MP.litmus'});
  const typed = call({command: 'run', test: mp, file: 'MP.litmus', options: {max_outcomes: '1'}});
  const ok = JSON.stringify(summary(six)) === want && !six.error &&
      over.error && /over the 16777216-byte input limit/.test(over.error.message) &&
      typed.error && typed.error.file === 'request' && typed.error.line === 1 &&
      /options\.max_outcomes takes a whole number/.test(typed.error.message);
  if (!ok)
    console.log(`bounds: a 6 MiB test ${JSON.stringify(summary(six))} (want ${want}); ` +
                `a 16 MiB one ${JSON.stringify(over.error)}; "1" ${JSON.stringify(typed.error)}`);
  return ok ? 0 : 1;
}

function main(M) {
  const compiled = loadCompiledPtx(M);
  if (compiled === 0) console.log('note: no CUDA PTX compiled ahead (examples/cuda-ptx.json)');
  // As web/worker.js's callModule: the request in malloc'ed memory.
  const call = req => {
    const text = JSON.stringify(req), size = M.lengthBytesUTF8(text) + 1, at = M._malloc(size);
    try {
      M.stringToUTF8(text, at, size);
      return JSON.parse(M.ccall('redscope_call', 'string', ['number'], [at]));
    } finally {
      M._free(at);
    }
  };
  const files = litmusFiles(litmusDir).filter(f => !EXCLUDED.has(path.relative(litmusDir, f)));
  const t0 = process.hrtime.bigint();
  const cli = JSON.parse(execFileSync(
      redscope, ['run', '--format', 'json', '--engine', 'enum', '-j2', ...files],
      {maxBuffer: 1 << 30}));
  const cliSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const byFile = new Map(cli.map(r => [r.file, r]));
  let failures = 0;
  const t1 = process.hrtime.bigint();
  for (const f of files) {
    const r = call({command: 'run', test: fs.readFileSync(f, 'utf8'), file: path.basename(f),
                    options: {engine: 'enum'}});
    const want = byFile.get(f);
    const a = JSON.stringify(summary(r)), b = JSON.stringify(want ? summary(want) : null);
    if (a !== b) {
      ++failures;
      console.log(`DIFFERENT ${f}\n  module: ${a}\n  cli:    ${b}`);
    }
  }
  const moduleSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  // A CUDA test nobody compiled ahead: the page says it has no nvcc.
  const cudaMp = fs.readFileSync(path.join(litmusDir, 'cuda', 'MP+rel-acq.dev.litmus'), 'utf8');
  const edited = call({command: 'run', test: cudaMp.replace('*x = 1;', '*x = 2;'),
                       file: 'MP.litmus'});
  if (!edited.error || !/the playground has no nvcc/.test(edited.error.message)) {
    ++failures;
    console.log(`an edited CUDA test: ${JSON.stringify(edited.error || summary(edited))}`);
  }
  const bad = call({command: 'run', test: 'PTX bad\n{ x = 0; }\n P0 ;\n', file: 'bad.litmus'});
  if (!bad.error || bad.error.file !== 'bad.litmus' || !(bad.error.line > 0) ||
      !bad.error.text.startsWith(`bad.litmus:${bad.error.line}:`)) {
    ++failures;
    console.log(`a malformed test: no located error: ${JSON.stringify(bad)}`);
  }
  // The enumerator's witness drawn with its rf, co and fr edges (recovered
  // from its texts by report's witness_dot).
  const mp = fs.readFileSync(path.join(litmusDir, 'classic', 'MP.litmus'), 'utf8');
  const picture = call({command: 'dot', test: mp, file: 'MP.litmus',
                        options: {outcome: {'P1:r0': '1', 'P1:r1': '1'}}}).dot || '';
  if (!/label=rf/.test(picture) || !/label=co/.test(picture)) {
    ++failures;
    console.log(`dot: no rf or co edge in the witness of MP's P1:r0=1, P1:r1=1:\n${picture}`);
  }
  failures += atomicity(call);
  failures += templateRows(call);
  failures += explainWords(call, (args) => execFileSync(redscope, args, {encoding: 'utf8'}));
  failures += progress(M, call);
  failures += bounds(call);
  const models = call({command: 'models'}).models || [];
  if (!models.includes('ptx.cat') || !M.FS.readdir('/models').includes('ptx.cat')) {
    ++failures;
    console.log(`models: ${JSON.stringify(models)}`);
  }
  console.log(`wasm.node: ${files.length} tests (${EXCLUDED.size} excluded), ${failures} ` +
              `difference(s); module ${moduleSeconds.toFixed(2)} s, CLI -j2 ` +
              `${cliSeconds.toFixed(2)} s`);
  process.exit(failures ? 1 : 0);
}

require(path.resolve(moduleJs))().then(main, e => {
  console.error(`wasm.node: the module did not load: ${e}`);
  process.exit(1);
});
