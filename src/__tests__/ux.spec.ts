/**
 * UX logic found lacking by the UX probe: scope wrappers, "1 node", per-pass changes, wheel and
 * fit navigation, the generated-source view's controls, the timing panel's idle progress bar.
 */
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { GraphCanvas } from '../graph/canvas';
import { toDot } from '../graph/dot';
import { defaultCollapsed, nodeCount, scopeKey, scopeTree, visibleGraph } from '../graph/model';
import { fitTransform, panZoom, wheelFactor } from '../graph/panzoom';
import { passDiff, passSummary } from '../graph/passdiff';
import { IGraphJSON, IGraphNode } from '../tokens';
import { TimingPanelDOM } from '../widgets/timing';
import { mlpGraph } from './fixtures';

function opNode(id: number, name: string, scope: string[], inputs: [number, number][] = [[id - 1, 0]]): IGraphNode {
  return {
    id, name, op: 'relu', family: 'elemwise', attrs: {}, inputs,
    outputs: [{ name: `${name}_output`, shape: [1], dtype: 'float32' }], scope, source: null,
    is_param: false, is_aux: false, is_input: false
  };
}

/** Scopes shaped like ResNet-18's: resnet / features / stage1 (a wrapper) / resnet_stage1 / ... */
function wrappedGraph(): IGraphJSON {
  const data: IGraphNode = { ...opNode(0, 'data', [], []), op: 'null', family: 'variable', is_input: true };
  const F = ['resnet', 'resnet'];
  const nodes: IGraphNode[] = [
    data,
    opNode(1, 'conv0', [...F, 'conv0']),
    opNode(2, 'b1_conv0', [...F, 'stage1', 'resnet_stage1', 'block0', 'conv0']),
    opNode(3, 'b1_conv1', [...F, 'stage1', 'resnet_stage1', 'block0', 'conv1']),
    opNode(4, 'b1_add', [...F, 'stage1', 'resnet_stage1']),
    opNode(5, 'lonely', [...F, 'stage2', 'resnet_stage2', 'only']),
    opNode(6, 'dense0', ['resnet', 'dense0'])
  ];
  return { version: 1, nodes, heads: [[6, 0]], passes: [], source_code: null };
}

describe('scope tree: single-child wrapper levels', () => {
  it('finds wrappers and labels their chains', () => {
    const t = scopeTree(wrappedGraph());
    const k = (...p: string[]) => scopeKey(p);
    expect(t.wrappers.has(k('resnet', 'resnet', 'stage1'))).toBe(true);
    expect(t.wrappers.has(k('resnet', 'resnet', 'stage2'))).toBe(true);
    expect(t.wrappers.has(k('resnet', 'resnet', 'stage2', 'resnet_stage2'))).toBe(true);
    expect(t.wrappers.has(k('resnet', 'resnet'))).toBe(false); // conv0 and the stages
    expect(t.wrappers.has(k('resnet'))).toBe(false); // features and dense0
    expect(t.label(['resnet', 'resnet', 'stage1', 'resnet_stage1'])).toBe('stage1 / resnet_stage1');
    expect(t.label(['resnet', 'resnet', 'stage2', 'resnet_stage2', 'only'])).toBe('stage2 / resnet_stage2 / only');
    expect(t.canonical(['resnet', 'resnet', 'stage1'])).toEqual(['resnet', 'resnet', 'stage1', 'resnet_stage1']);
    expect(t.depth(['resnet', 'resnet', 'stage1', 'resnet_stage1'])).toBe(3);
  });

  it('draws a wrapper chain as one cluster, or one group when any level is collapsed', () => {
    const g = wrappedGraph();
    const vis = visibleGraph(g);
    const features = vis.root.children[0].children.find(c => c.label === 'resnet')!;
    const labels = features.children.map(c => c.label);
    expect(labels).toEqual(['conv0', 'stage1 / resnet_stage1', 'stage2 / resnet_stage2 / only']);
    expect(toDot(vis)).toContain('label="stage1 / resnet_stage1"');
    for (const key of [['resnet', 'resnet', 'stage1'], ['resnet', 'resnet', 'stage1', 'resnet_stage1']]) {
      const folded = visibleGraph(g, new Set([scopeKey(key)]));
      const groups = folded.nodes.filter(v => v.kind === 'group');
      expect(groups).toHaveLength(1);
      expect(groups[0].label).toBe('stage1 / resnet_stage1');
      expect(groups[0].count).toBe(3);
      expect(groups[0].parent).toEqual(['resnet', 'resnet']);
    }
  });

  it('does not count wrappers as levels when collapsing a large graph by default', () => {
    const g = wrappedGraph();
    const collapsed = defaultCollapsed(g, 3, 1); // a budget of one box: open one level only
    expect(Array.from(collapsed).sort()).toEqual([scopeKey(['resnet', 'dense0']), scopeKey(['resnet', 'resnet'])].sort());
    // with room for more boxes it opens deeper: the stage's blocks, not the wrapper chain's levels
    const deeper = defaultCollapsed(g, 3, 10);
    const scopes = Array.from(deeper).filter(k => !k.startsWith('series:'));
    expect(scopes.every(k => JSON.parse(k).length > 2)).toBe(true);
  });

  it('says "1 node", not "1 nodes"', async () => {
    expect(nodeCount(1)).toBe('1 node');
    expect(nodeCount(3)).toBe('3 nodes');
    const canvas = new GraphCanvas();
    await canvas.setGraph(wrappedGraph());
    await canvas.setCollapsed(new Set([scopeKey(['resnet', 'dense0'])]));
    const group = canvas.node.querySelector('[data-hl-group="resnet/dense0"]')!;
    expect(group.textContent).toContain('1 node');
    expect(group.textContent).not.toContain('1 nodes');
    // expanding a chain's box clears every level of the chain
    await canvas.setCollapsed(new Set([scopeKey(['resnet', 'resnet', 'stage1'])]));
    expect(canvas.node.querySelector('[data-hl-node="b1_conv0"]')).toBeNull();
    await canvas.toggle(['resnet', 'resnet', 'stage1', 'resnet_stage1']);
    expect(canvas.node.querySelector('[data-hl-node="b1_conv0"]')).not.toBeNull();
    canvas.dispose();
  }, 30000);
});

