/**
 * What a compiler pass changed: the graph after the pass compared with the graph before it (the
 * forward graph for the first pass, the previous pass's graph after that). Nodes are matched by
 * name; a node with the same name whose op, attributes or inputs differ counts as changed.
 * Pure data, no DOM.
 */
import { IGraphJSON, IGraphNode } from '../tokens';

export interface IPassDiff {
  /** Node counts before and after the pass. */
  before: number;
  after: number;
  /** Names of the nodes the pass added, removed, or rewrote in place. */
  added: string[];
  removed: string[];
  changed: string[];
}

function signature(node: IGraphNode, graph: IGraphJSON): string {
  const inputs = (node.inputs || []).map(([src, out]) => {
    const s = graph.nodes[src];
    return `${s ? s.name : '?'}:${out}`;
  });
  const attrs = Object.keys(node.attrs || {})
    .sort()
    .map(k => `${k}=${node.attrs[k]}`);
  return JSON.stringify([node.op, attrs, inputs]);
}

/** The difference between the graph `before` a pass and the graph `after` it. */
export function passDiff(before: IGraphJSON, after: IGraphJSON): IPassDiff {
  const old = new Map<string, IGraphNode>();
  for (const n of before.nodes) {
    old.set(n.name, n);
  }
  const seen = new Set<string>();
  const added: string[] = [];
  const changed: string[] = [];
  for (const n of after.nodes) {
    seen.add(n.name);
    const o = old.get(n.name);
    if (!o) {
      added.push(n.name);
    } else if (signature(o, before) !== signature(n, after)) {
      changed.push(n.name);
    }
  }
  const removed = before.nodes.filter(n => !seen.has(n.name)).map(n => n.name);
  return { before: before.nodes.length, after: after.nodes.length, added, removed, changed };
}

/** True when the pass left the graph as it was. */
export function unchanged(d: IPassDiff): boolean {
  return !d.added.length && !d.removed.length && !d.changed.length;
}

/** A short summary for the view selector: `no change`, `171 → 120 nodes`, `4 nodes changed`. */
export function passSummary(d: IPassDiff): string {
  if (unchanged(d)) {
    return 'no change';
  }
  if (d.before !== d.after) {
    return `${d.before} → ${d.after} nodes`;
  }
  const n = d.added.length + d.changed.length;
  return `${n} node${n === 1 ? '' : 's'} changed`;
}

/** The longer description shown in the status line of a pass view. */
export function passDescription(name: string, d: IPassDiff): string {
  if (unchanged(d)) {
    return `Pass ${name}: no change (${d.after} nodes, identical to the graph before it)`;
  }
  const parts: string[] = [];
  if (d.removed.length) {
    parts.push(`${d.removed.length} removed`);
  }
  if (d.added.length) {
    parts.push(`${d.added.length} added`);
  }
  if (d.changed.length) {
    parts.push(`${d.changed.length} rewritten`);
  }
  return `Pass ${name}: ${d.before} → ${d.after} nodes (${parts.join(', ')}; added and rewritten nodes are outlined)`;
}
