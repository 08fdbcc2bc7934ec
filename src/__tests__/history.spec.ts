// The build history panel (`HistoryPanel`) with a fake layout (a grid: jsdom has no geometry and
// the panel's logic needs none), and its widget view against a minimal in-memory stand-in for
// @jupyter-widgets/base (`widget_base_stub.ts`).
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { ILayout } from '../graph/layout';
import { IBuildRecord, IGraphJSON } from '../tokens';
import {
  BuildHistoryModel,
  BuildHistoryView,
  changeText,
  defaultPicks,
  HistoryPanel
} from '../widgets/history';
import { memoryText, msText } from '../units';
import { HOSTILE, HOSTILE_BLOCK, hostileGraph, mlpGraph } from './fixtures';

/** Every DOT node statement (`n3;`, `n0 [width=...];`, `g1 [...]`) on a grid; no edges, no clusters. */
const layouts: string[] = [];
function gridLayout(dot: string): Promise<ILayout> {
  layouts.push(dot);
  const keys = Array.from(dot.matchAll(/^\s*([ng]\d+)(?: \[[^\]]*\])?;$/gm)).map(m => m[1]);
  const nodes = new Map(keys.map((k, i) => [k, { x: 80 + 160 * (i % 4), y: 30 + 60 * Math.floor(i / 4), width: 137, height: 36 }]));
  return Promise.resolve({ width: 640, height: 60 * Math.ceil(keys.length / 4) + 30, nodes, clusters: new Map(), edges: [] });
}

/** The MLP after a change: the first relu became tanh, a softmax was added after the last layer. */
function changedGraph(): IGraphJSON {
  const g = mlpGraph();
  g.nodes[4].attrs.act_type = 'tanh';
  const id = g.nodes.length;
  g.nodes.push({ ...g.nodes[11], id, name: 'mlp_softmax', op: 'softmax', attrs: {}, inputs: [[11, 0]] });
  g.heads = [[id, 0]];
  return g;
}

function record(index: number, graph: IGraphJSON | Record<string, never>, extra: Partial<IBuildRecord> = {}): IBuildRecord {
  return {
    index, time: `12:00:0${index}`, reason: index ? 'new input signature' : 'first call',
    detail: index ? `data: (${index}, 512) float32 -> (${index + 1}, 512) float32` : 'data=(1, 512) float32',
    signature: `data=(${index + 1}, 512) float32, device=cpu(0), predict`, flags: '', build_ms: 3.25 + index,
    memory_bytes: null, retraced: true, nodes: 'nodes' in graph ? graph.nodes.length : 0, graph, ...extra
  };
}

/** Three builds: the MLP, the changed MLP, the changed MLP again (not traced again, static_alloc). */
function threeBuilds(): IBuildRecord[] {
  const changed = changedGraph();
  return [
    record(0, mlpGraph()),
    record(1, changed),
    record(2, changed, { reason: 'hybridize flags changed', detail: 'static_alloc: False -> True', flags: 'static_alloc=True', memory_bytes: 1536, retraced: false })
  ];
}

const rows = (p: HistoryPanel): HTMLElement[] => Array.from(p.node.querySelectorAll<HTMLElement>('tr.hl-history-row'));
const pressed = (p: HistoryPanel, side: 'a' | 'b'): string[] =>
  rows(p).filter(r => r.querySelector(`.hl-pick-${side}`)!.getAttribute('aria-pressed') === 'true').map(r => r.dataset.hlBuild!);
const side = (p: HistoryPanel, which: 'a' | 'b'): HTMLElement => p.node.querySelector(`.hl-history-side[data-hl-side="${which}"]`)!;
const markOf = (p: HistoryPanel, which: 'a' | 'b', node: string): string | null => {
  const el = Array.from(side(p, which).querySelectorAll('[data-hl-node]')).find(e => e.getAttribute('data-hl-node') === node);
  return el ? el.getAttribute('data-hl-mark') : 'not drawn';
};
const summary = (p: HistoryPanel): string => p.node.querySelector('.hl-history-diff')!.textContent!;