/** The MLP with made-up passes: two that change nothing, then a fusion of everything after dense0's FullyConnected. */
function withPasses(): IGraphJSON {
  const g = mlpGraph();
  const same = { ...g, passes: [], source_code: null };
  const nodes = g.nodes.slice(0, 4).concat([{ ...g.nodes[7], id: 4, name: 'fused', op: '_fused_elemwise', inputs: [[3, 0]] }]);
  const fused: IGraphJSON = { version: 1, nodes, heads: [[4, 0]], passes: [], source_code: null };
  return { ...g, passes: [{ name: 'dce', graph: same }, { name: 'cse', graph: same }, { name: 'fusion', graph: fused }] };
}

describe('pass views say what each pass changed', () => {
  it('diffs a pass against the graph before it', () => {
    const g = withPasses();
    const d0 = passDiff(g, g.passes[0].graph);
    expect(passSummary(d0)).toBe('no change');
    const d2 = passDiff(g.passes[1].graph, g.passes[2].graph);
    expect(d2.before).toBe(12);
    expect(d2.after).toBe(5);
    expect(d2.added).toEqual(['fused']);
    expect(d2.removed.length).toBe(8);
    expect(passSummary(d2)).toBe('12 → 5 nodes');
    const renamed = { ...g, nodes: g.nodes.map(n => (n.id === 7 ? { ...n, attrs: { num_hidden: '3' } } : n)) };
    expect(passSummary(passDiff(g, renamed))).toBe('1 node changed');
  });

  it('labels the selector entries and outlines what a pass added', async () => {
    const canvas = new GraphCanvas();
    await canvas.setGraph(withPasses());
    const select = canvas.node.querySelector('select')!;
    const labels = Array.from(select.options).map(o => o.textContent);
    expect(labels).toEqual([
      'Forward graph', 'Backward graph: call the block under autograd.record() and run backward()', 'After pass 1: dce (no change)', 'After pass 2: cse (no change)',
      'After pass 3: fusion (12 → 5 nodes)', 'Generated source'
    ]);
    select.value = 'pass:2';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('Pass fusion: 12 → 5 nodes');
    const marked = Array.from(canvas.node.querySelectorAll('.hl-pass-changed')).map(e => e.getAttribute('data-hl-node'));
    expect(marked).toEqual(['fused']);
    select.value = 'pass:1';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('no change');
    canvas.dispose();
  }, 30000);
});

