/**
 * Where the graph's "Open in a tab" puts its tab: JupyterLab's main area, handed over by the
 * widgets plugin when it activates (`index.ts`), before any view renders. Null in jest and
 * outside JupyterLab, and then the views offer no such button.
 */
import { Widget } from '@lumino/widgets';

let addToMainArea: ((w: Widget) => void) | null = null;

/** Called by the widgets plugin with a function that adds a widget to the main area. */
export function setMainArea(add: ((w: Widget) => void) | null): void {
  addToMainArea = add;
}

/** The function that adds a widget to the main area (null: none here). */
export function mainArea(): ((w: Widget) => void) | null {
  return addToMainArea;
}
