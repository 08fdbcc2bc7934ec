/**
 * The visible graph: which nodes and Block-scope clusters are drawn, given the set of
 * collapsed scopes. Pure data, no DOM, so jest tests it directly.
 *
 * Op nodes sit in the cluster of their `scope`. Parameters and auxiliary states have an empty
 * scope in the contract; they are placed in the scope of their first consumer so that a
 * collapsed Block hides its own weights. Graph inputs stay at the top level, unless they carry a
 * scope (the backward graph's saved forward values sit with the Block that saved them).
 */
import { IGraphJSON, IGraphNode } from '../tokens';
import { findSeries, ISeries, ISeriesIndex } from './series';

export type { ISeries } from './series';

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
  /** The label of a group: its scope name, or its wrapper chain's names (`scopeTree`). */
  label?: string;
  /** Scope path of the cluster the box is drawn in. */
  parent: string[];
  /** A folded series (kind `group`): the series the box stands for (`path` is its first member). */
  series?: ISeries;
}

/** `"1 node"`, `"5 nodes"`. */
export function nodeCount(n: number): string {
  return `${n} node${n === 1 ? '' : 's'}`;
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
  /** The cluster's label: its scope name, or its wrapper chain's names (`scopeTree`). */
  label: string;
  /** An open series: the cluster drawn around its members (`path` is its parent Block's). */
  series?: ISeries;
}

