/**
 * Draw a laid-out visible graph as SVG, built element by element. Every model string goes
 * into the DOM through `textContent` or `setAttribute`, never through HTML parsing, so a node
 * named `<img src=x onerror=alert(1)>` shows as that text.
 *
 * DOM contract (ARCHITECTURE.md 6): each drawn graph node carries `data-hl-node="<name>"`;
 * a collapsed Block scope carries `data-hl-group="<scope path joined by />"` instead. A node a
 * debugging tool marked (`MarkMap`) also carries class `hl-marked hl-mark-<level>`,
 * `data-hl-mark="<level>"`, a badge (`.hl-mark-badge`), `hl-first` for the node to look at first,
 * and `data-hl-heat` with its fill from `errorHeat`.
 */
import { opSummary, shortName } from './labels';
import { familyOf, ICluster, IVisibleGraph, IVisibleNode, nodeCount } from './model';
import { ILayout } from './layout';
import { IGuard, INodeMark, MarkMap } from '../tokens';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Create an SVG element with attributes (values are set as attributes, never parsed). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: { [key: string]: string | number } = {},
  parent?: Element
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const k of Object.keys(attrs)) {
    el.setAttribute(k, String(attrs[k]));
  }
  if (parent) {
    parent.appendChild(el);
  }
  return el;
}

/** `text` cut to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, Math.max(1, max - 1)) + '…';
}

function textEl(parent: Element, x: number, y: number, text: string, cls: string): SVGTextElement {
  const t = svg('text', { x, y, class: cls, 'text-anchor': 'middle' }, parent);
  t.textContent = text;
  return t;
}

/** One line for a shape guard: what was read, where, and which attributes hold it. */
export function guardText(g: IGuard): string {
  const where = g.source ? ` at ${g.source.file.split('/').pop()}:${g.source.line}` : '';
  return `${g.array}.${g.what} = ${g.value} read${where} is baked into ${g.attrs.join(', ')}: a call that changes it traces again`;
}

/** The mark levels drawn with their own colour; any other level draws as `info`. */
export const MARK_LEVELS = ['error', 'warn', 'info', 'ok', 'added', 'removed', 'changed'];

/** The level of `mark` as drawn (a known level, never model text in a class name). */
export function markLevel(mark: INodeMark): string {
  return MARK_LEVELS.includes(mark.level) ? mark.level : 'info';
}

/** The fill for error heat `t` in 0..1: pale yellow (small) to deep red (the largest). */
export function errorHeat(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const r = Math.round(255 - 55 * x);
  const g = Math.round(245 - 205 * x);
  const b = Math.round(200 - 170 * x);
  return `rgb(${r},${g},${b})`;
}

/** `marks[name]` when `marks` has that own key (a node named `__proto__` is just a name). */
export function markOf(marks: MarkMap, name: string): INodeMark | null {
  return Object.prototype.hasOwnProperty.call(marks, name) ? marks[name] : null;
}

export interface IRenderHandlers {
  /** A graph node's box was clicked. */
  onNode?: (v: IVisibleNode, el: SVGGElement) => void;
  /** A cluster label or a collapsed group was clicked: toggle that scope. */
  onToggle?: (path: string[]) => void;
  /** A series box or an open series' label was clicked: fold or open that series (its key). */
  onSeries?: (key: string) => void;
}

export interface IRendered {
  /** The SVG (width 100% of its container; the canvas sets its height). */
  svg: SVGSVGElement;
  /** The size of the drawing in layout units (px at 100% zoom), padding included. */
  width: number;
  height: number;
  /** The group that pan and zoom transform. */
  viewport: SVGGElement;
  /** The drawing inside it (with a document-unique id: the minimap shows it with `<use>`). */
  content: SVGGElement;
  /** Drawn graph nodes by node name. */
  nodes: Map<string, SVGGElement>;
  /** Drawn collapsed groups by visible key. */
  groups: Map<string, SVGGElement>;
  /** The centre of each drawn graph node (by name) in drawing units, padding included. */
  centers: Map<string, [number, number]>;
  /** The drawn edges, between visible keys (`IVisibleNode.key`). */
  edges: IDrawnEdge[];
}

/** One drawn edge: from and to visible keys, and its `<g class="hl-edge">`. */
export interface IDrawnEdge {
  from: string;
  to: string;
  el: SVGGElement;
}

function clusterList(c: ICluster, out: ICluster[]): ICluster[] {
  for (const child of c.children) {
    out.push(child);
    clusterList(child, out);
  }
  return out;
}

function splinePath(points: [number, number][]): string {
  if (points.length === 0) {
    return '';
  }
  let d = `M${points[0][0]},${points[0][1]}`;
  for (let i = 1; i + 2 < points.length; i += 3) {
    d += ` C${points[i][0]},${points[i][1]} ${points[i + 1][0]},${points[i + 1][1]} ${points[i + 2][0]},${points[i + 2][1]}`;
  }
  return d;
}

