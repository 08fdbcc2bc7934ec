/**
 * hybridlab widgets saved with the notebook, so that a notebook reopened without its kernel (or
 * trusted later) draws the last graph, inspector, timings, reports and build history instead of
 * "Error displaying widget: model not found".
 *
 * The @jupyter-widgets manager restores models from the notebook's `widgets` metadata
 * (`application/vnd.jupyter.widget-state+json`, the nbformat widget-state schema) on every open,
 * but writes it only when the user turned on "Save Widget State Automatically" (off by default).
 * On each save, `stateToSave` writes the state of the hybridlab models the outputs display (and
 * of the models they reference, e.g. a dashboard's children), and keeps every other entry as it
 * was: other widgets' saved state is left alone, and with the setting on the manager still writes
 * the whole state itself (after this, or before: either way the result holds ours).
 *
 * On each save the outputs' static snapshots are brought up to the widgets' state too
 * (`refreshedOutput`), so nbconvert, GitHub and an untrusted view show the last state, not the
 * state at display time. They are written to the notebook's shared model only (origin
 * `silent-change`, as JupyterLab syncs its own output changes), so the live views are not rebuilt.
 */
import { MODULE_NAME } from './tokens';

export const WIDGET_STATE_MIME = 'application/vnd.jupyter.widget-state+json';
export const WIDGET_VIEW_MIME = 'application/vnd.jupyter.widget-view+json';

/** One model's saved state (nbformat widget-state schema). */
export interface ISavedModel {
  model_name: string;
  model_module: string;
  model_module_version: string;
  state: { [key: string]: unknown };
  [key: string]: unknown;
}

/** The widget-state metadata of a notebook (`metadata.widgets[WIDGET_STATE_MIME]`). */
export interface IWidgetState {
  version_major: number;
  version_minor: number;
  state: { [modelId: string]: ISavedModel };
}

/** The part of an ipywidgets manager this needs (`ManagerBase`). */
export interface IStateSource {
  has_model(id: string): boolean;
  get_state_sync(options?: { drop_defaults?: boolean }): IWidgetState;
}

const REFERENCE = /^IPY_MODEL_(.+)$/;

/** The model ids referenced (`"IPY_MODEL_<id>"`) anywhere inside `value`. */
function references(value: unknown, out: Set<string>): Set<string> {
  if (typeof value === 'string') {
    const m = REFERENCE.exec(value);
    if (m) {
      out.add(m[1]);
    }
  } else if (Array.isArray(value)) {
    value.forEach(v => references(v, out));
  } else if (value && typeof value === 'object') {
    Object.values(value as object).forEach(v => references(v, out));
  }
  return out;
}

/** The model ids that notebook outputs (nbformat JSON) display as widgets. */
export function displayedModelIds(outputs: Iterable<unknown>): Set<string> {
  const ids = new Set<string>();
  for (const o of outputs) {
    const data = o && typeof o === 'object' ? (o as { data?: { [mime: string]: unknown } }).data : undefined;
    const view = data ? (data[WIDGET_VIEW_MIME] as { model_id?: unknown } | undefined) : undefined;
    if (view && typeof view.model_id === 'string' && view.model_id) {
      ids.add(view.model_id);
    }
  }
  return ids;
}

function isOurs(m: ISavedModel | undefined): boolean {
  return !!m && m.model_module === MODULE_NAME;
}

/**
 * The widget-state metadata to save: `existing` (what the notebook holds now) with its hybridlab
 * entries replaced by the hybridlab models an output displays (`shown`) and every model those
 * reference, taken from `live` (the managers' state) or, for a model no manager holds now,
 * from `existing` (a saved state is never lost while an output shows it). Null when there is
 * nothing of ours to write or to drop.
 *
 * ```ts
 * const meta = stateToSave(manager.get_state_sync({ drop_defaults: true }), displayedModelIds(outputs), old);
 * ```
 */