export interface IVisibleGraph {
  nodes: IVisibleNode[];
  edges: IVisibleEdge[];
  /** The top level (path `[]`): its `nodes` are drawn outside any cluster. */
  root: ICluster;
  byKey: Map<string, IVisibleNode>;
  /** For each graph node (by index), the key of the box that shows it (itself or a group). */
  boxOf: string[];
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

/**
 * Memoized per graph object: a graph JSON is never changed after it arrives (an update is a new
 * object), and every redraw, search and click asks again (a 2000-node backward graph).
 */
function memo<T>(compute: (g: IGraphJSON) => T): (g: IGraphJSON) => T {
  const cache = new WeakMap<IGraphJSON, T>();
  return g => {
    let v = cache.get(g);
    if (v === undefined) {
      v = compute(g);
      cache.set(g, v);
    }
    return v;
  };
}

/** The graph's nodes by name (built once per graph; do not modify the result). */
export const nodesByName = memo(g => new Map(g.nodes.map(n => [n.name, n] as [string, IGraphNode])));

/** The scope each node is drawn in (see the module comment); do not modify the result. */
export const placement = memo(computePlacement);

function computePlacement(graph: IGraphJSON): string[][] {
  // a variable is drawn at the top level unless it has a scope of its own (the backward graph's
  // saved forward values) or is a parameter (then in its first consumer's scope, below)
  const place: string[][] = graph.nodes.map(n => (n.scope || []).slice());
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
 * The Block-scope tree of a graph, with single-child wrapper levels merged.
 *
 * A *wrapper* is a scope with no node placed directly in it and exactly one child scope (e.g.
 * `stage1` holding only `resnetv10_stage1`): drawing it as its own nested box adds a level that
 * says nothing. Such a chain is drawn as one box, the *canonical* scope (the deepest scope of the
 * chain), labelled with the names of the whole chain (`stage1 / resnetv10_stage1`); collapsing or
 * expanding any scope of the chain collapses or expands that box.
 */
export interface IScopeTree {
  /** Every scope path with a node under it, in first-seen order. */
  scopes: string[][];
  /** Keys (`scopeKey`) of the wrapper scopes. */
  wrappers: Set<string>;
  /** Scope key -> the canonical scope path its box stands for (itself when not a wrapper). */
  canonical(path: string[]): string[];
  /** The label of a canonical scope: the names of its wrapper chain, repeats dropped. */
  label(path: string[]): string;
  /** The keys of `path`'s chain: `path` and the wrappers above it that merge into it. */
  chain(path: string[]): string[];
  /** The canonical scope a canonical scope is drawn in (`[]`: the top level). */
  parentOf(path: string[]): string[];
  /** How many canonical scopes enclose `path`, itself included (1: a top-level Block). */
  depth(path: string[]): number;
}

/** The `IScopeTree` of `graph` (placement as in `placement`), built once per graph. */
export const scopeTree = memo(computeScopeTree);

function computeScopeTree(graph: IGraphJSON): IScopeTree {
  const place = placement(graph);
  const direct = new Map<string, number>();
  const children = new Map<string, Set<string>>();
  for (const path of place) {
    const k = scopeKey(path);
    direct.set(k, (direct.get(k) || 0) + 1);
    for (let d = 1; d <= path.length; d++) {
      const parent = scopeKey(path.slice(0, d - 1));
      if (!children.has(parent)) {
        children.set(parent, new Set());
      }
      children.get(parent)!.add(scopeKey(path.slice(0, d)));
    }
  }
  const scopes = allScopes(graph);
  const wrappers = new Set<string>();
  for (const p of scopes) {
    const k = scopeKey(p);
    if (!direct.get(k) && (children.get(k)?.size || 0) === 1) {
      wrappers.add(k);
    }
  }
  const isWrapper = (p: string[]): boolean => p.length > 0 && wrappers.has(scopeKey(p));
  const canonical = (path: string[]): string[] => {
    let p = path.slice();
    while (isWrapper(p)) {
      const only = Array.from(children.get(scopeKey(p)) || [])[0];
      p = JSON.parse(only) as string[];
    }
    return p;
  };
  const top = (path: string[]): number => {
    // the length of the first path of `path`'s chain: walk up while the parent is a wrapper
    let d = path.length;
    while (d > 1 && isWrapper(path.slice(0, d - 1))) {
      d--;
    }
    return d;
  };
  const label = (path: string[]): string => {
    const names: string[] = [];
    for (const n of path.slice(top(path) - 1)) {
      if (names[names.length - 1] !== n) {
        names.push(n);
      }
    }
    return names.join(' / ');
  };
  const chain = (path: string[]): string[] => {
    const out: string[] = [];
    for (let d = top(path); d <= path.length; d++) {
      out.push(scopeKey(path.slice(0, d)));
    }
    return out;
  };
  const parentOf = (path: string[]): string[] => (path.length ? path.slice(0, top(path) - 1) : []);
  const depth = (path: string[]): number => {
    let n = 0;
    for (let p = path; p.length; p = parentOf(p)) {
      n++;
    }
    return n;
  };
  return { scopes, wrappers, canonical, label, chain, parentOf, depth };
}

/** The series of identical Blocks of `graph` (`series.ts`), found once per graph. */
export const seriesOf = memo((g: IGraphJSON): ISeriesIndex => findSeries(g, placement(g), scopeTree(g)));

/**
 * The collapsed-set keys that hide graph node `index`: the scope keys of the Blocks around it
 * and the keys of the series those are members of. Deleting them all shows the node.
 */
export function foldKeysAround(graph: IGraphJSON, index: number): string[] {
  const path = placement(graph)[index] || [];
  const series = seriesOf(graph).byMember;
  const out: string[] = [];
  for (let d = 1; d <= path.length; d++) {
    const k = scopeKey(path.slice(0, d));
    out.push(k);
    const s = series.get(k);
    if (s) {
      out.push(s.key);
    }
  }
  return out;
}

/** How many boxes the first view of a big graph aims at (nodes and collapsed Blocks). */
export const VISIBLE_BUDGET = 80;

/**
 * The scopes to collapse to show `graph` open to `depth` Block levels: every Block box `depth + 1`
 * levels deep (wrapper levels of `scopeTree` do not count). `depth` 0 collapses the top Blocks.
 */
export function collapsedAtDepth(graph: IGraphJSON, depth: number, tree: IScopeTree = scopeTree(graph)): Set<string> {
  const out = new Set<string>();
  for (const p of tree.scopes) {
    if (!tree.wrappers.has(scopeKey(p)) && tree.depth(p) === depth + 1) {
      out.add(scopeKey(p));
    }
  }
  // a series of the collapsed Blocks folds into one box too
  for (const s of seriesOf(graph).series) {
    if (out.has(scopeKey(s.members[0]))) {
      out.add(s.key);
    }
  }
  return out;
}

/** The deepest Block level of `graph` (0: no Block scopes). */
export function maxDepth(graph: IGraphJSON, tree: IScopeTree = scopeTree(graph)): number {
  return tree.scopes.reduce((d, p) => (tree.wrappers.has(scopeKey(p)) ? d : Math.max(d, tree.depth(p))), 0);
}

/**
 * The scopes collapsed by default: none for a graph of at most `threshold` nodes; for a bigger
 * one, the view open to the deepest Block level that keeps at most `budget` boxes on screen (at
 * least the top Block open), so a ResNet-50 opens on its stages instead of one box.
 */
export function defaultCollapsed(graph: IGraphJSON, threshold = 150, budget = VISIBLE_BUDGET): Set<string> {
  if (graph.nodes.length <= threshold) {
    return new Set();
  }
  const tree = scopeTree(graph);
  const deepest = maxDepth(graph, tree);
  let best = collapsedAtDepth(graph, 1, tree);
  if (best.size === 0) {
    return collapsedAtDepth(graph, 0, tree);
  }
  for (let d = 2; d < deepest; d++) {
    const c = collapsedAtDepth(graph, d, tree);
    if (visibleGraph(graph, c).nodes.length > budget) {
      break;
    }
    best = c;
  }
  return best;
}

/**
 * Build the visible graph for `graph` with the scopes in `collapsed` (keys of `scopeKey`) folded.
 * Wrapper levels (`scopeTree`) get no box of their own: their chain is one cluster or one group,
 * collapsed when any scope of the chain is in `collapsed`. A series (`seriesOf`) whose key is in
 * `collapsed` is one box; an open one is a cluster around its members.
 */
export function visibleGraph(graph: IGraphJSON, collapsed: Set<string> = new Set()): IVisibleGraph {
  const place = placement(graph);
  const tree = scopeTree(graph);
  const seriesByMember = seriesOf(graph).byMember;
  const root: ICluster = { key: 'cluster_root', path: [], children: [], nodes: [], label: '' };
  const clusters = new Map<string, ICluster>([[scopeKey([]), root]]);
  let clusterCount = 0;
  const newCluster = (parent: ICluster, c: Omit<ICluster, 'key' | 'children' | 'nodes'>): ICluster => {
    const made: ICluster = { key: `cluster_${clusterCount++}`, children: [], nodes: [], ...c };
    parent.children.push(made);
    return made;
  };
  // the cluster a Block's own box or cluster is drawn in: its open series', or its parent's
  const containerOf = (path: string[]): ICluster => {
    const s = seriesByMember.get(scopeKey(path));
    if (!s) {
      return clusterFor(tree.parentOf(path));
    }
    let c = clusters.get(s.key);
    if (!c) {
      c = newCluster(clusterFor(s.parent), { path: s.parent.slice(), label: `${s.members.length}× ${s.label}`, series: s });
      clusters.set(s.key, c);
    }
    return c;
  };
  const clusterFor = (path: string[]): ICluster => {
    const k = scopeKey(path);
    let c = clusters.get(k);
    if (!c) {
      c = newCluster(containerOf(path), { path: path.slice(), label: tree.label(path) });
      clusters.set(k, c);
    }
    return c;
  };

  const nodes: IVisibleNode[] = [];
  const byKey = new Map<string, IVisibleNode>();
  const groups = new Map<string, IVisibleNode>();
  const rep: string[] = [];
  const groupFor = (gk: string, make: () => IVisibleNode, container: () => ICluster): IVisibleNode => {
    let g = groups.get(gk);
    if (!g) {
      g = make();
      groups.set(gk, g);
      container().nodes.push(g.key);
      nodes.push(g);
      byKey.set(g.key, g);
    }
    return g;
  };
  graph.nodes.forEach((n, i) => {
    const path = place[i];
    let box: IVisibleNode | null = null;
    let pending = false;
    for (let d = 1; d <= path.length && !box; d++) {
      const gpath = path.slice(0, d);
      const k = scopeKey(gpath);
      pending = pending || collapsed.has(k);
      if (tree.wrappers.has(k)) {
        continue; // a wrapper folds with the first real scope below it
      }
      const s = seriesByMember.get(k);
      if (s && collapsed.has(s.key)) {
        box = groupFor(
          s.key,
          () => ({ key: `g${groups.size}`, kind: 'group', path: s.members[0], count: s.count, parent: s.parent, label: s.label, series: s }),
          () => clusterFor(s.parent)
        );
      } else if (pending) {
        box = groupFor(
          k,
          () => ({ key: `g${groups.size}`, kind: 'group', path: gpath, count: 0, parent: tree.parentOf(gpath), label: tree.label(gpath) }),
          () => containerOf(gpath)
        );
        box.count = (box.count || 0) + 1;
      }
    }
    if (!box) {
      box = { key: `n${i}`, kind: 'node', node: n, parent: path };
      clusterFor(path).nodes.push(box.key);
      nodes.push(box);
      byKey.set(box.key, box);
    }
    rep.push(box.key);
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
  return { nodes, edges, root, byKey, boxOf: rep };
}
