/**
 * Layout with Graphviz (`@viz-js/viz`, WASM), loaded on first use through a dynamic import so
 * it becomes a lazy chunk. `parseLayout` turns Graphviz's `json` output into screen
 * coordinates (points, y downwards).
 *
 * Where the browser has Web Workers, Graphviz runs in one (`layout.worker.ts`, one worker shared
 * by every graph view) so a large layout does not freeze the page; where workers are missing
 * (jsdom in jest) or the worker fails (does not start, crashes, cannot load Graphviz), layouts
 * run on the main thread as before.
 */
import { errorMessage, ILayoutRequest, isWorkerMessage, layoutRequest } from './worker_protocol';

/** A laid-out box: centre and size, in points. */
export interface IBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A laid-out edge: cubic B-spline points (start, then groups of 3), the arrow tip, the label position. */
export interface IEdgeLayout {
  tail: string;
  head: string;
  points: [number, number][];
  arrow: [number, number] | null;
  labelPos: [number, number] | null;
}

/** A cluster's bounding box and label position. */
export interface IClusterLayout {
  x: number;
  y: number;
  width: number;
  height: number;
  labelPos: [number, number] | null;
}

export interface ILayout {
  width: number;
  height: number;
  nodes: Map<string, IBox>;
  clusters: Map<string, IClusterLayout>;
  edges: IEdgeLayout[];
}

/* Graphviz's JSON output, only the parts read here. */
interface IGvObject {
  _gvid: number;
  name: string;
  pos?: string;
  width?: string;
  height?: string;
  bb?: string;
  lp?: string;
  nodes?: number[];
}

interface IGvEdge {
  tail: number;
  head: number;
  pos?: string;
  lp?: string;
}

export interface IGvJSON {
  bb: string;
  objects?: IGvObject[];
  edges?: IGvEdge[];
}

function nums(text: string): number[] {
  return text.split(',').map(Number);
}

/** Convert Graphviz `json` output (y upwards) to an `ILayout` (y downwards). */
export function parseLayout(gv: IGvJSON): ILayout {
  const [x0, y0, x1, y1] = nums(gv.bb);
  const height = y1 - y0;
  const fy = (y: number): number => y1 - y;
  const fx = (x: number): number => x - x0;
  const point = (p: string): [number, number] => {
    const [x, y] = nums(p);
    return [fx(x), fy(y)];
  };
  const nodes = new Map<string, IBox>();
  const clusters = new Map<string, IClusterLayout>();
  const names = new Map<number, string>();
  for (const o of gv.objects || []) {
    names.set(o._gvid, o.name);
    if (o.bb !== undefined && o.name.startsWith('cluster')) {
      const [a, b, c, d] = nums(o.bb);
      clusters.set(o.name, {
        x: fx(a),
        y: fy(d),
        width: c - a,
        height: d - b,
        labelPos: o.lp ? point(o.lp) : null
      });
    } else if (o.pos !== undefined) {
      const [x, y] = point(o.pos);
      nodes.set(o.name, {
        x,
        y,
        width: Number(o.width) * 72,
        height: Number(o.height) * 72
      });
    }
  }
  const edges: IEdgeLayout[] = [];
  for (const e of gv.edges || []) {
    const points: [number, number][] = [];
    let arrow: [number, number] | null = null;
    for (const tok of (e.pos || '').split(/\s+/).filter(Boolean)) {
      if (tok.startsWith('e,')) {
        arrow = point(tok.slice(2));
      } else if (tok.startsWith('s,')) {
        continue;
      } else {
        points.push(point(tok));
      }
    }
    edges.push({
      tail: names.get(e.tail) || '',
      head: names.get(e.head) || '',
      points,
      arrow,
      labelPos: e.lp ? point(e.lp) : null
    });
  }
  return { width: x1 - x0, height, nodes, clusters, edges };
}

type VizInstance = { renderJSON(src: string): unknown };
let vizPromise: Promise<VizInstance> | null = null;

/** The Graphviz instance, created once (the WASM module is compiled on first use). */
export function viz(): Promise<VizInstance> {
  if (!vizPromise) {
    vizPromise = import('@viz-js/viz').then(m => m.instance() as Promise<VizInstance>);
    vizPromise.catch(() => {
      vizPromise = null;
    });
  }
  return vizPromise;
}

/** Lay out DOT text with Graphviz `dot` on the main thread. */
export async function layoutOnMainThread(dot: string): Promise<ILayout> {
  const instance = await viz();
  const gv = instance.renderJSON(dot) as IGvJSON;
  return parseLayout(gv);
}

/** The parts of a `Worker` the client uses (tests pass fakes). */
export interface IWorkerLike {
  postMessage(message: ILayoutRequest): void;
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (ev: { data?: unknown; message?: string }) => void): void;
  terminate(): void;
}

/** The worker cannot lay out (did not start, crashed, has no Graphviz): lay out elsewhere. */
export class WorkerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerUnavailableError';
  }
}

export interface ILayoutWorkerClientOptions {
  /** How long the worker may take to load its script and say `ready` (ms). */
  startTimeoutMs?: number;
}

/**
 * Sends layout requests to one worker, started on the first request, and matches the answers
 * to them by id. `layout` resolves to Graphviz's JSON output, rejects with Graphviz's error, or
 * rejects with `WorkerUnavailableError` once the worker has failed (every pending request and
 * every later one).
 */
export class LayoutWorkerClient {
  constructor(create: () => Promise<IWorkerLike>, options: ILayoutWorkerClientOptions = {}) {
    this._create = create;
    this._startTimeoutMs = options.startTimeoutMs ?? 10000;
  }

