// Linked in front of the module (--pre-js, CMakeLists.txt). Node 18 and later
// have a global fetch(), which emscripten 3.1.6's loader then uses to read
// redscope.wasm as a URL and fails; in Node the module reads its file next
// to redscope.js itself, so require('./redscope.js')() works as in a Worker.
if (typeof process == 'object' && process.versions && process.versions.node &&
    !Module['wasmBinary']) {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'redscope.wasm'));
}
