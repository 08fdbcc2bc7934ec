/**
 * Keyboard ownership of a widget's root: no keystroke inside a hybridlab widget reaches the
 * notebook. In command mode JupyterLab binds plain letters (`d`,`d` deletes the cell, `b` inserts
 * one, ArrowDown moves to the next), so a focused Fit button or view selector would otherwise
 * edit the notebook.
 *
 * Two layers, because JupyterLab may process keydown events in either phase:
 * - Lumino's mechanism: `CommandRegistry.processKeydownEvent` skips every event whose target has
 *   an ancestor carrying `data-lm-suppress-shortcuts` (capture or bubble phase alike);
 * - the root stops the event's propagation (after the widget's own handlers ran), so listeners of
 *   the notebook and the document never see it either.
 * The widget's own keys (the graph canvas's arrows, +/-, 0, /, n/N, Enter, Esc) and the controls'
 * native keys (a select's arrows, a slider's arrows, typing in the search box) keep working.
 */

/** The attribute Lumino's command registry honours. */
export const SUPPRESS_SHORTCUTS = 'data-lm-suppress-shortcuts';

const STOPPED = ['keydown', 'keypress', 'keyup'];

function stop(ev: Event): void {
  ev.stopPropagation();
}

/**
 * Make `root` own every keystroke inside it (see the module comment). Returns `root`.
 *
 * ```ts
 * const view = document.createElement('div');
 * ownKeyboard(view);            // `d`,`d` on a button inside `view` no longer deletes the cell
 * ```
 */
export function ownKeyboard<T extends HTMLElement>(root: T): T {
  root.setAttribute(SUPPRESS_SHORTCUTS, 'true');
  for (const type of STOPPED) {
    root.addEventListener(type, stop);
  }
  return root;
}

/** Whether a key event's target is a text or choice control that uses plain keys itself. */
export function isFormField(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) {
    return false;
  }
  const tag = target.tagName.toLowerCase();
  return tag === 'input' || tag === 'select' || tag === 'textarea' || (target as HTMLElement).isContentEditable === true;
}
