// The engine's Web Worker: loads the wasm module (redscope.js + redscope.wasm,
// built by scripts/build-wasm.sh) and answers one request at a time, so a long
// run never blocks the page. The page stops a run by terminating this worker
// and starting a new one (a wasm call cannot be interrupted from outside).
// Protocol (docs/playground.md "Worker protocol"):
//   page -> worker  {id, request}              request: the JSON API's object
//   worker -> page  {type: 'ready', version, ms}   once the module is up
//                   {type: 'progress', id, done, total, phase}
//                   {type: 'result', id, answer, ms}   answer: the parsed JSON
//                   {type: 'crash', id, message}   the module aborted (the page
//                                                  then replaces the worker)
/* global createRedscope */
'use strict';

const started = performance.now();
let current = null;   // the id of the request running now
let lastProgress = 0;

try {
  importScripts('redscope.js');
} catch (e) {
  postMessage({ type: 'fatal', message: `cannot load redscope.js: ${e.message}` });
  throw e;
}

function onProgress(p) {
  const now = performance.now();
  if (now - lastProgress < 100) return;   // at most ~10 messages a second
  lastProgress = now;
  postMessage({ type: 'progress', id: current, done: p.done, total: p.total, phase: p.phase });
}

const ready = createRedscope({ onProgress, print: () => {}, printErr: () => {} }).then((Module) => {
  Module.onProgress = onProgress;
  let version = null;
  try { version = JSON.parse(Module.ccall('redscope_call', 'string', ['string'],
    [JSON.stringify({ command: 'version' })])); } catch (e) { version = null; }
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
    const text = Module.ccall('redscope_call', 'string', ['string'], [JSON.stringify(request)]);
    postMessage({ type: 'result', id, answer: JSON.parse(text), ms: performance.now() - t0 });
  } catch (e) {
    postMessage({ type: 'crash', id, message: String(e && e.message || e) });
  } finally {
    current = null;
  }
};
