/**
 * The layout worker: its message protocol (pure functions), the client that talks to it (with a
 * fake worker: jsdom has no Worker), and the fallback to main-thread layouts.
 */
import { GraphCanvas } from '../graph/canvas';
import { toDot } from '../graph/dot';
import {
  IWorkerLike,
  layoutDot,
  setWorkerMinStatements,
  dotStatements,
  layoutOnMainThread,
  layoutWorker,
  LayoutWorkerClient,
  setLayoutWorker,
  viz,
  WorkerUnavailableError
} from '../graph/layout';
import { visibleGraph } from '../graph/model';
import {
  answer,
  errorMessage,
  ILayoutRequest,
  isLayoutRequest,
  isWorkerMessage,
  layoutRequest,
  READY
} from '../graph/worker_protocol';
import { chainGraph, mlpGraph } from './fixtures';

type Listener = (ev: { data?: unknown; message?: string }) => void;

/**
 * A stand-in for a Worker: records requests; the test answers them. Like the real worker it says
 * `ready` once started (once the client listens), unless `autoReady` is false.
 */
class FakeWorker implements IWorkerLike {
  requests: ILayoutRequest[] = [];
  terminated = false;
  private _listeners = new Map<string, Listener[]>();

  constructor(private _autoReady = true) {}

  postMessage(message: ILayoutRequest): void {
    // a real worker gets a structured clone
    this.requests.push(JSON.parse(JSON.stringify(message)));
  }

  addEventListener(type: string, listener: Listener): void {
    this._listeners.set(type, [...(this._listeners.get(type) || []), listener]);
    if (type === 'message' && this._autoReady) {
      setTimeout(() => this.send(READY), 0);
    }
  }

  terminate(): void {
    this.terminated = true;
  }

  emit(type: 'message' | 'error' | 'messageerror', ev: { data?: unknown; message?: string }): void {
    (this._listeners.get(type) || []).forEach(l => l(ev));
  }

  send(data: unknown): void {
    this.emit('message', { data });
  }
}

/** Let queued callbacks (worker start, `ready`, postMessage) run. */
const flush = (): Promise<void> => new Promise(resolve => setTimeout(resolve, 0));

/** A client over a fake worker; the worker starts with the first request. */
function fakeClient(autoReady = true, startTimeoutMs = 10000): { client: LayoutWorkerClient; worker: FakeWorker } {
  const worker = new FakeWorker(autoReady);
  const client = new LayoutWorkerClient(() => Promise.resolve(worker), { startTimeoutMs });
  return { client, worker };
}

/** A fake worker that answers like the real one: Graphviz (here, on the main thread) behind the protocol. */
function graphvizWorker(): FakeWorker {
  const worker = new FakeWorker();
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (message: ILayoutRequest) => {
    post(message);
    void viz().then(instance => worker.send(answer(message, dot => instance.renderJSON(dot))));
  };
  return worker;
}

const GV = { bb: '0,0,10,10', objects: [], edges: [] };

describe('worker protocol', () => {
  it('builds and recognises layout requests', () => {
    const req = layoutRequest(7, 'digraph { a -> b }');
    expect(req).toEqual({ type: 'layout', id: 7, dot: 'digraph { a -> b }' });
    expect(isLayoutRequest(req)).toBe(true);
    expect(isLayoutRequest(JSON.parse(JSON.stringify(req)))).toBe(true);
    for (const bad of [null, undefined, 'layout', 3, {}, { type: 'layout', id: '7', dot: '' }, { type: 'layout', id: 1 }, { type: 'result', id: 1, dot: '' }]) {
      expect(isLayoutRequest(bad)).toBe(false);
    }
  });

  it('recognises the worker messages and rejects malformed ones', () => {
    expect(isWorkerMessage(READY)).toBe(true);
    expect(isWorkerMessage({ type: 'result', id: 1, gv: GV })).toBe(true);
    expect(isWorkerMessage({ type: 'error', id: 1, message: 'syntax error' })).toBe(true);
    expect(isWorkerMessage({ type: 'failed', message: 'no WASM' })).toBe(true);
    for (const bad of [
      null,
      'ready',
      { type: 'result', id: 1 },
      { type: 'result', id: '1', gv: GV },
      { type: 'result', id: 1, gv: 'json' },
      { type: 'error', id: 1 },
      { type: 'failed' },
      { type: 'layout', id: 1, dot: '' },
      { type: 'other' }
    ]) {
      expect(isWorkerMessage(bad)).toBe(false);
    }
  });

  it('answers a request with the result or Graphviz error of the same id', () => {
    const req = layoutRequest(3, 'digraph {}');
    expect(answer(req, dot => ({ ...GV, dot }))).toEqual({ type: 'result', id: 3, gv: { ...GV, dot: 'digraph {}' } });
    const failed = answer(req, () => {
      throw new Error('syntax error in line 1 near }');
    });
    expect(failed).toEqual({ type: 'error', id: 3, message: 'syntax error in line 1 near }' });
    expect(isWorkerMessage(failed)).toBe(true);
  });

  it('turns anything thrown into a message', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage({ message: 'plain object' })).toBe('plain object');
    expect(errorMessage('text')).toBe('text');
    expect(errorMessage(42)).toBe('42');
  });
});

