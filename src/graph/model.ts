/**
 * The visible graph: which nodes and Block-scope clusters are drawn, given the set of
 * collapsed scopes. Pure data, no DOM, so jest tests it directly.
 *
 * Op nodes sit in the cluster of their `scope`. Parameters and auxiliary states have an empty
 * scope in the contract; they are placed in the scope of their first consumer so that a
 * collapsed Block hides its own weights. Graph inputs stay at the top level.
 */
import { IGraphJSON, IGraphNode } from '../tokens';

/** A drawn box: one graph node, or one collapsed Block scope standing for many nodes. */
export interface IVisibleNode {
  /** The Graphviz id (`n<id>` or `g<k>`); never model text. */
  key: string;
  kind: 'node' | 'group';
  /** The graph node (kind `node`). */
  node?: IGraphNode;
  /** The scope path (kind `group`): the collapsed cluster this box stands for. */
  path?: string[];
  /** How many graph nodes a group hides. */
  count?: number;
  /** Scope path of the cluster the box is drawn in. */
  parent: string[];
}

/** A drawn edge between two boxes, labelled with the shape it carries. */
export interface IVisibleEdge {
  from: string;
  to: string;
  label: string;
}

/** An expanded Block scope, drawn as a Graphviz cluster. */
export interface ICluster {
  key: string;
  path: string[];
  children: ICluster[];
  nodes: string[];
}

export interface IVisibleGraph {
  nodes: IVisibleNode[];
  edges: IVisibleEdge[];
  /** The top level (path `[]`): its `nodes` are drawn outside any cluster. */
  root: ICluster;
  byKey: Map<string, IVisibleNode>;
}

/** A stable string key for a scope path (model text, used only as a map key). */
export function scopeKey(path: string[]): string {
  return JSON.stringify(path);
}

/** Known families; anything else is drawn as `other`. */
export const FAMILIES = [
  'variable', 'elemwise', 'broadcast', 'reduce', 'shape', 'index', 'linalg', 'nn', 'conv',
  'pool', 'norm', 'rnn', 'random', 'creation', 'loss', 'internal'
];

/** The CSS-safe family name of a node: one of `FAMILIES` or `other`. */
export function familyOf(node: IGraphNode): string {
  const f = node.op === 'null' ? 'variable' : String(node.family);
  return FAMILIES.indexOf(f) >= 0 ? f : 'other';
}

/** `"1×4"` for a shape, `"?"` when unknown (a `0` dim is shown as `?`). */
export function formatShape(shape: number[] | null | undefined): string {
  if (!shape) {
    return '?';
  }
  if (shape.length === 0) {
    return 'scalar';
  }
  return shape.map(d => (d === 0 ? '?' : String(d))).join('×');
}

/** The scope each node is drawn in (see the module comment). */
export function placement(graph: IGraphJSON): string[][] {
  const place: string[][] = graph.nodes.map(n => (n.op === 'null' ? [] : (n.scope || []).slice()));
  const consumer: (number | undefined)[] = graph.nodes.map(() => undefined);
  for (const n of graph.nodes) {
    for (const [src] of n.inputs || []) {
      if (consumer[src] === undefined) {
        consumer[src] = n.id;
      }
    }
  }
  graph.nodes.forEach((n, i) => {
    if (n.op === 'null' && (n.is_param || n.is_aux) && consumer[i] !== undefined) {
      place[i] = place[consumer[i] as number].slice();
    }
  });
  return place;
}

/** Every scope path that has at least one node under it (prefixes included), in first-seen order. */
export function allScopes(graph: IGraphJSON): string[][] {
  const seen = new Map<string, string[]>();
  for (const path of placement(graph)) {
    for (let d = 1; d <= path.length; d++) {
      const p = path.slice(0, d);
      const k = scopeKey(p);
      if (!seen.has(k)) {
        seen.set(k, p);
      }
    }
  }
  return Array.from(seen.values());
}

/**
 * The scopes collapsed by default: none for a small graph; for a graph with more than
 * `threshold` nodes, every scope below the outermost level (the top Block stays open,
 * its children are collapsed).
 */
export function defaultCollapsed(graph: IGraphJSON, threshold = 150): Set<string> {
  const out = new Set<string>();
  if (graph.nodes.length <= threshold) {
    return out;
  }
  const scopes = allScopes(graph);
  const minDepth = Math.min(...scopes.map(p => p.length));
  for (const p of scopes) {
    if (p.length === minDepth + 1 || (minDepth > 1 && p.length === minDepth && scopes.length > 1)) {
      out.add(scopeKey(p));
    }
  }
  if (out.size === 0) {
    scopes.forEach(p => out.add(scopeKey(p)));
  }
  return out;
}

/** Build the visible graph for `graph` with the scopes in `collapsed` (keys of `scopeKey`) folded. */
export function visibleGraph(graph: IGraphJSON, collapsed: Set<string> = new Set()): IVisibleGraph {
  const place = placement(graph);
  const root: ICluster = { key: 'cluster_root', path: [], children: [], nodes: [] };
  const clusters = new Map<string, ICluster>([[scopeKey([]), root]]);
  let clusterCount = 0;
  const clusterFor = (path: string[]): ICluster => {
    const k = scopeKey(path);
    let c = clusters.get(k);
    if (!c) {
      const parent = clusterFor(path.slice(0, -1));
      c = { key: `cluster_${clusterCount++}`, path: path.slice(), children: [], nodes: [] };
      parent.children.push(c);
      clusters.set(k, c);
    }
    return c;
  };

  const nodes: IVisibleNode[] = [];
  const byKey = new Map<string, IVisibleNode>();
  const groups = new Map<string, IVisibleNode>();
  const rep: string[] = [];
  graph.nodes.forEach((n, i) => {
    const path = place[i];
    let fold = -1;
    for (let d = 1; d <= path.length; d++) {
      if (collapsed.has(scopeKey(path.slice(0, d)))) {
        fold = d;
        break;
      }
    }
    if (fold < 0) {
      const v: IVisibleNode = { key: `n${i}`, kind: 'node', node: n, parent: path };
      clusterFor(path).nodes.push(v.key);
      nodes.push(v);
      byKey.set(v.key, v);
      rep.push(v.key);
      return;
    }
    const gpath = path.slice(0, fold);
    const gk = scopeKey(gpath);
    let g = groups.get(gk);
    if (!g) {
      g = { key: `g${groups.size}`, kind: 'group', path: gpath, count: 0, parent: gpath.slice(0, -1) };
      groups.set(gk, g);
      clusterFor(g.parent).nodes.push(g.key);
      nodes.push(g);
      byKey.set(g.key, g);
    }
    g.count = (g.count || 0) + 1;
    rep.push(g.key);
  });

  const edges: IVisibleEdge[] = [];
  const seenEdges = new Set<string>();
  graph.nodes.forEach((n, i) => {
    for (const [src, out] of n.inputs || []) {
      const from = rep[src];
      const to = rep[i];
      if (from === undefined || from === to) {
        continue;
      }
      const o = graph.nodes[src] && graph.nodes[src].outputs ? graph.nodes[src].outputs[out] : undefined;
      const label = formatShape(o ? o.shape : null);
      const k = `${from}>${to}>${label}`;
      if (seenEdges.has(k)) {
        continue;
      }
      seenEdges.add(k);
      edges.push({ from, to, label });
    }
  });
  return { nodes, edges, root, byKey };
}
