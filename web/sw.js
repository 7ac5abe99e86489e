// The offline copy: a service worker that keeps the page's files, the engine
// (redscope.js, redscope.wasm), Graphviz (vendor/viz.js), the models and every
// example in one cache, so the page works without a network once loaded.
// Cache first: the files are the build's; a new build (scripts/build-web.sh
// writes its content hash into BUILD below) installs a new cache and drops the
// old one. docs/playground.md "Offline".
'use strict';

const BUILD = 'dev';   // replaced by scripts/build-web.sh
const CACHE = `redscope-playground-${BUILD}`;
const CORE = ['./', 'index.html', 'style.css', 'app.js', 'editor.js', 'highlight.js', 'engine.js',
  'share.js', 'condition.js', 'witness.js', 'table.js', 'worker.js', 'redscope.js', 'redscope.wasm', 'vendor/viz.js',
  'examples/index.json', 'models/index.json', 'examples/cuda-ptx.json'];

async function precache() {
  const cache = await caches.open(CACHE);
  await cache.addAll(CORE);
  // The examples and models: listed by the build's index files.
  const examples = await (await cache.match('examples/index.json')).json();
  const models = await (await cache.match('models/index.json')).json();
  const extra = [...examples.groups.flatMap((g) => g.files.map((f) => `examples/${f.path}`)),
    ...models.models.map((m) => `models/${m}`)];
  await cache.addAll(extra);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith('redscope-playground-') && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(event.request, { ignoreSearch: true });
    if (hit) return hit;
    const res = await fetch(event.request);
    if (res.ok && url.pathname.startsWith(new URL('./', self.location).pathname)) {
      cache.put(event.request, res.clone());
    }
    return res;
  })());
});