function arrowHead(from: [number, number], tip: [number, number]): string {
  const dx = tip[0] - from[0];
  const dy = tip[1] - from[1];
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len;
  const uy = dy / len;
  const w = 3;
  const bx = tip[0] - ux * 7;
  const by = tip[1] - uy * 7;
  return `${tip[0]},${tip[1]} ${bx - uy * w},${by + ux * w} ${bx + uy * w},${by - ux * w}`;
}

/**
 * Make a drawn node reachable by the keyboard (the canvas's n/N focus it, Enter opens it) and
 * named for screen readers; `tabindex -1` keeps a 2000-node graph out of the Tab order.
 */
function focusable(ng: SVGGElement, label: string): void {
  ng.setAttribute('tabindex', '-1');
  ng.setAttribute('role', 'button');
  ng.setAttribute('aria-label', label);
}

/** Draw `mark` on the node group `ng` (box `width`): classes, fill, badge and tooltip line. */
function drawMark(ng: SVGGElement, mark: INodeMark, width: number, title: SVGTitleElement): void {
  const level = markLevel(mark);
  ng.classList.add('hl-marked', `hl-mark-${level}`);
  ng.setAttribute('data-hl-mark', level);
  if (mark.first) {
    ng.classList.add('hl-first');
  }
  if (typeof mark.heat === 'number' && Number.isFinite(mark.heat)) {
    ng.setAttribute('data-hl-heat', mark.heat.toFixed(3));
    const shape = ng.querySelector('rect, ellipse') as SVGElement | null;
    if (shape) {
      shape.style.fill = errorHeat(mark.heat);
    }
  }
  if (mark.badge !== false) {
    const x = width - (ng.classList.contains('hl-guarded') ? 16 : 2);
    const badge = svg('g', { class: 'hl-mark-badge', transform: `translate(${x},2)` }, ng);
    svg('circle', { r: 6 }, badge);
    textEl(badge, 0, 3, mark.first ? '1' : level === 'ok' ? '✓' : '!', 'hl-badge-mark');
  }
  if (mark.label) {
    title.textContent += '\n' + mark.label;
  }
}

/**
 * Draw `g` laid out as `layout`; returns the SVG and the drawn elements. `marks` (by node name)
 * are drawn on their nodes.
 */
/** Numbers the drawings, for the id the minimap's `<use>` refers to. */
let drawings = 0;

