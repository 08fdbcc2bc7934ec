/**
 * The TimingPanel widget: model and view for `hybridlab.lab.TimingPanel`.
 *
 * Synced state: `ITimingPanelState` (`../tokens`, mirroring `hybridlab/lab/timing.py`): `results`
 * (modes with latencies, trace/build cost, speed-up, break-even; the per-op breakdown), `progress`,
 * `running`, and `status`, the status line the kernel computes (shown as is). The Run button
 * sends `{event: "run"}`. The DOM is built by `TimingPanelDOM` (tested in
 * jest); strings from the kernel are set with `textContent` only.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { IStateModel, ITimingMode, ITimingOp, ITimingPanelState, ITimingResults, widgetNames } from '../tokens';
import { fmt } from './inspector';
import { widgetRoot } from './root';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

/** `table` inside a box that scrolls sideways when the output is narrower than the table. */
export function scroller(table: HTMLElement): HTMLDivElement {
  const box = el('div', 'hl-table-scroll');
  box.appendChild(table);
  return box;
}

/** Counts of `values` in `bins` equal bins over `[lo, hi]`. */
export function histogram(values: number[], lo: number, hi: number, bins: number): number[] {
  const counts = new Array(bins).fill(0);
  const width = hi > lo ? hi - lo : 1;
  for (const v of values) {
    counts[Math.min(bins - 1, Math.max(0, Math.floor(((v - lo) / width) * bins)))] += 1;
  }
  return counts;
}

/** The one-line verdict: the fastest hybridized mode, its speed-up and when it pays off. */
export function summaryText(r: ITimingResults): string {
  const hyb = r.modes.filter(m => m.name !== 'imperative');
  if (!hyb.length) {
    return '';
  }
  const best = hyb.reduce((a, b) => ((b.speedup || 0) > (a.speedup || 0) ? b : a));
  // the kernel words when it pays off (`payoff_text`, hybridlab/lab/timing.py)
  const pays = best.pays_off || (best.breakeven_calls === null ? 'never: not faster than imperative at this size' : '');
  return `${best.name}: ${speedText(best.speedup)} faster than imperative (median ${fmt(best.median_ms)} ms vs ${fmt(
    r.modes[0].median_ms
  )} ms); hybridizing ${pays}`;
}

/** A speed-up as the kernel prints it: two decimals (`3.30x`). */
export function speedText(speedup: number | null): string {
  return speedup === null || !Number.isFinite(speedup) ? '—' : `${speedup.toFixed(2)}x`;
}

/** Why two runs differ: said under every result, since users compare runs. */
export const NOISE_NOTE =
  'Timings on a shared machine move between runs (other processes, CPU frequency): compare the modes of one run, not runs.';

/** How many per-op rows show before "Show all". */
export const OPS_SHOWN = 15;

/** The per-op table's columns: times first; numbers sort largest first, text A to Z. */
const OPS_COLUMNS: { key: string; label: string; numeric: boolean; compare: (a: ITimingOp, b: ITimingOp) => number }[] = [
  { key: 'share', label: 'share', numeric: true, compare: (a, b) => b.share - a.share },
  { key: 'avg', label: 'avg ms', numeric: true, compare: (a, b) => b.avg_ms - a.avg_ms },
  { key: 'calls', label: 'calls', numeric: true, compare: (a, b) => b.count - a.count },
  { key: 'op', label: 'op', numeric: false, compare: (a, b) => a.op.localeCompare(b.op) },
  { key: 'node', label: 'node', numeric: false, compare: (a, b) => a.node.localeCompare(b.node) },
  { key: 'scope', label: 'scope', numeric: false, compare: (a, b) => a.scope.join('/').localeCompare(b.scope.join('/')) }
];

/** The timing panel's DOM: progress, Run button, verdict, per-mode table with latency histograms, per-op table. */
export class TimingPanelDOM {
  readonly node: HTMLDivElement;
  readonly runButton: HTMLButtonElement;
  private _status: HTMLDivElement;
  private _progress: HTMLProgressElement;
  private _summary: HTMLDivElement;
  private _modes: HTMLDivElement;
  private _ops: HTMLDivElement;
  private _opsList: ITimingOp[] = [];
  /** How the per-op table is shown: kept across re-runs. */
  private _opsView = { sort: 'share', filter: '', all: false };

