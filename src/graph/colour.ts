/**
 * Colouring the graph's boxes by a measure instead of by op family: the measured time per call
 * of each node (the per-op profile of a `TimingPanel` run or `GraphView.profile`) or the size
 * of its outputs (from the graph JSON's shapes and dtypes). Values map to a light-to-saturated
 * ramp on a log scale (times and sizes span orders of magnitude), light enough at its end for the
 * dark label text; a box with no value is neutral grey. `paintBoxes` colours a drawing, `legend`
 * draws the key.
 */
import { IGraphJSON, IGraphNode } from '../tokens';
import { memoryText, msText } from '../units';
import type { IVisibleGraph } from './model';
import type { IRendered } from './render';

/** What the boxes are coloured by. */
export type ColourMode = 'family' | 'time' | 'size';

/** Bytes per element of the graph JSON's dtypes. */
const ITEM_SIZE: { [dtype: string]: number } = {
  float16: 2, bfloat16: 2, float32: 4, float64: 8, int8: 1, uint8: 1, bool: 1, int16: 2, int32: 4, int64: 8
};

/** The bytes of a node's outputs together; null when a shape or dtype is unknown. */
export function outputBytes(node: IGraphNode): number | null {
  let total = 0;
  for (const o of node.outputs || []) {
    const item = o.dtype ? ITEM_SIZE[o.dtype] : undefined;
    if (!o.shape || item === undefined || o.shape.some(d => !(d > 0))) {
      return null;
    }
    total += o.shape.reduce((a, d) => a * d, 1) * item;
  }
  return node.outputs && node.outputs.length ? total : null;
}

/** The ramp's end colours per mode (sRGB): pale to saturated, both readable under dark text. */
const RAMPS: { [mode in Exclude<ColourMode, 'family'>]: [number[], number[]] } = {
  time: [[255, 247, 205], [245, 130, 50]],
  size: [[236, 242, 255], [100, 160, 225]]
};

/** The fill for `t` in 0..1 on the ramp of `mode`. */
export function rampColour(mode: Exclude<ColourMode, 'family'>, t: number): string {
  const [a, b] = RAMPS[mode];
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const c = a.map((v, i) => Math.round(v + (b[i] - v) * x));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** A log scale over the positive values given: value -> 0..1 (`lo` -> 0, `hi` -> 1). */
export interface IScale {
  lo: number;
  hi: number;
  at(v: number): number;
}

/** The log scale of `values` (their positive finite ones); null when there are none. */
export function logScale(values: Iterable<number>): IScale | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (Number.isFinite(v) && v > 0) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (!Number.isFinite(lo)) {
    return null;
  }
  const span = Math.log(hi) - Math.log(lo);
  return { lo, hi, at: v => (span > 0 ? (Math.log(Math.max(v, lo)) - Math.log(lo)) / span : 1) };
}

/** The fill of a box with no value when colouring by a measure (light: labels are dark text). */
export const UNMEASURED_FILL = '#d6d6d6';

/**
 * Colour the boxes of `drawn` (of `visible`, for `graph`) by `mode`: each box by the sum of
 * `value` over the graph nodes it shows (a collapsed Block: its nodes'), with the value in its
 * tooltip and `data-hl-value`; `family` (or no value at all) puts the family colours back.
 * A box a debugging tool gave a heat fill keeps it. Returns the scale used, or null.
 */
export function paintBoxes(
  drawn: IRendered,
  visible: IVisibleGraph,
  graph: IGraphJSON,
  mode: ColourMode,
  value: (n: IGraphNode) => number | null
): IScale | null {
  const sums = new Map<string, number>();
  if (mode !== 'family') {
    graph.nodes.forEach((n, i) => {
      const v = value(n);
      if (v !== null && Number.isFinite(v)) {
        sums.set(visible.boxOf[i], (sums.get(visible.boxOf[i]) || 0) + v);
      }
    });
  }
  const scale = mode === 'family' ? null : logScale(sums.values());
  const format = mode === 'time' ? (ms: number) => `${msText(ms)} ms` : memoryText;
  for (const v of visible.nodes) {
    const el = v.node ? drawn.nodes.get(v.node.name) : drawn.groups.get(v.key);
    const shape = el ? (el.querySelector('rect, ellipse') as SVGElement | null) : null;
    if (!el || !shape || el.hasAttribute('data-hl-heat')) {
      continue;
    }
    const title = el.querySelector('title');
    if (title && !el.hasAttribute('data-hl-title')) {
      el.setAttribute('data-hl-title', title.textContent || ''); // the box's own tooltip
    }
    const sum = scale ? sums.get(v.key) : undefined;
    if (title) {
      const line = sum === undefined ? '' : `\n${mode === 'time' ? 'time per call' : 'output size'}: ${format(sum)}`;
      title.textContent = (el.getAttribute('data-hl-title') || '') + line;
    }
    if (sum === undefined) {
      el.removeAttribute('data-hl-value');
    } else {
      el.setAttribute('data-hl-value', String(sum));
    }
    shape.style.fill = !scale || mode === 'family' ? '' : sum === undefined ? UNMEASURED_FILL : rampColour(mode, scale.at(sum));
  }
  return scale;
}

/** Draw the key of `mode` over `scale` into `node` (emptied first). */
export function legend(node: HTMLElement, mode: Exclude<ColourMode, 'family'>, scale: IScale): void {
  const format = mode === 'time' ? (ms: number) => `${msText(ms)} ms` : memoryText;
  const part = (cls: string, text = ''): HTMLDivElement => {
    const d = document.createElement('div');
    d.className = cls;
    d.textContent = text;
    node.appendChild(d);
    return d;
  };
  node.textContent = '';
  part('hl-legend-label', `${mode === 'time' ? 'time per call (profiled hybridized calls)' : 'output size'}: ${format(scale.lo)}`);
  part('hl-legend-ramp').style.background = `linear-gradient(to right, ${rampColour(mode, 0)}, ${rampColour(mode, 1)})`;
  part('hl-legend-label', `${format(scale.hi)} (log scale; a collapsed Block: its nodes' sum; grey: ${mode === 'time' ? 'not timed' : 'unknown'})`);
}