export function stateToSave(live: IWidgetState, shown: Set<string>, existing?: IWidgetState | null): IWidgetState | null {
  const before = existing?.state || {};
  const lookup = (id: string): ISavedModel | undefined => live.state[id] || before[id];
  const ours: { [id: string]: ISavedModel } = {};
  const todo = Array.from(shown).filter(id => isOurs(lookup(id)));
  while (todo.length) {
    const id = todo.pop()!;
    const m = lookup(id);
    if (!m || ours[id]) {
      continue;
    }
    ours[id] = withoutSnapshot(m);
    references(m.state, new Set()).forEach(ref => todo.push(ref));
  }
  const kept: { [id: string]: ISavedModel } = {};
  let dropped = false;
  for (const [id, m] of Object.entries(before)) {
    if (!isOurs(m)) {
      kept[id] = m;
    } else if (!ours[id]) {
      dropped = true;
    }
  }
  if (!Object.keys(ours).length && !dropped) {
    return null;
  }
  return { version_major: live.version_major, version_minor: live.version_minor, state: { ...kept, ...ours } };
}

/** `m` without its `snapshot` (the outputs hold it; the metadata need not hold it twice). */
function withoutSnapshot(m: ISavedModel): ISavedModel {
  if (!('snapshot' in m.state)) {
    return m;
  }
  const state = { ...m.state };
  delete state.snapshot;
  return { ...m, state };
}

export const GRAPH_MIME = 'application/vnd.hybridlab.graph+json';

/**
 * `output` (nbformat JSON) with the static snapshot of the hybridlab widget it displays brought up
 * to the widget's state in `models`: its `text/html` from the model's `snapshot` (the kernel's
 * `hybridlab.lab.snapshot`, refreshed after each cell), its graph JSON from a graph view's
 * `graph`. Null when the output shows no model of ours or is already current. (The kernel's
 * `refresh_notebook` does the same for notebooks saved without JupyterLab.)
 */
export function refreshedOutput(output: unknown, models: { [id: string]: ISavedModel | undefined }): unknown | null {
  const o = output as { data?: { [mime: string]: unknown } } | null;
  const data = o && typeof o === 'object' ? o.data : undefined;
  const view = data ? (data[WIDGET_VIEW_MIME] as { model_id?: unknown } | undefined) : undefined;
  const m = view && typeof view.model_id === 'string' ? models[view.model_id] : undefined;
  if (!data || !isOurs(m)) {
    return null;
  }
  const fresh: { [mime: string]: unknown } = {};
  const state = m!.state;
  if (typeof state.snapshot === 'string' && state.snapshot && data['text/html'] !== state.snapshot) {
    fresh['text/html'] = state.snapshot;
  }
  const graph = state.graph;
  if (GRAPH_MIME in data && graph && typeof graph === 'object' && Object.keys(graph).length && JSON.stringify(data[GRAPH_MIME]) !== JSON.stringify(graph)) {
    fresh[GRAPH_MIME] = graph;
  }
  return Object.keys(fresh).length ? { ...(o as object), data: { ...data, ...fresh } } : null;
}

/** The ipywidgets managers our views were drawn by (one per kernel connection). */
const managers = new Set<IStateSource>();

/** Remember the manager of a hybridlab view (called by every view's root, `widgets/root.ts`). */
export function trackManager(manager: unknown): void {
  const m = manager as Partial<IStateSource> | null;
  if (m && typeof m.get_state_sync === 'function' && typeof m.has_model === 'function') {
    managers.add(m as IStateSource);
  }
}

/** The managers' state (every model of each manager holding one of `shown`). */
export function liveWidgetState(shown: Set<string>): IWidgetState {
  const merged: IWidgetState = { version_major: 2, version_minor: 0, state: {} };
  for (const m of managers) {
    if (Array.from(shown).some(id => m.has_model(id))) {
      const s = m.get_state_sync({ drop_defaults: true });
      merged.version_major = s.version_major;
      merged.version_minor = s.version_minor;
      Object.assign(merged.state, s.state);
    }
  }
  return merged;
}
