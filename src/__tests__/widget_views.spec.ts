// The widget views against a minimal in-memory stand-in for @jupyter-widgets/base (`widget_base_stub.ts`): a model that
// stores attributes and fires `change:<name>`, a view with `el`, `model` and `listenTo`. The
// status lines are the kernel's (`status`, computed in Python): the views show them as they are.
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { GraphView, GraphViewModel } from '../widgets/graphview';
import { TensorInspectorModel, TensorInspectorView } from '../widgets/inspector';
import { TimingPanelModel, TimingPanelView } from '../widgets/timing';
import { mlpGraph } from './fixtures';

// The stand-in's constructor takes the initial attributes, as Backbone's does.
type Attrs = { [key: string]: unknown };
type Settable = { set(values: Attrs): void };
const make = <M>(Model: new (attrs: Attrs) => M, attrs: Attrs): M & Settable =>
  new Model(attrs) as M & Settable;
const statusOf = (root: HTMLElement): HTMLElement => root.querySelector('.hl-status') as HTMLElement;

describe('GraphView', () => {
  it("shows the model's status line and follows it", async () => {
    const model = make(GraphViewModel, { block: 'mlp', graph: mlpGraph(), status: 'mlp: cached op built (first call), build #1' });
    const view = new GraphView({ model } as never);
    view.render();
    await view.rendered;
    expect(view.el.querySelector('.hl-graph')!.getAttribute('data-hl-state')).toBe('ready');
    expect(statusOf(view.el).textContent).toContain('mlp: cached op built (first call), build #1');
    model.set({ status: 'mlp: cached op rebuilt (new input signature: data: (1, 512) float32 -> (8, 512) float32), build #2' });
    await view.rendered;
    expect(statusOf(view.el).textContent).toContain('rebuilt (new input signature: data: (1, 512) float32');
    view.remove();
  }, 30000);

  it('shows the status of a block not called yet, and an error as an error', async () => {
    const model = make(GraphViewModel, { block: 'mlp', status: "mlp: waiting for the block's first hybridized call" });
    const view = new GraphView({ model } as never);
    view.render();
    await view.rendered;
    const canvas = view.el.querySelector('.hl-graph')!;
    expect(canvas.getAttribute('data-hl-state')).toBe('empty');
    expect(statusOf(view.el).textContent).toBe("mlp: waiting for the block's first hybridized call");
    model.set({ error: 'ValueError: bad shape', status: 'mlp: hybridization failed: ValueError: bad shape' });
    await view.rendered;
    expect(canvas.getAttribute('data-hl-state')).toBe('error');
    expect(statusOf(view.el).textContent).toBe('mlp: hybridization failed: ValueError: bad shape');
    view.remove();
  });
});

describe('TensorInspectorView', () => {
  it("shows the model's status line, marked when a NaN/Inf was found", () => {
    const model = make(TensorInspectorModel, { block: 'mlp', status: 'mlp: 1 of 3 calls inspected' });
    const view = new TensorInspectorView({ model } as never);
    view.render();
    const status = statusOf(view.el);
    expect(status.textContent).toBe('mlp: 1 of 3 calls inspected');
    expect(status.dataset.hlKind).toBe('');
    model.set({
      first_nonfinite: { step: 3, node: 'fc1', tensor: 'fc1_output', op: 'FullyConnected' },
      status: 'mlp: 2 of 3 calls inspected; first NaN/Inf: node fc1 (FullyConnected), output fc1_output, call 3'
    });
    expect(status.textContent).toContain('first NaN/Inf: node fc1');
    expect(status.dataset.hlKind).toBe('error');
  });
});

describe('TimingPanelView', () => {
  it("shows the model's status line while measuring and after", () => {
    const model = make(TimingPanelModel, { block: 'mlp', running: true, progress: 0.5, status: 'mlp: measuring: default (50%)' });
    const view = new TimingPanelView({ model } as never);
    view.render();
    expect(statusOf(view.el).textContent).toBe('mlp: measuring: default (50%)');
    expect((view.el.querySelector('button.hl-run') as HTMLButtonElement).disabled).toBe(true);
    model.set({ running: false, error: 'RuntimeError: boom', status: 'mlp: timing failed: RuntimeError: boom' });
    expect(statusOf(view.el).textContent).toBe('mlp: timing failed: RuntimeError: boom');
    expect(statusOf(view.el).dataset.hlKind).toBe('error');
    expect((view.el.querySelector('button.hl-run') as HTMLButtonElement).disabled).toBe(false);
  });
});

describe('views that follow their block', () => {
  it('carry a live tag while connected, which goes when the kernel does', () => {
    const model = make(GraphViewModel, { block: 'mlp', status: 'x' }) as GraphViewModel & Settable & { comm_live: boolean; trigger(e: string): void };
    const view = new GraphView({ model } as never);
    view.render();
    const tag = view.el.querySelector('.hl-live')!;
    expect(tag.textContent).toBe('● live');
    expect((tag as HTMLElement).title).toContain('also calls made by later cells');
    expect(tag.getAttribute('data-hl-live')).toBe('true');
    model.comm_live = false;
    model.trigger('comm_live_update');
    expect(tag.getAttribute('data-hl-live')).toBe('false');
    view.remove();
  });
});