describe('graph navigation', () => {
  function svgPair(): [SVGSVGElement, SVGGElement] {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    svg.appendChild(g);
    document.body.appendChild(svg);
    return [svg, g];
  }

  it('fits a drawing into a box, never enlarging a small one', () => {
    expect(fitTransform(2000, 4000, 500, 400)).toEqual({ scale: 0.1, tx: 150, ty: 0 });
    const small = fitTransform(100, 50, 500, 400);
    expect(small.scale).toBe(1);
    expect(small.tx).toBe(200);
    expect(fitTransform(100, 50, 0, 0)).toEqual({ scale: 1, tx: 0, ty: 0 }); // not laid out yet
    expect(wheelFactor({ deltaY: -100, deltaMode: 0 })).toBeGreaterThan(1);
    expect(wheelFactor({ deltaY: 3, deltaMode: 1 })).toBeLessThan(1);
  });

  it('leaves a plain wheel to the page and zooms on Ctrl/Cmd + wheel (and pinch)', () => {
    const [svg, g] = svgPair();
    let hinted = 0;
    const pz = panZoom(svg, g, { width: 1000, height: 1000, box: () => ({ width: 500, height: 400 }), onPlainWheel: () => hinted++ });
    const plain = new WheelEvent('wheel', { deltaY: 100, cancelable: true });
    svg.dispatchEvent(plain);
    expect(plain.defaultPrevented).toBe(false);
    expect(hinted).toBe(1);
    expect(pz.scale).toBe(1);
    expect(pz.auto).toBe(true);
    const ctrl = new WheelEvent('wheel', { deltaY: -100, ctrlKey: true, cancelable: true });
    svg.dispatchEvent(ctrl);
    expect(ctrl.defaultPrevented).toBe(true);
    expect(pz.scale).toBeGreaterThan(1);
    expect(pz.auto).toBe(false);
    const cmd = new WheelEvent('wheel', { deltaY: 200, metaKey: true, cancelable: true });
    svg.dispatchEvent(cmd);
    expect(cmd.defaultPrevented).toBe(true);
    pz.fit();
    expect(pz.scale).toBe(0.4);
    expect(pz.auto).toBe(true);
    pz.actualSize();
    expect([pz.scale, pz.tx, pz.ty]).toEqual([1, 0, 0]);
    pz.dispose();
    svg.remove();
  });

  it('has Fit and 100% controls; the source view hides the details and disables graph-only controls', async () => {
    const canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
    await canvas.setGraph(mlpGraph());
    const fit = canvas.node.querySelector('button.hl-fit') as HTMLButtonElement;
    const actual = canvas.node.querySelector('button.hl-actual-size') as HTMLButtonElement;
    expect(fit.textContent).toBe('Fit');
    expect(actual.textContent).toBe('100%');
    expect(canvas.node.textContent).not.toContain('Reset view');
    expect(canvas.node.querySelector('.hl-zoom-hint')!.textContent).toMatch(/(Ctrl|⌘) \+ wheel/);
    const buttons = Array.from(canvas.node.querySelectorAll('.hl-toolbar button')) as HTMLButtonElement[];
    expect(buttons.every(b => !b.disabled)).toBe(true);
    const select = canvas.node.querySelector('select')!;
    select.value = 'source';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.getAttribute('data-hl-view')).toBe('source');
    expect(buttons.every(b => b.disabled)).toBe(true);
    expect((canvas.node.querySelector('.hl-search') as HTMLInputElement).disabled).toBe(true);
    select.value = 'forward';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.getAttribute('data-hl-view')).toBe('graph');
    expect(buttons.every(b => !b.disabled)).toBe(true);
    // the details panel can be closed; clicking a node opens it again
    (canvas.node.querySelector('button.hl-details-toggle') as HTMLButtonElement).click();
    expect(canvas.node.getAttribute('data-hl-details-panel')).toBe('closed');
    canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(canvas.node.getAttribute('data-hl-details-panel')).toBe('open');
    canvas.dispose();
  }, 30000);
});

describe('TimingPanelDOM', () => {
  it('marks the panel idle (its progress bar is hidden by CSS then)', () => {
    const t = new TimingPanelDOM();
    expect(t.node.dataset.hlRunning).toBe('false');
    t.setProgress(0.4, true);
    expect(t.node.dataset.hlRunning).toBe('true');
    t.setProgress(1, false);
    expect(t.node.dataset.hlRunning).toBe('false');
    expect((t.node.querySelector('progress') as HTMLProgressElement).value).toBe(0);
  });
});
