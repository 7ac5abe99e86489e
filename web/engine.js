// The page's side of the worker protocol (worker.js): one request at a time,
// each a promise; progress to a callback; stop() terminates the worker and
// starts a fresh one, rejecting the running request with {stopped: true}.

export class Engine {
  // onRows(msg): a run's further outcomes ({id, test, from, outcomes}),
  // arriving after its result (worker.js).
  constructor({ onReady = () => {}, onFatal = () => {}, onRows = () => {} } = {}) {
    this.onReady = onReady;
    this.onFatal = onFatal;
    this.onRows = onRows;
    this.nextId = 1;
    this.pending = new Map();
    this.start();
  }

  start() {
    this.ready = false;
    this.worker = new Worker('worker.js');
    this.worker.onmessage = (e) => this.onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.failAll(`the engine's worker failed: ${e.message || 'cannot load it'}`);
      this.onFatal(e.message || 'the worker failed to load');
    };
    this.readyPromise = new Promise((resolve) => { this.resolveReady = resolve; });
  }

  onMessage(msg) {
    if (msg.type === 'ready') {
      this.ready = true;
      this.version = msg.version;
      this.resolveReady(msg);
      this.onReady(msg);
      return;
    }
    if (msg.type === 'fatal') { this.onFatal(msg.message); return; }
    if (msg.type === 'rows') { this.onRows(msg); return; }
    const job = this.pending.get(msg.id);
    if (!job) return;
    if (msg.type === 'progress') { job.onProgress?.(msg); return; }
    this.pending.delete(msg.id);
    if (msg.type === 'result') job.resolve({ answer: msg.answer, ms: msg.ms });
    else {
      job.reject(new Error(`the engine aborted: ${msg.message}`));
      this.restart();   // an aborted wasm instance is not reusable
    }
  }

  failAll(message) {
    for (const job of this.pending.values()) job.reject(new Error(message));
    this.pending.clear();
  }

  call(request, { onProgress } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, request });
    }).then((r) => ({ ...r, id }));
  }

  get busy() { return this.pending.size > 0; }

  restart() {
    this.worker.terminate();
    this.start();
  }

  // Stops whatever runs: the worker is terminated (its wasm memory with it).
  stop() {
    const stopped = Object.assign(new Error('stopped'), { stopped: true });
    for (const job of this.pending.values()) job.reject(stopped);
    this.pending.clear();
    this.restart();
  }
}
