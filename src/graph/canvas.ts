/**
 * `GraphCanvas`: the graph view component shared by the GraphView widget and the MIME
 * renderer. Plain DOM (no Lumino, no kernel), so jest tests drive it directly.
 *
 * Layout: a toolbar (view selector: forward graph, backward graph, each compiler pass with what
 * it changed, the generated source; search; expand/collapse all; fit; 100 %; details on/off),
 * a status line (the rebuild reason, errors, a dead kernel), the drawing area, and the details
 * panel of the clicked node (beside the graph, below it in a narrow output: style/base.css).
 * The root carries class `hl-graph`, `data-hl-state` (`empty`, `layout`, `ready`, `error`),
 * `data-hl-view` (`graph` or `source`) and `data-hl-details-panel` (`open` or `closed`).
 *
 * Navigation: drag pans, Ctrl/Cmd + wheel (or a pinch) zooms, a plain wheel scrolls the notebook
 * (`panzoom.ts`). Keys (KEY_HELP; the widget root keeps them from the notebook, `../keyboard.ts`):
 * arrows pan, +/- zoom, 0 fits, / searches, n/N walk the search matches (shown as "2 of 7"),
 * Enter opens the focused node, t traces its inputs and outputs (`trace`), Esc goes back. Drawn nodes are focusable (`tabindex -1`). A drawing starts fitted into view and is re-fitted when the output is resized,
 * until the user pans or zooms; after that, redraws of the same view keep the user's view.
 *
 * Marks: a debugging tool's per-node marks (`setMarks`) are drawn on every redraw; a collapsed
 * Block scope holding marked nodes carries class `hl-has-marks`. `reveal(name)` expands the
 * scopes around a node, selects it and centres it.
 */
import { isFormField } from '../keyboard';
import { IGraphJSON, IGraphNode, MarkMap, ParamStatsMap } from '../tokens';
import { renderDetails } from './details';
import { exportPNG, exportSVG } from './export';
import { Direction, toDot } from './dot';
import { ILayout, layoutDot } from './layout';
import { collapsedAtDepth, defaultCollapsed, foldKeysAround, IVisibleGraph, maxDepth, nodesByName, scopeKey, scopeTree, seriesOf, visibleGraph } from './model';
import { minimap } from './minimap';
import { hasStatement, ISourceView, sourceView } from './source';
import { IPanZoom, ITransform, panZoom } from './panzoom';
import { IPassDiff, passDescription, passDiff, passSummary } from './passdiff';
import { ColourMode, legend, outputBytes, paintBoxes } from './colour';
import { IRendered, markOf, renderGraph } from './render';
import { markTrace, traceNode, traceText } from './trace';

export interface IGraphCanvasOptions {
  /** DOT -> layout; defaults to Graphviz through `@viz-js/viz`. Tests may inject their own. */
  layout?: (dot: string) => Promise<ILayout>;
  /** Graphs above this many nodes start with their inner Block scopes collapsed. */
  collapseThreshold?: number;
  /** Called when the user clicks a node (its name). */
  onNodeClick?: (name: string) => void;
}

/** One entry of the view selector. */
interface IViewChoice {
  id: string;
  label: string;
  graph?: IGraphJSON;
  source?: string;
  /** For a pass: its name and what it changed. */
  pass?: { name: string; diff: IPassDiff };
  /** Listed, greyed out, with the label saying why (no backward compiled yet). */
  disabled?: boolean;
}

/** The drawing area's height: the drawing's, within these bounds (px). */
const MIN_AREA_HEIGHT = 160;
const MAX_AREA_HEIGHT = 600;

/** What the keyboard does in the drawing area (its tooltip and accessible label). */
export const KEY_HELP =
  'Keys: arrows pan (Shift: faster), + and - zoom, 0 fits, / searches, n and N go to the next and previous ' +
  'match (every node when the search is empty), Enter opens the focused node, t traces its inputs and outputs, Esc goes back.';

/**
 * The smallest zoom a drawing opens at: its smallest text (10 px labels, style/base.css) stays
 * at least 9 px on screen. A drawing that would need less to fit opens at this zoom from its top.
 */
export const READABLE_SCALE = 0.9;

/** How many layouts a canvas keeps (forward, backward, passes, a few collapse states). */
const LAYOUT_CACHE = 12;

/** How many finished drawings (SVG trees) a canvas keeps to show again without redrawing. */
const DRAWING_CACHE = 4;

/** How far one arrow key pans (px; with Shift, PAN_STEP_FAST). */
const PAN_STEP = 60;
const PAN_STEP_FAST = 240;

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** The zoom modifier key's name on this platform. */
function zoomKey(): string {
  const p = typeof navigator !== 'undefined' ? navigator.platform || navigator.userAgent || '' : '';
  return /Mac|iPhone|iPad/.test(p) ? '⌘' : 'Ctrl';
}

function div(cls: string, parent?: HTMLElement, text?: string): HTMLDivElement {
  const d = document.createElement('div');
  d.className = cls;
  if (text !== undefined) {
    d.textContent = text;
  }
  if (parent) {
    parent.appendChild(d);
  }
  return d;
}

export class GraphCanvas {
  /** The root element (class `hl-graph`). */
  readonly node: HTMLDivElement;
  /** Resolves when the latest requested drawing is on screen (or failed). */
  rendered: Promise<void> = Promise.resolve();

