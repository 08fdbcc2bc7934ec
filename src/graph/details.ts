/**
 * The details panel for a clicked node: op, family, scope, attributes, inputs and outputs with
 * shapes and dtypes, and the user's source line. Built with `textContent` only.
 */
import { IGraphJSON, IGraphNode, IParamStats } from '../tokens';
import { familyOf, formatShape } from './model';
import { guardText } from './render';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string, parent?: HTMLElement): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  if (parent) {
    parent.appendChild(e);
  }
  return e;
}

function row(table: HTMLElement, key: string, value: string): void {
  const tr = el('tr', '', undefined, table);
  el('th', '', key, tr);
  el('td', '', value, tr);
}

/** A number for the details panel: 4 significant digits, `n/a` for null (NaN/Inf in the kernel). */
export function formatNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) {
    return 'n/a';
  }
  return Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

/**
 * Fill `panel` with the details of `node` (of `graph`); an empty panel shows a hint. `stats`
 * (a parameter's statistics from the kernel) adds a statistics section.
 */
export function renderDetails(
  panel: HTMLElement,
  node: IGraphNode | null,
  graph: IGraphJSON | null,
  stats?: IParamStats | null
): void {
  panel.textContent = '';
  if (!node || !graph) {
    el('div', 'hl-details-hint', 'Click a node to see its details.', panel);
    return;
  }
  el('div', 'hl-details-title', node.name, panel);
  const table = el('table', 'hl-details-table', undefined, panel);
  table.setAttribute('data-hl-details', node.name);
  const kind = node.is_param ? 'parameter' : node.is_aux ? 'auxiliary state' : node.is_input ? 'input' : 'op';
  row(table, 'op', node.op === 'null' ? `variable (${kind})` : node.op);
  row(table, 'family', familyOf(node));
  row(table, 'scope', node.scope && node.scope.length ? node.scope.join(' / ') : '(top level)');
  for (const k of Object.keys(node.attrs || {}).sort()) {
    row(table, `attr ${k}`, String(node.attrs[k]));
  }
  for (const g of node.guards || []) {
    row(table, 'shape guard', guardText(g));
  }
  (node.inputs || []).forEach(([src, out], i) => {
    const s = graph.nodes[src];
    const o = s && s.outputs ? s.outputs[out] : undefined;
    row(table, `input ${i}`, `${o ? o.name : s ? s.name : '?'}: ${formatShape(o ? o.shape : null)} ${o && o.dtype ? o.dtype : ''}`.trim());
  });
  (node.outputs || []).forEach((o, i) => {
    row(table, `output ${i}`, `${o.name}: ${formatShape(o.shape)} ${o.dtype || ''}`.trim());
  });
  if (stats) {
    row(table, 'value shape', `${stats.shape.join('×') || 'scalar'} ${stats.dtype}`);
    row(table, 'mean ± std', `${formatNumber(stats.mean)} ± ${formatNumber(stats.std)}`);
    row(table, 'min / max', `${formatNumber(stats.min)} / ${formatNumber(stats.max)}`);
    row(table, 'zeros', `${(100 * stats.zeros).toFixed(1)}%`);
  }
  if (node.source) {
    row(table, 'source', `${node.source.file}:${node.source.line}`);
    const code = el('pre', 'hl-details-code', node.source.code || '', panel);
    code.setAttribute('title', `${node.source.file}:${node.source.line}`);
  }
}
