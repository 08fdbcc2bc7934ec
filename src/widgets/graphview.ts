/**
 * The GraphView widget (ipywidgets 8): model and view for `hybridlab.lab.GraphView`.
 *
 * Synced state: `IGraphViewState` (`../tokens`, mirroring `hybridlab/lab/widgets.py`). The view
 * draws `graph` and shows `status`, the status line the kernel computes (`GraphView.status_text`),
 * as is; `param_stats` go to the details panel of parameter nodes; `op_times` colour the boxes
 * by time when the user picks it.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { GraphCanvas } from '../graph/canvas';
import { IGraphViewState, isGraphJSON, IStateModel, widgetNames } from '../tokens';
import { canOpenTabs, GraphTab } from './graph_tab';
import { widgetRoot } from './root';

/** The state of a GraphView before the kernel's first sync. */
const INITIAL_STATE: IGraphViewState = {
  graph: {},
  block: '',
  reason: '',
  detail: '',
  signature: '',
  rebuilds: 0,
  error: '',
  param_stats: {},
  hybridized: true,
  status: '',
  op_times: {}
};

export class GraphViewModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & IGraphViewState {
    return {
      ...super.defaults(),
      ...widgetNames('GraphViewModel', 'GraphView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers
  };
}

export class GraphView extends DOMWidgetView {
  private _canvas: GraphCanvas | null = null;

  private get _state(): IStateModel<IGraphViewState> {
    return this.model;
  }

  private _connection: () => void = () => undefined;

  render(): void {
    this.el.classList.add('hl-graph-widget');
    this._canvas = new GraphCanvas();
    this.el.appendChild(this._canvas.node);
    if (canOpenTabs()) {
      this._canvas
        .addButton('Open in a tab', 'Open this graph in a JupyterLab tab of its own (full view)', () => void GraphTab.open(this.model as never))
        .classList.add('hl-open-tab');
    }
    this.listenTo(this.model, 'change:graph change:status change:error change:hybridized', this._update);
    this.listenTo(this.model, 'change:param_stats', this._updateStats);
    this.listenTo(this.model, 'change:op_times', this._updateTimes);
    this._update();
    this._updateStats();
    this._updateTimes();
    this._connection = widgetRoot(this, 'graph', text => this._canvas?.setStatus(text, 'disconnected'), true);
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
    const g = this._state.get('graph');
    const drawn = this._canvas.setGraph(isGraphJSON(g) ? g : null, this._state.get('status'));
    void drawn.then(() => this._connection()); // the layout rewrote the status line
    if (this._failed()) {
      // after the layout, which shows its own summary in the status line
      void drawn.then(() => {
        if (this._canvas && this._failed()) {
          this._canvas.setStatus(this._state.get('status'), 'error');
        }
      });
    }
  }

  /** Whether the status line is a hybridization error (the kernel's `status_text` shows it then). */
  private _failed(): boolean {
    return !!this._state.get('error') && this._state.get('hybridized');
  }

  private _updateTimes(): void {
    this._canvas?.setTimes(this._state.get('op_times') || {});
  }

  private _updateStats(): void {
    this._canvas?.setParamStats(this._state.get('param_stats') || {});
  }
}
