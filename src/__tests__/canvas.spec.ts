import { GraphCanvas } from '../graph/canvas';
import { layoutDot, parseLayout } from '../graph/layout';
import { toDot } from '../graph/dot';
import { visibleGraph } from '../graph/model';
import { chainGraph, HOSTILE, HOSTILE_BLOCK, hostileGraph, mlpGraph } from './fixtures';

// jsdom has no layout engine: SVG geometry is not needed by the code under test.

describe('Graphviz layout (WASM, real)', () => {
  it('places every visible node and edge', async () => {
    const vis = visibleGraph(mlpGraph());
    const layout = await layoutDot(toDot(vis));
    expect(layout.nodes.size).toBe(vis.nodes.length);
    expect(layout.edges).toHaveLength(vis.edges.length);
    expect(layout.clusters.size).toBe(6); // mlp, dense0..2, the relu inside dense0 and dense1
    for (const box of layout.nodes.values()) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.width).toBeGreaterThan(0);
    }
    // y goes downwards: the input is above the output
    expect(layout.nodes.get('n0')!.y).toBeLessThan(layout.nodes.get('n11')!.y);
  }, 30000);

  it('parses Graphviz json output', () => {
    const l = parseLayout({
      bb: '0,0,100,50',
      objects: [
        { _gvid: 0, name: 'cluster_0', bb: '10,10,90,40', lp: '50,35' },
        { _gvid: 1, name: 'n0', pos: '50,40', width: '1', height: '0.5' },
        { _gvid: 2, name: 'n1', pos: '50,10', width: '1', height: '0.5' }
      ],
      edges: [{ tail: 1, head: 2, pos: 'e,50,15 50,35 50,30 50,25 50,20', lp: '55,25' }]
    });
    expect(l.nodes.get('n0')).toEqual({ x: 50, y: 10, width: 72, height: 36 });
    expect(l.clusters.get('cluster_0')).toEqual({ x: 10, y: 10, width: 80, height: 30, labelPos: [50, 15] });
    expect(l.edges[0]).toMatchObject({ tail: 'n0', head: 'n1', arrow: [50, 35], labelPos: [55, 25] });
    expect(l.edges[0].points).toHaveLength(4);
  });
});

