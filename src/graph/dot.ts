/**
 * The visible graph as Graphviz DOT text. Boxes have fixed sizes and no labels (the renderer
 * draws every label itself, as text), so model strings reach DOT only as cluster labels,
 * quoted and escaped by `dotString`.
 */
import { ICluster, IVisibleGraph, IVisibleNode } from './model';

/** Size of drawn boxes, in inches (Graphviz units). */
export const NODE_SIZE = { width: 1.9, height: 0.5 };
export const VAR_SIZE = { width: 1.5, height: 0.36 };
export const GROUP_SIZE = { width: 2.2, height: 0.6 };

/** A DOT quoted string holding `text` literally (no escapes like `\N` are interpreted). */
export function dotString(text: string): string {
  return (
    '"' +
    String(text)
      .replace(/\\/g, '\\\\')
      .replace(/"/g, '\\"')
      .replace(/[\r\n\t]/g, ' ') +
    '"'
  );
}

function nodeStmt(v: IVisibleNode): string {
  if (v.kind === 'group') {
    return `${v.key} [width=${GROUP_SIZE.width}, height=${GROUP_SIZE.height}, shape=box3d];`;
  }
  if (v.node && v.node.op === 'null') {
    return `${v.key} [width=${VAR_SIZE.width}, height=${VAR_SIZE.height}, shape=ellipse];`;
  }
  return `${v.key};`;
}

function clusterStmts(c: ICluster, g: IVisibleGraph, indent: string, out: string[]): void {
  for (const key of c.nodes) {
    out.push(indent + nodeStmt(g.byKey.get(key) as IVisibleNode));
  }
  for (const child of c.children) {
    out.push(`${indent}subgraph ${child.key} {`);
    out.push(`${indent}  label=${dotString(child.label)};`);
    clusterStmts(child, g, indent + '  ', out);
    out.push(`${indent}}`);
  }
}

/** Which way the data flows in the drawing: top to bottom, or left to right (wide, shallow view). */
export type Direction = 'TB' | 'LR';

/** DOT for the visible graph, top to bottom (or `LR`), one cluster per expanded Block scope. */
export function toDot(g: IVisibleGraph, direction: Direction = 'TB'): string {
  const out = [
    'digraph hybridlab {',
    `  graph [rankdir=${direction === 'LR' ? 'LR' : 'TB'}, nodesep=0.25, ranksep=0.4, fontsize=11, fontname="sans-serif"];`,
    `  node [shape=box, fixedsize=true, width=${NODE_SIZE.width}, height=${NODE_SIZE.height}, label=""];`,
    '  edge [fontsize=9, fontname="sans-serif", arrowsize=0.6];'
  ];
  clusterStmts(g.root, g, '  ', out);
  for (const e of g.edges) {
    out.push(`  ${e.from} -> ${e.to} [label=${dotString(e.label)}];`);
  }
  out.push('}');
  return out.join('\n');
}
