// Completes a witness graph from the run's JSON witness, a fallback for a
// module whose DOT (the `dot` call, what `run --dot` writes) draws no rf or
// co: report's witness_dot drew them from a solver model only, and the
// enumerator is the only engine in the wasm build. The run's
// JSON lists them for every outcome ("P0#1 st.release.gpu y, 1 -> P1#0
// ld.acquire.gpu r0, y", "init x -> ..."): this adds them to the DOT, each
// event found as the DOT draws it (a thread's events in program order in its
// cluster_Pn, the initial writes by label). An event it cannot find is left
// out, never guessed. A DOT that already has rf edges is returned as it is.

const COLOURS = { rf: '#d62728', co: '#1f77b4' };

// DOT node ids: {init: Map(label -> id), threads: Map('P0' -> [id, ...])}.
function nodesOf(dot) {
  const init = new Map();
  const threads = new Map();
  let cluster = null;
  for (const line of dot.split('\n')) {
    const sub = line.match(/^\s*subgraph\s+cluster_(\S+)\s*\{/);
    if (sub) { cluster = sub[1]; continue; }
    const node = line.match(/^\s*(\d+)\s*\[label="((?:[^"\\]|\\.)*)"/);
    if (!node || !cluster) continue;
    const label = node[2].split(/\\n|\n/)[0];
    if (cluster === 'init') init.set(label, node[1]);
    else if (/^P\d+$/.test(cluster)) {
      if (!threads.has(cluster)) threads.set(cluster, []);
      threads.get(cluster).push(node[1]);
    }
  }
  return { init, threads };
}

function eventId(nodes, text) {
  const ev = text.trim().match(/^(P\d+)#(\d+)\b/);
  if (ev) return nodes.threads.get(ev[1])?.[+ev[2]] ?? null;
  const init = text.trim().match(/^init\s+(\S+)/);
  return init ? nodes.init.get(`init ${init[1]}`) ?? null : null;
}

export function withWitnessEdges(dot, witness) {
  if (!witness || /label=rf\b/.test(dot)) return dot;
  const nodes = nodesOf(dot);
  const edges = [];
  for (const kind of ['rf', 'co']) {
    for (const pair of witness[kind] ?? []) {
      const [from, to] = pair.split(' -> ');
      const a = eventId(nodes, from ?? '');
      const b = eventId(nodes, to ?? '');
      if (a !== null && b !== null) {
        edges.push(`${a} -> ${b} [color="${COLOURS[kind]}", fontcolor="${COLOURS[kind]}", label=${kind}, constraint=false];`);
      }
    }
  }
  const end = dot.lastIndexOf('}');
  return end < 0 ? dot : `${dot.slice(0, end)}${edges.join('\n')}\n}\n`;
}
