/**
 * The DebugReport widget: model and view for `hybridlab.lab.DebugReport` (`mx.lab.precheck`,
 * `compare`, `find_nonfinite`, `check_export`).
 *
 * Synced state: `IDebugReportState` (`../tokens`, mirroring `hybridlab/lab/report.py`): one report
 * JSON (docs/report-json.md). The DOM is built by `ReportPanel` (no widget dependency, tested in
 * jest): the title and verdict, the graph with the report's marks (`GraphCanvas.setMarks`), the
 * table of findings and the selected row's detail with its user line. Clicking a row reveals its
 * node on the graph; clicking a node selects its first row. When a report arrives, the row of the
 * node to look at first (the mark with `first`) is selected. Every string from the kernel is set
 * with `textContent`, never as HTML.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { GraphCanvas, IGraphCanvasOptions } from '../graph/canvas';
import { errorHeat, markOf } from '../graph/render';
import {
  IDebugReportState,
  IReport,
  IReportRow,
  isGraphJSON,
  IStateModel,
  MarkMap,
  widgetNames
} from '../tokens';
import { widgetRoot } from './root';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string, parent?: HTMLElement): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  if (parent) {
    parent.appendChild(e);
  }
  return e;
}

/** The row levels drawn with their own colour (anything else: `info`). */
const ROW_LEVELS = ['error', 'warn', 'info', 'ok'];

/** Type guard: does `value` look like a report JSON object? */
export function isReport(value: unknown): value is IReport {
  if (!value || typeof value !== 'object') {
    return false;
  }
  const r = value as { [key: string]: unknown };
  return typeof r.version === 'number' && Array.isArray(r.rows) && Array.isArray(r.columns);
}

/** Whether any mark carries an error heat (compare's reports do). */
export function hasHeat(marks: MarkMap): boolean {
  return Object.values(marks).some(m => typeof m.heat === 'number' && Number.isFinite(m.heat));
}

/** The index of the row to select first: the row of the `first` mark's node, else the first row with a node. */
export function firstRow(report: IReport): number {
  const first = report.rows.findIndex(r => r.node !== null && !!markOf(report.marks || {}, r.node)?.first);
  return first >= 0 ? first : report.rows.findIndex(r => r.node !== null);
}

/** A report panel: verdict, marked graph, table of findings, the selected row's detail. */
export class ReportPanel {
  readonly node: HTMLDivElement;
  readonly canvas: GraphCanvas;
  private _title: HTMLDivElement;
  private _verdict: HTMLDivElement;
  private _graphBox: HTMLDivElement;
  private _legend: HTMLDivElement;
  private _head: HTMLTableRowElement;
  private _body: HTMLTableSectionElement;
  private _detail: HTMLDivElement;
  private _report: IReport | null = null;
  private _rows: HTMLTableRowElement[] = [];
  private _selected = -1;

  constructor(options: IGraphCanvasOptions = {}) {
    this.node = el('div', 'hl-report');
    this._title = el('div', 'hl-report-title', '', this.node);
    this._verdict = el('div', 'hl-status hl-report-verdict', 'No report yet.', this.node);
    this._legend = el('div', 'hl-report-legend', undefined, this.node);
    this._legend.hidden = true;
    this._graphBox = el('div', 'hl-report-graph', undefined, this.node);
    this.canvas = new GraphCanvas({ ...options, onNodeClick: name => this._nodeClicked(name) });
    this._graphBox.appendChild(this.canvas.node);
    const scroll = el('div', 'hl-table-scroll hl-report-scroll', undefined, this.node);
    const table = el('table', 'hl-report-table', undefined, scroll);
    this._head = el('tr', undefined, undefined, el('thead', undefined, undefined, table));
    this._body = el('tbody', undefined, undefined, table);
    this._detail = el('div', 'hl-report-detail', undefined, this.node);
  }

  /** The report shown (null before the first). */
  get report(): IReport | null {
    return this._report;
  }

  /** The selected row's index (-1: none). */
  get selected(): number {
    return this._selected;
  }

  /** Show `report`; resolves when its graph is drawn and the first row is selected. */
  async setReport(report: IReport | null): Promise<void> {
    this._report = report;
    this._selected = -1;
    this._head.textContent = '';
    this._body.textContent = '';
    this._detail.textContent = '';
    this._rows = [];
    if (!report) {
      this.node.removeAttribute('data-hl-tool');
      this._title.textContent = '';
      this._verdict.textContent = 'No report yet.';
      return;
    }
    this.node.setAttribute('data-hl-tool', String(report.tool));
    this.node.setAttribute('data-hl-ok', report.ok ? 'true' : 'false');
    this._title.textContent = report.title;
    this._verdict.textContent = report.verdict;
    this._verdict.setAttribute('data-hl-kind', report.ok ? 'info' : 'error');
    for (const c of report.columns) {
      el('th', undefined, c, this._head);
    }
    report.rows.forEach((row, i) => this._rows.push(this._drawRow(row, i)));
    if (!report.rows.length) {
      const tr = el('tr', 'hl-report-empty', undefined, this._body);
      const td = el('td', undefined, 'Nothing to report.', tr);
      td.colSpan = Math.max(1, report.columns.length);
    }
    const graph = isGraphJSON(report.graph) && report.graph.nodes.length ? report.graph : null;
    this._graphBox.hidden = graph === null;
    this._drawLegend(graph !== null && hasHeat(report.marks || {}));
    await this.canvas.setMarks(report.marks || {}, false);
    await this.canvas.setGraph(graph, report.title);
    const first = firstRow(report);
    if (first >= 0) {
      await this.selectRow(first);
    }
  }