describe('HistoryPanel', () => {
  let panel: HistoryPanel;
  beforeEach(() => {
    layouts.length = 0;
    panel = new HistoryPanel({ layout: gridLayout });
    document.body.appendChild(panel.node);
  });
  afterEach(() => panel.dispose());

  it('lists one row per build and picks the last two by default', async () => {
    panel.setStatus('mlp: 3 builds; the last: hybridize flags changed');
    await panel.setBuilds(threeBuilds());
    expect(panel.node.querySelector(':scope > .hl-status')!.textContent).toBe('mlp: 3 builds; the last: hybridize flags changed');
    expect(rows(panel).map(r => r.dataset.hlBuild)).toEqual(['0', '1', '2']);
    const cells = Array.from(rows(panel)[2].querySelectorAll('td')).slice(1).map(td => td.textContent);
    expect(cells).toEqual(['2', '12:00:02', 'hybridize flags changed', 'static_alloc: False -> True', 'static_alloc=True', '5.25', '1.5 KiB', 'no']);
    expect(rows(panel)[0].querySelector('.hl-history-memory')!.textContent).toBe('—');
    expect(panel.picks).toEqual({ a: 1, b: 2 });
    expect(pressed(panel, 'a')).toEqual(['1']);
    expect(pressed(panel, 'b')).toEqual(['2']);
    expect(side(panel, 'a').querySelector('.hl-history-caption')!.textContent).toBe('A: build #1 (new input signature)');
    expect(side(panel, 'b').querySelector('.hl-history-caption')!.textContent).toBe('B: build #2 (hybridize flags changed)');
    // the same graph on both sides: nothing marked
    expect(summary(panel)).toBe('build #1 → #2: the same graph');
    expect(panel.node.querySelectorAll('.hl-history-pair > .hl-history-side')).toHaveLength(2);
    expect(side(panel, 'a').querySelector('.hl-graph')!.getAttribute('data-hl-state')).toBe('ready');
    expect(side(panel, 'b').querySelectorAll('[data-hl-node]')).toHaveLength(changedGraph().nodes.length);
    expect(panel.node.querySelectorAll('.hl-marked')).toHaveLength(0);
  });

  it('with one build, shows it on both sides', async () => {
    await panel.setBuilds([record(0, mlpGraph())]);
    expect(panel.picks).toEqual({ a: 0, b: 0 });
    expect(pressed(panel, 'a')).toEqual(['0']);
    expect(pressed(panel, 'b')).toEqual(['0']);
    expect(summary(panel)).toBe('build #0 → #0: the same graph');
  });

  it('marks what B added and changed on B, what it removed and changed on A', async () => {
    await panel.setBuilds(threeBuilds());
    rows(panel)[0].querySelector<HTMLButtonElement>('.hl-pick-a')!.click();
    rows(panel)[1].querySelector<HTMLButtonElement>('.hl-pick-b')!.click();
    await panel.rendered;
    expect(panel.picks).toEqual({ a: 0, b: 1 });
    expect(pressed(panel, 'a')).toEqual(['0']);
    expect(pressed(panel, 'b')).toEqual(['1']);
    expect(rows(panel)[0].classList.contains('hl-picked-a')).toBe(true);
    expect(markOf(panel, 'b', 'mlp_softmax')).toBe('added');
    expect(markOf(panel, 'b', 'mlp_dense0_relu_fwd')).toBe('changed');
    expect(markOf(panel, 'a', 'mlp_dense0_relu_fwd')).toBe('changed');
    expect(markOf(panel, 'a', 'mlp_softmax')).toBe('not drawn');
    expect(markOf(panel, 'a', 'mlp_dense0_fwd')).toBeNull();
    expect(markOf(panel, 'b', 'mlp_dense0_fwd')).toBeNull();
    const changed = side(panel, 'b').querySelector('[data-hl-node="mlp_dense0_relu_fwd"]')!;
    expect(changed.getAttribute('class')).toContain('hl-marked hl-mark-changed');
    expect(changed.querySelector('title')!.textContent).toContain('changed since build #0: act_type relu → tanh');
    expect(side(panel, 'b').querySelector('[data-hl-node="mlp_softmax"] title')!.textContent).toContain('added since build #0');
    expect(summary(panel)).toBe('build #0 → #1: 1 added, 0 removed, 1 changed: mlp_dense0_relu_fwd (act_type relu → tanh)');

    // the other way round: B's softmax is gone, marked removed on A
    panel.pick('a', 1);
    await panel.pick('b', 0);
    expect(markOf(panel, 'a', 'mlp_softmax')).toBe('removed');
    expect(side(panel, 'a').querySelector('[data-hl-node="mlp_softmax"] title')!.textContent).toContain('removed in build #0');
    expect(summary(panel)).toBe('build #1 → #0: 0 added, 1 removed, 1 changed: mlp_dense0_relu_fwd (act_type tanh → relu)');
  });

  it('keeps the picks on new builds while they exist, else goes back to the defaults', async () => {
    await panel.setBuilds(threeBuilds());
    await panel.pick('a', 0);
    expect(panel.picks).toEqual({ a: 0, b: 2 });
    const four = [...threeBuilds(), record(3, mlpGraph())];
    await panel.setBuilds(four);
    expect(panel.picks).toEqual({ a: 0, b: 3 }); // A chosen, kept; B the default: the new last build
    await panel.setBuilds(four.slice(1)); // the kernel keeps the newest `limit`: build #0 is gone
    expect(panel.picks).toEqual({ a: 2, b: 3 });
    expect(pressed(panel, 'a')).toEqual(['2']);
    await panel.setBuilds([]);
    expect(panel.picks).toEqual({ a: null, b: null });
    expect(rows(panel)).toHaveLength(0);
    expect(summary(panel)).toBe('');
    expect(side(panel, 'a').querySelector('.hl-history-caption')!.textContent).toBe('A: no build yet');
  });

  it('does not lay a graph out again when an update leaves it as it was', async () => {
    const builds = threeBuilds();
    await panel.setBuilds(builds);
    const before = layouts.length;
    await panel.setBuilds(JSON.parse(JSON.stringify(builds))); // the same state, synced again
    expect(layouts.length).toBe(before);
  });

  it('shows a build that kept no graph as such', async () => {
    await panel.setBuilds([record(0, mlpGraph()), record(1, {})]);
    expect(summary(panel)).toBe('build #0 → #1: build #1 kept no graph to compare');
    expect(side(panel, 'b').querySelector('.hl-graph')!.getAttribute('data-hl-state')).toBe('empty');
    expect(side(panel, 'b').querySelector('.hl-graph .hl-status')!.textContent).toBe('Build #1 kept no graph.');
  });

  it('shows hostile names, reasons and flags as text, never HTML', async () => {
    const g = hostileGraph();
    const g2 = hostileGraph();
    const node = g2.nodes.find(n => n.op !== 'null')!;
    node.attrs.num_hidden = HOSTILE;
    await panel.setBuilds([
      record(0, g, { reason: HOSTILE, detail: HOSTILE_BLOCK, flags: `${HOSTILE}=True` }),
      record(1, g2, { reason: `shape read at ${HOSTILE}.py:3 changed`, signature: HOSTILE })
    ]);
    panel.setStatus(`${HOSTILE_BLOCK}: 2 builds`);
    expect(panel.node.querySelector('img')).toBeNull();
    expect(panel.node.querySelector(':scope > .hl-status')!.textContent).toBe(`${HOSTILE_BLOCK}: 2 builds`);
    const cells = Array.from(rows(panel)[0].querySelectorAll('td')).map(td => td.textContent);
    expect(cells).toContain(HOSTILE);
    expect(cells).toContain(`${HOSTILE}=True`);
    expect(side(panel, 'a').querySelector('.hl-history-caption')!.textContent).toBe(`A: build #0 (${HOSTILE})`);
    expect(summary(panel)).toContain(`${node.name} (num_hidden`);
    expect(summary(panel)).toContain(`→ ${HOSTILE})`);
    const marked = side(panel, 'b').querySelector('.hl-mark-changed')!;
    expect(marked.getAttribute('data-hl-node')).toBe(node.name);
  });

  it('dispose removes the panel and its canvases', async () => {
    await panel.setBuilds(threeBuilds());
    panel.dispose();
    expect(document.body.querySelector('.hl-history')).toBeNull();
    expect(document.body.querySelector('.hl-graph')).toBeNull();
  });
});

