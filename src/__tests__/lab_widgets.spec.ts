// The widget base classes need a JupyterLab runtime: the panels under test do not use them.
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { IInspectorStep, ITensorStats, ITimingResults } from '../tokens';
import { highlightNode } from '../widgets/dashboard';
import { fmt, heat, InspectorPanel, parseSteps } from '../widgets/inspector';
import { histogram, summaryText, TimingPanelDOM } from '../widgets/timing';

const HOSTILE = '<img src=x onerror=alert(1)>';

function tensor(name: string, extra: Partial<ITensorStats> = {}): ITensorStats {
  return {
    name, node: name.replace(/_output$/, ''), op: 'FullyConnected', shape: [2, 3], dtype: 'float32', size: 6,
    sampled: false, min: -1, max: 2, mean: 0.5, std: 1, zeros: 0.5, nan: 0, inf: 0,
    hist: { lo: -1, hi: 2, counts: [1, 0, 2, 3] }, preview: [[0, 1, 2], [null, -1, 0.5]], ...extra
  };
}

function steps(): IInspectorStep[] {
  return [
    { step: 1, nodes: [tensor('fc0_output'), tensor('relu0_output', { op: 'Activation' })] },
    { step: 2, nodes: [tensor('fc0_output', { nan: 3, mean: null }), tensor('relu0_output', { nan: 3 })] }
  ];
}

describe('InspectorPanel', () => {
  it('shows one row per tensor of the latest call, and the slider goes back in history', () => {
    const p = new InspectorPanel();
    document.body.appendChild(p.node);
    p.setSteps(steps());
    expect(p.node.classList.contains('hl-inspector')).toBe(true);
    expect(p.node.querySelectorAll('.hl-stats-row')).toHaveLength(2);
    expect(p.node.querySelector('.hl-step-label')!.textContent).toContain('call 2');
    const slider = p.node.querySelector('input.hl-step-slider') as HTMLInputElement;
    slider.value = '0';
    slider.dispatchEvent(new Event('input'));
    expect(p.node.querySelector('.hl-step-label')!.textContent).toContain('call 1');
    expect(p.node.querySelector('.hl-stats-row td:nth-child(7)')!.textContent).toBe('0.5');
    p.node.remove();
  });

  it('flags the first NaN/Inf node and shows its histogram and heatmap', () => {
    const p = new InspectorPanel();
    p.setSteps(steps());
    p.setFlag({ step: 2, node: 'fc0', tensor: 'fc0_output', op: 'FullyConnected' });
    const flagged = p.node.querySelectorAll('.hl-nonfinite');
    expect(flagged).toHaveLength(1);
    expect((flagged[0] as HTMLElement).dataset.hlTensor).toBe('fc0_output');
    expect(p.node.querySelectorAll('.hl-hist-bar')).toHaveLength(4);
    expect(p.node.querySelectorAll('.hl-heat-cell')).toHaveLength(6);
    // axes and a colour key: counts 0..peak, values lo..hi, each bar's range in its tooltip
    expect(Array.from(p.node.querySelectorAll('.hl-hist-yaxis span')).map(e => e.textContent)).toEqual(['3', '0']);
    expect(p.node.querySelector('.hl-tensor-detail .hl-hist-range')!.textContent).toBe('-1value2');
    expect((p.node.querySelectorAll('.hl-hist-bar')[3] as HTMLElement).title).toBe('1.25 … 2: 3 values');
    expect(Array.from(p.node.querySelectorAll('.hl-heat-legend > span')).map(e => e.textContent)).toEqual(['-1', '', '2']);
    // clicking another row selects it
    (p.node.querySelectorAll('.hl-stats-row')[1] as HTMLElement).click();
    expect(p.node.querySelector('.hl-selected')!.getAttribute('data-hl-tensor')).toBe('relu0_output');
  });

  it('renders hostile names as text', () => {
    const p = new InspectorPanel();
    p.setSteps([{ step: 1, nodes: [tensor(HOSTILE, { node: HOSTILE, op: HOSTILE })] }]);
    p.setFlag({ step: 1, node: HOSTILE, tensor: HOSTILE, op: HOSTILE });
    expect(p.node.querySelector('img')).toBeNull();
    expect(p.node.textContent).toContain(HOSTILE);
  });

  it('survives malformed history and formats numbers', () => {
    expect(parseSteps('not json')).toEqual([]);
    expect(parseSteps('{"a": 1}')).toEqual([]);
    expect(fmt(null)).toBe('—');
    expect(fmt(1234.5678)).toBe('1235');
    expect(fmt(1e-6)).toBe('1.00e-6');
    expect(heat(null, 0, 1)).toBe('rgb(128,128,128)');
    expect(heat(0, 0, 1)).toBe('rgb(0,0,255)');
    expect(heat(1, 0, 1)).toBe('rgb(255,0,0)');
  });
});

function results(): ITimingResults {
  const mode = (name: string, median: number, speedup: number, be: number | null) => ({
    name, flags: {}, latencies_ms: [median, median * 1.1, median * 0.9], median_ms: median, mean_ms: median,
    p10_ms: median * 0.9, p90_ms: median * 1.1, min_ms: median * 0.9, trace_ms: name === 'imperative' ? null : 1,
    build_ms: name === 'imperative' ? null : 0.5, first_ms: null, speedup, breakeven_calls: be
  });
  return {
    block: 'mlp', inputs: '(1, 512) float32', calls: 3, nodes: 7,
    modes: [mode('imperative', 0.3, 1, null), mode('default', 0.1, 3, 8), mode('static_alloc', 0.09, 3.3, 7),
      mode('static_alloc+static_shape', 0.1, 3, 8)],
    ops: [{ node: HOSTILE, op: 'FullyConnected', family: 'nn', scope: ['mlp', 'dense0'], count: 3, total_ms: 0.3, avg_ms: 0.1, share: 0.75 }]
  };
}

