/**
 * The Graphviz layout worker: runs `@viz-js/viz` (WASM, inlined as base64 in the bundle) off the
 * main thread. Messages: see `worker_protocol.ts`.
 *
 * This one module is both sides of the worker: `createLayoutWorker` (called on the main thread,
 * which imports this module lazily) starts it, and, evaluated inside a worker, it answers layout
 * requests. The `new Worker(new URL('./layout.worker.js', import.meta.url))` form is what the
 * bundler (rspack, through `@jupyter/builder`) recognises: it emits this module as a worker
 * chunk of its own. `import.meta` is also why nothing that jest loads imports this module.
 */
import { answer, errorMessage, ILayoutRequest, isLayoutRequest, READY, WorkerMessage } from './worker_protocol';

/** Start the layout worker. Throws where workers cannot be created. */
export function createLayoutWorker(): Worker {
  return new Worker(new URL('./layout.worker.js', import.meta.url));
}

/* The parts of a DedicatedWorkerGlobalScope used here (the DOM lib types `self` as a Window). */
interface IWorkerScope {
  postMessage(message: WorkerMessage): void;
  addEventListener(type: 'message', listener: (ev: MessageEvent) => void): void;
}

type VizInstance = { renderJSON(src: string): unknown };

function inWorker(): boolean {
  return (
    typeof document === 'undefined' &&
    typeof (globalThis as { importScripts?: unknown }).importScripts === 'function'
  );
}

if (inWorker()) {
  const scope = globalThis as unknown as IWorkerScope;
  let vizPromise: Promise<VizInstance> | null = null;
  let broken = false;
  const viz = (): Promise<VizInstance> => {
    if (!vizPromise) {
      vizPromise = import('@viz-js/viz').then(m => m.instance() as Promise<VizInstance>);
    }
    return vizPromise;
  };
  const handle = async (request: ILayoutRequest): Promise<void> => {
    let instance: VizInstance;
    try {
      instance = await viz();
    } catch (err) {
      // Graphviz cannot run here: say so once; the main thread lays out instead
      if (!broken) {
        broken = true;
        scope.postMessage({ type: 'failed', message: errorMessage(err) });
      }
      return;
    }
    scope.postMessage(answer(request, dot => instance.renderJSON(dot)));
  };
  scope.addEventListener('message', ev => {
    if (isLayoutRequest(ev.data)) {
      void handle(ev.data);
    }
  });
  scope.postMessage(READY);
}
