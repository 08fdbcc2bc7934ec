/**
 * The full view of a GraphView in a JupyterLab main-area tab ("Open in a tab"): the same graph
 * model drawn by a second `GraphCanvas` that fills the tab, following the model's updates (a
 * rebuild shows up in both). Closing the tab leaves the notebook's view as it was.
 */
import { Widget } from '@lumino/widgets';

import { GraphCanvas } from '../graph/canvas';
import { ownKeyboard } from '../keyboard';
import { mainArea } from '../main_area';
import { IGraphViewState, isGraphJSON, IStateModel } from '../tokens';

/** Whether a main area is there to open tabs in. */
export function canOpenTabs(): boolean {
  return mainArea() !== null;
}

type GraphModel = IStateModel<IGraphViewState> & {
  on(events: string, cb: () => void, ctx?: unknown): void;
  off(events: string | null, cb: (() => void) | null, ctx?: unknown): void;
};

export class GraphTab extends Widget {
  readonly canvas: GraphCanvas;
  private _model: GraphModel;

  constructor(model: GraphModel) {
    super();
    this._model = model;
    this.addClass('hl-graph-tab');
    ownKeyboard(this.node);
    const block = model.get('block') || 'graph';
    this.id = `hl-graph-tab-${Math.random().toString(36).slice(2)}`;
    this.title.label = `${block}: graph`;
    this.title.caption = `hybridlab graph of ${block}`;
    this.title.closable = true;
    this.canvas = new GraphCanvas();
    this.node.appendChild(this.canvas.node);
    model.on('change:graph change:status', this._update, this);
    model.on('change:param_stats change:op_times', this._updateExtras, this);
    this._update();
    this._updateExtras();
  }

  /** Open a tab for `model` in the main area; returns it (null outside JupyterLab). */
  static open(model: GraphModel): GraphTab | null {
    const add = mainArea();
    if (!add) {
      return null;
    }
    const tab = new GraphTab(model);
    add(tab);
    return tab;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.off(null, null, this);
    this.canvas.dispose();
    super.dispose();
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    this._fill(msg.height);
  }

  protected onAfterShow(): void {
    this._fill(this.node.clientHeight);
  }

  protected onAfterAttach(): void {
    this._fill(this.node.clientHeight);
  }

  /** The drawing area takes the tab's height less the toolbar and status line. */
  private _fill(height: number): void {
    const area = this.canvas.node.querySelector('.hl-graph-area') as HTMLElement | null;
    if (!area || !(height > 0)) {
      return;
    }
    const chrome = this.canvas.node.offsetHeight - area.offsetHeight;
    this.canvas.setAreaHeight(height - Math.max(0, chrome) - 8);
  }

  /** The parameter statistics and measured times, as the notebook's view has them. */
  private _updateExtras(): void {
    this.canvas.setParamStats(this._model.get('param_stats') || {});
    this.canvas.setTimes(this._model.get('op_times') || {});
  }

  private _update(): void {
    const g = this._model.get('graph');
    void this.canvas.setGraph(isGraphJSON(g) ? g : null, this._model.get('status'));
  }
}
