/**
 * The GraphView widget (ipywidgets 8): model and view for `hybridlab.lab.GraphView`.
 *
 * Synced traits (Python `hybridlab/lab/widgets.py`): `graph` (the graph JSON, `{}` before the
 * block's first call), `block` (the block's name), `reason` (why the cached op was last built),
 * `rebuilds` (how many builds the widget saw), `error` (a hybridization error, or `""`),
 * `param_stats` (per parameter: shape, dtype, mean, std, min, max, share of zeros).
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { GraphCanvas } from '../graph/canvas';
import { IGraphJSON, isGraphJSON, MODULE_NAME, MODULE_VERSION } from '../tokens';
import { statusText } from './status';

export { statusText };

export class GraphViewModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash {
    return {
      ...super.defaults(),
      _model_name: GraphViewModel.model_name,
      _model_module: GraphViewModel.model_module,
      _model_module_version: GraphViewModel.model_module_version,
      _view_name: GraphViewModel.view_name,
      _view_module: GraphViewModel.view_module,
      _view_module_version: GraphViewModel.view_module_version,
      graph: {},
      block: '',
      reason: '',
      rebuilds: 0,
      error: '',
      param_stats: {}
    };
  }

  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers
  };

  static model_name = 'GraphViewModel';
  static model_module = MODULE_NAME;
  static model_module_version = MODULE_VERSION;
  static view_name = 'GraphView';
  static view_module = MODULE_NAME;
  static view_module_version = MODULE_VERSION;
}

export class GraphView extends DOMWidgetView {
  private _canvas: GraphCanvas | null = null;

  render(): void {
    this.el.classList.add('hl-graph-widget');
    this._canvas = new GraphCanvas();
    this.el.appendChild(this._canvas.node);
    this.listenTo(this.model, 'change:graph change:reason change:rebuilds change:detail change:hybridized', this._update);
    this.listenTo(this.model, 'change:error', this._showError);
    this.listenTo(this.model, 'change:param_stats', this._updateStats);
    this.listenTo(this.model, 'comm_live_update', this._commChanged);
    this._update();
    this._updateStats();
    this._showError();
  }

  /** Resolves when the latest graph is drawn (used by tests). */
  get rendered(): Promise<void> {
    return this._canvas ? this._canvas.rendered : Promise.resolve();
  }

  remove(): void {
    this._canvas?.dispose();
    this._canvas = null;
    super.remove();
  }

  private _update(): void {
    if (!this._canvas) {
      return;
    }
    const g = this.model.get('graph');
    const block = String(this.model.get('block') || '');
    const info = statusText(
      block,
      String(this.model.get('reason') || ''),
      Number(this.model.get('rebuilds') || 0),
      String(this.model.get('detail') || ''),
      this.model.get('hybridized') !== false
    );
    if (isGraphJSON(g)) {
      void this._canvas.setGraph(g as IGraphJSON, info);
    } else {
      void this._canvas.setGraph(null, block ? `${block}: waiting for the block's first hybridized call` : 'No graph yet.');
    }
  }

  private _updateStats(): void {
    const stats = this.model.get('param_stats');
    this._canvas?.setParamStats(stats && typeof stats === 'object' ? stats : {});
  }

  private _showError(): void {
    const err = String(this.model.get('error') || '');
    if (err && this._canvas) {
      this._canvas.setStatus(`Hybridization failed: ${err}`, 'error');
    }
  }

  private _commChanged(): void {
    if (this._canvas && !this.model.comm_live) {
      this._canvas.setStatus(
        'Disconnected from the kernel (restarted, or the widget was closed): the graph below is the last one received. Re-run the cell to reconnect.',
        'disconnected'
      );
    }
  }
}
