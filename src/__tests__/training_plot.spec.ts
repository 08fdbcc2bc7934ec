// The TrainingPlot's charts (training_plot.ts).
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { chart, TrainingPlotModel, TrainingPlotView } from '../widgets/training_plot';

describe('TrainingPlot', () => {
  it('draws one chart per metric with its ranges and follows new points', () => {
    const model = new TrainingPlotModel({ status: 'digits: step 1: loss 0.5', series: { loss: [[0, 1], [1, 0.5]], accuracy: [] } } as never) as unknown as
      TrainingPlotModel & { set(v: object): void };
    const view = new TrainingPlotView({ model } as never);
    view.render();
    const charts = Array.from(view.el.querySelectorAll('.hl-train-chart'));
    expect(charts.map(c => c.getAttribute('data-hl-metric'))).toEqual(['loss', 'accuracy']);
    expect(view.el.querySelector('figcaption')!.textContent).toBe('loss: 0.5');
    const axis = Array.from(charts[0].querySelectorAll('.hl-train-axis')).map(t => t.textContent);
    expect(axis).toEqual(['1', '0.5', 'step 0', 'step 1']);
    expect(charts[1].textContent).toContain('no values yet');
    model.set({ series: { loss: [[0, 1], [1, 0.5], [2, 0.25]], accuracy: [[2, 0.9]] }, status: 'digits: step 2: loss 0.25, accuracy 0.9' });
    expect(view.el.querySelector('.hl-status')!.textContent).toBe('digits: step 2: loss 0.25, accuracy 0.9');
    expect(view.el.querySelector('.hl-train-line')!.getAttribute('points')!.split(' ')).toHaveLength(3);
    view.remove();
  });

  it('leaves NaN/Inf out of the curve and says so; names are text', () => {
    const c = chart('<b>loss</b>', [[0, 1], [1, NaN], [2, Infinity], [3, 0.5]]);
    expect(c.querySelector('.hl-train-line')!.getAttribute('points')!.split(' ')).toHaveLength(2);
    expect(c.querySelector('title')!.textContent).toBe('<b>loss</b>: 4 points, 2 NaN/Inf left out');
    expect(c.querySelector('b')).toBeNull();
  });
});
