/**
 * Pan (drag) and zoom for an SVG viewport group.
 *
 * The wheel belongs to the notebook: a plain wheel over the graph scrolls the page (and asks the
 * canvas to show its "Ctrl + wheel to zoom" hint); Ctrl/Cmd + wheel zooms around the pointer,
 * and so does a trackpad pinch (browsers send it as a wheel event with `ctrlKey`; Safari as
 * `gesturechange`). `fit()` scales the whole drawing into the box, `actualSize()` shows it at
 * 100 % from its top.
 */

/** A pan/zoom transform: screen = translate(tx, ty) · scale(scale) · drawing. */
export interface ITransform {
  scale: number;
  tx: number;
  ty: number;
}

/** The smallest and largest zoom. */
export const MIN_SCALE = 0.01;
export const MAX_SCALE = 8;

/**
 * The transform that shows a `width` × `height` drawing whole and centred in a `boxWidth` ×
 * `boxHeight` box, never enlarged beyond `maxScale` (1: small graphs keep their natural size).
 * A box of unknown size (0: not laid out yet) gives the identity.
 */
export function fitTransform(width: number, height: number, boxWidth: number, boxHeight: number, maxScale = 1): ITransform {
  if (!(boxWidth > 0) || !(boxHeight > 0) || !(width > 0) || !(height > 0)) {
    return { scale: 1, tx: 0, ty: 0 };
  }
  const scale = Math.max(MIN_SCALE, Math.min(maxScale, boxWidth / width, boxHeight / height));
  return { scale, tx: (boxWidth - scale * width) / 2, ty: Math.max(0, (boxHeight - scale * height) / 2) };
}

/** The zoom factor of one wheel event (smooth for trackpad pinches, one step per mouse notch). */
export function wheelFactor(ev: { deltaY: number; deltaMode: number }): number {
  const px = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaMode === 2 ? ev.deltaY * 400 : ev.deltaY;
  return Math.min(2, Math.max(0.5, Math.exp(-px * 0.0025)));
}

export interface IPanZoom extends ITransform {
  /** True until the user pans or zooms (then redraws keep the user's view instead of fitting). */
  readonly auto: boolean;
  /** Scale the whole drawing into the box (and go back to automatic fitting). */
  fit(): void;
  /** 100 % zoom, the top of the drawing at the top, centred when it is narrower than the box. */
  actualSize(): void;
  /** Zoom by `factor` around the box point (`cx`, `cy`). */
  zoom(factor: number, cx?: number, cy?: number): void;
  /** Move the drawing by (`dx`, `dy`) px on screen (the keyboard's arrows). */
  pan(dx: number, dy: number): void;
  /** Set the transform (keeps `auto` as it is). */
  set(t: ITransform): void;
  /** Remove the listeners. */
  dispose(): void;
}

export interface IPanZoomOptions {
  /** The drawing's size at 100 % (px). */
  width: number;
  height: number;
  /** The box the drawing is shown in (default: the SVG's client size). */
  box?: () => { width: number; height: number };
  /** A plain wheel went to the page instead of zooming: show how to zoom. */
  onPlainWheel?: () => void;
  /** The user panned or zoomed. */
  onChange?: (t: ITransform) => void;
  /** Any change of the transform (the user's, fit, set): the minimap follows it. */
  onApply?: (t: ITransform) => void;
}