  constructor() {
    this.node = el('div', 'hl-timing');
    this._status = el('div', 'hl-status');
    const bar = el('div', 'hl-toolbar');
    this.runButton = el('button', 'hl-run', 'Run again');
    this._progress = el('progress', 'hl-progress');
    this._progress.max = 1;
    this._progress.value = 0;
    bar.append(this.runButton, this._progress);
    this._summary = el('div', 'hl-timing-summary');
    this._modes = el('div', 'hl-timing-modes');
    this._ops = el('div', 'hl-timing-ops');
    const note = el('div', 'hl-timing-note', NOISE_NOTE);
    this.node.append(this._status, bar, this._summary, note, this._modes, this._ops);
    this.node.dataset.hlRunning = 'false';
  }

  setStatus(text: string, kind = ''): void {
    this._status.textContent = text;
    this._status.dataset.hlKind = kind;
  }

  /** The progress bar shows only while `running` (style/inspector.css hides it otherwise). */
  setProgress(fraction: number, running: boolean): void {
    this._progress.value = running ? fraction : 0;
    this.runButton.disabled = running;
    this.node.dataset.hlRunning = running ? 'true' : 'false';
  }

  setResults(r: ITimingResults | null): void {
    this._summary.textContent = '';
    this._modes.textContent = '';
    this._ops.textContent = '';
    if (!r || !Array.isArray(r.modes) || !r.modes.length) {
      this._summary.textContent = 'Not measured yet.';
      return;
    }
    this._summary.textContent = summaryText(r);
    this._modes.appendChild(scroller(this._modeTable(r.modes)));
    this._opsList = r.ops || [];
    this._drawOps();
  }

  /**
   * The per-op table: time columns first (a long scope cannot push them off screen), sorted by
   * the clicked header, filtered by the box (node, op or scope), the top OPS_SHOWN rows until
   * "Show all".
   */
  private _drawOps(): void {
    this._ops.textContent = '';
    const ops = this._opsList;
    if (!ops.length) {
      return;
    }
    const bar = el('div', 'hl-toolbar hl-ops-bar');
    bar.appendChild(el('span', 'hl-detail-title', 'Per-op time (default hybridized, profiler)'));
    const filter = el('input', 'hl-ops-filter');
    filter.type = 'search';
    filter.placeholder = 'Filter by node, op or scope';
    filter.setAttribute('aria-label', 'Filter the per-op table by node, op or scope');
    filter.value = this._opsView.filter;
    filter.addEventListener('input', () => {
      this._opsView.filter = filter.value;
      this._drawOps();
      const again = this._ops.querySelector('.hl-ops-filter') as HTMLInputElement | null;
      again?.focus();
      again?.setSelectionRange(again.value.length, again.value.length);
    });
    bar.appendChild(filter);
    this._ops.appendChild(bar);
    const q = this._opsView.filter.trim().toLowerCase();
    const col = OPS_COLUMNS.find(c => c.key === this._opsView.sort) || OPS_COLUMNS[0];
    const rows = ops
      .filter(o => !q || `${o.node} ${o.op} ${o.scope.join('/')}`.toLowerCase().includes(q))
      .sort((a, b) => col.compare(a, b));
    const shown = this._opsView.all ? rows : rows.slice(0, OPS_SHOWN);
    const table = el('table', 'hl-ops-table');
    const head = el('tr');
    for (const c of OPS_COLUMNS) {
      const th = el('th');
      const b = el('button', 'hl-sort', c.key === col.key ? `${c.label} ▾` : c.label);
      b.title = `Sort by ${c.label}`;
      th.setAttribute('aria-sort', c.key === col.key ? (c.numeric ? 'descending' : 'ascending') : 'none');
      b.addEventListener('click', () => {
        this._opsView.sort = c.key;
        this._drawOps();
      });
      th.appendChild(b);
      head.appendChild(th);
    }
    table.appendChild(el('thead')).appendChild(head);
    const body = table.appendChild(el('tbody'));
    for (const o of shown) {
      const row = el('tr', 'hl-op-row');
      row.dataset.hlOpNode = o.node;
      const share = el('td');
      const meter = el('span', 'hl-share-bar');
      meter.style.width = `${Math.round(o.share * 100)}%`;
      share.append(meter, el('span', undefined, ` ${(o.share * 100).toFixed(1)}%`));
      row.appendChild(share);
      for (const c of [fmt(o.avg_ms), String(o.count), o.op, o.node]) {
        row.appendChild(el('td', undefined, c));
      }
      const scope = el('td', 'hl-ops-scope', o.scope.join(' / '));
      scope.title = o.scope.join(' / ');
      row.appendChild(scope);
      body.appendChild(row);
    }
    this._ops.appendChild(scroller(table));
    const more = rows.length - shown.length;
    const foot = el('div', 'hl-ops-foot', `${shown.length} of ${rows.length} ops${q ? ` matching "${this._opsView.filter.trim()}"` : ''}`);
    if (more > 0 || this._opsView.all) {
      const b = el('button', 'hl-button hl-ops-all', this._opsView.all ? `Show the top ${OPS_SHOWN}` : `Show all ${rows.length}`);
      b.addEventListener('click', () => {
        this._opsView.all = !this._opsView.all;
        this._drawOps();
      });
      foot.appendChild(b);
    }
    this._ops.appendChild(foot);
  }

