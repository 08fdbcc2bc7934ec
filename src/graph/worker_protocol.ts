/**
 * The message protocol between the main thread and the Graphviz layout worker
 * (`layout.worker.ts`). Pure functions only, so jest tests cover them without a worker.
 *
 * - worker -> main, once its script has loaded: `{type: 'ready'}`;
 * - main -> worker: `{type: 'layout', id, dot}`;
 * - worker -> main, one answer per request, in order: `{type: 'result', id, gv}` (Graphviz's
 *   `json` output, parsed) or `{type: 'error', id, message}` (Graphviz rejected the DOT text);
 * - worker -> main, when the worker cannot lay out at all (Graphviz failed to load there):
 *   `{type: 'failed', message}`; the main thread then lays out itself.
 */

/** A layout request, main thread -> worker. */
export interface ILayoutRequest {
  type: 'layout';
  id: number;
  dot: string;
}

export interface IReadyMessage {
  type: 'ready';
}

export interface IResultMessage {
  type: 'result';
  id: number;
  gv: unknown;
}

export interface IErrorMessage {
  type: 'error';
  id: number;
  message: string;
}

export interface IFailedMessage {
  type: 'failed';
  message: string;
}

/** Worker -> main thread. */
export type WorkerMessage = IReadyMessage | IResultMessage | IErrorMessage | IFailedMessage;

export const READY: IReadyMessage = { type: 'ready' };

export function layoutRequest(id: number, dot: string): ILayoutRequest {
  return { type: 'layout', id, dot };
}

function isObject(data: unknown): data is Record<string, unknown> {
  return typeof data === 'object' && data !== null;
}

/** Whether `data` (a message the worker received) is a well-formed layout request. */
export function isLayoutRequest(data: unknown): data is ILayoutRequest {
  return isObject(data) && data.type === 'layout' && typeof data.id === 'number' && typeof data.dot === 'string';
}

/** Whether `data` (a message the main thread received) is a well-formed worker message. */
export function isWorkerMessage(data: unknown): data is WorkerMessage {
  if (!isObject(data)) {
    return false;
  }
  switch (data.type) {
    case 'ready':
      return true;
    case 'result':
      return typeof data.id === 'number' && isObject(data.gv);
    case 'error':
      return typeof data.id === 'number' && typeof data.message === 'string';
    case 'failed':
      return typeof data.message === 'string';
    default:
      return false;
  }
}

/** A readable message for anything thrown (Graphviz throws `Error`s; be lenient about the rest). */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (isObject(err) && typeof err.message === 'string') {
    return err.message;
  }
  return String(err);
}

/**
 * The worker's answer to `request`, given a Graphviz `renderJSON`: the result, or the error
 * Graphviz raised (as a message: `Error`s do not survive `postMessage` everywhere).
 */
export function answer(request: ILayoutRequest, renderJSON: (dot: string) => unknown): IResultMessage | IErrorMessage {
  try {
    return { type: 'result', id: request.id, gv: renderJSON(request.dot) };
  } catch (err) {
    return { type: 'error', id: request.id, message: errorMessage(err) };
  }
}