  /** The key to the heat colouring (compare): pale = the smallest error, deep red = the largest. */
  private _drawLegend(show: boolean): void {
    this._legend.hidden = !show;
    this._legend.textContent = '';
    if (!show) {
      return;
    }
    el('span', 'hl-report-legend-label', 'node fill: relative error (log scale)', this._legend);
    el('span', 'hl-report-legend-end', 'smallest', this._legend);
    const bar = el('span', 'hl-report-legend-bar', undefined, this._legend);
    bar.style.background = `linear-gradient(to right, ${[0, 0.5, 1].map(errorHeat).join(', ')})`;
    el('span', 'hl-report-legend-end', 'largest', this._legend);
  }

  /** Select row `index`: its detail and user line below the table, its node revealed on the graph. */
  async selectRow(index: number): Promise<void> {
    const row = this._report ? this._report.rows[index] : undefined;
    if (!row) {
      return;
    }
    this._selected = index;
    this._rows.forEach((tr, i) => tr.classList.toggle('hl-selected', i === index));
    this._showDetail(row);
    if (row.node !== null) {
      await this.canvas.reveal(row.node);
    }
  }

  dispose(): void {
    this.canvas.dispose();
    this.node.remove();
  }

  private _drawRow(row: IReportRow, index: number): HTMLTableRowElement {
    const tr = el('tr', 'hl-report-row', undefined, this._body);
    tr.setAttribute('data-hl-level', ROW_LEVELS.includes(row.level) ? row.level : 'info');
    tr.setAttribute('data-hl-row', String(index));
    if (row.node !== null) {
      tr.setAttribute('data-hl-row-node', row.node);
      tr.classList.add('hl-has-node');
      tr.title = `Show ${row.node} on the graph`;
    }
    for (const cell of row.cells) {
      el('td', undefined, cell, tr);
    }
    tr.addEventListener('click', () => void this.selectRow(index));
    return tr;
  }

  private _showDetail(row: IReportRow): void {
    this._detail.textContent = '';
    if (row.detail) {
      el('div', 'hl-report-why', row.detail, this._detail);
    }
    if (row.source) {
      const where = `${row.source.file}:${row.source.line}`;
      el('div', 'hl-report-where', where, this._detail);
      if (row.source.code) {
        el('pre', 'hl-details-code hl-report-code', row.source.code, this._detail).title = where;
      }
    }
  }

  private _nodeClicked(name: string): void {
    const index = this._report ? this._report.rows.findIndex(r => r.node === name) : -1;
    if (index >= 0) {
      this._selected = index;
      this._rows.forEach((tr, i) => tr.classList.toggle('hl-selected', i === index));
      this._showDetail(this._report!.rows[index]);
      this._rows[index].scrollIntoView?.({ block: 'nearest' });
    }
  }
}

/** The state of a DebugReport before the kernel's first sync. */
const INITIAL_STATE: IDebugReportState = { report: {} };

export class DebugReportModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & IDebugReportState {
    return {
      ...super.defaults(),
      ...widgetNames('DebugReportModel', 'DebugReportView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers
  };
}

export class DebugReportView extends DOMWidgetView {
  panel: ReportPanel | null = null;
  /** Resolves when the latest report is drawn (used by tests). */
  rendered: Promise<void> = Promise.resolve();

  private get _state(): IStateModel<IDebugReportState> {
    return this.model;
  }

  private _connection: () => void = () => undefined;

  render(): void {
    this.el.classList.add('hl-report-widget');
    this.panel = new ReportPanel();
    this.el.appendChild(this.panel.node);
    this.listenTo(this.model, 'change:report', this._update);
    this._update();
    this._connection = widgetRoot(this, 'report', text => this.panel?.canvas.setStatus(text, 'disconnected'));
  }

  remove(): void {
    this.panel?.dispose();
    this.panel = null;
    super.remove();
  }

  private _update(): void {
    const r = this._state.get('report');
    if (this.panel) {
      this.rendered = this.panel.setReport(isReport(r) ? r : null).then(() => this._connection());
    }
  }
}
