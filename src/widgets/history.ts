/**
 * The BuildHistory widget: model and view for `hybridlab.lab.BuildHistory`.
 *
 * Synced state: `IBuildHistoryState` (`../tokens`, mirroring `hybridlab/lab/build_history.py`).
 * The DOM is built by `HistoryPanel` (no widget dependency, tested in jest): the kernel's status
 * line as is, a table of the builds (reason, what changed, flags, build time, memory plan), each
 * row with two toggle buttons picking build A (left) and build B (right), and the two builds'
 * graphs side by side (`GraphCanvas`) with what B changed marked: on B the nodes it added and
 * changed, on A the nodes B removed and changed (`passDiff`, nodes matched by name). Every string
 * from the kernel is set with `textContent`, never as HTML.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { GraphCanvas } from '../graph/canvas';
import { ILayout } from '../graph/layout';
import { IPassDiff, passDiff, unchanged } from '../graph/passdiff';
import {
  IBuildHistoryState,
  IBuildRecord,
  IGraphJSON,
  IGraphNode,
  isGraphJSON,
  IStateModel,
  MarkMap,
  widgetNames
} from '../tokens';
import { memoryText, msText } from '../units';
import { widgetRoot } from './root';

/** The two compared builds: A on the left, B on the right. */
export type Side = 'a' | 'b';

/** The picked builds, by `index` (null: no build yet). */
export interface IPicks {
  a: number | null;
  b: number | null;
}

export interface IHistoryPanelOptions {
  /** DOT -> layout for both graphs; defaults to Graphviz (`GraphCanvas`). Tests inject their own. */
  layout?: (dot: string) => Promise<ILayout>;
}

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

/** The default picks: A = the build before the last, B = the last (one build: both it). */
export function defaultPicks(builds: IBuildRecord[]): IPicks {
  const n = builds.length;
  if (!n) {
    return { a: null, b: null };
  }
  return { a: builds[Math.max(0, n - 2)].index, b: builds[n - 1].index };
}

function graphOf(b: IBuildRecord | null): IGraphJSON | null {
  return b && isGraphJSON(b.graph) ? b.graph : null;
}

function inputNames(node: IGraphNode, graph: IGraphJSON): string {
  return (node.inputs || []).map(([src]) => (graph.nodes[src] ? graph.nodes[src].name : '?')).join(', ');
}

/** What changed in a node between two graphs: `newshape (2, -1) → (3, -1)`, `op relu → tanh`. */
export function changeText(name: string, before: IGraphJSON, after: IGraphJSON): string {
  const o = before.nodes.find(n => n.name === name);
  const n = after.nodes.find(x => x.name === name);
  if (!o || !n) {
    return '';
  }
  const parts: string[] = [];
  if (o.op !== n.op) {
    parts.push(`op ${o.op} → ${n.op}`);
  }
  const oa = o.attrs || {};
  const na = n.attrs || {};
  const has = (m: { [k: string]: string }, k: string): boolean => Object.prototype.hasOwnProperty.call(m, k);
  for (const k of Array.from(new Set([...Object.keys(oa), ...Object.keys(na)])).sort()) {
    const x = has(oa, k) ? oa[k] : '—';
    const y = has(na, k) ? na[k] : '—';
    if (x !== y) {
      parts.push(`${k} ${x} → ${y}`);
    }
  }
  const oi = inputNames(o, before);
  const ni = inputNames(n, after);
  if (oi !== ni) {
    parts.push(`inputs (${oi}) → (${ni})`);
  }
  return parts.join('; ');
}

/** The marks of a comparison: on B what it added and changed, on A what B removed and changed. */
export function diffMarks(a: IBuildRecord, b: IBuildRecord, d: IPassDiff): { a: MarkMap; b: MarkMap } {
  const ga = graphOf(a);
  const gb = graphOf(b);
  const marksA: MarkMap = {};
  const marksB: MarkMap = {};
  if (!ga || !gb) {
    return { a: marksA, b: marksB };
  }
  for (const name of d.added) {
    marksB[name] = { level: 'added', label: `added since build #${a.index}` };
  }
  for (const name of d.removed) {
    marksA[name] = { level: 'removed', label: `removed in build #${b.index}` };
  }
  for (const name of d.changed) {
    const what = changeText(name, ga, gb);
    marksB[name] = { level: 'changed', label: `changed since build #${a.index}${what ? `: ${what}` : ''}` };
    marksA[name] = { level: 'changed', label: `changed in build #${b.index}${what ? `: ${what}` : ''}` };
  }
  return { a: marksA, b: marksB };
}

/** How many changed nodes the summary names. */
const NAMED_CHANGES = 3;

/**
 * The summary line of a comparison: `build #0 → #1: 1 added, 0 removed, 1 changed: relu0 (op relu
 * → tanh)`, `build #0 → #1: the same graph`.
 */
