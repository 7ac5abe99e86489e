// Evaluates a test's final condition on one outcome, to mark in the outcome
// table which outcomes satisfy it (herd7 prints only the count). The
// condition text is the one `run --format json` gives ("(P1:r0 == 1 /\
// P1:r1 == 0)"). Anything this small reader does not know (a name the
// outcome lacks, an operator it does not read) gives null: no mark, rather
// than a wrong one.

const TOKEN = /\s*(\/\\|\\\/|&&|\|\||==|!=|<=|>=|<|>|~|!|\(|\)|[A-Za-z_%$][\w.%$]*(?::[\w.%]+)?(?:\[\d+\])*|-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))/y;

function lex(text) {
  const out = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < text.length) {
    if (/^\s*$/.test(text.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m) return null;
    out.push(m[1]);
    pos = TOKEN.lastIndex;
  }
  return out;
}

function compare(a, b, op) {
  const x = Number(a);
  const y = Number(b);
  const numeric = a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y);
  const [l, r] = numeric ? [x, y] : [a, b];
  switch (op) {
    case '==': return l === r;
    case '!=': return l !== r;
    case '<': return l < r;
    case '<=': return l <= r;
    case '>': return l > r;
    case '>=': return l >= r;
    default: throw new Error('op');
  }
}

// Returns true/false, or null when it cannot tell.
export function evalCondition(text, outcome) {
  const toks = lex(text || '');
  if (!toks || !toks.length) return null;
  let i = 0;
  const peek = () => toks[i];
  const value = (tok) => {
    if (/^-?(0x|\d)/.test(tok)) return tok;
    if (!(tok in outcome)) throw new Error('unknown');
    return outcome[tok];
  };
  const atom = () => {
    const t = toks[i++];
    if (t === '(') { const v = or(); if (toks[i++] !== ')') throw new Error(')'); return v; }
    if (t === '~' || t === '!') return !atom();
    if (t === 'true') return true;
    if (t === 'false') return false;
    const op = toks[i++];
    const rhs = toks[i++];
    if (rhs === undefined) throw new Error('end');
    return compare(String(value(t)), String(value(rhs)), op);
  };
  const and = () => { let v = atom(); while (peek() === '/\\' || peek() === '&&') { i++; v = atom() && v; } return v; };
  const or = () => { let v = and(); while (peek() === '\\/' || peek() === '||') { i++; v = and() || v; } return v; };
  try {
    const v = or();
    return i === toks.length ? v : null;
  } catch (e) {
    return null;
  }
}

// "P1:r0 == 1 /\ P1:r1 == 0" -> "P1:r0=1; P1:r1=0" when the condition is a
// conjunction of equalities (explain's --outcome form), else null.
export function conditionAsOutcome(text) {
  const inner = (text || '').trim().replace(/^\((.*)\)$/s, '$1');
  const parts = inner.split(/\s*(?:\/\\|&&)\s*/);
  const eqs = parts.map((p) => p.match(/^\s*([^\s=!<>()]+)\s*==\s*([^\s()]+)\s*$/));
  if (eqs.some((m) => !m)) return null;
  return eqs.map((m) => `${m[1]}=${m[2]}`).join('; ');
}
