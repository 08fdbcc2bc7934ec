/**
 * Trace a node's data flow: every node its value depends on (its inputs, theirs, ... up to the
 * graph inputs and parameters) and every node that depends on it (down to the outputs), as
 * Netron and TensorBoard's "trace inputs" do. Pure data; the canvas draws it.
 */
import { IGraphJSON } from '../tokens';

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