export function diffSummary(a: IBuildRecord, b: IBuildRecord, d: IPassDiff | null): string {
  const head = `build #${a.index} → #${b.index}`;
  if (!d) {
    const missing = [a, b].filter(x => !graphOf(x)).map(x => `#${x.index}`);
    return `${head}: build ${Array.from(new Set(missing)).join(' and ')} kept no graph to compare`;
  }
  if (unchanged(d)) {
    return `${head}: the same graph`;
  }
  let text = `${head}: ${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed`;
  if (d.changed.length) {
    const ga = graphOf(a)!;
    const gb = graphOf(b)!;
    const named = d.changed.slice(0, NAMED_CHANGES).map(name => {
      const what = changeText(name, ga, gb);
      return what ? `${name} (${what})` : name;
    });
    const more = d.changed.length - named.length;
    text += `: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  }
  return text;
}

interface ISideView {
  root: HTMLDivElement;
  caption: HTMLDivElement;
  canvas: GraphCanvas;
  /** What the canvas was last given (to skip redraws of an unchanged graph or marks). */
  graphKey: string | null;
  marksKey: string | null;
}

const COLUMNS = ['A / B', '#', 'time', 'reason', 'detail', 'flags', 'build ms', 'memory', 'traced again'];

/** The build history's DOM: status line, builds table with the A/B picks, the two graphs and their diff. */
export class HistoryPanel {
  /** The root element (class `hl-history`). */
  readonly node: HTMLDivElement;
  private _status: HTMLDivElement;
  private _rows: HTMLTableSectionElement;
  private _diff: HTMLDivElement;
  private _sides: Record<Side, ISideView>;
  private _builds: IBuildRecord[] = [];
  /** The user's picks (by build index); null: the default. */
  private _chosen: IPicks = { a: null, b: null };
  private _picks: IPicks = { a: null, b: null };

  constructor(options: IHistoryPanelOptions = {}) {
    this.node = el('div', 'hl-history');
    this._status = el('div', 'hl-status hl-history-status');
    const table = el('table', 'hl-history-table');
    const head = el('tr');
    for (const h of COLUMNS) {
      head.appendChild(el('th', undefined, h));
    }
    table.appendChild(el('thead')).appendChild(head);
    this._rows = table.appendChild(el('tbody'));
    const scroll = el('div', 'hl-table-scroll hl-history-scroll');
    scroll.appendChild(table);
    this._diff = el('div', 'hl-history-diff');
    const pair = el('div', 'hl-history-pair');
    const side = (which: Side): ISideView => {
      const root = el('div', `hl-history-side hl-history-side-${which}`);
      root.setAttribute('data-hl-side', which);
      const caption = el('div', 'hl-history-caption');
      const canvas = new GraphCanvas({ layout: options.layout });
      canvas.showDetails(false); // half an output's width: the graph first, a click opens the details
      root.append(caption, canvas.node);
      pair.appendChild(root);
      return { root, caption, canvas, graphKey: null, marksKey: null };
    };
    this._sides = { a: side('a'), b: side('b') };
    this.node.append(this._status, scroll, this._diff, pair);
    this._update();
  }

  /** The builds shown (as last given). */
  get builds(): IBuildRecord[] {
    return this._builds;
  }

  /** The builds compared, by index: A (left) and B (right). */
  get picks(): IPicks {
    return { ...this._picks };
  }

  /** The graph canvas of one side. */
  canvas(side: Side): GraphCanvas {
    return this._sides[side].canvas;
  }

  /** Resolves when both graphs are drawn (or failed). */
  get rendered(): Promise<void> {
    return Promise.all([this._sides.a.canvas.rendered, this._sides.b.canvas.rendered]).then(() => undefined);
  }

  /** The status line (the kernel's, as is); `kind` `disconnected` or `error` marks it for styling. */
  setStatus(text: string, kind = ''): void {
    this._status.textContent = text;
    this._status.setAttribute('data-hl-kind', kind);
    if (kind === 'disconnected') {
      this.node.setAttribute('data-hl-state', 'disconnected');
    } else {
      this.node.removeAttribute('data-hl-state');
    }
  }

  /** New builds from the kernel. The user's picks stay while those builds are still listed. */
  setBuilds(builds: IBuildRecord[]): Promise<void> {
    this._builds = Array.isArray(builds) ? builds : [];
    return this._update();
  }

  /** Pick build `index` for side `side` (as its row's A or B button does). */
  pick(side: Side, index: number): Promise<void> {
    if (this._find(index)) {
      this._chosen[side] = index;
    }
    return this._update();
  }

  dispose(): void {
    this._sides.a.canvas.dispose();
    this._sides.b.canvas.dispose();
    this.node.remove();
  }

  private _find(index: number | null): IBuildRecord | null {
    return index === null ? null : this._builds.find(b => b.index === index) || null;
  }

  private _update(): Promise<void> {
    const defaults = defaultPicks(this._builds);
    for (const side of ['a', 'b'] as Side[]) {
      if (this._chosen[side] !== null && !this._find(this._chosen[side])) {
        this._chosen[side] = null; // that build is no longer kept: back to the default
      }
      this._picks[side] = this._chosen[side] ?? defaults[side];
    }
    this._renderRows();
    const a = this._find(this._picks.a);
    const b = this._find(this._picks.b);
    const ga = graphOf(a);
    const gb = graphOf(b);
    const d = ga && gb ? passDiff(ga, gb) : null;
    const marks = a && b && d ? diffMarks(a, b, d) : { a: {}, b: {} };
    this._diff.textContent = a && b ? diffSummary(a, b, d) : '';
    this._diff.setAttribute('data-hl-same', d && unchanged(d) ? 'true' : 'false');
    this._showSide('a', a, marks.a);
    this._showSide('b', b, marks.b);
    return this.rendered;
  }

  private _renderRows(): void {
    this._rows.textContent = '';
    for (const b of this._builds) {
      const row = el('tr', 'hl-history-row');
      row.setAttribute('data-hl-build', String(b.index));
      const picks = el('td', 'hl-history-picks');
      for (const side of ['a', 'b'] as Side[]) {
        const letter = side.toUpperCase();
        const on = this._picks[side] === b.index;
        const button = el('button', `hl-button hl-pick-${side}`, letter);
        button.type = 'button';
        button.setAttribute('aria-pressed', on ? 'true' : 'false');
        button.title = `Show build #${b.index} on the ${side === 'a' ? 'left' : 'right'} (${letter})`;
        button.addEventListener('click', () => void this.pick(side, b.index));
        picks.appendChild(button);
        row.classList.toggle(`hl-picked-${side}`, on);
      }
      row.appendChild(picks);
      const cells = [
        String(b.index), b.time, b.reason, b.detail, b.flags, msText(b.build_ms), memoryText(b.memory_bytes),
        b.retraced ? 'yes' : 'no'
      ];
      const names = ['index', 'time', 'reason', 'detail', 'flags', 'build-ms', 'memory', 'retraced'];
      cells.forEach((text, i) => {
        const td = el('td', `hl-history-${names[i]}`, text);
        row.appendChild(td);
      });
      this._rows.appendChild(row);
    }
  }

  private _showSide(side: Side, build: IBuildRecord | null, marks: MarkMap): void {
    const s = this._sides[side];
    const letter = side.toUpperCase();
    s.caption.textContent = build ? `${letter}: build #${build.index} (${build.reason})` : `${letter}: no build yet`;
    s.caption.title = s.caption.textContent; // clipped in a narrow output (style/history.css)
    s.root.setAttribute('data-hl-build', build ? String(build.index) : '');
    const graph = graphOf(build);
    const graphKey = build ? `${build.index}\u0000${JSON.stringify(build.graph)}` : '';
    const marksKey = JSON.stringify(marks);
    // marks first: a canvas with no graph yet only stores them, and draws them with the graph
    if (marksKey !== s.marksKey) {
      s.marksKey = marksKey;
      void s.canvas.setMarks(marks);
    }
    if (graphKey !== s.graphKey) {
      s.graphKey = graphKey;
      const info = !build ? 'No build yet.' : graph ? build.signature : `Build #${build.index} kept no graph.`;
      void s.canvas.setGraph(graph, info);
    }
  }
}