  private _modeTable(modes: ITimingMode[]): HTMLElement {
    const all = modes.flatMap(m => m.latencies_ms);
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const table = el('table', 'hl-modes-table');
    const head = el('tr');
    // the distributions share one axis: say which
    const axis = `latency distribution (${fmt(lo)} … ${fmt(hi)} ms, same axis for every mode)`;
    for (const h of ['mode', axis, 'median ms', 'p10–p90 ms', 'trace ms', 'build ms', 'speed-up', 'pays off after']) {
      head.appendChild(el('th', undefined, h));
    }
    table.appendChild(el('thead')).appendChild(head);
    const body = table.appendChild(el('tbody'));
    for (const m of modes) {
      const row = el('tr', 'hl-mode-row');
      row.dataset.hlMode = m.name;
      const dist = el('td');
      const hist = el('div', 'hl-histogram hl-latency-hist');
      const counts = histogram(m.latencies_ms, lo, hi, 24);
      const peak = Math.max(1, ...counts);
      for (const c of counts) {
        const b = el('div', 'hl-hist-bar');
        b.style.height = `${Math.round((100 * c) / peak)}%`;
        hist.appendChild(b);
      }
      dist.appendChild(hist);
      row.append(el('td', undefined, m.name), dist);
      const cells = [
        fmt(m.median_ms), `${fmt(m.p10_ms)}–${fmt(m.p90_ms)}`, fmt(m.trace_ms), fmt(m.build_ms),
        speedText(m.speedup),
        m.name === 'imperative' ? '' : m.breakeven_calls === null ? 'never' : `${m.breakeven_calls} call${m.breakeven_calls === 1 ? '' : 's'}`
      ];
      for (const c of cells) {
        row.appendChild(el('td', undefined, c));
      }
      row.querySelector('td:nth-child(7)')?.classList.add('hl-speedup');
      body.appendChild(row);
    }
    return table;
  }
}

/** The state of a TimingPanel before the kernel's first sync. */
const INITIAL_STATE: ITimingPanelState = {
  block: '',
  results: {},
  progress: 0,
  stage: '',
  running: false,
  error: '',
  status: ''
};

export class TimingPanelModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & ITimingPanelState {
    return {
      ...super.defaults(),
      ...widgetNames('TimingPanelModel', 'TimingPanelView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

export class TimingPanelView extends DOMWidgetView {
  panel: TimingPanelDOM | null = null;
  private _onRun = (): void => {
    this.send({ event: 'run' });
  };

  private get _state(): IStateModel<ITimingPanelState> {
    return this.model;
  }

  render(): void {
    this.panel = new TimingPanelDOM();
    this.el.appendChild(this.panel.node);
    this.panel.runButton.addEventListener('click', this._onRun);
    this.listenTo(this.model, 'change:results', this._results);
    this.listenTo(this.model, 'change:progress change:running', this._progress);
    this.listenTo(this.model, 'change:status change:error', this._status);
    this._results();
    this._progress();
    this._status();
    widgetRoot(this, 'timings', text => {
      if (this.panel) {
        this.panel.runButton.disabled = true;
        this.panel.setStatus(text, 'disconnected');
      }
    });
  }

  remove(): void {
    this.panel?.runButton.removeEventListener('click', this._onRun);
    super.remove();
  }

  private _results(): void {
    const r = this._state.get('results');
    this.panel?.setResults(r && Array.isArray(r.modes) ? (r as ITimingResults) : null); // `{}` before a run
  }

  private _progress(): void {
    this.panel?.setProgress(this._state.get('progress') || 0, this._state.get('running'));
  }

  private _status(): void {
    this.panel?.setStatus(this._state.get('status'), this._state.get('error') ? 'error' : '');
  }
}
