/**
 * What every hybridlab widget view does with its root, in one place: it owns the keyboard
 * (`../keyboard.ts`), its manager is remembered so the notebook saves its state
 * (`../saved_state.ts`), and it says so when the kernel is gone — a restarted kernel, or a
 * model restored from the notebook's saved state, which never had one.
 */
import { DOMWidgetView } from '@jupyter-widgets/base';

import { ownKeyboard } from '../keyboard';
import { trackManager } from '../saved_state';

/** The "live" tag of a view that follows its block (`follows`), first in the view's root. */
function liveBadge(root: HTMLElement): HTMLSpanElement {
  const badge = document.createElement('span');
  badge.className = 'hl-live';
  badge.textContent = '● live';
  badge.title = 'This view follows the block: it shows the latest call, also calls made by later cells.';
  badge.setAttribute('role', 'note');
  root.classList.add('hl-follows');
  root.prepend(badge);
  return badge;
}

/** The status line of a view whose model has no kernel behind it; `what` is what it shows ("graph"). */
export function disconnectedText(what: string, saved: boolean): string {
  return saved
    ? `Saved with the notebook (no kernel connection): the last ${what} received. Re-run the cell for a live view.`
    : `Disconnected from the kernel (restarted, or the widget was closed): the last ${what} received. Re-run the cell to reconnect.`;
}

/**
 * Set up `view`'s root (call at the end of `render`). `follows`: the view follows its block
 * (graph, inspector, history), so it carries a "live" tag while connected. `onDisconnected(text)` shows
 * `disconnectedText(what, saved)` whenever the model has no live kernel connection: at once for a
 * model restored from the notebook's saved state (not live when first drawn), and when a live
 * connection goes. Returns a check the view calls again after a redraw rewrote its status line.
 */
export function widgetRoot(view: DOMWidgetView, what: string, onDisconnected: (text: string) => void, follows = false): () => void {
  ownKeyboard(view.el);
  trackManager(view.model.widget_manager);
  const saved = !view.model.comm_live; // restored from the notebook: it never had a kernel
  // a view that follows its block changes when later cells call it: say so while it is live
  const badge = follows ? liveBadge(view.el) : null;
  const check = (): void => {
    badge?.setAttribute('data-hl-live', view.model.comm_live ? 'true' : 'false');
    if (!view.model.comm_live) {
      onDisconnected(disconnectedText(what, saved));
    }
  };
  view.listenTo(view.model, 'comm_live_update', check);
  check();
  return check;
}
