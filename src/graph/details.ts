/**
 * The details panel for a clicked node: op, family, scope, attributes, inputs and outputs with
 * shapes and dtypes, and the user's source line. Built with `textContent` only.
 */
import { IGraphJSON, IGraphNode, IParamStats } from '../tokens';
import { familyOf, formatShape, placement } from './model';
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

/** MXNet's dtype flags (`__dtype__` of a variable in a symbol file). */
const DTYPE_FLAGS: { [flag: string]: string } = {
  '0': 'float32', '1': 'float64', '2': 'float16', '3': 'uint8', '4': 'int32', '5': 'int8', '6': 'int64', '7': 'bool', '12': 'bfloat16'
};

/**
 * One attribute row: MXNet's variable annotations (`__shape__`, `__dtype__`, `__lr_mult__`...)
 * in words (`declared shape 64×?×7×7`, `declared dtype float32`); other attributes as they are.
 */
export function attrRow(key: string, value: string): [string, string] {
  const m = /^__(.+)__$/.exec(key);
  if (!m) {
    return [`attr ${key}`, value];
  }
  const name = m[1];
  if (name === 'shape') {
    const dims = value.replace(/[()[\]\s]/g, '').split(',').filter(Boolean);
    return ['declared shape', dims.length ? dims.map(d => (d === '0' || d === '-1' ? '?' : d)).join('×') : 'scalar'];
  }
  if (name === 'dtype') {
    return ['declared dtype', DTYPE_FLAGS[value] || value];
  }
  return [`declared ${name.replace(/_/g, ' ')}`, value];
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
  // a parameter is drawn inside its first consumer's Block: name that scope, as the drawing does
  const index = graph.nodes.indexOf(node);
  const scope = index >= 0 ? placement(graph)[index] : node.scope || [];
  row(table, 'scope', scope.length ? scope.join(' / ') : '(top level)');
  for (const k of Object.keys(node.attrs || {}).sort()) {
    const [label, value] = attrRow(k, String(node.attrs[k]));
    row(table, label, value);
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
