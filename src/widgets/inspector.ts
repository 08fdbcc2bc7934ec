/**
 * The TensorInspector widget: model and view for `hybridlab.lab.TensorInspector`.
 *
 * Synced state: `ITensorInspectorState` (`../tokens`, mirroring `hybridlab/lab/inspector.py`);
 * the status line is the kernel's (`status`, shown as is). The DOM is built by `InspectorPanel`
 * (no widget dependency, tested in jest); every string from the kernel (tensor, node and op
 * names) is set with `textContent`, never as HTML.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import {
  IInspectorStep,
  INonFinite,
  IStateModel,
  ITensorInspectorState,
  ITensorStats,
  widgetNames
} from '../tokens';
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

/** A number for a table cell: 4 significant digits, `—` for null. */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) {
    return '—';
  }
  if (x !== 0 && (Math.abs(x) >= 1e5 || Math.abs(x) < 1e-3)) {
    return x.toExponential(2);
  }
  return String(Number(x.toPrecision(4)));
}

/** Parse `steps_json`; anything malformed gives `[]`. */
export function parseSteps(text: string): IInspectorStep[] {
  try {
    const v = JSON.parse(text || '[]');
    return Array.isArray(v) ? (v as IInspectorStep[]) : [];
  } catch {
    return [];
  }
}

/** A heatmap colour for `v` in `[lo, hi]` (blue → white → red), grey for null. */
export function heat(v: number | null, lo: number, hi: number): string {
  if (v === null) {
    return 'rgb(128,128,128)';
  }
  const t = hi > lo ? Math.min(1, Math.max(0, (v - lo) / (hi - lo))) : 0.5;
  const r = Math.round(t < 0.5 ? 255 * (t * 2) : 255);
  const b = Math.round(t < 0.5 ? 255 : 255 * (2 - t * 2));
  const g = Math.round(t < 0.5 ? 255 * (t * 2) : 255 * (2 - t * 2));
  return `rgb(${r},${g},${b})`;
}

/** The inspector's DOM: status line, step slider, per-tensor table, details (histogram, preview). */
export class InspectorPanel {
  readonly node: HTMLDivElement;
  private _status: HTMLDivElement;
  private _slider: HTMLInputElement;
  private _stepLabel: HTMLSpanElement;
  private _table: HTMLTableSectionElement;
  private _details: HTMLDivElement;
  private _steps: IInspectorStep[] = [];
  private _flag: INonFinite = {};
  private _selected = '';
  private _index = -1;

  constructor() {
    this.node = el('div', 'hl-inspector');
    this._status = el('div', 'hl-status');
    const bar = el('div', 'hl-toolbar');
    this._slider = el('input', 'hl-step-slider');
    this._slider.type = 'range';
    this._slider.setAttribute('aria-label', 'Which inspected call to show (arrow keys step through the calls)');
    this._slider.min = '0';
    this._slider.max = '0';
    this._slider.addEventListener('input', () => this._show(Number(this._slider.value)));
    this._stepLabel = el('span', 'hl-step-label', 'no call inspected yet');
    bar.append(el('span', undefined, 'Call:'), this._slider, this._stepLabel);
    const table = el('table', 'hl-stats-table');
    const head = el('tr');
    for (const h of ['tensor', 'op', 'shape', 'dtype', 'min', 'max', 'mean', 'std', 'zeros', 'NaN', 'Inf']) {
      head.appendChild(el('th', undefined, h));
    }
    table.appendChild(el('thead')).appendChild(head);
    this._table = table.appendChild(el('tbody'));
    this._details = el('div', 'hl-tensor-details');
    const scroll = el('div', 'hl-table-scroll');
    scroll.appendChild(table);
    this.node.append(this._status, bar, scroll, this._details);
  }

  /** New history from the kernel; shows the latest step. */
  setSteps(steps: IInspectorStep[]): void {
    const following = this._index < 0 || this._index >= this._steps.length - 1;
    this._steps = steps;
    this._slider.max = String(Math.max(0, steps.length - 1));
    this._slider.disabled = steps.length < 2;
    this._show(following ? steps.length - 1 : Math.min(this._index, steps.length - 1));
  }

  /** The first NaN/Inf the kernel found (`{}`: none). */
  setFlag(flag: INonFinite): void {
    this._flag = flag || {};
    this._show(this._index);
  }

  setStatus(text: string, kind = ''): void {
    this._status.textContent = text;
    this._status.dataset.hlKind = kind;
  }

  /** Select the tensor whose details are shown. */
  select(tensor: string): void {
    this._selected = tensor;
    this._show(this._index);
  }

