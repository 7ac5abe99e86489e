// The page's pure modules under Node's test runner (ctest web.unit; no
// browser, no wasm): share links both ways, the condition marks, the
// dialect choice and colouring, and the witness edges added to a DOT.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { encodeState, decodeFragment } from '../share.js';
import { evalCondition, conditionAsOutcome } from '../condition.js';
import { dialectOf, tokenize } from '../highlight.js';
import { withWitnessEdges } from '../witness.js';

const root = new URL('../../', import.meta.url);
const mp = fs.readFileSync(new URL('litmus/classic/MP.litmus', root), 'utf8');

test('share links round-trip, compressed and plain', async () => {
  const state = { file: 'MP.litmus', test: `${mp}\n(* é ✓ *)`, model: null, model_text: 'let x = rf' };
  for (const compress of [true, false]) {
    const frag = await encodeState(state, { compress });
    assert.match(frag, compress ? /^z=[A-Za-z0-9_-]+$/ : /^j=[A-Za-z0-9_-]+$/);
    const back = await decodeFragment(`#${frag}`);
    assert.deepEqual(back, { kind: 'state', state: { v: 1, ...state } });
  }
  const z = await encodeState(state);
  assert.ok(z.length < (await encodeState(state, { compress: false })).length);
  assert.deepEqual(await decodeFragment('#example=classic%2FMP.litmus'), { kind: 'example', path: 'classic/MP.litmus' });
  assert.equal(await decodeFragment(''), null);
  await assert.rejects(decodeFragment('#z=AAAA'), /share link is damaged/);
});

test('condition marks: true, false, or null when unsure', () => {
  const c = '(P1:r0 == 1 /\\ P1:r1 == 0)';
  assert.equal(evalCondition(c, { 'P1:r0': '1', 'P1:r1': '0' }), true);
  assert.equal(evalCondition(c, { 'P1:r0': '1', 'P1:r1': '1' }), false);
  assert.equal(evalCondition('~(x == 1) \\/ y[2] == 0x3', { x: '1', 'y[2]': '3' }), true);
  assert.equal(evalCondition('x == 1.5', { x: '1.50' }), true);
  assert.equal(evalCondition('r0 == 2 || r1 == 1', { 'd0.b0.t0:r0': '2' }), null);
  assert.equal(evalCondition('x ==', { x: '1' }), null);
  assert.equal(conditionAsOutcome(c), 'P1:r0=1; P1:r1=0');
  assert.equal(conditionAsOutcome('x == 1 \\/ y == 2'), null);
});

test('dialects by file name and first word; colouring keeps the text', () => {
  assert.equal(dialectOf('MP.litmus', mp), 'ptx');
  assert.equal(dialectOf('a.litmus', 'SASS x\n'), 'sass');
  assert.equal(dialectOf('a.litmus', 'PTO x\n'), 'pto');
  assert.equal(dialectOf('MP_gpu.test', '.global x;'), 'nvtest');
  assert.equal(dialectOf('mine.cat', ''), 'cat');
  for (const dir of ['classic', 'sass', 'pto', 'sured']) {
    const dirUrl = new URL(`litmus/${dir}/`, root);
    const file = fs.readdirSync(dirUrl).find((f) => f.endsWith('.litmus'));
    const text = fs.readFileSync(new URL(file, dirUrl), 'utf8');
    const toks = tokenize(text, dialectOf(file, text));
    assert.equal(toks.map((t) => t.text).join(''), text, `${dir}/${file}`);
  }
  const ops = tokenize(mp, 'ptx').filter((t) => t.cls === 'opq').map((t) => t.text);
  assert.deepEqual(ops, ['st.weak', 'ld.acquire.gpu', 'st.release.gpu', 'ld.weak']);
  const cat = fs.readFileSync(new URL('models/ptx.cat', root), 'utf8');
  assert.equal(tokenize(cat, 'cat').map((t) => t.text).join(''), cat);
});

test('witness edges are added from the JSON witness, never guessed', () => {
  const dot = 'digraph G {\nsubgraph cluster_init {\n0[label="init x"];\n}\nsubgraph cluster_P0 {\n' +
    '1[label="st x, 1"];\n}\nsubgraph cluster_P1 {\n2[label="ld r0, x"];\n}\n}\n';
  const out = withWitnessEdges(dot, { rf: ['P0#0 st x, 1 -> P1#0 ld r0, x', 'init x -> P1#7 ld'], co: ['init x -> P0#0 st x, 1'] });
  assert.match(out, /1 -> 2 \[[^\]]*label=rf/);
  assert.match(out, /0 -> 1 \[[^\]]*label=co/);
  assert.equal((out.match(/label=rf/g) || []).length, 1);
  assert.equal(withWitnessEdges(`${dot.slice(0, -2)}1 -> 2 [label=rf];\n}\n`, { rf: ['x -> y'] }).includes('#d62728'), false);
});
