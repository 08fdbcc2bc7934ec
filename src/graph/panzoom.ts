/**
 * Pan (drag) and zoom (wheel, around the pointer) for an SVG viewport group.
 */

export interface IPanZoom {
  scale: number;
  tx: number;
  ty: number;
  /** Reset to the identity transform. */
  reset(): void;
  /** Zoom by `factor` around the viewport point (`cx`, `cy`). */
  zoom(factor: number, cx?: number, cy?: number): void;
  /** Remove the listeners. */
  dispose(): void;
}

/** Attach pan and zoom to `svg`, transforming `viewport`. */
export function panZoom(svg: SVGSVGElement, viewport: SVGGElement): IPanZoom {
  const state = { scale: 1, tx: 0, ty: 0 };
  const apply = (): void => {
    viewport.setAttribute('transform', `translate(${state.tx},${state.ty}) scale(${state.scale})`);
  };
  let drag: { x: number; y: number; tx: number; ty: number } | null = null;
  const onWheel = (ev: WheelEvent): void => {
    ev.preventDefault();
    const rect = svg.getBoundingClientRect();
    api.zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - rect.left, ev.clientY - rect.top);
  };
  const onDown = (ev: MouseEvent): void => {
    if (ev.button !== 0) {
      return;
    }
    drag = { x: ev.clientX, y: ev.clientY, tx: state.tx, ty: state.ty };
  };
  const onMove = (ev: MouseEvent): void => {
    if (!drag) {
      return;
    }
    state.tx = drag.tx + ev.clientX - drag.x;
    state.ty = drag.ty + ev.clientY - drag.y;
    apply();
  };
  const onUp = (): void => {
    drag = null;
  };
  svg.addEventListener('wheel', onWheel, { passive: false });
  svg.addEventListener('mousedown', onDown);
  window.addEventListener('mousemove', onMove);
  window.addEventListener('mouseup', onUp);
  const api: IPanZoom = {
    get scale() {
      return state.scale;
    },
    get tx() {
      return state.tx;
    },
    get ty() {
      return state.ty;
    },
    reset() {
      state.scale = 1;
      state.tx = 0;
      state.ty = 0;
      apply();
    },
    zoom(factor: number, cx = 0, cy = 0) {
      const s = Math.min(8, Math.max(0.05, state.scale * factor));
      const k = s / state.scale;
      state.tx = cx - (cx - state.tx) * k;
      state.ty = cy - (cy - state.ty) * k;
      state.scale = s;
      apply();
    },
    dispose() {
      svg.removeEventListener('wheel', onWheel);
      svg.removeEventListener('mousedown', onDown);
      window.removeEventListener('mousemove', onMove);
      window.removeEventListener('mouseup', onUp);
    }
  } as IPanZoom;
  return api;
}
