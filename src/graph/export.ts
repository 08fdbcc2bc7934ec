/**
 * Export the drawn graph as a standalone SVG or PNG file: the whole drawing (not only the part on
 * screen), with the theme's computed colours and fonts written onto each element, so the file
 * looks as the view does without JupyterLab's stylesheets. Labels stay SVG text.
 */
import { IRendered } from './render';

/** The computed style properties a standalone drawing needs. */
const STYLE_PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'opacity', 'font-family', 'font-size', 'font-weight', 'display'];

/** The drawing as standalone SVG text (every drawn node kept; pan and zoom undone). */
export function drawingSVG(drawn: IRendered): string {
  const copy = drawn.svg.cloneNode(true) as SVGSVGElement;
  const from = [drawn.svg, ...Array.from(drawn.svg.querySelectorAll('*'))];
  const to = [copy, ...Array.from(copy.querySelectorAll('*'))];
  if (typeof getComputedStyle === 'function') {
    from.forEach((el, i) => {
      const cs = getComputedStyle(el);
      const style = STYLE_PROPS.map(p => [p, cs.getPropertyValue(p)]).filter(([, v]) => v).map(([p, v]) => `${p}:${v}`);
      if (style.length) {
        (to[i] as SVGElement).setAttribute('style', style.join(';'));
      }
    });
  }
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(drawn.width));
  copy.setAttribute('height', String(drawn.height));
  copy.setAttribute('viewBox', `0 0 ${drawn.width} ${drawn.height}`);
  copy.querySelector('.hl-viewport')?.removeAttribute('transform');
  copy.querySelectorAll('.hl-minimap').forEach(m => m.remove());
  return new XMLSerializer().serializeToString(copy);
}

/** Offer `blob` as a download named `name`. */
function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** A file name from the block's name: letters, digits, `-`, `_` and `.` only. */
export function exportName(block: string, ext: 'svg' | 'png'): string {
  const stem = (block || 'graph').replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80) || 'graph';
  return `${stem}.${ext}`;
}

/** Download the drawing as an SVG file. */
export function exportSVG(drawn: IRendered, block: string): void {
  download(new Blob([drawingSVG(drawn)], { type: 'image/svg+xml' }), exportName(block, 'svg'));
}

/** Download the drawing as a PNG file (at 2x, at most 8192 px a side). */
export async function exportPNG(drawn: IRendered, block: string): Promise<void> {
  const scale = Math.min(2, 8192 / Math.max(drawn.width, drawn.height));
  const img = new Image();
  const url = URL.createObjectURL(new Blob([drawingSVG(drawn)], { type: 'image/svg+xml' }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the drawing could not be rasterised'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(drawn.width * scale);
    canvas.height = Math.ceil(drawn.height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) {
      throw new Error('no 2D canvas');
    }
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0);
    const png = await new Promise<Blob | null>(resolve => canvas.toBlob(resolve, 'image/png'));
    if (png) {
      download(png, exportName(block, 'png'));
    }
  } finally {
    URL.revokeObjectURL(url);
  }
}