export function renderGraph(g: IVisibleGraph, layout: ILayout, handlers: IRenderHandlers = {}, marks: MarkMap = {}): IRendered {
  const pad = 8;
  const width = layout.width + 2 * pad;
  const height = layout.height + 2 * pad;
  const root = svg('svg', {
    class: 'hl-graph-svg',
    width: '100%',
    height,
    'data-hl-width': width,
    'data-hl-height': height
  });
  // pan and zoom transform `viewport`; `content` puts the layout's origin inside the padding
  const viewport = svg('g', { class: 'hl-viewport' }, root);
  const content = svg('g', { transform: `translate(${pad},${pad})`, id: `hl-drawing-${++drawings}` }, viewport);

  const clusterLayer = svg('g', { class: 'hl-clusters' }, content);
  for (const c of clusterList(g.root, [])) {
    const box = layout.clusters.get(c.key);
    if (!box) {
      continue;
    }
    const series = c.series;
    const cg = svg('g', series ? { class: 'hl-cluster hl-series', 'data-hl-series': series.members[0].join('/') } : { class: 'hl-cluster', 'data-hl-scope': c.path.join('/') }, clusterLayer);
    svg('rect', { x: box.x, y: box.y, width: box.width, height: box.height, rx: 6 }, cg);
    const lx = box.labelPos ? box.labelPos[0] : box.x + box.width / 2;
    const ly = box.labelPos ? box.labelPos[1] + 4 : box.y + 14;
    const label = textEl(cg, lx, ly, '▾ ' + truncate(c.label || c.path[c.path.length - 1], 48), 'hl-cluster-label');
    const title = svg('title', {}, label);
    title.textContent = series
      ? `${series.members.length} identical Blocks in a row: ${series.members.map(m => m.join('/')).join(', ')} (click to fold into one box)`
      : `${c.path.join('/')} (click to collapse)`;
    label.addEventListener('click', ev => {
      ev.stopPropagation();
      if (series) {
        handlers.onSeries?.(series.key);
      } else {
        handlers.onToggle?.(c.path);
      }
    });
  }

  const edgeLayer = svg('g', { class: 'hl-edges' }, content);
  const edgeLabels = new Map(g.edges.map(x => [`${x.from}>${x.to}`, x.label] as [string, string]));
  const edges: IDrawnEdge[] = [];
  for (const e of layout.edges) {
    const eg = svg('g', { class: 'hl-edge' }, edgeLayer);
    edges.push({ from: e.tail, to: e.head, el: eg });
    svg('path', { d: splinePath(e.points) }, eg);
    if (e.arrow && e.points.length) {
      svg('polygon', { points: arrowHead(e.points[e.points.length - 1], e.arrow) }, eg);
    }
    const label = edgeLabels.get(`${e.tail}>${e.head}`);
    if (e.labelPos && label !== undefined) {
      const t = textEl(eg, e.labelPos[0], e.labelPos[1] + 3, label, 'hl-edge-label');
      t.setAttribute('text-anchor', 'middle');
    }
  }

  const nodeLayer = svg('g', { class: 'hl-nodes' }, content);
  const nodes = new Map<string, SVGGElement>();
  const groups = new Map<string, SVGGElement>();
  const centers = new Map<string, [number, number]>();
  for (const v of g.nodes) {
    const box = layout.nodes.get(v.key);
    if (!box) {
      continue;
    }
    const x = box.x - box.width / 2;
    const y = box.y - box.height / 2;
    const ng = svg('g', { transform: `translate(${x},${y})` }, nodeLayer);
    const title = svg('title', {}, ng);
    if (v.kind === 'group' && v.series) {
      const series = v.series;
      const k = series.members.length;
      ng.setAttribute('class', 'hl-group hl-series');
      ng.setAttribute('data-hl-group', series.members[0].join('/'));
      ng.setAttribute('data-hl-series', series.members[0].join('/'));
      svg('rect', { width: box.width, height: box.height, rx: 4 }, ng);
      textEl(ng, box.width / 2, box.height / 2 - 2, `▸ ${k}× ` + truncate(v.label || '', 24), 'hl-node-name');
      textEl(ng, box.width / 2, box.height / 2 + 11, `${k} identical Blocks · ${nodeCount(series.count)}`, 'hl-node-op');
      title.textContent = `${k} identical Blocks in a row: ${series.members.map(m => m.join('/')).join(', ')} (click to open)`;
      focusable(ng, `Series of ${k} identical Blocks ${v.label || ''}, ${nodeCount(series.count)}`);
      ng.addEventListener('click', ev => {
        ev.stopPropagation();
        handlers.onSeries?.(series.key);
      });
      groups.set(v.key, ng);
      continue;
    }
    if (v.kind === 'group') {
      const path = v.path || [];
      ng.setAttribute('class', 'hl-group');
      ng.setAttribute('data-hl-group', path.join('/'));
      svg('rect', { width: box.width, height: box.height, rx: 4 }, ng);
      textEl(ng, box.width / 2, box.height / 2 - 2, '▸ ' + truncate(v.label || path[path.length - 1] || '', 28), 'hl-node-name');
      textEl(ng, box.width / 2, box.height / 2 + 11, nodeCount(v.count || 0), 'hl-node-op');
      title.textContent = `${path.join('/')}: ${nodeCount(v.count || 0)} (click to expand)`;
      focusable(ng, `Collapsed Block ${path.join('/')}, ${nodeCount(v.count || 0)}`);
      ng.addEventListener('click', ev => {
        ev.stopPropagation();
        handlers.onToggle?.(path);
      });
      groups.set(v.key, ng);
      continue;
    }
    const n = v.node!;
    ng.setAttribute('class', `hl-node hl-family-${familyOf(n)}` + (n.op === 'null' ? ' hl-variable' : ''));
    ng.setAttribute('data-hl-node', n.name);
    if (n.op === 'null') {
      svg('ellipse', { cx: box.width / 2, cy: box.height / 2, rx: box.width / 2, ry: box.height / 2 }, ng);
      textEl(ng, box.width / 2, box.height / 2 + 4, truncate(shortName(n), 22), 'hl-node-name');
    } else {
      svg('rect', { width: box.width, height: box.height, rx: 4 }, ng);
      textEl(ng, box.width / 2, box.height / 2 - 3, truncate(opSummary(n), 24), 'hl-node-op');
      textEl(ng, box.width / 2, box.height / 2 + 10, truncate(shortName(n), 26), 'hl-node-name');
    }
    title.textContent = `${n.name} (${n.op === 'null' ? 'variable' : n.op})`;
    const guards = n.guards || [];
    if (guards.length) {
      // a number of this call is baked in: a badge in the corner, the read in the tooltip
      ng.setAttribute('class', ng.getAttribute('class') + ' hl-guarded');
      ng.setAttribute('data-hl-guard', guards.map(g => `${g.array}.${g.what}`).join(' '));
      const badge = svg('g', { class: 'hl-badge', transform: `translate(${box.width - 2},2)` }, ng);
      svg('circle', { r: 6 }, badge);
      textEl(badge, 0, 3, '!', 'hl-badge-mark');
      title.textContent += '\n' + guards.map(guardText).join('\n');
    }
    const mark = markOf(marks, n.name);
    if (mark) {
      drawMark(ng, mark, box.width, title);
    }
    focusable(ng, `${n.op === 'null' ? 'Variable' : n.op} ${n.name}`);
    centers.set(n.name, [box.x + pad, box.y + pad]);
    ng.addEventListener('click', ev => {
      ev.stopPropagation();
      handlers.onNode?.(v, ng);
    });
    nodes.set(n.name, ng);
  }
  return { svg: root, width, height, viewport, content, nodes, groups, centers, edges };
}