  private _rowKey(ev: KeyboardEvent, row: HTMLTableRowElement, name: string): void {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      this.select(name);
      const again = Array.from(this._table.querySelectorAll<HTMLElement>('.hl-stats-row')).find(r => r.dataset.hlTensor === name);
      again?.focus();
    } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      const next = (ev.key === 'ArrowDown' ? row.nextElementSibling : row.previousElementSibling) as HTMLElement | null;
      next?.focus();
    }
  }

  private _show(index: number): void {
    this._index = index;
    this._table.textContent = '';
    this._details.textContent = '';
    const step = this._steps[index];
    if (!step) {
      this._stepLabel.textContent = 'no call inspected yet';
      return;
    }
    this._slider.value = String(index);
    this._stepLabel.textContent = `call ${step.step} (${index + 1} of ${this._steps.length} kept)`;
    const flagged = this._flag.step === step.step ? this._flag.tensor : undefined;
    for (const t of step.nodes) {
      const row = el('tr', 'hl-stats-row');
      row.dataset.hlTensor = t.name;
      if (t.name === flagged) {
        row.classList.add('hl-nonfinite');
      } else if (t.nan || t.inf) {
        row.classList.add('hl-has-nonfinite');
      }
      if (t.name === this._selected) {
        row.classList.add('hl-selected');
      }
      const cells = [
        t.name, t.op, `(${t.shape.join(', ')})`, t.dtype, fmt(t.min), fmt(t.max), fmt(t.mean), fmt(t.std),
        `${(100 * t.zeros).toFixed(1)}%`, String(t.nan), String(t.inf)
      ];
      for (const c of cells) {
        row.appendChild(el('td', undefined, c));
      }
      row.addEventListener('click', () => this.select(t.name));
      // keyboard: every row is a tab stop; Enter/Space shows its details, arrows move between rows
      row.tabIndex = 0;
      row.setAttribute('aria-selected', t.name === this._selected ? 'true' : 'false');
      row.addEventListener('keydown', ev => this._rowKey(ev, row, t.name));
      this._table.appendChild(row);
    }
    const chosen = step.nodes.find(t => t.name === this._selected) || step.nodes.find(t => t.name === flagged);
    if (chosen) {
      this._details.appendChild(this._detailsOf(chosen));
    }
  }

  private _detailsOf(t: ITensorStats): HTMLElement {
    const box = el('div', 'hl-tensor-detail');
    box.appendChild(el('div', 'hl-detail-title', `${t.name} — node ${t.node}, ${t.op}${t.sampled ? ' (strided sample)' : ''}`));
    const hist = el('div', 'hl-histogram');
    const peak = Math.max(1, ...t.hist.counts);
    const bins = t.hist.counts.length || 1;
    const lo = t.hist.lo ?? 0;
    const width = ((t.hist.hi ?? lo) - lo) / bins;
    t.hist.counts.forEach((c, i) => {
      const bar = el('div', 'hl-hist-bar');
      bar.style.height = `${Math.round((100 * c) / peak)}%`;
      const range = t.hist.lo === null ? `bin ${i}` : `${fmt(lo + i * width)} … ${fmt(lo + (i + 1) * width)}`;
      bar.title = `${range}: ${c} value${c === 1 ? '' : 's'}`;
      hist.appendChild(bar);
    });
    // axes: the count scale on the left, the value range under the bars
    const plot = el('div', 'hl-hist-plot');
    const yAxis = el('div', 'hl-hist-yaxis');
    yAxis.append(el('span', undefined, String(peak)), el('span', undefined, '0'));
    yAxis.title = 'values per bin';
    plot.append(yAxis, hist);
    const xAxis = el('div', 'hl-hist-range');
    xAxis.append(el('span', undefined, fmt(t.hist.lo)), el('span', 'hl-hist-xlabel', 'value'), el('span', undefined, fmt(t.hist.hi)));
    box.append(plot, xAxis);
    if (t.preview && t.preview.length) {
      const flat = t.preview.flat().filter((v): v is number => v !== null);
      const lo = flat.length ? Math.min(...flat) : 0;
      const hi = flat.length ? Math.max(...flat) : 0;
      const grid = el('div', 'hl-heatmap');
      grid.style.gridTemplateColumns = `repeat(${t.preview[0].length}, 8px)`;
      for (const row of t.preview) {
        for (const v of row) {
          const cell = el('div', 'hl-heat-cell');
          cell.style.background = heat(v, lo, hi);
          cell.title = fmt(v);
          grid.appendChild(cell);
        }
      }
      box.append(el('div', 'hl-detail-title', t.shape.length === 4 ? 'preview of [0, 0]' : 'preview'), grid);
      if (flat.length) {
        // the colour key: the lowest to the highest value shown (none when every value is NaN/Inf)
        const legend = el('div', 'hl-heat-legend');
        const ramp = el('span', 'hl-heat-ramp');
        ramp.style.background = `linear-gradient(to right, ${heat(lo, lo, hi)}, ${heat((lo + hi) / 2, lo, hi)}, ${heat(hi, lo, hi)})`;
        legend.append(el('span', undefined, fmt(lo)), ramp, el('span', undefined, fmt(hi)));
        box.appendChild(legend);
      }
    }
    return box;
  }
}

/** The state of a TensorInspector before the kernel's first sync. */
const INITIAL_STATE: ITensorInspectorState = {
  block: '',
  steps_json: '[]',
  calls: 0,
  inspected: 0,
  first_nonfinite: {},
  error: '',
  status: ''
};

export class TensorInspectorModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & ITensorInspectorState {
    return {
      ...super.defaults(),
      ...widgetNames('TensorInspectorModel', 'TensorInspectorView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

export class TensorInspectorView extends DOMWidgetView {
  panel: InspectorPanel | null = null;

  private get _state(): IStateModel<ITensorInspectorState> {
    return this.model;
  }

  render(): void {
    this.panel = new InspectorPanel();
    this.el.appendChild(this.panel.node);
    this.listenTo(this.model, 'change:steps_json', this._steps);
    this.listenTo(this.model, 'change:first_nonfinite', this._flag);
    this.listenTo(this.model, 'change:status change:error change:first_nonfinite', this._status);
    this._status();
    this._steps();
    this._flag();
    widgetRoot(this, 'statistics', text => this.panel?.setStatus(text, 'disconnected'), true);
  }

  private _steps(): void {
    this.panel?.setSteps(parseSteps(this._state.get('steps_json')));
  }

  private _flag(): void {
    this.panel?.setFlag(this._state.get('first_nonfinite') || {});
  }

  private _status(): void {
    const alarm = this._state.get('error') || (this._state.get('first_nonfinite') || {}).node;
    this.panel?.setStatus(this._state.get('status'), alarm ? 'error' : '');
  }
}