  private _layout: (dot: string) => Promise<ILayout>;
  private _threshold: number;
  private _onNodeClick: ((name: string) => void) | null;
  private _graph: IGraphJSON | null = null;
  private _shown: IGraphJSON | null = null;
  private _visible: IVisibleGraph | null = null;
  private _drawn: IRendered | null = null;
  private _pz: IPanZoom | null = null;
  private _collapsed = new Set<string>();
  /** The collapsed scopes of the view family not shown now (`forward` or `backward`). */
  private _collapsedBy = new Map<string, Set<string>>();
  private _selected: string | null = null;
  private _view = 'forward';
  private _pass: { name: string; diff: IPassDiff } | null = null;
  private _token = 0;
  private _toolbar: HTMLDivElement;
  private _select: HTMLSelectElement;
  private _search: HTMLInputElement;
  private _depth: HTMLSelectElement;
  private _direction: Direction = 'TB';
  private _directionButton: HTMLButtonElement;
  /** Layouts by DOT text (the last few): re-selecting a view or re-collapsing a scope is instant. */
  private _layouts = new Map<string, Promise<ILayout>>();
  /**
   * The last few drawings by DOT text, with the graph and marks they show: switching back to a
   * view (the 2000-node backward graph) re-attaches its SVG instead of building it again.
   */
  private _drawings = new Map<string, { graph: IGraphJSON; marks: MarkMap; drawn: IRendered }>();
  /** The generated source view while it is shown. */
  private _source: ISourceView | null = null;
  private _prevMatch: HTMLButtonElement;
  private _nextMatch: HTMLButtonElement;
  private _matchCount: HTMLSpanElement;
  /** The search match shown last (index into `_matchNames()`; -1: none yet). */
  private _matchIndex = -1;
  private _status: HTMLDivElement;
  private _area: HTMLDivElement;
  private _details: HTMLDivElement;
  private _hint: HTMLDivElement;
  private _graphButtons: HTMLButtonElement[] = [];
  private _detailsButton: HTMLButtonElement;
  private _info = '';
  /** What the boxes are coloured by, the measured times per node (ms per call), and the key. */
  private _colourBy: ColourMode = 'family';
  private _times: { [name: string]: number } = {};
  private _colourSelect: HTMLSelectElement;
  private _legend: HTMLDivElement;
  /** The node whose inputs and outputs are traced (its name), or null. */
  private _traced: string | null = null;
  private _traceBar: HTMLDivElement;
  private _stats: ParamStatsMap = {};
  private _marks: MarkMap = {};
  /** The user's pan/zoom of the current view and the area height then (null: fit automatically). */
  private _userView: { t: ITransform; height: number } | null = null;
  private _resize: ResizeObserver | null = null;
  private _areaWidth = 0;
  private _hintTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: IGraphCanvasOptions = {}) {
    this._layout = options.layout || layoutDot;
    this._threshold = options.collapseThreshold ?? 150;
    this._onNodeClick = options.onNodeClick || null;
    this.node = div('hl-graph');
    this.node.setAttribute('data-hl-state', 'empty');
    const bar = div('hl-toolbar', this.node);
    this._toolbar = bar;
    this._select = document.createElement('select');
    this._select.className = 'hl-view-select';
    this._select.title = 'Which graph to show';
    this._select.addEventListener('change', () => this._setView(this._select.value));
    this._select.setAttribute('aria-label', 'Which graph to show');
    bar.appendChild(this._select);
    this._search = document.createElement('input');
    this._search.type = 'search';
    this._search.placeholder = 'Search nodes';
    this._search.className = 'hl-search';
    this._search.setAttribute('aria-label', 'Search nodes by name or op (Enter: next match, Shift+Enter: previous)');
    this._search.addEventListener('input', () => {
      this._matchIndex = -1;
      this._applySearch();
    });
    this._search.addEventListener('keydown', ev => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        void this.nextMatch(ev.shiftKey ? -1 : 1);
      } else if (ev.key === 'Escape') {
        ev.preventDefault();
        this.search('');
        this._area.focus();
      }
    });
    bar.appendChild(this._search);
    const button = (label: string, title: string, cb: () => void): HTMLButtonElement => this.addButton(label, title, cb);
    this._prevMatch = button('‹', 'Previous match (N)', () => void this.nextMatch(-1));
    this._nextMatch = button('›', 'Next match (n)', () => void this.nextMatch(1));
    this._prevMatch.setAttribute('aria-label', 'Previous match');
    this._nextMatch.setAttribute('aria-label', 'Next match');
    this._prevMatch.classList.add('hl-match-prev');
    this._nextMatch.classList.add('hl-match-next');
    this._matchCount = document.createElement('span');
    this._matchCount.className = 'hl-match-count';
    this._matchCount.setAttribute('aria-live', 'polite');
    bar.appendChild(this._matchCount);
    this._graphButtons = [
      button('Expand all', 'Expand every Block scope', () => void this.setCollapsed(new Set())),
      button('Collapse all', 'Collapse every Block scope', () => this._collapseAll()),
      button('Fit', 'Scale the whole graph into view', () => this.fit()),
      button('100%', 'Show the graph at its actual size (100% zoom), from its top', () => this.actualSize())
    ];
    this._depth = document.createElement('select');
    this._depth.className = 'hl-depth-select';
    this._depth.title = 'Open the Block scopes down to this depth';
    this._depth.setAttribute('aria-label', 'Open the Block scopes down to this depth');
    this._depth.addEventListener('change', () => {
      const d = this._depth.value;
      this._depth.value = '';
      if (d !== '') {
        void this.expandToDepth(d === 'all' ? Infinity : Number(d));
      }
    });
    bar.insertBefore(this._depth, this._graphButtons[0]);
    const exportButton = (ext: 'svg' | 'png'): HTMLButtonElement => {
      const b = button(ext.toUpperCase(), `Download the whole drawing as ${ext.toUpperCase()}`, () => {
        if (this._drawn) {
          const name = this._drawingName();
          void (ext === 'svg' ? exportSVG(this._drawn, name) : exportPNG(this._drawn, name));
        }
      });
      b.classList.add(`hl-export-${ext}`);
      return b;
    };
    this._directionButton = button('Left → right', 'Lay the graph out left to right (or back to top-down)', () =>
      void this.setDirection(this._direction === 'TB' ? 'LR' : 'TB')
    );
    this._directionButton.classList.add('hl-direction');
    this._directionButton.setAttribute('aria-pressed', 'false');
    this._graphButtons.push(this._directionButton, exportButton('svg'), exportButton('png'));
    this._graphButtons[2].classList.add('hl-fit');
    this._graphButtons[3].classList.add('hl-actual-size');
    this._detailsButton = button('Details', 'Show or hide the details panel of the clicked node', () =>
      this.showDetails(this.node.getAttribute('data-hl-details-panel') !== 'open')
    );
    this._detailsButton.classList.add('hl-details-toggle');
    this._colourSelect = document.createElement('select');
    this._colourSelect.className = 'hl-colour-select';
    this._colourSelect.setAttribute('aria-label', 'Colour the boxes by');
    this._colourSelect.addEventListener('change', () => this.setColourBy(this._colourSelect.value as ColourMode));
    bar.insertBefore(this._colourSelect, this._directionButton);
    this._fillColourChoices();
    this._status = div('hl-status', this.node);
    this._legend = div('hl-colour-legend', this.node);
    this._legend.hidden = true;
    this._traceBar = div('hl-trace-bar', this.node);
    this._traceBar.setAttribute('aria-live', 'polite');
    this._traceBar.hidden = true;
    const body = div('hl-body', this.node);
    this._area = div('hl-graph-area', body);
    this._area.tabIndex = 0;
    this._area.setAttribute('role', 'group');
    this._area.setAttribute('aria-roledescription', 'graph');
    this._area.setAttribute('aria-label', `Graph. ${KEY_HELP}`);
    this._area.title = KEY_HELP;
    this.node.addEventListener('keydown', ev => this._onKey(ev));
    this._details = div('hl-details', body);
    this._hint = div('hl-zoom-hint', undefined, `${zoomKey()} + wheel or pinch: zoom · drag: pan`);
    renderDetails(this._details, null, null);
    this.node.setAttribute('data-hl-view', 'graph');
    this.showDetails(true);
    this._setStatus('No graph yet.', 'info');
    this._enableGraphControls(false);
    if (typeof ResizeObserver !== 'undefined') {
      this._resize = new ResizeObserver(() => this._onResize());
      this._resize.observe(this._area);
    }
  }

  /** The current pan/zoom (null when no graph is drawn). */
  get view(): IPanZoom | null {
    return this._pz;
  }

  /** Scale the whole graph into view (and keep it fitted on resizes until the user zooms). */
  fit(): void {
    this._userView = null;
    this._sizeArea();
    this._pz?.fit();
  }

  /** Show the graph at 100 %, from its top. */
  actualSize(): void {
    if (!this._drawn || !this._pz) {
      return;
    }
    this._drawn.svg.style.height = `${clamp(this._drawn.height, MIN_AREA_HEIGHT, MAX_AREA_HEIGHT)}px`;
    this._pz.actualSize();
    this._userView = { t: { scale: this._pz.scale, tx: this._pz.tx, ty: this._pz.ty }, height: this._areaHeight() };
  }

  /** Open or close the details panel. */
  showDetails(open: boolean): void {
    this.node.setAttribute('data-hl-details-panel', open ? 'open' : 'closed');
    this._detailsButton.setAttribute('aria-pressed', open ? 'true' : 'false');
    this._detailsButton.textContent = open ? 'Hide details' : 'Details';
  }

  /** The graph currently given (the forward graph). */
  get graph(): IGraphJSON | null {
    return this._graph;
  }

  /** The collapsed Block scopes (keys of `scopeKey`). */
  get collapsed(): Set<string> {
    return new Set(this._collapsed);
  }

  /**
   * Show `graph` (null: nothing to show yet, with `info` saying why). `info` is the status text,
   * e.g. the reason of a rebuild. Collapsed scopes and the selected node are kept across
   * updates when they still exist.
   */
  setGraph(graph: IGraphJSON | null, info = ''): Promise<void> {
    const first = this._graph === null;
    this._graph = graph;
    this._info = info;
    if (graph && first) {
      this._collapsed = defaultCollapsed(graph, this._threshold);
    }
    this._fillSelector();
    return this._setView(this._view);
  }

  /** Show a status message; `kind` `error` or `disconnected` marks the root for styling and tests. */
  setStatus(text: string, kind: 'info' | 'error' | 'disconnected' = 'info'): void {
    this._setStatus(text, kind);
    if (kind !== 'info') {
      this.node.setAttribute('data-hl-state', kind);
    }
  }

  /** Parameter statistics from the kernel, shown in the details panel of parameter nodes. */
  setParamStats(stats: ParamStatsMap | null): void {
    this._stats = stats || {};
    this.select(this._selected);
  }

  /**
   * Per-node marks of a debugging tool (by node name), drawn on every redraw. `redraw` false:
   * only keep them for the next drawing (a `setGraph` that follows).
   */
  setMarks(marks: MarkMap | null, redraw = true): Promise<void> {
    this._marks = marks || {};
    return this._shown && redraw ? this._draw() : this.rendered;
  }

  /**
   * Show the node named `name`: expand the Block scopes around it, select it (details panel
   * open) and centre it in the drawing area. Resolves false when the shown graph has no such node.
   */
  async reveal(name: string): Promise<boolean> {
    const graph = this._shown;
    const node = graph ? nodesByName(graph).get(name) : undefined;
    if (!graph || !node) {
      return false;
    }
    const open = new Set(this._collapsed);
    foldKeysAround(graph, graph.nodes.indexOf(node)).forEach(k => open.delete(k));
    if (open.size !== this._collapsed.size || !this._drawn) {
      await this.setCollapsed(open);
    }
    this.showDetails(true);
    this.select(name);
    const centre = this._drawn ? this._drawn.centers.get(name) : undefined;
    if (centre) {
      this._centreOn(centre[0], centre[1]);
    }
    return true;
  }

  /** Centre the view on the drawing point (`x`, `y`) at the current zoom. */
  private _centreOn(x: number, y: number): void {
    if (!this._pz || !this._drawn) {
      return;
    }
    const scale = this._pz.scale;
    const w = this._area.clientWidth || this._drawn.width;
    const h = this._areaHeight();
    this._pz.set({ scale, tx: w / 2 - scale * x, ty: h / 2 - scale * y });
    this._userView = { t: { scale, tx: this._pz.tx, ty: this._pz.ty }, height: h };
  }

  /**
   * The view a drawing opens with: fitted when its labels stay readable (READABLE_SCALE), else at
   * that zoom from its top, centred (the minimap shows the rest).
   */
  private _initialView(): void {
    const d = this._drawn;
    if (!d || !this._pz) {
      return;
    }
    this._sizeArea();
    this._pz.fit();
    if (this._pz.scale < READABLE_SCALE) {
      const w = this._area.clientWidth || d.width;
      d.svg.style.height = `${this._draggedHeight() ?? MAX_AREA_HEIGHT}px`;
      // from where the data comes in: the top, around the first graph input (a wide drawing would
      // otherwise open on its middle, the input cut off), or the left edge of a left-to-right drawing
      const tx = this._direction === 'LR' ? 0 : this._topStartX(w, READABLE_SCALE);
      this._pz.set({ scale: READABLE_SCALE, tx, ty: 0 });
    }
  }

  /**
   * The horizontal offset of a top-down drawing shown at `scale` in an area `w` wide: centred on
   * the first graph input drawn, within the drawing's edges (centred when it fits).
   */
  private _topStartX(w: number, scale: number): number {
    const d = this._drawn!;
    const graph = this._shown;
    const wide = scale * d.width;
    if (wide <= w || !graph) {
      return (w - wide) / 2;
    }
    const input = graph.nodes.find(n => n.is_input && d.centers.has(n.name));
    const x = input ? d.centers.get(input.name)![0] : d.width / 2;
    return clamp(w / 2 - scale * x, w - wide, 0);
  }

  /** Collapse exactly the scopes in `collapsed` and redraw. */
  setCollapsed(collapsed: Set<string>): Promise<void> {
    this._collapsed = new Set(collapsed);
    return this._draw();
  }

  /** Collapse or expand one Block scope. */
  toggle(path: string[]): Promise<void> {
    const graph = this._shown || this._graph;
    const chain = graph ? scopeTree(graph).chain(path) : [scopeKey(path)];
    if (chain.some(k => this._collapsed.has(k))) {
      chain.forEach(k => this._collapsed.delete(k));
    } else {
      this._collapsed.add(scopeKey(path));
    }
    return this._draw();
  }

  /** Fold a series of identical Blocks into one box, or open it (`key`: `ISeries.key`). */
  toggleSeries(key: string): Promise<void> {
    if (!this._collapsed.delete(key)) {
      this._collapsed.add(key);
    }
    return this._draw();
  }

  /**
   * Measured time per call of each node (ms, by node name: a `TimingPanel`'s per-op profile),
   * for colouring by time; null or `{}`: none measured.
   */
  setTimes(times: { [name: string]: number } | null): void {
    this._times = times || {};
    if (this._colourBy === 'time' && !Object.keys(this._times).length) {
      this._colourBy = 'family';
    }
    this._fillColourChoices();
    this._applyColour();
  }

  /** Colour the boxes by op family (the default), measured time per call, or output size. */
  setColourBy(mode: ColourMode): void {
    this._colourBy = mode === 'time' && !Object.keys(this._times).length ? 'family' : mode;
    this._colourSelect.value = this._colourBy;
    this.node.setAttribute('data-hl-colour', this._colourBy);
    this._applyColour();
  }

  private _fillColourChoices(): void {
    const timed = Object.keys(this._times).length > 0;
    const choices: [ColourMode, string, boolean][] = [
      ['family', 'Colour: op family', true],
      ['time', timed ? 'Colour: time per call' : 'Colour: time (not measured)', timed],
      ['size', 'Colour: output size', true]
    ];
    this._colourSelect.textContent = '';
    for (const [value, label, enabled] of choices) {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      o.disabled = !enabled;
      this._colourSelect.appendChild(o);
    }
    this._colourSelect.value = this._colourBy;
    this._colourSelect.title = timed
      ? 'Colour the boxes by op family, measured time per call or output size'
      : 'Colour the boxes by op family or output size; to colour by time, measure first: view.profile(x), or mx.lab.inspect(net, x)';
  }

  private _applyColour(): void {
    this.node.setAttribute('data-hl-colour', this._colourBy);
    this._legend.textContent = '';
    this._legend.hidden = true;
    const graph = this._shown;
    if (!this._drawn || !this._visible || !graph) {
      return;
    }
    const mode = this._colourBy;
    const times = this._times;
    const value = (n: IGraphNode): number | null =>
      mode === 'time' ? (Object.prototype.hasOwnProperty.call(times, n.name) ? times[n.name] : null) : outputBytes(n);
    const scale = paintBoxes(this._drawn, this._visible, graph, mode, value);
    if (scale && mode !== 'family') {
      legend(this._legend, mode, scale);
      this._legend.hidden = false;
    }
  }

  /**
   * Trace the node named `name`: mark everything it reads from (upstream) and everything that
   * reads from it (downstream), dim the rest; null stops. Kept across redraws of the same view.
   */
  trace(name: string | null): void {
    this._traced = name;
    this._applyTrace();
  }

  /** The traced node's name, or null. */
  get traced(): string | null {
    return this._traced;
  }

  private _applyTrace(): void {
    const drawn = this._drawn;
    const visible = this._visible;
    const graph = this._shown;
    const node = graph && this._traced !== null ? nodesByName(graph).get(this._traced) : undefined;
    this._traceBar.textContent = '';
    this._traceBar.hidden = !node;
    if (!drawn || !visible || !graph) {
      return;
    }
    const t = node ? traceNode(graph, graph.nodes.indexOf(node)) : null;
    markTrace(drawn, visible, t);
    if (node && t) {
      div('hl-trace-text', this._traceBar, `Tracing ${node.name}: ${traceText(t)}`);
      const stop = document.createElement('button');
      stop.className = 'hl-button hl-trace-stop';
      stop.textContent = 'Stop tracing';
      stop.title = 'Show the whole graph again (t)';
      stop.addEventListener('click', () => this.trace(null));
      this._traceBar.appendChild(stop);
    }
  }

  /** Select the node named `name` (as a click does): highlight it and show its details. */
  select(name: string | null): void {
    this._selected = name;
    const graph = this._shown;
    const node = graph && name !== null ? nodesByName(graph).get(name) || null : null;
    const stats = node && Object.prototype.hasOwnProperty.call(this._stats, node.name) ? this._stats[node.name] : null;
    renderDetails(this._details, node, graph, stats);
    const code = this._graph ? this._graph.source_code : null;
    if (node) {
      const traceButton = document.createElement('button');
      traceButton.className = 'hl-button hl-trace-toggle';
      const tracing = this._traced === node.name;
      traceButton.textContent = tracing ? 'Stop tracing' : 'Trace inputs and outputs';
      traceButton.title = 'Mark what this node reads from and what reads from it (t)';
      traceButton.setAttribute('aria-pressed', tracing ? 'true' : 'false');
      traceButton.addEventListener('click', () => {
        this.trace(this._traced === node.name ? null : node.name);
        this.select(node.name);
      });
      this._details.appendChild(traceButton);
    }
    if (node && code && this._view !== 'backward' && hasStatement(code, node.name)) {
      const link = document.createElement('button');
      link.className = 'hl-button hl-show-source';
      link.textContent = 'Show its generated code';
      link.addEventListener('click', () => void this.showInSource(node.name));
      this._details.appendChild(link);
    }
    if (this._drawn) {
      this._drawn.nodes.forEach((el, n) => el.classList.toggle('hl-selected', n === name));
    }
  }

  /** Set the search text (as typing does). */
  search(text: string): void {
    this._search.value = text;
    this._applySearch();
  }

  /** Switch to the forward graph and reveal the node `name` there (a source line's link). */
  async showInGraph(name: string): Promise<boolean> {
    this._select.value = 'forward';
    await this._setView('forward');
    return this.reveal(name);
  }

  /** Switch to the generated source and mark the statement of node `name` (a node's link). */
  async showInSource(name: string): Promise<boolean> {
    this._selected = name;
    this._select.value = 'source';
    await this._setView('source');
    return this._source ? this._source.showNode(name) : false;
  }

  /** Lay the graph out top-down (`TB`, the default) or left to right (`LR`) and redraw (fitted). */
  setDirection(direction: Direction): Promise<void> {
    this._direction = direction;
    this._directionButton.setAttribute('aria-pressed', direction === 'LR' ? 'true' : 'false');
    this._directionButton.textContent = direction === 'LR' ? 'Top → down' : 'Left → right';
    this.node.setAttribute('data-hl-direction', direction);
    this._userView = null;
    return this._shown ? this._draw() : this.rendered;
  }

  /** Add a button to the toolbar (a host's own action, e.g. the widget's "Open in a tab"). */
  addButton(label: string, title: string, onClick: () => void): HTMLButtonElement {
    const b = document.createElement('button');
    b.className = 'hl-button';
    b.textContent = label;
    b.title = title; // the visible label is its accessible name; the title describes it
    b.addEventListener('click', onClick);
    this._toolbar.appendChild(b);
    return b;
  }

  /** Give the drawing area a fixed height (px), as dragging its corner does (a full-tab view). */
  setAreaHeight(px: number): void {
    this._area.style.height = `${Math.max(MIN_AREA_HEIGHT, Math.round(px))}px`;
    this._onResize();
  }

  /** The file name stem of an export: the outermost Block of the shown graph, or "graph". */
  private _drawingName(): string {
    const scoped = this._shown ? this._shown.nodes.find(n => n.scope && n.scope.length) : undefined;
    const stem = scoped ? scoped.scope[0] : 'graph';
    return this._view === 'forward' ? stem : `${stem}-${this._view.replace(':', '')}`;
  }

  /** Open the Block scopes of the shown graph down to `depth` levels (Infinity: all) and redraw. */
  expandToDepth(depth: number): Promise<void> {
    const graph = this._shown;
    if (!graph) {
      return this.rendered;
    }
    return this.setCollapsed(Number.isFinite(depth) ? collapsedAtDepth(graph, depth) : new Set());
  }

  /**
   * Go to the next (`step` 1) or previous (-1) search match: expand the scopes around it, select
   * it, centre it and focus it. With an empty search every node of the shown graph is a match
   * (keyboard walk in graph order). Resolves to the node's name (null: nothing to go to).
   */
  async nextMatch(step: 1 | -1 = 1): Promise<string | null> {
    const names = this._matchNames();
    if (!names.length) {
      this._updateMatchCount();
      return null;
    }
    this._matchIndex = this._matchIndex < 0 ? (step > 0 ? 0 : names.length - 1) : (this._matchIndex + step + names.length) % names.length;
    const name = names[this._matchIndex];
    await this.reveal(name);
    this._updateMatchCount();
    const el = this._drawn ? this._drawn.nodes.get(name) : undefined;
    if (el && this._search !== document.activeElement) {
      el.focus({ preventScroll: true });
    }
    return name;
  }

  /** The names of the shown graph's nodes matching the search (all nodes when it is empty), in graph order. */
  private _matchNames(): string[] {
    const graph = this._shown;
    if (!graph) {
      return [];
    }
    const q = this._search.value.trim().toLowerCase();
    return graph.nodes.filter(n => !q || this._matches(n, q)).map(n => n.name);
  }

  private _updateMatchCount(): void {
    const q = this._search.value.trim();
    const count = q && this._shown ? this._matchNames().length : 0;
    this._matchCount.textContent = !q || !this._shown ? '' : count === 0 ? 'no match' : this._matchIndex >= 0 ? `${this._matchIndex + 1} of ${count}` : count === 1 ? '1 match' : `${count} matches`;
    this._matchCount.setAttribute('data-hl-count', String(count));
    this._prevMatch.disabled = this._nextMatch.disabled = this._search.disabled || (!!q && count === 0);
  }

  /** The canvas's own keys (KEY_HELP); form fields keep theirs. Everything else is the widget root's to stop. */
  private _onKey(ev: KeyboardEvent): void {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || isFormField(ev.target)) {
      return;
    }
    const target = ev.target instanceof Element ? ev.target : null;
    const onButton = !!target && target.tagName.toLowerCase() === 'button';
    const drawnItem = target && this._drawn && this._drawn.svg.contains(target) ? target.closest('[data-hl-node], [data-hl-group]') : null;
    const pz = this._pz;
    const step = ev.shiftKey ? PAN_STEP_FAST : PAN_STEP;
    const centre = (): [number, number] => [(this._area.clientWidth || 0) / 2, this._areaHeight() / 2];
    switch (ev.key) {
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        if (!pz) {
          return;
        }
        const dx = ev.key === 'ArrowLeft' ? step : ev.key === 'ArrowRight' ? -step : 0;
        const dy = ev.key === 'ArrowUp' ? step : ev.key === 'ArrowDown' ? -step : 0;
        pz.pan(dx, dy);
        break;
      }
      case '+':
      case '=':
      case '-':
      case '_':
        if (!pz) {
          return;
        }
        pz.zoom(ev.key === '+' || ev.key === '=' ? 1.25 : 0.8, ...centre());
        break;
      case '0':
        this.fit();
        break;
      case '/':
        this._search.focus();
        break;
      case 'n':
      case 'N':
        void this.nextMatch(ev.key === 'N' ? -1 : 1);
        break;
      case 't': {
        // trace the focused node, else the selected one; again: stop
        const focused = drawnItem ? drawnItem.getAttribute('data-hl-node') : null;
        const name = focused ?? this._selected;
        this.trace(this._traced !== null && (name === null || name === this._traced) ? null : name);
        if (name) {
          this.select(name);
        }
        break;
      }
      case 'Enter':
      case ' ':
        if (onButton || !drawnItem) {
          return; // a button's own Enter/Space clicks it
        }
        drawnItem.dispatchEvent(new MouseEvent('click', { bubbles: true }));
        break;
      case 'Escape':
        if (drawnItem) {
          this._area.focus({ preventScroll: true });
        } else {
          // leave the widget: back to the notebook, which keeps its cell selection
          const outer = this.node.closest('.jp-Notebook') as HTMLElement | null;
          if (outer) {
            outer.focus();
          } else if (document.activeElement instanceof HTMLElement) {
            document.activeElement.blur();
          }
        }
        break;
      default:
        return;
    }
    ev.preventDefault();
  }

  dispose(): void {
    this._token++;
    this._pz?.dispose();
    this._resize?.disconnect();
    if (this._hintTimer) {
      clearTimeout(this._hintTimer);
    }
    this.node.remove();
  }

  private _enableGraphControls(on: boolean): void {
    for (const b of this._graphButtons) {
      b.disabled = !on;
    }
    this._search.disabled = !on;
    this._colourSelect.disabled = !on;
    this._detailsButton.disabled = !on;
    if (!on) {
      this._legend.hidden = true;
      this._traceBar.hidden = true;
    }
    this._fillDepths(on ? this._shown : null);
    this._updateMatchCount();
  }

  private _fillDepths(graph: IGraphJSON | null): void {
    const deepest = graph ? maxDepth(graph) : 0;
    this._depth.textContent = '';
    const option = (value: string, label: string): void => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      this._depth.appendChild(o);
    };
    option('', 'Depth…');
    for (let d = 1; d < deepest; d++) {
      option(String(d), `Open ${d} level${d === 1 ? '' : 's'}`);
    }
    option('all', 'Open all levels');
    this._depth.value = '';
    this._depth.disabled = deepest < 2;
  }

  /** The layout of `dot`, from the cache when this DOT was laid out before. */
  private _layoutOf(dot: string): Promise<ILayout> {
    let layout = this._layouts.get(dot);
    if (layout) {
      this._layouts.delete(dot); // most recently used last
    } else {
      layout = this._layout(dot);
      layout.catch(() => this._layouts.delete(dot));
    }
    this._layouts.set(dot, layout);
    while (this._layouts.size > LAYOUT_CACHE) {
      this._layouts.delete(this._layouts.keys().next().value as string);
    }
    return layout;
  }

  /** The drawing of `dot` for `graph` with the current marks: the kept one, or `draw()`'s. */
  private _drawingOf(dot: string, graph: IGraphJSON, draw: () => IRendered): IRendered {
    const kept = this._drawings.get(dot);
    this._drawings.delete(dot);
    const drawn = kept && kept.graph === graph && kept.marks === this._marks ? kept.drawn : draw();
    this._drawings.set(dot, { graph, marks: this._marks, drawn });
    while (this._drawings.size > DRAWING_CACHE) {
      this._drawings.delete(this._drawings.keys().next().value as string);
    }
    return drawn;
  }

  private _areaHeight(): number {
    const h = this._drawn ? parseFloat(this._drawn.svg.style.height) : NaN;
    return Number.isFinite(h) ? h : MIN_AREA_HEIGHT;
  }

  /**
   * Size the drawing area for the current drawing: as tall as the drawing once fitted to the
   * area's width, within MIN/MAX_AREA_HEIGHT.
   */
  private _sizeArea(): void {
    const d = this._drawn;
    if (!d) {
      return;
    }
    const w = this._area.clientWidth;
    const s = w > 0 ? Math.min(1, w / d.width) : 1;
    const dragged = this._draggedHeight();
    d.svg.style.height = `${dragged ?? Math.round(clamp(s * d.height, MIN_AREA_HEIGHT, MAX_AREA_HEIGHT))}px`;
  }

  /** The height the user dragged the area to (its resize corner), or null. */
  private _draggedHeight(): number | null {
    return this._area.style.height ? Math.max(MIN_AREA_HEIGHT, this._area.clientHeight) : null;
  }

  private _onResize(): void {
    const w = this._area.clientWidth;
    const dragged = this._draggedHeight();
    if (dragged !== null && this._drawn && Math.abs(dragged - this._areaHeight()) > 1) {
      // the user dragged the area taller or shorter: the drawing follows, the view is kept
      this._drawn.svg.style.height = `${dragged}px`;
      if (this._userView) {
        this._userView = { ...this._userView, height: dragged };
      }
    }
    if (w === this._areaWidth) {
      return;
    }
    this._areaWidth = w;
    if (this._drawn && this._pz && !this._userView) {
      this._initialView();
    }
  }

  private _flashHint(): void {
    this._hint.classList.add('hl-hint-flash');
    if (this._hintTimer) {
      clearTimeout(this._hintTimer);
    }
    this._hintTimer = setTimeout(() => this._hint.classList.remove('hl-hint-flash'), 1500);
  }

  private _setStatus(text: string, kind: string): void {
    this._status.textContent = text;
    this._status.setAttribute('data-hl-kind', kind);
  }

  private _choices(): IViewChoice[] {
    const g = this._graph;
    if (!g) {
      return [{ id: 'forward', label: 'Forward graph' }];
    }
    const out: IViewChoice[] = [{ id: 'forward', label: 'Forward graph', graph: g }];
    if (g.backward && g.backward.nodes) {
      out.push({ id: 'backward', label: 'Backward graph', graph: g.backward });
    } else if (g.source_code) {
      // a compiled block without a backward yet: say how to get one instead of hiding the choice
      out.push({ id: 'backward', label: 'Backward graph: call the block under autograd.record() and run backward()', disabled: true });
    }
    let before: IGraphJSON = g;
    (g.passes || []).forEach((p, i) => {
      if (!p || !p.graph || !Array.isArray(p.graph.nodes)) {
        return;
      }
      const diff = passDiff(before, p.graph);
      out.push({
        id: `pass:${i}`,
        label: `After pass ${i + 1}: ${p.name} (${passSummary(diff)})`,
        graph: p.graph,
        pass: { name: p.name, diff }
      });
      before = p.graph;
    });
    if (g.source_code) {
      out.push({ id: 'source', label: 'Generated source', source: g.source_code });
    }
    return out;
  }

  private _fillSelector(): void {
    const choices = this._choices();
    this._select.textContent = '';
    for (const c of choices) {
      const o = document.createElement('option');
      o.value = c.id;
      o.textContent = c.label;
      o.disabled = !!c.disabled;
      this._select.appendChild(o);
    }
    if (!choices.some(c => c.id === this._view && !c.disabled)) {
      this._view = 'forward';
    }
    this._select.value = this._view;
    this._select.disabled = choices.length < 2;
  }

  private _setView(id: string): Promise<void> {
    const choice = this._choices().find(c => c.id === id) || this._choices()[0];
    if (id !== this._view) {
      this._userView = null; // another view starts fitted
      this._matchIndex = -1;
      this._traced = null;
      // the backward graph folds on its own (it is far bigger); passes share the forward's scopes
      const family = (v: string): string => (v === 'backward' ? 'backward' : 'forward');
      if (family(id) !== family(this._view)) {
        this._collapsedBy.set(family(this._view), this._collapsed);
        this._collapsed = this._collapsedBy.get(family(id)) || (choice.graph ? defaultCollapsed(choice.graph, this._threshold) : new Set());
      }
    }
    this._view = id;
    this._pass = choice.pass || null;
    this._source = null;
    this.node.setAttribute('data-hl-view', choice.source !== undefined ? 'source' : 'graph');
    if (choice.source !== undefined) {
      this._token++;
      this._pz?.dispose();
      this._pz = null;
      this._enableGraphControls(false);
      this._shown = null;
      this._visible = null;
      this._drawn = null;
      this._area.textContent = '';
      const names = new Set((this._graph ? this._graph.nodes : []).map(n => n.name));
      // a click on a line goes to its node in the forward graph
      const source = sourceView(choice.source, names, name => void this.showInGraph(name));
      this._source = source;
      this._area.appendChild(source.node);
      if (this._selected) {
        source.showNode(this._selected);
      }
      this.node.setAttribute('data-hl-state', 'ready');
      this._setStatus(this._info || 'Generated source of the cached op: click a line to select its node', 'info');
      this.rendered = source.ready;
      return this.rendered;
    }
    this._shown = choice.graph || null;
    return this._draw();
  }

  private _draw(): Promise<void> {
    const token = ++this._token;
    const graph = this._shown;
    if (!graph) {
      this._area.textContent = '';
      this._drawn = null;
      this._pz?.dispose();
      this._pz = null;
      this._enableGraphControls(false);
      this.node.setAttribute('data-hl-state', 'empty');
      this._setStatus(this._info || 'No graph yet.', 'info');
      this.rendered = Promise.resolve();
      return this.rendered;
    }
    this.node.setAttribute('data-hl-state', 'layout');
    this._setStatus(`Laying out ${graph.nodes.length} nodes…`, 'info');
    const visible = visibleGraph(graph, this._collapsed);
    const started = typeof performance !== 'undefined' ? performance.now() : Date.now();
    const dot = toDot(visible, this._direction);
    this.rendered = this._layoutOf(dot).then(
      layout => {
        if (token !== this._token) {
          return;
        }
        this._pz?.dispose();
        const drawn = this._drawingOf(dot, graph, () =>
          renderGraph(visible, layout, {
            onNode: v => {
              this.showDetails(true);
              this.select(v.node ? v.node.name : null);
              if (v.node) {
                this._onNodeClick?.(v.node.name);
              }
            },
            onToggle: path => void this.toggle(path),
            onSeries: key => void this.toggleSeries(key)
          }, this._marks)
        );
        const map = minimap(drawn, (x, y) => this._centreOn(x, y));
        this._area.textContent = '';
        this._area.append(drawn.svg, this._hint, map.node);
        this._visible = visible;
        this._drawn = drawn;
        this._enableGraphControls(true);
        this._pz = panZoom(drawn.svg, drawn.viewport, {
          width: drawn.width,
          height: drawn.height,
          onPlainWheel: () => this._flashHint(),
          onChange: t => (this._userView = { t, height: this._areaHeight() }),
          onApply: t => map.update(t, this._area.clientWidth, this._areaHeight())
        });
        if (this._userView) {
          drawn.svg.style.height = `${this._userView.height}px`;
          this._pz.set(this._userView.t);
        } else {
          this._initialView();
        }
        this._areaWidth = this._area.clientWidth;
        const pass = this._pass;
        if (pass) {
          const marked = new Set([...pass.diff.added, ...pass.diff.changed]);
          drawn.nodes.forEach((el, name) => el.classList.toggle('hl-pass-changed', marked.has(name)));
        }
        const ms = (typeof performance !== 'undefined' ? performance.now() : Date.now()) - started;
        this.node.setAttribute('data-hl-render-ms', ms.toFixed(1));
        this.node.setAttribute('data-hl-state', 'ready');
        // a folded series hides each of its Blocks
        const hidden = visible.nodes.reduce((c, v) => c + (v.kind !== 'group' ? 0 : v.series ? v.series.members.length : 1), 0);
        const summary =
          (pass ? passDescription(pass.name, pass.diff) : `${graph.nodes.length} nodes`) +
          (hidden ? `, ${hidden} Block scope${hidden === 1 ? '' : 's'} collapsed` : '');
        this._setStatus(this._info ? `${this._info} · ${summary}` : summary, 'info');
        this.select(this._selected && nodesByName(graph).has(this._selected) ? this._selected : null);
        const marked = this._groupsHolding(n => markOf(this._marks, n.name) !== null);
        drawn.groups.forEach((el, key) => el.classList.toggle('hl-has-marks', marked.has(key)));
        this._applySearch();
        this._applyTrace();
        this._applyColour();
      },
      err => {
        if (token !== this._token) {
          return;
        }
        this.node.setAttribute('data-hl-state', 'error');
        this._setStatus(`Graph layout failed: ${err && err.message ? err.message : String(err)}`, 'error');
      }
    );
    return this.rendered;
  }

  private _matches(node: IGraphNode, q: string): boolean {
    return node.name.toLowerCase().includes(q) || node.op.toLowerCase().includes(q);
  }

  private _applySearch(): void {
    const q = this._search.value.trim().toLowerCase();
    const drawn = this._drawn;
    const graph = this._shown;
    if (!drawn || !graph || !this._visible) {
      return;
    }
    drawn.svg.classList.toggle('hl-searching', q.length > 0);
    const byName = nodesByName(graph);
    drawn.nodes.forEach((el, name) => {
      const n = byName.get(name);
      el.classList.toggle('hl-match', q.length > 0 && !!n && this._matches(n, q));
    });
    const hiddenMatches = q ? this._groupsHolding(n => this._matches(n, q)) : new Set<string>();
    drawn.groups.forEach((el, key) => el.classList.toggle('hl-match', hiddenMatches.has(key)));
    this._updateMatchCount();
  }

  /** The keys of the collapsed groups (and folded series) that hide a node for which `pred` holds. */
  private _groupsHolding(pred: (n: IGraphNode) => boolean): Set<string> {
    const out = new Set<string>();
    const visible = this._visible;
    if (!this._drawn || !this._shown || !visible) {
      return out;
    }
    this._shown.nodes.forEach((n, i) => {
      const key = visible.boxOf[i];
      if (visible.byKey.get(key)?.kind === 'group' && pred(n)) {
        out.add(key);
      }
    });
    return out;
  }

  private _collapseAll(): void {
    const graph = this._shown;
    if (!graph) {
      return;
    }
    const tree = scopeTree(graph);
    const boxes = tree.scopes.filter(p => !tree.wrappers.has(scopeKey(p)));
    const tops = boxes.filter(p => tree.depth(p) === 1);
    // keep the outermost Block open when there is a single one: its children fold inside it
    const all = new Set(boxes.filter(p => tops.length > 1 || tree.depth(p) > 1).map(scopeKey));
    seriesOf(graph).series.forEach(s => all.add(s.key));
    void this.setCollapsed(all);
  }
}
