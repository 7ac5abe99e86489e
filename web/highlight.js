// Syntax colouring for the test editor and the cat editor. One tokenizer,
// configured per dialect: PTX litmus (herd/Dat3M style, docs/litmus-format.md),
// NVIDIA's .test format, Kepler SASS litmus (docs/sass.md), Ascend PTO
// (litmus/pto) and cat models (models/*.cat). The keyword sets follow the
// lexers in src/frontend and src/dialects; an unknown word is plain text, so
// colouring never hides what was typed.

const PTX_OPS = new Set(('ld st red atom fence membar bar barrier mov add sub mul div min max and or ' +
  'xor setp bra goto beq bne blt ble bgt bge sured sust suld suatom tld cold multimem cp ' +
  'createpolicy cas exch inc dec ret exit').split(' '));
const SASS_OPS = new Set(('ATOM B2R BAR BRA BRK CAL CC CONT EXIT JCAL JMP LD LONGJMP MEMBAR MOV ' +
  'MOV32I NOP PBK PCNT PLONGJMP PRET RED RET SCHI SSY ST VOTE').split(' '));
const LITMUS_KEYWORDS = new Set(['exists', 'forall', 'filter', 'locations', 'true', 'false']);
const DECL_WORDS = new Set(('global shared local const surface texture multimem alias u8 u16 u32 ' +
  'u64 s8 s16 s32 s64 b8 b16 b32 b64 f16 f16x2 bf16 bf16x2 f32 f64 e4m3 e5m2 ub gm').split(' '));
const NVTEST_KEYWORDS = new Set(['permit', 'assert', 'check', 'as']);
const PTO_KEYWORDS = new Set(['splat', 'ub', 'gm', 'f16', 'f32', 'i32', 'u32', 'b32', 'scf.for', 'to',
  'step', 'in']);
const CAT_KEYWORDS = new Set(('let rec and as acyclic irreflexive empty include show unshow flag if ' +
  'else then call procedure end enum with from forall do').split(' '));

// Which dialect a text is in: by the file name (.test, .cat) and, for .litmus
// files, by the first word (SASS, PTO, else PTX), as redscope's registry does.
export function dialectOf(fileName, text) {
  const name = (fileName || '').toLowerCase();
  if (name.endsWith('.test')) return 'nvtest';
  if (name.endsWith('.cat')) return 'cat';
  const first = (text.match(/^\s*(\S+)/) || [])[1] || '';
  if (first === 'SASS' || name.endsWith('.sass')) return 'sass';
  if (first === 'PTO' || name.endsWith('.pto')) return 'pto';
  return 'ptx';
}

export const DIALECT_NAMES = {
  ptx: 'PTX litmus', sass: 'SASS (sm_30) litmus', pto: 'Ascend PTO', nvtest: 'NVIDIA .test',
  cat: 'cat model',
};

const escapeMap = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => escapeMap[c]);

// The token rules: [class, regex]; the first rule that matches at a position
// wins. 'word' tokens are classified afterwards by classifyWord.
const COMMON = [
  ['comment', /\(\*[\s\S]*?(?:\*\)|$)/y],
  ['comment', /\/\/[^\n]*/y],
  ['comment', /\/\*[\s\S]*?(?:\*\/|$)/y],
  ['string', /"(?:[^"\\\n]|\\.)*(?:"|$)|"[^"]*"/y],
];
const RULES = {
  ptx: [...COMMON,
    ['thread', /P\d+@(?:[a-z]+ \d+,?)+/y],
    ['thread', /P\d+(?=\s*[|;:])/y],
    ['number', /0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y],
    ['logic', /\/\\|\\\/|~|==|!=|&&|\|\|/y],
    ['word', /[A-Za-z_%][\w%]*(?:\.[\w:]+)*/y]],
  sass: [...COMMON,
    ['thread', /P\d+@(?:[a-z]+ \d+,?)+/y],
    ['number', /0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?/y],
    ['logic', /\/\\|\\\/|~|==|!=/y],
    ['guard', /@!?P[T\d]/y],
    ['word', /[A-Za-z_][\w]*(?:\.[\w]+)*/y]],
  nvtest: [...COMMON,
    ['thread', /d\d+\.b\d+\.t\d+/y],
    ['hole', /\$\$|\$\d+/y],
    ['number', /0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?/y],
    ['logic', /==|!=|&&|\|\||!/y],
    ['directive', /\.[a-z]+/y],
    ['word', /[A-Za-z_][\w]*(?:\.[\w:]+)*/y]],
  pto: [...COMMON,
    ['reg', /%[\w]+/y],
    ['type', /![\w.]+(?:<[^>\n]*>)?/y],
    ['attr', /#[\w.]+/y],
    ['thread', /P\d+(?=:)/y],
    ['number', /0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y],
    ['logic', /\/\\|\\\/|~|==|!=/y],
    ['word', /[A-Za-z_][\w]*(?:\.[\w]+)*/y]],
  cat: [...COMMON,
    ['logic', /[|&;\\~*+?^-]|\^-1/y],
    ['set', /\[[^\]\n]*\]/y],
    ['word', /[A-Za-z_][\w-]*/y]],
};