/** Attach pan and zoom to `svg`, transforming `viewport`. */
export function panZoom(svg: SVGSVGElement, viewport: SVGGElement, options: IPanZoomOptions): IPanZoom {
  const state: ITransform = { scale: 1, tx: 0, ty: 0 };
  let auto = true;
  const box = options.box || (() => ({ width: svg.clientWidth, height: svg.clientHeight }));
  const apply = (): void => {
    viewport.setAttribute('transform', `translate(${state.tx},${state.ty}) scale(${state.scale})`);
    options.onApply?.({ ...state });
  };
  const userChange = (): void => {
    auto = false;
    apply();
    options.onChange?.({ ...state });
  };
  const zoomAt = (factor: number, cx: number, cy: number): void => {
    const s = Math.min(MAX_SCALE, Math.max(MIN_SCALE, state.scale * factor));
    const k = s / state.scale;
    state.tx = cx - (cx - state.tx) * k;
    state.ty = cy - (cy - state.ty) * k;
    state.scale = s;
  };
  let drag: { x: number; y: number; tx: number; ty: number; moved: boolean } | null = null;
  const onWheel = (ev: WheelEvent): void => {
    if (!(ev.ctrlKey || ev.metaKey)) {
      options.onPlainWheel?.(); // no preventDefault: the notebook scrolls
      return;
    }
    ev.preventDefault();
    const rect = svg.getBoundingClientRect();
    zoomAt(wheelFactor(ev), ev.clientX - rect.left, ev.clientY - rect.top);
    userChange();
  };
  let gestureScale = 1;
  const onGestureStart = (ev: Event): void => {
    ev.preventDefault();
    gestureScale = 1;
  };
  const onGestureChange = (ev: Event): void => {
    // Safari's trackpad pinch (non-standard GestureEvent: scale, clientX, clientY)
    const g = ev as Event & { scale?: number; clientX?: number; clientY?: number };
    ev.preventDefault();
    if (!g.scale) {
      return;
    }
    const rect = svg.getBoundingClientRect();
    zoomAt(g.scale / gestureScale, (g.clientX || 0) - rect.left, (g.clientY || 0) - rect.top);
    gestureScale = g.scale;
    userChange();
  };
  const onDown = (ev: MouseEvent): void => {
    if (ev.button !== 0) {
      return;
    }
    drag = { x: ev.clientX, y: ev.clientY, tx: state.tx, ty: state.ty, moved: false };
  };
  const onMove = (ev: MouseEvent): void => {
    if (!drag) {
      return;
    }
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 3) {
      return; // a click, not a drag
    }
    drag.moved = true;
    state.tx = drag.tx + dx;
    state.ty = drag.ty + dy;
    userChange();
  };
  let dragged = false;
  const onUp = (): void => {
    dragged = !!drag && drag.moved;
    drag = null;
  };
  const onClick = (ev: MouseEvent): void => {
    if (dragged) {
      ev.stopPropagation(); // the end of a drag is not a click on the node under the pointer
      dragged = false;
    }
  };
  svg.addEventListener('wheel', onWheel, { passive: false });
  svg.addEventListener('gesturestart', onGestureStart);
  svg.addEventListener('gesturechange', onGestureChange);
  svg.addEventListener('mousedown', onDown);
  svg.addEventListener('click', onClick, true);
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
    get auto() {
      return auto;
    },
    fit() {
      const b = box();
      Object.assign(state, fitTransform(options.width, options.height, b.width, b.height));
      auto = true;
      apply();
    },
    actualSize() {
      const b = box();
      state.scale = 1;
      state.tx = b.width > options.width ? (b.width - options.width) / 2 : 0;
      state.ty = 0;
      auto = false;
      apply();
    },
    zoom(factor: number, cx = 0, cy = 0) {
      zoomAt(factor, cx, cy);
      userChange();
    },
    pan(dx: number, dy: number) {
      state.tx += dx;
      state.ty += dy;
      userChange();
    },
    set(t: ITransform) {
      Object.assign(state, t);
      apply();
    },
    dispose() {
      svg.removeEventListener('wheel', onWheel);
      svg.removeEventListener('gesturestart', onGestureStart);
      svg.removeEventListener('gesturechange', onGestureChange);
      svg.removeEventListener('mousedown', onDown);
      svg.removeEventListener('click', onClick, true);
      window.removeEventListener('mousemove', onMove);
      window.removeEventListener('mouseup', onUp);
    }
  } as IPanZoom;
  apply();
  return api;
}