describe('history helpers', () => {
  it('formats memory and build times as the kernel does', () => {
    expect([0, 288, 1023, 1024, 1536, 5 * 2 ** 20].map(memoryText)).toEqual(['0 B', '288 B', '1023 B', '1.0 KiB', '1.5 KiB', '5.0 MiB']);
    expect(memoryText(null)).toBe('—');
    expect([0.5, 3.564, 12.34, 1204.4].map(msText)).toEqual(['0.50', '3.56', '12.3', '1204']);
    expect(msText(null)).toBe('—');
  });

  it('default picks: the build before the last and the last', () => {
    expect(defaultPicks([])).toEqual({ a: null, b: null });
    expect(defaultPicks(threeBuilds().slice(2))).toEqual({ a: 2, b: 2 });
    expect(defaultPicks(threeBuilds())).toEqual({ a: 1, b: 2 });
  });

  it('says what changed in a node: op, attributes, inputs', () => {
    const a = mlpGraph();
    const b = mlpGraph();
    b.nodes[3].op = 'Dense';
    b.nodes[3].attrs.num_hidden = '64';
    delete b.nodes[3].attrs.flatten;
    b.nodes[3].inputs = [[0, 0], [1, 0]];
    expect(changeText('mlp_dense0_fwd', a, b)).toBe(
      'op FullyConnected → Dense; flatten True → —; num_hidden 256 → 64; inputs (data, mlp_dense0_weight, mlp_dense0_bias) → (data, mlp_dense0_weight)'
    );
    expect(changeText('nowhere', a, b)).toBe('');
  });
});