describe('GraphCanvas', () => {
  let canvas: GraphCanvas;
  beforeEach(() => {
    canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
  });
  afterEach(() => canvas.dispose());

  it('draws one [data-hl-node] per graph node, shapes on edges, clusters per scope', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g, 'mlp: cached op built (first call), build #1');
    expect(canvas.node.classList.contains('hl-graph')).toBe(true);
    expect(canvas.node.getAttribute('data-hl-state')).toBe('ready');
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(g.nodes.length);
    expect(canvas.node.querySelectorAll('.hl-cluster')).toHaveLength(6);
    const labels = Array.from(canvas.node.querySelectorAll('.hl-edge-label')).map(e => e.textContent);
    expect(labels).toContain('1×512');
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('first call');
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!.getAttribute('class')).toContain('hl-family-nn');
  }, 30000);

  it('renders a hostile node name, scope and attribute as text, never HTML', async () => {
    const g = hostileGraph();
    // no op takes markup as an attribute value, but a loaded model file (untrusted) can hold one
    g.nodes[4].attrs.act_type = '<b>relu</b>';
    await canvas.setGraph(g);
    expect(canvas.node.querySelector('img')).toBeNull();
    expect(canvas.node.querySelector('b')).toBeNull();
    const name = `${HOSTILE_BLOCK}_dense0_relu_fwd`;
    const el = Array.from(canvas.node.querySelectorAll('[data-hl-node]')).find(e => e.getAttribute('data-hl-node') === name);
    expect(el).toBeDefined();
    expect(el!.textContent).toContain('<img src=x');
    expect(canvas.node.querySelector('.hl-cluster-label')!.textContent).toContain(HOSTILE);
    (el as SVGGElement).dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const details = canvas.node.querySelector('.hl-details')!;
    expect(details.querySelector('img')).toBeNull();
    expect(details.querySelector('.hl-details-title')!.textContent).toBe(name);
    expect(details.textContent).toContain('<b>relu</b>');
  }, 30000);

  it('badges a node with a shape guard (hostile text stays text) and names it in the details', async () => {
    const g = mlpGraph();
    const node = g.nodes.find(n => n.name === 'mlp_dense0_fwd')!;
    expect(g.nodes.every(n => Array.isArray(n.guards) && n.guards.length === 0)).toBe(true); // the kernel's JSON
    node.guards = [{ what: 'shape', array: '<img src=x>', value: '(2, 512)', attrs: ['num_hidden'],
                     source: { file: '/tmp/net.py', line: 12, code: 'x.shape[0]' } }];
    await canvas.setGraph(g);
    expect(canvas.node.querySelectorAll('.hl-badge')).toHaveLength(1);
    const el = canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!;
    expect(el.getAttribute('class')).toContain('hl-guarded');
    expect(el.querySelector('.hl-badge')).not.toBeNull();
    expect(el.querySelector('title')!.textContent).toContain('<img src=x>.shape = (2, 512) read at net.py:12 is baked into num_hidden');
    expect(canvas.node.querySelector('img')).toBeNull();
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(canvas.node.querySelector('.hl-details')!.textContent).toContain('shape guard');
  }, 30000);

  it('shows the details of a clicked node', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g);
    const el = canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!;
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const table = canvas.node.querySelector('[data-hl-details="mlp_dense0_fwd"]')!;
    const text = table.textContent!;
    expect(text).toContain('FullyConnected');
    expect(text).toContain('num_hidden');
    expect(text).toContain('1×512 float32'); // input shape and dtype
    expect(text).toContain('1×256 float32'); // output
    const source = g.nodes[3].source!; // the line of tools/dump_jest_fixtures.py that called the block
    expect(text).toContain(`${source.file}:${source.line}`);
    expect(canvas.node.querySelector('.hl-details-code')!.textContent).toBe(source.code);
    expect(el.getAttribute('class')).toContain('hl-selected');
  }, 30000);

  it('shows parameter statistics from the kernel in the details panel', async () => {
    await canvas.setGraph(mlpGraph());
    canvas.setParamStats({
      mlp_dense0_weight: { shape: [256, 512], dtype: 'float32', mean: 0.01234, std: 0.5, min: -1, max: 1, zeros: 0.25 },
      mlp_dense0_bias: { shape: [256], dtype: 'float32', mean: null, std: null, min: null, max: null, zeros: 0 }
    });
    canvas.select('mlp_dense0_weight');
    const text = canvas.node.querySelector('.hl-details')!.textContent!;
    expect(text).toContain('0.01234 ± 0.5');
    expect(text).toContain('25.0%');
    canvas.select('mlp_dense0_bias');
    expect(canvas.node.querySelector('.hl-details')!.textContent).toContain('n/a ± n/a');
    canvas.select('mlp_dense0_fwd');
    expect(canvas.node.querySelector('.hl-details')!.textContent).not.toContain('mean ± std');
  }, 30000);

  it('collapses and expands a Block scope on click', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g);
    const label = canvas.node.querySelector('[data-hl-scope="mlp/dense0"] .hl-cluster-label')!;
    label.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(g.nodes.length - 4);
    const group = canvas.node.querySelector('[data-hl-group="mlp/dense0"]')!;
    expect(group.textContent).toContain('4 nodes'); // weight, bias, FullyConnected, relu
    group.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(g.nodes.length);
  }, 30000);

  it('starts a large graph collapsed and draws it', async () => {
    const g = chainGraph(1000, 25);
    await canvas.setGraph(g);
    expect(canvas.node.getAttribute('data-hl-state')).toBe('ready');
    // its 25 Blocks are identical and chained: one series box until it is opened
    const series = canvas.node.querySelector('.hl-group.hl-series')!;
    expect(canvas.node.querySelectorAll('[data-hl-group]')).toHaveLength(1);
    expect(series.textContent).toContain('25× block[0–24]');
    expect(series.textContent).toContain('1000 nodes');
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('25 Block scopes collapsed');
    series.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-group]')).toHaveLength(25);
    const label = canvas.node.querySelector('.hl-cluster.hl-series .hl-cluster-label')!;
    expect(label.textContent).toContain('25× block[0–24]');
    label.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-group]')).toHaveLength(1);
    // a search match inside opens the series and its Block
    canvas.search('op500');
    await canvas.nextMatch(1);
    expect(canvas.node.querySelector('[data-hl-node="op500"]')).not.toBeNull();
  }, 30000);

  it('offers forward, each pass and the generated source in the selector', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g);
    const select = canvas.node.querySelector('select')!;
    const options = Array.from(select.options).map(o => o.value);
    expect(options).toEqual(['forward', 'backward', ...g.passes.map((_, i) => `pass:${i}`), 'source']);
    // no backward compiled yet: the entry says how to get one and cannot be picked
    expect(select.options[1].disabled).toBe(true);
    expect(select.options[1].textContent).toContain('autograd.record()');
    select.value = 'source';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.querySelector('.hl-source')!.textContent).toContain('def forward');
    select.value = 'pass:0';
    select.dispatchEvent(new Event('change'));
    await canvas.rendered;
    expect(canvas.node.querySelectorAll('[data-hl-node]')).toHaveLength(g.passes[0].graph.nodes.length);
  }, 30000);

  it('traces a node: what it reads from and what reads from it stand out, the rest is dimmed', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g);
    const classOf = (name: string): string => canvas.node.querySelector(`[data-hl-node="${name}"]`)!.getAttribute('class')!;
    const el = canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"]') as SVGGElement;
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const button = canvas.node.querySelector('.hl-details .hl-trace-toggle') as HTMLButtonElement;
    expect(button.textContent).toBe('Trace inputs and outputs');
    button.click();
    expect(canvas.traced).toBe('mlp_dense1_fwd');
    expect(canvas.node.querySelector('.hl-graph-svg')!.classList.contains('hl-tracing')).toBe(true);
    for (const up of ['data', 'mlp_dense0_weight', 'mlp_dense0_fwd', 'mlp_dense0_relu_fwd', 'mlp_dense1_weight']) {
      expect(classOf(up)).toContain('hl-trace-up');
    }
    for (const down of ['mlp_dense1_relu_fwd', 'mlp_dense2_fwd']) {
      expect(classOf(down)).toContain('hl-trace-down');
    }
    expect(classOf('mlp_dense1_fwd')).toContain('hl-trace-origin');
    // dense2's weight neither feeds dense1 nor reads from it
    expect(classOf('mlp_dense2_weight')).not.toMatch(/hl-trace-/);
    expect(canvas.node.querySelector('.hl-trace-bar')!.textContent).toContain('Tracing mlp_dense1_fwd: reads 7 nodes, read by 2');
    expect(canvas.node.querySelectorAll('.hl-edge.hl-trace-up').length).toBe(7); // 7 edges among the upstream nodes and dense1
    expect(canvas.node.querySelectorAll('.hl-edge.hl-trace-down').length).toBe(2);
    // a collapsed Block holding traced nodes is marked too, and the trace stays across redraws
    await canvas.setCollapsed(new Set([JSON.stringify(['mlp', 'dense0'])]));
    expect(canvas.node.querySelector('[data-hl-group="mlp/dense0"]')!.getAttribute('class')).toContain('hl-trace-up');
    // t on the traced node stops
    canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 't', bubbles: true }));
    expect(canvas.traced).toBeNull();
    expect(canvas.node.querySelector('.hl-graph-svg')!.classList.contains('hl-tracing')).toBe(false);
    expect((canvas.node.querySelector('.hl-trace-bar') as HTMLElement).hidden).toBe(true);
  }, 30000);

  it('search highlights matching nodes, Enter reveals matches in collapsed scopes', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g);
    canvas.search('dense1');
    const matched = Array.from(canvas.node.querySelectorAll('.hl-node.hl-match')).map(e => e.getAttribute('data-hl-node'));
    expect(matched.sort()).toEqual(['mlp_dense1_bias', 'mlp_dense1_fwd', 'mlp_dense1_relu_fwd', 'mlp_dense1_weight']);
    await canvas.toggle(['mlp', 'dense1']);
    canvas.search('dense1_fwd');
    expect(canvas.node.querySelector('[data-hl-group="mlp/dense1"]')!.getAttribute('class')).toContain('hl-match');
    canvas.node.querySelector('.hl-search')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await canvas.rendered;
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"]')).not.toBeNull();
  }, 30000);

  it('keeps the selection and collapsed scopes across a live update', async () => {
    const g = mlpGraph();
    await canvas.setGraph(g, 'first');
    canvas.select('mlp_dense1_fwd');
    await canvas.setGraph(mlpGraph(), 'mlp: cached op rebuilt (new input signature), build #2');
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('rebuilt (new input signature)');
    expect(canvas.node.querySelector('[data-hl-details="mlp_dense1_fwd"]')).not.toBeNull();
  }, 30000);

  it('shows a clear state instead of a blank area: no graph, layout failure, disconnected', async () => {
    await canvas.setGraph(null, "mlp: waiting for the block's first hybridized call");
    expect(canvas.node.getAttribute('data-hl-state')).toBe('empty');
    expect(canvas.node.querySelector('.hl-status')!.textContent).toContain('waiting');
    const failing = new GraphCanvas({ layout: () => Promise.reject(new Error('syntax error in line 3')) });
    await failing.setGraph(mlpGraph());
    expect(failing.node.getAttribute('data-hl-state')).toBe('error');
    expect(failing.node.querySelector('.hl-status')!.textContent).toContain('syntax error');
    failing.setStatus('Disconnected from the kernel', 'disconnected');
    expect(failing.node.getAttribute('data-hl-state')).toBe('disconnected');
    failing.dispose();
  });

  it('drops a stale layout that finishes after a newer graph', async () => {
    let release: () => void = () => undefined;
    const slow = new GraphCanvas({
      layout: dot =>
        dot.includes('n7')
          ? new Promise(resolve => { release = () => resolve(layoutDot(dot) as any); })
          : layoutDot(dot)
    });
    const first = slow.setGraph(mlpGraph());
    const second = slow.setGraph(chainGraph(3, 1));
    await second;
    release();
    await first;
    expect(slow.node.querySelectorAll('[data-hl-node]')).toHaveLength(4);
    slow.dispose();
  }, 30000);
});