describe('LayoutWorkerClient (fake worker)', () => {
  it('starts the worker on the first request and matches answers to requests by id', async () => {
    let created = 0;
    const worker = new FakeWorker(false);
    const client = new LayoutWorkerClient(() => {
      created++;
      return Promise.resolve(worker);
    });
    expect(created).toBe(0);
    const a = client.layout('digraph { a }');
    const b = client.layout('digraph { b }');
    await flush();
    expect(created).toBe(1);
    expect(client.ready).toBe(false);
    worker.send(READY);
    expect(client.ready).toBe(true);
    expect(worker.requests.map(r => r.dot)).toEqual(['digraph { a }', 'digraph { b }']);
    const [ra, rb] = worker.requests;
    expect(ra.id).not.toBe(rb.id);
    // answered out of order, and with noise in between
    worker.send({ type: 'result', id: rb.id, gv: { bb: 'b' } });
    worker.send({ type: 'bogus' });
    worker.send({ type: 'result', id: 999, gv: { bb: 'unknown id' } });
    worker.send({ type: 'result', id: ra.id, gv: { bb: 'a' } });
    await expect(a).resolves.toEqual({ bb: 'a' });
    await expect(b).resolves.toEqual({ bb: 'b' });
    client.dispose();
    expect(worker.terminated).toBe(true);
  });

  it("rejects with Graphviz's error and keeps the worker", async () => {
    const { client, worker } = fakeClient();
    const p = client.layout('digraph {');
    await flush();
    worker.send({ type: 'error', id: worker.requests[0].id, message: 'syntax error in line 1' });
    await expect(p).rejects.toThrow('syntax error in line 1');
    await expect(p).rejects.not.toBeInstanceOf(WorkerUnavailableError);
    expect(client.failure).toBeNull();
    const q = client.layout('digraph { a }');
    await flush();
    worker.send({ type: 'result', id: worker.requests[1].id, gv: GV });
    await expect(q).resolves.toEqual(GV);
    expect(worker.terminated).toBe(false);
    client.dispose();
  });

  it('fails every pending and later request when the worker errors', async () => {
    const { client, worker } = fakeClient();
    const p = client.layout('digraph { a }');
    const q = client.layout('digraph { b }');
    await flush();
    worker.emit('error', { message: 'Uncaught SyntaxError' });
    await expect(p).rejects.toBeInstanceOf(WorkerUnavailableError);
    await expect(q).rejects.toThrow('Uncaught SyntaxError');
    expect(worker.terminated).toBe(true);
    expect(client.failure).toContain('Uncaught SyntaxError');
    await expect(client.layout('digraph { c }')).rejects.toBeInstanceOf(WorkerUnavailableError);
    expect(worker.requests).toHaveLength(2);
  });

  it('fails when the worker cannot be created', async () => {
    const client = new LayoutWorkerClient(() => {
      throw new Error('SecurityError: workers are blocked');
    });
    await expect(client.layout('digraph {}')).rejects.toBeInstanceOf(WorkerUnavailableError);
    expect(client.failure).toContain('workers are blocked');
    const rejecting = new LayoutWorkerClient(() => Promise.reject(new Error('ChunkLoadError')));
    await expect(rejecting.layout('digraph {}')).rejects.toThrow('ChunkLoadError');
  });

  it('fails when the worker does not say ready in time', async () => {
    const { client, worker } = fakeClient(false, 20);
    const p = client.layout('digraph {}');
    await expect(p).rejects.toThrow('did not start within 20 ms');
    await expect(p).rejects.toBeInstanceOf(WorkerUnavailableError);
    expect(worker.terminated).toBe(true);
  });

  it('fails when Graphviz cannot load in the worker, or a message cannot be read', async () => {
    const { client, worker } = fakeClient();
    const p = client.layout('digraph {}');
    await flush();
    worker.send({ type: 'failed', message: 'WebAssembly is not defined' });
    await expect(p).rejects.toThrow('WebAssembly is not defined');
    await expect(p).rejects.toBeInstanceOf(WorkerUnavailableError);

    const other = fakeClient();
    const q = other.client.layout('digraph {}');
    await flush();
    other.worker.emit('messageerror', {});
    await expect(q).rejects.toBeInstanceOf(WorkerUnavailableError);
  });
});

