/**
 * Series: runs of identical Blocks one after another (a ResNet stage's bottleneck units, a
 * Transformer's layers), found so the graph view can draw such a run as one box (`2× ...`)
 * until the user opens it, as TensorBoard's graph dashboard groups its series.
 *
 * Two sibling Block scopes are identical when their nodes, in graph order, have the same ops,
 * attributes, output shapes and dtypes, the same wiring among themselves, and the same nesting
 * depth; names do not count (`bottleneckv2_1` and `bottleneckv2_2` differ only by them). A
 * series is a maximal run, in first-seen order, of at least two identical sibling Blocks. The
 * wiring between the members is not asked for: in a backward graph the gradient passes from one
 * unit to the next through the sums of their Block (the residual adds), not directly.
 */
import { IGraphJSON } from '../tokens';
import type { IScopeTree } from './model';

export interface ISeries {
  /** The key of the series in a view's collapsed set: `series:` + the first member's scope key. */
  key: string;
  /** The members' (canonical) scope paths, in order. */
  members: string[][];
  /** The scope path of the Block holding the series. */
  parent: string[];
  /** `bottleneckv2_[1–3]` (`rangeLabel`). */
  label: string;
  /** How many graph nodes the members hold together. */
  count: number;
}

export interface ISeriesIndex {
  series: ISeries[];
  /** The series a canonical scope (by scope key) is a member of. */
  byMember: Map<string, ISeries>;
}

/**
 * The names of a run as one: `bottleneckv2_[1–3]` when they differ only by a trailing number,
 * else `first … last`.
 */
export function rangeLabel(first: string, last: string): string {
  let n = 0;
  while (n < first.length && n < last.length && first[n] === last[n]) {
    n++;
  }
  while (n > 0 && /\d/.test(first[n - 1])) {
    n--; // the numbers start after the shared stem
  }
  const a = first.slice(n);
  const b = last.slice(n);
  return /^\d+$/.test(a) && /^\d+$/.test(b) ? `${first.slice(0, n)}[${a}–${b}]` : `${first} … ${last}`;
}

function pathKey(path: string[]): string {
  return JSON.stringify(path);
}

/** The series of `graph`, whose nodes are drawn in the scopes `place` (`placement`), Block tree `tree`. */
export function findSeries(graph: IGraphJSON, place: string[][], tree: IScopeTree): ISeriesIndex {
  const canonical = tree.scopes.filter(p => !tree.wrappers.has(pathKey(p)));
  // the nodes under each canonical scope, in graph order
  const members = new Map<string, number[]>();
  for (const p of canonical) {
    members.set(pathKey(p), []);
  }
  place.forEach((path, i) => {
    for (let d = 1; d <= path.length; d++) {
      const list = members.get(pathKey(path.slice(0, d)));
      if (list) {
        list.push(i);
      }
    }
  });
  const signature = (scope: string[]): string => {
    const ids = members.get(pathKey(scope)) || [];
    const local = new Map(ids.map((id, k) => [id, k] as [number, number]));
    return JSON.stringify(
      ids.map(id => {
        const n = graph.nodes[id];
        const attrs = Object.keys(n.attrs || {}).sort().map(k => [k, n.attrs[k]]);
        const inputs = (n.inputs || []).map(([src, out]) => (local.has(src) ? [local.get(src), out] : ['in', out]));
        const outputs = (n.outputs || []).map(o => [o.shape, o.dtype]);
        return [n.op, n.is_param, n.is_aux, attrs, inputs, outputs, place[id].length - scope.length];
      })
    );
  };
  const siblings = new Map<string, string[][]>();
  for (const p of canonical) {
    const k = pathKey(tree.parentOf(p));
    if (!siblings.has(k)) {
      siblings.set(k, []);
    }
    siblings.get(k)!.push(p);
  }
  const series: ISeries[] = [];
  const byMember = new Map<string, ISeries>();
  for (const list of siblings.values()) {
    // signatures only where they can match: siblings with as many nodes as their neighbour
    const sigs = new Map<number, string>();
    const sig = (i: number): string => {
      if (!sigs.has(i)) {
        sigs.set(i, signature(list[i]));
      }
      return sigs.get(i)!;
    };
    const size = (i: number): number => (members.get(pathKey(list[i])) || []).length;
    const same = (i: number, j: number): boolean => size(i) === size(j) && sig(i) === sig(j);
    let start = 0;
    while (start < list.length) {
      let end = start + 1;
      while (end < list.length && same(end, start)) {
        end++;
      }
      if (end - start >= 2) {
        const run = list.slice(start, end);
        const name = (p: string[]): string => tree.label(p);
        const s: ISeries = {
          key: `series:${pathKey(run[0])}`,
          members: run,
          parent: tree.parentOf(run[0]),
          label: rangeLabel(name(run[0]), name(run[run.length - 1])),
          count: run.reduce((c, p) => c + (members.get(pathKey(p)) || []).length, 0)
        };
        series.push(s);
        run.forEach(p => byMember.set(pathKey(p), s));
      }
      start = end;
    }
  }
  return { series, byMember };
}
