/**
 * Layout with Graphviz (`@viz-js/viz`, WASM), loaded on first use through a dynamic import so
 * it becomes a lazy chunk. `parseLayout` turns Graphviz's `json` output into screen
 * coordinates (points, y downwards).
 */

/** A laid-out box: centre and size, in points. */
export interface IBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A laid-out edge: cubic B-spline points (start, then groups of 3), the arrow tip, the label position. */
export interface IEdgeLayout {
  tail: string;
  head: string;
  points: [number, number][];
  arrow: [number, number] | null;
  labelPos: [number, number] | null;
}

/** A cluster's bounding box and label position. */
export interface IClusterLayout {
  x: number;
  y: number;
  width: number;
  height: number;
  labelPos: [number, number] | null;
}

export interface ILayout {
  width: number;
  height: number;
  nodes: Map<string, IBox>;
  clusters: Map<string, IClusterLayout>;
  edges: IEdgeLayout[];
}

/* Graphviz's JSON output, only the parts read here. */
interface IGvObject {
  _gvid: number;
  name: string;
  pos?: string;
  width?: string;
  height?: string;
  bb?: string;
  lp?: string;
  nodes?: number[];
}

interface IGvEdge {
  tail: number;
  head: number;
  pos?: string;
  lp?: string;
}

export interface IGvJSON {
  bb: string;
  objects?: IGvObject[];
  edges?: IGvEdge[];
}

function nums(text: string): number[] {
  return text.split(',').map(Number);
}

/** Convert Graphviz `json` output (y upwards) to an `ILayout` (y downwards). */
export function parseLayout(gv: IGvJSON): ILayout {
  const [x0, y0, x1, y1] = nums(gv.bb);
  const height = y1 - y0;
  const fy = (y: number): number => y1 - y;
  const fx = (x: number): number => x - x0;
  const point = (p: string): [number, number] => {
    const [x, y] = nums(p);
    return [fx(x), fy(y)];
  };
  const nodes = new Map<string, IBox>();
  const clusters = new Map<string, IClusterLayout>();
  const names = new Map<number, string>();
  for (const o of gv.objects || []) {
    names.set(o._gvid, o.name);
    if (o.bb !== undefined && o.name.startsWith('cluster')) {
      const [a, b, c, d] = nums(o.bb);
      clusters.set(o.name, {
        x: fx(a),
        y: fy(d),
        width: c - a,
        height: d - b,
        labelPos: o.lp ? point(o.lp) : null
      });
    } else if (o.pos !== undefined) {
      const [x, y] = point(o.pos);
      nodes.set(o.name, {
        x,
        y,
        width: Number(o.width) * 72,
        height: Number(o.height) * 72
      });
    }
  }
  const edges: IEdgeLayout[] = [];
  for (const e of gv.edges || []) {
    const points: [number, number][] = [];
    let arrow: [number, number] | null = null;
    for (const tok of (e.pos || '').split(/\s+/).filter(Boolean)) {
      if (tok.startsWith('e,')) {
        arrow = point(tok.slice(2));
      } else if (tok.startsWith('s,')) {
        continue;
      } else {
        points.push(point(tok));
      }
    }
    edges.push({
      tail: names.get(e.tail) || '',
      head: names.get(e.head) || '',
      points,
      arrow,
      labelPos: e.lp ? point(e.lp) : null
    });
  }
  return { width: x1 - x0, height, nodes, clusters, edges };
}

type VizInstance = { renderJSON(src: string): unknown };
let vizPromise: Promise<VizInstance> | null = null;

/** The Graphviz instance, created once (the WASM module is compiled on first use). */
export function viz(): Promise<VizInstance> {
  if (!vizPromise) {
    vizPromise = import('@viz-js/viz').then(m => m.instance() as Promise<VizInstance>);
    vizPromise.catch(() => {
      vizPromise = null;
    });
  }
  return vizPromise;
}

/** Lay out DOT text with Graphviz `dot`. */
export async function layoutDot(dot: string): Promise<ILayout> {
  const instance = await viz();
  const gv = instance.renderJSON(dot) as IGvJSON;
  return parseLayout(gv);
}