  /** Why the worker failed, or null while it has not. */
  get failure(): string | null {
    return this._failure;
  }

  /** Whether the worker has said `ready`. */
  get ready(): boolean {
    return this._ready;
  }

  layout(dot: string): Promise<unknown> {
    if (this._failure !== null) {
      return Promise.reject(new WorkerUnavailableError(this._failure));
    }
    const id = this._nextId++;
    const result = new Promise<unknown>((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
    });
    this._start().then(
      worker => {
        if (this._failure === null) {
          worker.postMessage(layoutRequest(id, dot));
        }
      },
      () => undefined // _start has failed every pending request
    );
    return result;
  }

  /** Stop the worker; pending and later requests reject with `WorkerUnavailableError`. */
  dispose(): void {
    this._fail('the layout worker was stopped');
  }

  private _start(): Promise<IWorkerLike> {
    if (!this._worker) {
      this._worker = Promise.resolve()
        .then(() => this._create())
        .then(worker => {
          this._listen(worker);
          return worker;
        });
      this._worker.catch(err => this._fail(`could not start the layout worker: ${errorMessage(err)}`));
    }
    return this._worker;
  }

  private _listen(worker: IWorkerLike): void {
    this._started = worker;
    if (this._failure !== null) {
      worker.terminate();
      return;
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      if (!this._ready) {
        this._fail(`the layout worker did not start within ${this._startTimeoutMs} ms`);
      }
    }, this._startTimeoutMs);
    worker.addEventListener('message', ev => this._onMessage(ev.data));
    worker.addEventListener('error', ev => this._fail(`the layout worker failed: ${ev.message || 'error event'}`));
    worker.addEventListener('messageerror', () => this._fail('the layout worker sent an unreadable message'));
  }

  private _onMessage(data: unknown): void {
    if (this._failure !== null || !isWorkerMessage(data)) {
      return;
    }
    switch (data.type) {
      case 'ready':
        this._ready = true;
        this._clearTimer();
        return;
      case 'failed':
        this._fail(`Graphviz could not run in the layout worker: ${data.message}`);
        return;
      default: {
        const p = this._pending.get(data.id);
        if (!p) {
          return;
        }
        this._pending.delete(data.id);
        if (data.type === 'result') {
          p.resolve(data.gv);
        } else {
          p.reject(new Error(data.message));
        }
      }
    }
  }

  private _fail(reason: string): void {
    if (this._failure !== null) {
      return;
    }
    this._failure = reason;
    this._clearTimer();
    if (this._started) {
      this._started.terminate();
    }
    const pending = [...this._pending.values()];
    this._pending.clear();
    pending.forEach(p => p.reject(new WorkerUnavailableError(reason)));
  }

  private _clearTimer(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _create: () => Promise<IWorkerLike>;
  private _startTimeoutMs: number;
  private _worker: Promise<IWorkerLike> | null = null;
  private _started: IWorkerLike | null = null;
  private _ready = false;
  private _failure: string | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _nextId = 1;
  private _pending = new Map<number, { resolve: (gv: unknown) => void; reject: (err: unknown) => void }>();
}

/* The shared client: undefined until the first layout decides, null where there is no worker. */
let client: LayoutWorkerClient | null | undefined;

function defaultClient(): LayoutWorkerClient | null {
  if (typeof Worker === 'undefined') {
    return null;
  }
  // imported lazily: the module holds the `new Worker(new URL(..., import.meta.url))` that the
  // bundler turns into a worker chunk
  return new LayoutWorkerClient(() => import('./layout.worker').then(m => m.createLayoutWorker()));
}

/** The worker client layouts go through, or null where they run on the main thread. */
export function layoutWorker(): LayoutWorkerClient | null {
  if (client === undefined) {
    client = defaultClient();
  }
  return client;
}

/**
 * Replace the shared worker client (tests): a client, null for main-thread layouts only, or
 * undefined to decide again on the next layout. The previous client is disposed.
 */
export function setLayoutWorker(next: LayoutWorkerClient | null | undefined): void {
  if (client && client !== next) {
    client.dispose();
  }
  client = next;
}

let warned = false;

/**
 * Graphs smaller than this many DOT statements are laid out on the main thread: their layout takes
 * well under a frame budget's worth of blocking, while a worker round trip can wait behind the
 * page's own work (measured in benchmarks/render_graph.py). Larger ones go to the worker, where
 * keeping the page responsive pays.
 */
let workerMinStatements = 1500;

/** Change the worker threshold (tests: 0 sends every graph to the worker). */
export function setWorkerMinStatements(n: number): void {
  workerMinStatements = n;
}

/** The number of node and edge statements in `dot` (a cheap size measure: one per line). */
export function dotStatements(dot: string): number {
  let n = 0;
  for (let i = dot.indexOf('\n'); i !== -1; i = dot.indexOf('\n', i + 1)) {
    n++;
  }
  return n;
}

/**
 * Lay out DOT text with Graphviz `dot`: in the layout worker where there is one and the graph is large, else (or when
 * it fails) on the main thread. Graphviz's own errors (bad DOT text) reject either way.
 */
export async function layoutDot(dot: string): Promise<ILayout> {
  const worker = dotStatements(dot) >= workerMinStatements ? layoutWorker() : null;
  if (worker) {
    try {
      return parseLayout((await worker.layout(dot)) as IGvJSON);
    } catch (err) {
      if (!(err instanceof WorkerUnavailableError)) {
        throw err;
      }
      if (!warned) {
        warned = true;
        console.warn(`hybridlab: ${err.message}; laying out graphs on the main thread`);
      }
    }
  }
  return layoutOnMainThread(dot);
}
