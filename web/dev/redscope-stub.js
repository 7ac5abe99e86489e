// A stand-in for the wasm module (docs/playground.md "Developing the page"):
// the JSON API of the contract with canned answers, so the page can be worked
// on without Emscripten. scripts/build-web.sh --stub OUT copies it as
// redscope.js when OUT has no real module. Never shipped as the engine.
/* eslint-disable */
function createRedscope(moduleArg) {
  const Module = Object.assign({}, moduleArg);
  const MP = {
    test: 'MP', file: 'MP.litmus', model: 'ptx', target: 'sm_90', engine: 'enum', engine_reason: null,
    condition: { quantifier: 'exists', text: '(P1:r0 == 1 /\\ P1:r1 == 0)', holds: false },
    observation: 'Never',
    outcomes: [{ 'P1:r0': '0', 'P1:r1': '0' }, { 'P1:r0': '0', 'P1:r1': '1' }, { 'P1:r0': '1', 'P1:r1': '1' }],
    witnesses: [{ rf: ['init y -> P1#0 ld.acquire.gpu r0, y', 'init x -> P1#1 ld.weak r1, x'], co: [] },
      { rf: ['init y -> P1#0 ld.acquire.gpu r0, y', 'P0#0 st.weak x, 1 -> P1#1 ld.weak r1, x'], co: [] },
      { rf: ['P0#1 st.release.gpu y, 1 -> P1#0 ld.acquire.gpu r0, y', 'P0#0 st.weak x, 1 -> P1#1 ld.weak r1, x'], co: [] }],
    incomplete_paths: 0, seconds: 0.004, error: null, error_kind: null,
  };
  const located = (file, text, word, message) => {
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes(word));
    if (line < 0) return null;
    const column = lines[line].indexOf(word) + 1;
    return { error: { file, line: line + 1, column, message, text: `${file}:${line + 1}:${column}: error: ${message}` } };
  };
  const answer = (req) => {
    switch (req.command) {
      case 'version': return { version: 'stub', wasm: false };
      case 'models': return { models: ['ptx.cat', 'sass-sm30.cat'] };
      case 'check_model': return located(req.model_file, req.model_text || '', '@@', "unexpected '@@'") || { ok: true };
      case 'run': {
        const bad = located(req.file, req.test, 'ld.foo', "unknown qualifier '.foo' in 'ld.foo'");
        if (bad) return bad;
        if (req.model_text) { const m = located(req.model_file, req.model_text, '@@', "unexpected '@@'"); if (m) return m; }
        if (req.test.includes('SLOW')) {
          const t0 = Date.now();
          while (Date.now() - t0 < 3000) { if (Module.onProgress) Module.onProgress({ done: Date.now() - t0, total: 3000, phase: 'search' }); }
        }
        return Object.assign({}, MP, { file: req.file, test: req.file.replace(/\.[a-z]+$/, '') });
      }
      case 'dot': return { dot: 'digraph G { graph [label="stub witness"]; node [shape=box, style=rounded]; a [label="st.weak x, 1"]; b [label="ld.weak r1, x"]; a -> b [label=rf, color="#b3261e"]; }' };
      case 'explain': return { test: 'MP', outcome: req.options.outcome || 'P1:r0=1; P1:r1=0', verdict: 'forbidden', axioms: ['Causality'],
        breaches: [{ axiom: 'Causality', why: 'stub: (rf | fr) ; cause is not irreflexive',
          edges: [{ kind: 'fr', from: "P1's ld.weak r1, x", to: "P0's st.weak x, 1" }, { kind: 'po', from: "P0's st.weak x, 1", to: "P0's st.release.gpu y, 1" },
            { kind: 'rf', from: "P0's st.release.gpu y, 1", to: "P1's ld.acquire.gpu r0, y" }, { kind: 'po', from: "P1's ld.acquire.gpu r0, y", to: "P1's ld.weak r1, x" }] }] };
      case 'atomicity': return [{ test: 'stub', error: null, pairs: [{ location: 'x', a: { thread: 'P0', instruction: 'red.add.u32 [x], 1', line: 9 },
        b: { thread: 'P1', instruction: 'red.add.u32 [x], 1', line: 9 }, mutually_in_scope: true, lost_update: !!req.model_text, how: 'both RMWs read init x' }] }];
      default: return { error: { file: null, line: 0, column: 0, message: `unknown command ${req.command}`, text: `error: unknown command ${req.command}` } };
    }
  };
  // worker.js passes the request through the heap (_malloc, stringToUTF8, a
  // pointer): here a pointer names the stored string.
  const heap = new Map();
  let next = 0;
  Module.lengthBytesUTF8 = (s) => new TextEncoder().encode(s).length;
  Module._malloc = () => (next += 8);
  Module._free = (at) => heap.delete(at);
  Module.stringToUTF8 = (s, at) => heap.set(at, s);
  Module.ccall = (name, ret, types, args) =>
    JSON.stringify(answer(JSON.parse(types[0] === 'number' ? heap.get(args[0]) : args[0])));
  return new Promise((resolve) => setTimeout(() => resolve(Module), 200));
}
if (typeof module !== 'undefined') module.exports = createRedscope;
