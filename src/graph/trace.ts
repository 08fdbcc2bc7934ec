/**
 * Trace a node's data flow: every node its value depends on (its inputs, theirs, ... up to the
 * graph inputs and parameters) and every node that depends on it (down to the outputs), as
 * Netron and TensorBoard's "trace inputs" do. `markTrace` marks it on a drawing.
 */
import { IGraphJSON } from '../tokens';
import type { IVisibleGraph } from './model';
import type { IRendered } from './render';

export interface ITrace {
  /** The traced node's index. */
  origin: number;
  /** Indices of the nodes it reads from, directly or not. */
  up: Set<number>;
  /** Indices of the nodes that read from it, directly or not. */
  down: Set<number>;
}

/** The nodes upstream and downstream of node `origin` (an index into `graph.nodes`). */
export function traceNode(graph: IGraphJSON, origin: number): ITrace {
  const readers: number[][] = graph.nodes.map(() => []);
  graph.nodes.forEach((n, i) => (n.inputs || []).forEach(([src]) => readers[src] && readers[src].push(i)));
  const walk = (next: (i: number) => number[]): Set<number> => {
    const seen = new Set<number>();
    const todo = next(origin).slice();
    while (todo.length) {
      const i = todo.pop()!;
      if (i !== origin && !seen.has(i)) {
        seen.add(i);
        todo.push(...next(i));
      }
    }
    return seen;
  };
  const up = walk(i => (graph.nodes[i] ? (graph.nodes[i].inputs || []).map(([src]) => src) : []));
  const down = walk(i => readers[i] || []);
  return { origin, up, down };
}

/** `"reads 12 nodes, read by 40"`: a trace in words. */
export function traceText(t: ITrace): string {
  return `reads ${t.up.size} node${t.up.size === 1 ? '' : 's'}, read by ${t.down.size}`;
}

const ROLES = ['hl-trace-up', 'hl-trace-down', 'hl-trace-origin'];

/**
 * Mark trace `t` on `drawn` (of `visible`): classes `hl-trace-up` / `-down` / `-origin` on the
 * boxes showing those nodes (a collapsed Block can hold both), the edges between them, and
 * `hl-tracing` on the SVG (the rest is dimmed); null clears.
 */
export function markTrace(drawn: IRendered, visible: IVisibleGraph, t: ITrace | null): void {
  drawn.svg.classList.toggle('hl-tracing', !!t);
  const roles = new Map<string, Set<string>>(); // visible key -> its roles
  const mark = (i: number, role: string): void => {
    const key = visible.boxOf[i];
    if (!roles.has(key)) {
      roles.set(key, new Set());
    }
    roles.get(key)!.add(role);
  };
  if (t) {
    t.up.forEach(i => mark(i, 'hl-trace-up'));
    t.down.forEach(i => mark(i, 'hl-trace-down'));
    mark(t.origin, 'hl-trace-origin');
  }
  for (const v of visible.nodes) {
    const el = v.node ? drawn.nodes.get(v.node.name) : drawn.groups.get(v.key);
    const r = roles.get(v.key);
    ROLES.forEach(c => el?.classList.toggle(c, !!r && r.has(c)));
  }
  const on = (key: string, role: string): boolean => {
    const r = roles.get(key);
    return !!r && (r.has(role) || r.has('hl-trace-origin'));
  };
  for (const e of drawn.edges) {
    e.el.classList.toggle('hl-trace-up', on(e.from, 'hl-trace-up') && on(e.to, 'hl-trace-up'));
    e.el.classList.toggle('hl-trace-down', on(e.from, 'hl-trace-down') && on(e.to, 'hl-trace-down'));
  }
}
