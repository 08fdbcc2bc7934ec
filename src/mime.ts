/**
 * The MIME renderer for static graph outputs (`application/vnd.hybridlab.graph+json`), so a
 * saved notebook shows the graph without a kernel. The data is the graph JSON
 * (docs/graph-json.md); it is drawn by the same `GraphCanvas` as the live widget, as text only,
 * so the renderer is safe for untrusted notebooks.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { GraphCanvas } from './graph/canvas';
import { ownKeyboard } from './keyboard';
import { GRAPH_MIME_TYPE, isGraphJSON } from './tokens';

/** A widget rendering one graph MIME bundle. */
export class GraphMimeRenderer extends Widget implements IRenderMime.IRenderer {
  private _mimeType: string;
  private _canvas: GraphCanvas;

  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('hl-mime-graph');
    ownKeyboard(this.node);
    this._canvas = new GraphCanvas();
    this.node.appendChild(this._canvas.node);
  }

  /** Draw the graph in `model`; a malformed bundle shows an error instead of a blank area. */
  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[this._mimeType];
    if (!isGraphJSON(data)) {
      this._canvas.setStatus('This output is not a hybridlab graph (expected the graph JSON of docs/graph-json.md).', 'error');
      return Promise.resolve();
    }
    // output metadata is keyed by MIME type: {"application/vnd.hybridlab.graph+json": {"title": ...}}
    const meta = (model.metadata || {}) as { [key: string]: unknown };
    const own = (meta[this._mimeType] || {}) as { [key: string]: unknown };
    const title = typeof own.title === 'string' ? own.title : typeof meta.title === 'string' ? meta.title : '';
    return this._canvas.setGraph(data, title);
  }

  dispose(): void {
    this._canvas.dispose();
    super.dispose();
  }
}

/** Creates `GraphMimeRenderer`s for the hybridlab graph MIME type. */
export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [GRAPH_MIME_TYPE],
  defaultRank: 10,
  createRenderer: options => new GraphMimeRenderer(options)
};

/** The MIME extension (package.json `jupyterlab.mimeExtension`). */
const extension: IRenderMime.IExtension = {
  id: 'hybridlab:graph-mime',
  rendererFactory,
  rank: 10,
  dataType: 'json'
};

export default extension;
