/**
 * The TrainingPlot widget: live curves of training metrics (`hybridlab.lab.TrainingPlot`).
 *
 * Synced state: `ITrainingPlotState` (`../tokens`). One small chart per metric: the curve, its y
 * range on the axis (min and max), the step range under it, and the latest value in the title; a
 * NaN/Inf point is left out of the curve and counted in the title. SVG built with DOM calls;
 * metric names are text.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { svg } from '../graph/render';
import { IStateModel, ITrainingPlotState, widgetNames } from '../tokens';
import { fmt } from './inspector';
import { widgetRoot } from './root';

/** Chart size (px) and the margins holding the axis labels. */
const W = 300;
const H = 130;
const M = { left: 52, right: 8, top: 6, bottom: 22 };

/** One metric's chart as an SVG element (class `hl-train-chart`, `data-hl-metric`). */
export function chart(metric: string, points: [number, number][]): SVGSVGElement {
  const root = svg('svg', { class: 'hl-train-chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'data-hl-metric': metric });
  const finite = points.filter(([s, v]) => Number.isFinite(s) && Number.isFinite(v));
  const bad = points.length - finite.length;
  const last = points.length ? points[points.length - 1][1] : null;
  root.setAttribute('aria-label', `${metric}: ${points.length} points${last !== null ? `, last ${fmt(last)}` : ''}`);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  svg('rect', { class: 'hl-train-frame', x: M.left, y: M.top, width: pw, height: ph }, root);
  const label = (x: number, y: number, text: string, anchor: string, cls = 'hl-train-axis'): void => {
    const t = svg('text', { x, y, 'text-anchor': anchor, class: cls }, root);
    t.textContent = text;
  };
  if (finite.length) {
    const xs = finite.map(p => p[0]);
    const ys = finite.map(p => p[1]);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    if (y0 === y1) {
      [y0, y1] = [y0 - 0.5, y1 + 0.5];
    }
    const px = (s: number): number => M.left + (x1 === x0 ? pw / 2 : ((s - x0) / (x1 - x0)) * pw);
    const py = (v: number): number => M.top + ph - ((v - y0) / (y1 - y0)) * ph;
    svg('polyline', { class: 'hl-train-line', points: finite.map(([s, v]) => `${px(s).toFixed(1)},${py(v).toFixed(1)}`).join(' ') }, root);
    const [ls, lv] = finite[finite.length - 1];
    svg('circle', { class: 'hl-train-last', cx: px(ls), cy: py(lv), r: 2.5 }, root);
    label(M.left - 4, M.top + 9, fmt(y1), 'end');
    label(M.left - 4, M.top + ph, fmt(y0), 'end');
    label(M.left, H - 6, `step ${x0}`, 'start');
    label(W - M.right, H - 6, `step ${x1}`, 'end');
  } else {
    label(M.left + pw / 2, M.top + ph / 2, 'no values yet', 'middle');
  }
  const title = svg('title', {}, root);
  title.textContent = `${metric}: ${points.length} points` + (bad ? `, ${bad} NaN/Inf left out` : '');
  return root;
}

export class TrainingPlotModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & ITrainingPlotState {
    return { ...super.defaults(), ...widgetNames('TrainingPlotModel', 'TrainingPlotView'), title: '', series: {}, status: '' };
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

export class TrainingPlotView extends DOMWidgetView {
  private _status: HTMLDivElement | null = null;
  private _charts: HTMLDivElement | null = null;

  private get _state(): IStateModel<ITrainingPlotState> {
    return this.model;
  }

  render(): void {
    this.el.classList.add('hl-training-plot');
    this._status = document.createElement('div');
    this._status.className = 'hl-status';
    this._charts = document.createElement('div');
    this._charts.className = 'hl-train-charts';
    this.el.append(this._status, this._charts);
    this.listenTo(this.model, 'change:series', this._draw);
    this.listenTo(this.model, 'change:status', this._showStatus);
    this._showStatus();
    this._draw();
    widgetRoot(this, 'curves', text => {
      if (this._status) {
        this._status.textContent = text;
        this._status.dataset.hlKind = 'disconnected';
      }
    });
  }

  private _showStatus(): void {
    if (this._status) {
      this._status.textContent = this._state.get('status');
      this._status.dataset.hlKind = '';
    }
  }

  private _draw(): void {
    if (!this._charts) {
      return;
    }
    const series = this._state.get('series') || {};
    this._charts.textContent = '';
    for (const [metric, points] of Object.entries(series)) {
      const box = document.createElement('figure');
      box.className = 'hl-train-figure';
      const caption = document.createElement('figcaption');
      const last = points.length ? points[points.length - 1][1] : null;
      caption.textContent = last === null ? metric : `${metric}: ${fmt(last)}`;
      box.append(caption, chart(metric, Array.isArray(points) ? points : []));
      this._charts.appendChild(box);
    }
  }
}
