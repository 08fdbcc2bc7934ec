import { GraphCanvas } from '../graph/canvas';
import { logScale, outputBytes, rampColour } from '../graph/colour';
import { memoryText, msText } from '../units';
import { mlpGraph } from './fixtures';

describe('colouring by a measure', () => {
  it('sizes outputs from shapes and dtypes, unknown when a dim or dtype is', () => {
    const g = mlpGraph();
    const fc = g.nodes.find(n => n.name === 'mlp_dense0_fwd')!;
    expect(outputBytes(fc)).toBe(256 * 4); // 1×256 float32
    expect(outputBytes({ ...fc, outputs: [{ name: 'x', shape: [0, 3], dtype: 'float32' }] })).toBeNull();
    expect(outputBytes({ ...fc, outputs: [{ name: 'x', shape: [2, 3], dtype: null }] })).toBeNull();
    expect(memoryText(640)).toBe('640 B');
    expect(memoryText(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(msText(0.0123)).toBe('0.012');
    expect(msText(3.456)).toBe('3.46');
  });

  it('maps values on a log scale to a pale-to-saturated ramp', () => {
    const s = logScale([0.01, 0.1, 1, NaN, 0, -1])!;
    expect([s.lo, s.hi]).toEqual([0.01, 1]);
    expect(s.at(0.1)).toBeCloseTo(0.5);
    expect(logScale([0, NaN])).toBeNull();
    expect(rampColour('time', 0)).toBe('rgb(255,247,205)');
    expect(rampColour('time', 1)).toBe('rgb(245,130,50)');
  });

  it('colours the boxes by time per call once times are given, with a key, and back by family', async () => {
    const canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
    await canvas.setGraph(mlpGraph());
    const select = canvas.node.querySelector('.hl-colour-select') as HTMLSelectElement;
    const timeOption = (): HTMLOptionElement => Array.from(select.options).find(o => o.value === 'time')!;
    expect(timeOption().disabled).toBe(true); // nothing measured yet: says how to measure
    expect(timeOption().textContent).toContain('not measured');
    expect(select.title).toContain('view.profile(x)');
    canvas.setTimes({ mlp_dense0_fwd: 2, mlp_dense1_fwd: 0.02, mlp_dense0_relu_fwd: 0.2 });
    expect(timeOption().disabled).toBe(false);
    select.value = 'time';
    select.dispatchEvent(new Event('change'));
    const fill = (name: string): string =>
      (canvas.node.querySelector(`[data-hl-node="${name}"] rect, [data-hl-node="${name}"] ellipse`) as SVGElement).style.fill;
    expect(fill('mlp_dense0_fwd')).toBe(rampColour('time', 1));
    expect(fill('mlp_dense1_fwd')).toBe(rampColour('time', 0));
    expect(fill('mlp_dense0_relu_fwd')).toMatch(/^rgb\(250,189,12[78]\)$/); // half way on the log scale
    expect(fill('mlp_dense2_fwd')).toBe('#d6d6d6'); // not timed: neutral
    const legend = canvas.node.querySelector('.hl-colour-legend') as HTMLElement;
    expect(legend.hidden).toBe(false);
    expect(legend.textContent).toContain('0.020 ms');
    expect(legend.textContent).toContain('2.00 ms');
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"] title')!.textContent).toContain('time per call: 2.00 ms');
    // a collapsed Block is coloured by its nodes' sum
    await canvas.setCollapsed(new Set([JSON.stringify(['mlp', 'dense0'])]));
    expect(canvas.node.querySelector('[data-hl-group="mlp/dense0"]')!.getAttribute('data-hl-value')).toBe('2.2');
    canvas.setColourBy('size');
    expect(legend.textContent).toContain('output size');
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"]')!.getAttribute('data-hl-value')).not.toBeNull();
    canvas.setColourBy('family');
    expect(fill('mlp_dense1_fwd')).toBe('');
    expect(legend.hidden).toBe(true);
    // the tooltip is the node's own again
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"] title')!.textContent).toBe('mlp_dense1_fwd (FullyConnected)');
    canvas.dispose();
  }, 30000);
});