describe('BuildHistoryView', () => {
  type Settable = { set(values: { [key: string]: unknown }): void; trigger(event: string): void; comm_live: boolean };

  it("shows the kernel's builds and status and follows them; says when the kernel is gone", async () => {
    const model = new BuildHistoryModel({ block: 'mlp', builds: threeBuilds().slice(0, 2), status: 'mlp: 2 builds; the last: new input signature' } as never) as unknown as BuildHistoryModel & Settable;
    const view = new BuildHistoryView({ model } as never);
    view.render();
    await view.rendered;
    expect(view.el.classList.contains('hl-history-widget')).toBe(true);
    expect(view.el.querySelector('.hl-status')!.textContent).toBe('mlp: 2 builds; the last: new input signature');
    expect(view.panel!.picks).toEqual({ a: 0, b: 1 });
    model.set({ builds: threeBuilds(), status: 'mlp: 3 builds; the last: hybridize flags changed' });
    await view.rendered;
    expect(view.el.querySelectorAll('tr.hl-history-row')).toHaveLength(3);
    expect(view.panel!.picks).toEqual({ a: 1, b: 2 });
    expect(view.el.querySelector('.hl-status')!.textContent).toBe('mlp: 3 builds; the last: hybridize flags changed');
    model.comm_live = false;
    model.trigger('comm_live_update');
    expect(view.el.querySelector('.hl-status')!.textContent).toContain('Disconnected from the kernel');
    expect(view.el.querySelector('.hl-history')!.getAttribute('data-hl-state')).toBe('disconnected');
    expect(view.el.querySelectorAll('tr.hl-history-row')).toHaveLength(3); // the last builds stay
    view.remove();
    expect(view.panel).toBeNull();
  }, 30000); // the view draws with the real Graphviz (WASM)

  it('has the model defaults the kernel expects', () => {
    const defaults = new BuildHistoryModel().defaults() as { [key: string]: unknown };
    expect(defaults).toMatchObject({ _model_name: 'BuildHistoryModel', _view_name: 'BuildHistoryView', _model_module: 'hybridlab', block: '', builds: [], status: '' });
  });
});