describe('TimingPanelDOM', () => {
  it('shows each mode, its latency histogram, speed-up and break-even', () => {
    const t = new TimingPanelDOM();
    t.setResults(null);
    expect(t.node.textContent).toContain('Not measured yet');
    t.setResults(results());
    expect(t.node.classList.contains('hl-timing')).toBe(true);
    const rows = t.node.querySelectorAll('.hl-mode-row');
    expect(rows).toHaveLength(4);
    expect(rows[2].querySelector('.hl-speedup')!.textContent).toBe('3.30x');
    expect(rows[2].textContent).toContain('7 calls');
    expect(rows[0].querySelectorAll('.hl-hist-bar')).toHaveLength(24);
    expect(t.node.querySelector('.hl-timing-summary')!.textContent).toContain('static_alloc: 3.30x faster');
    expect(t.node.querySelector('.hl-timing-note')!.textContent).toContain('compare the modes of one run');
    expect(t.node.querySelectorAll('.hl-op-row')).toHaveLength(1);
    expect(t.node.querySelector('img')).toBeNull();
    expect(t.node.textContent).toContain(HOSTILE);
  });

  it('shows progress while running and disables Run', () => {
    const t = new TimingPanelDOM();
    t.setProgress(0.5, true);
    expect(t.runButton.disabled).toBe(true);
    expect((t.node.querySelector('progress') as HTMLProgressElement).value).toBe(0.5);
    t.setProgress(1, false);
    expect(t.runButton.disabled).toBe(false);
  });

  it('bins latencies and words the verdict', () => {
    expect(histogram([0, 0.5, 1], 0, 1, 2)).toEqual([1, 2]);
    const r = results();
    r.modes.forEach(m => (m.breakeven_calls = null));
    expect(summaryText(r)).toContain('never: not faster than imperative');
    r.modes[2].pays_off = 'pays off after 7 calls';
    r.modes.forEach(m => (m.breakeven_calls = m.name === 'imperative' ? null : 7));
    expect(summaryText(r)).toContain('hybridizing pays off after 7 calls');
  });
});

describe('highlightNode', () => {
  it('marks exactly the named node, compared as text', () => {
    const root = document.createElement('div');
    for (const name of ['a', HOSTILE, 'b"]']) {
      const g = document.createElement('div');
      g.setAttribute('data-hl-node', name);
      root.appendChild(g);
    }
    expect(highlightNode(root, HOSTILE)).toBe(1);
    expect(root.querySelectorAll('.hl-flagged')[0].getAttribute('data-hl-node')).toBe(HOSTILE);
    expect(highlightNode(root, 'b"]')).toBe(1);
    expect(highlightNode(root, '')).toBe(0);
    expect(root.querySelectorAll('.hl-flagged')).toHaveLength(0);
  });
});

describe('the per-op table', () => {
  const op = (i: number): ITimingResults['ops'][number] => ({
    node: `net_stage${i % 3}_conv${i}_fwd`, op: i % 2 ? 'Convolution' : 'BatchNorm', family: 'conv', count: 3,
    total_ms: i, avg_ms: i / 3, share: i / 210, scope: ['net', 'features', `stage${i % 3}`, `block${i}`, 'a very long scope name']
  });
  const withOps = (): ITimingResults => ({ ...results(), ops: Array.from({ length: 20 }, (_, i) => op(i + 1)) });

  it('puts the time first, shows the top 15 by share, then all', () => {
    const t = new TimingPanelDOM();
    t.setResults(withOps());
    const headers = Array.from(t.node.querySelectorAll('.hl-ops-table th')).map(h => h.textContent);
    expect(headers).toEqual(['share ▾', 'avg ms', 'calls', 'op', 'node', 'scope']);
    const rows = (): string[] => Array.from(t.node.querySelectorAll<HTMLElement>('.hl-op-row')).map(r => r.dataset.hlOpNode!);
    expect(rows()).toHaveLength(15);
    expect(rows()[0]).toBe('net_stage2_conv20_fwd');
    expect(t.node.querySelector('.hl-ops-foot')!.textContent).toContain('15 of 20 ops');
    (t.node.querySelector('.hl-ops-all') as HTMLButtonElement).click();
    expect(rows()).toHaveLength(20);
  });

  it('sorts by a clicked header and filters by node, op or scope', () => {
    const t = new TimingPanelDOM();
    t.setResults(withOps());
    const buttons = (): HTMLButtonElement[] => Array.from(t.node.querySelectorAll('.hl-ops-table th button'));
    buttons()[4].click(); // node, A to Z
    const first = t.node.querySelector<HTMLElement>('.hl-op-row')!.dataset.hlOpNode;
    expect(first).toBe('net_stage0_conv12_fwd');
    expect(t.node.querySelectorAll('.hl-ops-table th')[4].getAttribute('aria-sort')).toBe('ascending');
    const filter = t.node.querySelector('.hl-ops-filter') as HTMLInputElement;
    filter.value = 'batchnorm';
    filter.dispatchEvent(new Event('input'));
    const ops = Array.from(t.node.querySelectorAll('.hl-op-row td:nth-child(4)')).map(c => c.textContent);
    expect(ops.length).toBe(10);
    expect(new Set(ops)).toEqual(new Set(['BatchNorm']));
    expect(t.node.querySelector('.hl-ops-foot')!.textContent).toBe('10 of 10 ops matching "batchnorm"');
  });
});
