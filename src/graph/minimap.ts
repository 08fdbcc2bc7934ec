/**
 * The minimap: the whole drawing, small, in a corner of the graph area, with a frame around the
 * part on screen. Shown only while the drawing does not fit the area (a readable 100 % view of a
 * ResNet-50, a zoomed-in view); a click on it centres the view there. The drawing is not copied:
 * an SVG `<use>` shows the same group, so marks, search and selection appear in it too.
 */
import { ITransform } from './panzoom';
import { IRendered, svg } from './render';

/** The minimap's longest side (px). */
const SIZE = 150;

export interface IMinimap {
  /** The minimap's root (class `hl-minimap`; `data-hl-shown` `true`/`false`). */
  readonly node: SVGSVGElement;
  /** Follow the main view: `t` its transform, `boxWidth` × `boxHeight` the area on screen. */
  update(t: ITransform, boxWidth: number, boxHeight: number): void;
}

/** A minimap of `drawn`; `centreAt(x, y)` is asked to centre the view on a drawing point. */
export function minimap(drawn: IRendered, centreAt: (x: number, y: number) => void): IMinimap {
  const k = SIZE / Math.max(drawn.width, drawn.height);
  const w = Math.max(20, Math.round(drawn.width * k));
  const h = Math.max(20, Math.round(drawn.height * k));
  const root = svg('svg', {
    class: 'hl-minimap',
    width: w,
    height: h,
    viewBox: `0 0 ${drawn.width} ${drawn.height}`,
    role: 'img',
    'aria-label': 'Minimap of the whole graph: click to go there',
    'data-hl-shown': 'false'
  });
  svg('rect', { class: 'hl-minimap-bg', x: 0, y: 0, width: drawn.width, height: drawn.height }, root);
  svg('use', { href: `#${drawn.content.id}`, transform: drawn.content.getAttribute('transform') || '' }, root);
  const frame = svg('rect', { class: 'hl-minimap-frame', x: 0, y: 0, width: 0, height: 0 }, root);
  root.addEventListener('mousedown', ev => ev.stopPropagation()); // not a drag of the main view
  root.addEventListener('click', ev => {
    ev.stopPropagation();
    const r = root.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) {
      centreAt(((ev.clientX - r.left) / r.width) * drawn.width, ((ev.clientY - r.top) / r.height) * drawn.height);
    }
  });
  return {
    node: root,
    update(t: ITransform, boxWidth: number, boxHeight: number): void {
      const x = -t.tx / t.scale;
      const y = -t.ty / t.scale;
      const fw = boxWidth / t.scale;
      const fh = boxHeight / t.scale;
      frame.setAttribute('x', String(x));
      frame.setAttribute('y', String(y));
      frame.setAttribute('width', String(fw));
      frame.setAttribute('height', String(fh));
      const whole = x <= 1 && y <= 1 && x + fw >= drawn.width - 1 && y + fh >= drawn.height - 1;
      root.setAttribute('data-hl-shown', whole || !(boxWidth > 0) ? 'false' : 'true');
    }
  };
}
