// The outcome table. A run's outcomes arrive in slices (worker.js sends 2,000
// a message), and a test can have 65,536 or more: drawing them all would
// block the page for seconds. Up to FULL rows are drawn whole; past that the
// table is virtualised: only the rows in view (and a margin) are in the DOM,
// between two spacer rows that keep the scroll bar true, so each scroll or
// slice costs the same few milliseconds whatever the count.

import { escapeHtml } from './highlight.js';

const FULL = 1000;     // drawn whole up to this many outcomes
const MARGIN = 30;     // rows drawn above and below the view

export class OutcomeTable {
  // table: the <table>; scroller: its scrolling container; mark(o): does the
  // outcome satisfy the condition (true, false, null: cannot tell).
  constructor(table, scroller) {
    this.table = table;
    this.scroller = scroller;
    this.result = null;
    this.rowHeight = 0;
    this.frame = 0;
    scroller.addEventListener('scroll', () => this.schedule());
  }

  // Shows a run's test (its `outcomes` array may grow: call grow()).
  show(result, mark) {
    this.result = result;
    this.mark = mark;
    this.marks = [];
    this.keys = [];
    this.scanned = 0;
    this.picked = -1;
    this.scroller.scrollTop = 0;
    this.scanKeys();
    this.table.hidden = false;
    this.drawHead();
    this.render();
  }

  clear() {
    this.result = null;
    this.table.hidden = true;
    this.table.replaceChildren();
  }

  // More outcomes arrived: new columns redraw the head, the body is redrawn
  // only when the new rows are in view (a growing scroll bar otherwise).
  grow() {
    if (!this.result) return;
    if (this.scanKeys()) this.drawHead();
    this.schedule();
  }

  pick(i) {
    this.picked = i;
    for (const tr of this.table.querySelectorAll('tr.picked')) tr.classList.remove('picked');
    this.table.querySelector(`tr[data-index="${i}"]`)?.classList.add('picked');
  }

  get count() { return this.result?.outcomes.length ?? 0; }

  scanKeys() {
    const before = this.keys.length;
    const outcomes = this.result.outcomes;
    for (; this.scanned < outcomes.length; this.scanned++) {
      for (const key of Object.keys(outcomes[this.scanned])) {
        if (!this.keys.includes(key)) this.keys.push(key);
      }
    }
    return this.keys.length !== before;
  }

  markOf(i) {
    if (this.marks[i] === undefined) this.marks[i] = this.mark(this.result.outcomes[i]);
    return this.marks[i];
  }

  drawHead() {
    // The condition column when the page can evaluate the condition (a
    // herd-style test's, not every NVIDIA claim).
    const showMark = !!this.result.condition?.text &&
      (this.count === 0 || this.markOf(0) !== null);
    this.showMark = showMark;
    this.columns = this.keys.length + (showMark ? 3 : 2);
    const head = `<thead><tr><th scope="col">#</th>${this.keys.map((k) =>
      `<th scope="col">${escapeHtml(k)}</th>`).join('')}${showMark
      ? '<th scope="col" title="does this outcome satisfy the condition?">condition</th>' : ''}` +
      '<th scope="col"><span class="visually-hidden">witness</span></th></tr></thead>';
    this.table.innerHTML = `${head}<tbody></tbody>`;
    this.body = this.table.querySelector('tbody');
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  rowHtml(i) {
    const o = this.result.outcomes[i];
    const m = this.showMark ? this.markOf(i) : null;
    return `<tr data-index="${i}" data-outcome="${escapeHtml(JSON.stringify(o))}" tabindex="0"` +
      ` class="${m ? 'sat' : ''}${i === this.picked ? ' picked' : ''}"><td>${i + 1}</td>` +
      this.keys.map((k) => `<td>${escapeHtml(o[k] ?? '')}</td>`).join('') +
      (this.showMark ? `<td>${m === null ? '?' : m ? '✔ satisfies' : '—'}</td>` : '') +
      `<td><button class="link" data-witness="${i}" aria-label="witness of outcome ${i + 1}">` +
      'witness</button></td></tr>';
  }

  // The rows in view, [first, last), and spacers for the rest.
  render() {
    if (!this.result || !this.body) return;
    const n = this.count;
    if (n <= FULL) {
      if (this.drawn !== n || this.body.rows.length !== n) {
        const rows = [];
        for (let i = 0; i < n; i++) rows.push(this.rowHtml(i));
        this.body.innerHTML = rows.join('');
        this.drawn = n;
      }
      return;
    }
    this.drawn = -1;
    if (!this.rowHeight) {
      this.body.innerHTML = this.rowHtml(0);
      this.rowHeight = this.body.rows[0].getBoundingClientRect().height || 24;
    }
    const h = this.rowHeight;
    const head = this.table.tHead?.getBoundingClientRect().height ?? h;
    const top = Math.max(0, this.scroller.scrollTop - head);
    const first = Math.max(0, Math.floor(top / h) - MARGIN);
    const last = Math.min(n, Math.ceil((top + this.scroller.clientHeight) / h) + MARGIN);
    const rows = [];
    for (let i = first; i < last; i++) rows.push(this.rowHtml(i));
    const spacer = (rowsHidden) => rowsHidden > 0
      ? `<tr class="spacer" aria-hidden="true" style="height:${rowsHidden * h}px">` +
        `<td colspan="${this.columns}"></td></tr>` : '';
    this.body.innerHTML = spacer(first) + rows.join('') + spacer(n - last);
  }
}