describe('generated source links', () => {
  it('a source line selects its node in the graph; a node shows its statement', async () => {
    const g = mlpGraph();
    const canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
    await canvas.setGraph(g);
    const name = g.nodes.find(n => n.op !== 'null')!.name;
    expect(await canvas.showInSource(name)).toBe(true);
    const marked = Array.from(canvas.node.querySelectorAll('.hl-source-current'));
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.every(l => (l as HTMLElement).dataset.hlNode === name)).toBe(true);
    expect(marked[0].textContent).toContain(`# ${name} = `);
    // clicking another node's line goes back to the graph with that node selected
    const other = Array.from(canvas.node.querySelectorAll<HTMLElement>('.hl-source-line[data-hl-node]')).find(l => l.dataset.hlNode !== name)!;
    other.click();
    await canvas.rendered;
    await new Promise(r => setTimeout(r, 0));
    expect(canvas.node.getAttribute('data-hl-view')).toBe('graph');
    expect(canvas.node.querySelector('.hl-node.hl-selected')!.getAttribute('data-hl-node')).toBe(other.dataset.hlNode);
    // the details of a node with a statement link to it
    expect(canvas.node.querySelector('.hl-show-source')).not.toBeNull();
    canvas.dispose();
  }, 30000);
});

describe('layout direction', () => {
  it('switches between top-down and left-to-right', async () => {
    const dots: string[] = [];
    const canvas = new GraphCanvas({ layout: dot => (dots.push(dot), layoutDot(dot)) });
    document.body.appendChild(canvas.node);
    await canvas.setGraph(mlpGraph());
    const tall = canvas.view ? canvas.node.querySelector('.hl-graph-svg')!.getAttribute('data-hl-width') : null;
    expect(dots[dots.length - 1]).toContain('rankdir=TB');
    const button = canvas.node.querySelector('.hl-direction') as HTMLButtonElement;
    button.click();
    await canvas.rendered;
    expect(dots[dots.length - 1]).toContain('rankdir=LR');
    expect(button.getAttribute('aria-pressed')).toBe('true');
    expect(canvas.node.getAttribute('data-hl-direction')).toBe('LR');
    const svg = canvas.node.querySelector('.hl-graph-svg')!;
    expect(Number(svg.getAttribute('data-hl-width'))).toBeGreaterThan(Number(svg.getAttribute('data-hl-height')));
    expect(Number(svg.getAttribute('data-hl-width'))).toBeGreaterThan(Number(tall));
    const laidOut = dots.length;
    button.click();
    await canvas.rendered;
    expect(dots).toHaveLength(laidOut); // back to top-down: the cached layout, no new one
    expect(canvas.node.querySelector('.hl-graph-svg')!.getAttribute('data-hl-width')).toBe(tall);
    canvas.dispose();
  }, 30000);
});