function classifyWord(dialect, word, atLineStart) {
  switch (dialect) {
    case 'ptx': {
      if (atLineStart && (word === 'PTX' || word === 'SASS')) return 'kw';
      if (LITMUS_KEYWORDS.has(word)) return 'kw';
      if (/^P\d+:/.test(word) || /^[rf]\d+$/.test(word) || word.startsWith('%')) return 'reg';
      const head = word.split('.')[0];
      if (PTX_OPS.has(head) && word.length >= head.length) return word.includes('.') ? 'opq' : 'op';
      if (DECL_WORDS.has(word)) return 'type';
      return null;
    }
    case 'sass': {
      if (atLineStart && word === 'SASS') return 'kw';
      if (LITMUS_KEYWORDS.has(word)) return 'kw';
      if (/^(R\d+|RZ|PT|P\d+|UR\d+)$/.test(word)) return 'reg';
      const head = word.split('.')[0];
      if (SASS_OPS.has(head)) return word.includes('.') ? 'opq' : 'op';
      return null;
    }
    case 'nvtest': {
      if (NVTEST_KEYWORDS.has(word)) return 'kw';
      if (/^[rf]\d+$/.test(word)) return 'reg';
      const head = word.split('.')[0];
      if (PTX_OPS.has(head)) return word.includes('.') ? 'opq' : 'op';
      return null;
    }
    case 'pto': {
      if (atLineStart && word === 'PTO') return 'kw';
      if (LITMUS_KEYWORDS.has(word)) return 'kw';
      if (word.startsWith('pto.')) return 'op';
      if (PTO_KEYWORDS.has(word)) return 'type';
      return null;
    }
    case 'cat':
      if (CAT_KEYWORDS.has(word)) return 'kw';
      if (/^[A-Z][A-Z_0-9]*$/.test(word)) return 'type';
      return null;
    default:
      return null;
  }
}

// Splits an op word ("red.relaxed.gpu.add.u32", "ATOM.E.ADD") into the
// mnemonic and its qualifiers, each with its own class.
function opHtml(word) {
  const dot = word.indexOf('.');
  return `<span class="t-op">${escapeHtml(word.slice(0, dot))}</span>` +
    `<span class="t-qual">${escapeHtml(word.slice(dot))}</span>`;
}

// Returns [{cls, text}] covering the whole text (cls null for plain text).
export function tokenize(text, dialect) {
  const rules = RULES[dialect] || RULES.ptx;
  const out = [];
  let plain = '';
  let i = 0;
  let lineStart = true;
  // The first line of a litmus file: the dialect's word and the test's name.
  const header = /^([ \t]*)(PTX|SASS|PTO)([ \t]+[^\n]*)?/.exec(text);
  if (header && dialect !== 'cat' && dialect !== 'nvtest') {
    if (header[1]) out.push({ cls: null, text: header[1] });
    out.push({ cls: 'kw', text: header[2] });
    if (header[3]) out.push({ cls: 'name', text: header[3] });
    i = header[0].length;
    lineStart = false;
  }
  while (i < text.length) {
    let matched = null;
    for (const [cls, re] of rules) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (m && m[0].length > 0) { matched = [cls, m[0]]; break; }
    }
    if (!matched) {
      const c = text[i];
      plain += c;
      if (c === '\n') lineStart = true;
      else if (!/\s/.test(c)) lineStart = false;
      i += 1;
      continue;
    }
    let [cls, tok] = matched;
    if (cls === 'word') cls = classifyWord(dialect, tok, lineStart);
    if (plain) { out.push({ cls: null, text: plain }); plain = ''; }
    out.push({ cls, text: tok });
    lineStart = tok.endsWith('\n');
    i += tok.length;
  }
  if (plain) out.push({ cls: null, text: plain });
  return out;
}

export function highlight(text, dialect) {
  return tokenize(text, dialect).map(({ cls, text: t }) => {
    if (!cls) return escapeHtml(t);
    if (cls === 'opq') return opHtml(t);
    return `<span class="t-${cls}">${escapeHtml(t)}</span>`;
  }).join('');
}
