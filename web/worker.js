// The engine's Web Worker: loads the wasm module (redscope.js + redscope.wasm,
// built by scripts/build-wasm.sh) and answers one request at a time, so a long
// run never blocks the page. The page stops a run by terminating this worker
// and starting a new one (a wasm call cannot be interrupted from outside).
// Protocol (docs/playground.md "Worker protocol"):
//   page -> worker  {id, request}              request: the JSON API's object
//   worker -> page  {type: 'ready', version, ms}   once the module is up
//                   {type: 'progress', id, done, total, phase}
//                   {type: 'result', id, answer, ms}   answer: the parsed JSON;
//                       for `run`, each test with its first ROWS outcomes, no
//                       witnesses, and `outcome_count` (all of them)
//                   {type: 'rows', id, test, from, outcomes}   the rest of a
//                       run's outcomes, ROWS a message, after its result
//                   {type: 'crash', id, message}   the module aborted (the page
//                                                  then replaces the worker)
// The worker keeps the last run's answer: `kept.witness` {test, index} answers
// one outcome's witness, `kept.json` the run's JSON text as a Blob (the page
// never copies a large answer whole: a 65,536-outcome run is 68 MB of JSON).
/* global createRedscope */
'use strict';

const started = performance.now();
let current = null;   // the id of the request running now
let lastProgress = 0;
let kept = null;      // the last run: {text, tests}
const ROWS = 2000;    // outcomes a message: each is a short task on the page

try {
  importScripts('redscope.js');
} catch (e) {
  postMessage({ type: 'fatal', message: `cannot load redscope.js: ${e.message}` });
  throw e;
}

// One call of the module's JSON API. The request is copied into the wasm
// heap (malloc), not passed as ccall's 'string', which copies it onto the
// module's 16 MB stack: a request over 4 MiB would overflow it, writing over
// the module's static data or trapping (docs/playground.md "The module's
// JSON API"). The module itself bounds what it reads (max_file_size).
function callModuleText(Module, request) {
  const text = JSON.stringify(request);
  const size = Module.lengthBytesUTF8(text) + 1;
  const at = Module._malloc(size);
  if (!at) throw new Error(`no memory for a request of ${size} bytes`);
  try {
    Module.stringToUTF8(text, at, size);
    return Module.ccall('redscope_call', 'string', ['number'], [at]);
  } finally {
    Module._free(at);
  }
}
const callModule = (Module, request) => JSON.parse(callModuleText(Module, request));

// A run's answer: kept whole here; the page gets each test's head and then
// its outcomes in slices (sendRows), never its witnesses.
function runAnswer(Module, request) {
  const text = callModuleText(Module, request);
  const answer = JSON.parse(text);
  const tests = Array.isArray(answer) ? answer : [answer];
  if (!tests.every((t) => Array.isArray(t?.outcomes))) return { answer, rest: [] };
  kept = { text, tests };
  const head = tests.map((t) => {
    const { witnesses, ...rest } = t;
    return { ...rest, outcomes: t.outcomes.slice(0, ROWS), outcome_count: t.outcomes.length,
      has_witnesses: Array.isArray(witnesses) && witnesses.length > 0 };
  });
  return { answer: Array.isArray(answer) ? head : head[0], rest: tests };
}

function sendRows(id, tests) {
  tests.forEach((t, k) => {
    for (let from = ROWS; from < t.outcomes.length; from += ROWS) {
      const outcomes = t.outcomes.slice(from, from + ROWS);
      postMessage({ type: 'rows', id, test: k, from, outcomes });
    }
  });
}

// The page's questions about the kept run (no module call).
function keptAnswer(request) {
  if (!kept) {
    return { error: { message: 'no run is kept (the engine was restarted): run the test again' } };
  }
  if (request.command === 'kept.json') {
    return { blob: new Blob([kept.text], { type: 'application/json' }) };
  }
  const t = kept.tests[request.test ?? 0];
  return { witness: t?.witnesses?.[request.index] ?? null };
}

function onProgress(p) {
  const now = performance.now();
  if (now - lastProgress < 100) return;   // at most ~10 messages a second
  lastProgress = now;
  postMessage({ type: 'progress', id: current, done: p.done, total: p.total, phase: p.phase });
}

// CUDA tests need nvcc, which a browser has not: the build compiled
// litmus/cuda's examples ahead (scripts/build-web.sh) into cache entries,
// written here where the module's compiler reads them (docs/cuda.md).
async function loadCompiledPtx(Module) {
  let entries = {};
  try {
    const r = await fetch('examples/cuda-ptx.json');
    if (r.ok) entries = await r.json();
  } catch (e) { entries = {}; }
  Module.FS.mkdirTree('/cuda-ptx');
  for (const [name, text] of Object.entries(entries)) {
    if (/^[0-9a-f]{32}\.ptx$/.test(name)) Module.FS.writeFile(`/cuda-ptx/${name}`, text);
  }
}

const ready = createRedscope({ onProgress, print: () => {}, printErr: () => {} }).then(async (Module) => {
  Module.onProgress = onProgress;
  await loadCompiledPtx(Module);
  let version = null;
  try { version = callModule(Module, { command: 'version' }); } catch (e) { version = null; }
  postMessage({ type: 'ready', version, ms: performance.now() - started });
  return Module;
}, (e) => {
  postMessage({ type: 'fatal', message: `the wasm module did not start: ${e.message || e}` });
  throw e;
});

onmessage = async (event) => {
  const { id, request } = event.data;
  const Module = await ready;
  current = id;
  const t0 = performance.now();
  try {
    if (request.command.startsWith('kept.')) {
      postMessage({ type: 'result', id, answer: keptAnswer(request), ms: performance.now() - t0 });
    } else if (request.command === 'run' && request.options?.format !== 'text') {
      kept = null;
      const { answer, rest } = runAnswer(Module, request);
      postMessage({ type: 'result', id, answer, ms: performance.now() - t0 });
      sendRows(id, rest);
    } else {
      const answer = callModule(Module, request);
      postMessage({ type: 'result', id, answer, ms: performance.now() - t0 });
    }
  } catch (e) {
    postMessage({ type: 'crash', id, message: String(e && e.message || e) });
  } finally {
    current = null;
  }
};