describe('layoutDot: worker or main thread', () => {
  beforeAll(() => setWorkerMinStatements(0)); // these small test graphs take the worker path too
  afterAll(() => setWorkerMinStatements(1500));
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    setLayoutWorker(undefined);
    warn.mockRestore();
  });

  it('lays out on the main thread where there are no workers (jsdom)', async () => {
    expect(typeof (globalThis as { Worker?: unknown }).Worker).toBe('undefined');
    expect(layoutWorker()).toBeNull();
    const vis = visibleGraph(mlpGraph());
    const layout = await layoutDot(toDot(vis));
    expect(layout.nodes.size).toBe(vis.nodes.length);
    expect(warn).not.toHaveBeenCalled();
  }, 30000);

  it('gives the same layout through the worker as on the main thread', async () => {
    const worker = graphvizWorker();
    setLayoutWorker(new LayoutWorkerClient(() => Promise.resolve(worker)));
    const dot = toDot(visibleGraph(mlpGraph()));
    const viaWorker = await layoutDot(dot);
    expect(worker.requests).toHaveLength(1);
    expect(viaWorker).toEqual(await layoutOnMainThread(dot));
    // Graphviz's errors come back as they are, without a second try on the main thread
    await expect(layoutDot('digraph {')).rejects.toThrow(/syntax error/i);
    await expect(layoutDot('digraph {')).rejects.not.toBeInstanceOf(WorkerUnavailableError);
    expect(worker.requests).toHaveLength(3);
    expect(warn).not.toHaveBeenCalled();
  }, 30000);

  it('falls back to the main thread when the worker fails, and stays there', async () => {
    const worker = new FakeWorker();
    let created = 0;
    setLayoutWorker(
      new LayoutWorkerClient(() => {
        created++;
        return Promise.resolve(worker);
      })
    );
    const vis = visibleGraph(mlpGraph());
    const pending = layoutDot(toDot(vis));
    await flush();
    worker.emit('error', { message: 'NetworkError: worker script failed to load' });
    const layout = await pending;
    expect(layout.nodes.size).toBe(vis.nodes.length);
    expect(worker.terminated).toBe(true);
    const again = await layoutDot(toDot(visibleGraph(chainGraph(3, 1))));
    expect(again.nodes.size).toBe(4);
    expect(created).toBe(1);
    expect(worker.requests).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('main thread');
  }, 30000);

  it('falls back to the main thread when the worker cannot be created', async () => {
    setLayoutWorker(new LayoutWorkerClient(() => Promise.reject(new Error('ChunkLoadError'))));
    const layout = await layoutDot(toDot(visibleGraph(chainGraph(3, 1))));
    expect(layout.nodes.size).toBe(4);
  }, 30000);

  it('still drops a stale layout answered after a newer one', async () => {
    const worker = new FakeWorker();
    setLayoutWorker(new LayoutWorkerClient(() => Promise.resolve(worker)));
    const canvas = new GraphCanvas(); // default layout: layoutDot, through the worker
    const first = canvas.setGraph(mlpGraph());
    await flush();
    canvas.setGraph(chainGraph(3, 1)); // replaces the graph before the first layout is back
    await flush();
    expect(worker.requests).toHaveLength(2);
    const instance = await viz();
    const [older, newer] = worker.requests;
    worker.send(answer(newer, dot => instance.renderJSON(dot)));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(4);
    worker.send(answer(older, dot => instance.renderJSON(dot)));
    await first;
    expect(canvas.node.getAttribute('data-hl-state')).toBe('ready');
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(4);
    canvas.dispose();
  }, 30000);
});

describe('the worker threshold', () => {
  it('counts statements and keeps small graphs on the main thread', async () => {
    expect(dotStatements('digraph {\n a;\n b;\n a -> b;\n}')).toBe(4);
    const posted: unknown[] = [];
    setLayoutWorker({ layout: (dot: string) => { posted.push(dot); return Promise.reject(new Error('unused')); }, dispose: () => undefined } as any);
    const layout = await layoutDot(toDot(visibleGraph(chainGraph(3, 1))));
    expect(posted).toEqual([]);
    expect(layout).toBeDefined();
    setLayoutWorker(undefined);
  });
});