/** The state of a BuildHistory before the kernel's first sync. */
const INITIAL_STATE: IBuildHistoryState = {
  block: '',
  builds: [],
  status: ''
};

export class BuildHistoryModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & IBuildHistoryState {
    return {
      ...super.defaults(),
      ...widgetNames('BuildHistoryModel', 'BuildHistoryView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

export class BuildHistoryView extends DOMWidgetView {
  panel: HistoryPanel | null = null;

  private get _state(): IStateModel<IBuildHistoryState> {
    return this.model;
  }

  render(): void {
    this.el.classList.add('hl-history-widget');
    this.panel = new HistoryPanel();
    this.el.appendChild(this.panel.node);
    this.listenTo(this.model, 'change:builds', this._builds);
    this.listenTo(this.model, 'change:status', this._status);
    this._status();
    this._builds();
    widgetRoot(this, 'builds', text => this.panel?.setStatus(text, 'disconnected'), true);
  }

  /** Resolves when both graphs are drawn (used by tests). */
  get rendered(): Promise<void> {
    return this.panel ? this.panel.rendered : Promise.resolve();
  }

  remove(): void {
    this.panel?.dispose();
    this.panel = null;
    super.remove();
  }

  private _builds(): void {
    void this.panel?.setBuilds(this._state.get('builds') || []);
  }

  private _status(): void {
    this.panel?.setStatus(this._state.get('status'));
  }
}
