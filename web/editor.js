// A code editor: a <textarea> (which keeps native editing, undo, selection and
// accessibility) over a <pre> that shows the same text coloured, with line
// numbers and located errors (the line marked, the column underlined, the
// message beside the line). No framework: the overlay is re-rendered on input.

import { tokenize, escapeHtml } from './highlight.js';

// Cuts the token list into lines of tokens (a comment may span lines).
function tokenLines(tokens) {
  const lines = [[]];
  for (const { cls, text } of tokens) {
    const parts = text.split('\n');
    parts.forEach((part, k) => {
      if (k > 0) lines.push([]);
      if (part) lines[lines.length - 1].push({ cls, text: part });
    });
  }
  return lines;
}

function tokenHtml({ cls, text }) {
  if (!cls) return escapeHtml(text);
  if (cls === 'opq') {
    const dot = text.indexOf('.');
    return `<span class="t-op">${escapeHtml(text.slice(0, dot))}</span>` +
      `<span class="t-qual">${escapeHtml(text.slice(dot))}</span>`;
  }
  return `<span class="t-${cls}">${escapeHtml(text)}</span>`;
}

// One line's HTML; with an error, the character at column col (1-based) is
// wrapped in <mark> (a caret past the end when the column is beyond it).
function lineHtml(tokens, error) {
  if (!error) return tokens.map(tokenHtml).join('');
  let html = '';
  let pos = 1;
  let marked = false;
  for (const tok of tokens) {
    const end = pos + tok.text.length;
    if (!marked && error.column >= pos && error.column < end) {
      const k = error.column - pos;
      const before = { cls: tok.cls === 'opq' ? 'op' : tok.cls, text: tok.text.slice(0, k) };
      const at = tok.text.slice(k, k + 1);
      const after = { cls: tok.cls === 'opq' ? 'qual' : tok.cls, text: tok.text.slice(k + 1) };
      html += (before.text ? tokenHtml(before) : '') +
        `<mark class="err-at">${escapeHtml(at)}</mark>` + (after.text ? tokenHtml(after) : '');
      marked = true;
    } else {
      html += tokenHtml(tok);
    }
    pos = end;
  }
  if (!marked) html += '<mark class="err-at err-eol"> </mark>';
  return html + `<span class="err-msg">  \u25c0 ${escapeHtml(error.label)}</span>`;
}

export class Editor {
  // root: an element holding <textarea>; dialectFn() gives the dialect to
  // colour with; onChange(text) is called after each edit.
  constructor(root, { dialectFn, onChange = () => {} }) {
    this.root = root;
    this.dialectFn = dialectFn;
    this.onChange = onChange;
    this.errors = [];
    this.textarea = root.querySelector('textarea');
    this.gutter = document.createElement('pre');
    this.gutter.className = 'gutter';
    this.gutter.setAttribute('aria-hidden', 'true');
    this.overlay = document.createElement('pre');
    this.overlay.className = 'overlay';
    this.overlay.setAttribute('aria-hidden', 'true');
    root.prepend(this.overlay);
    root.prepend(this.gutter);
    this.textarea.addEventListener('input', () => { this.errors = []; this.render(); this.onChange(this.value); });
    this.textarea.addEventListener('scroll', () => this.syncScroll());
    this.textarea.addEventListener('keydown', (e) => this.onKey(e));
    this.render();
  }

  get value() { return this.textarea.value; }

  set value(text) {
    this.textarea.value = text;
    this.errors = [];
    this.render();
  }

  // errors: [{line, column, message}] (1-based, as redscope prints them).
  setErrors(errors) {
    this.errors = errors.map((e) => ({ ...e, label: `${e.line}:${e.column}: ${e.message}` }));
    this.render();
    if (this.errors.length) this.reveal(this.errors[0].line, this.errors[0].column);
  }

  // Puts the caret at line:col and scrolls it into view.
  reveal(line, column) {
    const lines = this.value.split('\n');
    let offset = 0;
    for (let k = 0; k < Math.min(line - 1, lines.length); k++) offset += lines[k].length + 1;
    offset += Math.max(0, column - 1);
    const lineHeight = parseFloat(getComputedStyle(this.textarea).lineHeight) || 18;
    this.textarea.scrollTop = Math.max(0, (line - 4) * lineHeight);
    this.textarea.setSelectionRange(offset, offset);
    this.syncScroll();
  }

  render() {
    const lines = tokenLines(tokenize(this.value, this.dialectFn()));
    const byLine = new Map(this.errors.map((e) => [e.line, e]));
    this.overlay.innerHTML = lines.map((toks, k) => {
      const error = byLine.get(k + 1);
      const html = lineHtml(toks, error);
      return error ? `<span class="err-line">${html}</span>` : html;
    }).join('\n') + '\n';
    this.gutter.innerHTML = lines.map((_, k) =>
      (byLine.has(k + 1) ? `<span class="err-no">${k + 1}</span>` : String(k + 1))).join('\n') + '\n';
    this.syncScroll();
  }

  syncScroll() {
    this.overlay.scrollTop = this.textarea.scrollTop;
    this.overlay.scrollLeft = this.textarea.scrollLeft;
    this.gutter.scrollTop = this.textarea.scrollTop;
  }

  // Tab inserts two spaces (Escape then Tab leaves the editor, as usual for
  // code editors); Ctrl/Cmd+Enter is handled by the page (run).
  onKey(e) {
    if (e.key === 'Escape') { this.tabLeaves = true; return; }
    if (e.key === 'Tab' && !this.tabLeaves && !e.shiftKey) {
      e.preventDefault();
      const { selectionStart: s, selectionEnd: t } = this.textarea;
      this.textarea.setRangeText('  ', s, t, 'end');
      this.textarea.dispatchEvent(new Event('input'));
    }
    this.tabLeaves = false;
  }
}
