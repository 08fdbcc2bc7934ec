/**
 * The JupyterLab plugins of hybridlab (definitions only). The MIME renderer for static graph
 * outputs is a separate mime extension: `src/mime.ts` (package.json `jupyterlab.mimeExtension`).
 */
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { setHighlighter } from './graph/source';
import { setMainArea } from './main_area';
import { displayedModelIds, IWidgetState, liveWidgetState, refreshedOutput, stateToSave, WIDGET_STATE_MIME } from './saved_state';
import { MODULE_NAME, MODULE_VERSION } from './tokens';

/** Registers the hybridlab widgets (`hybridlab.lab.GraphView`...) with the widget manager. */
const widgetsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'hybridlab:widgets',
  description: 'hybridlab widgets: live graph view, tensor inspector, timing panel, dashboard, debugging reports, build history',
  requires: [IJupyterWidgetRegistry],
  optional: [IEditorLanguageRegistry],
  autoStart: true,
  activate: (app: JupyterFrontEnd, registry: IJupyterWidgetRegistry, languages: IEditorLanguageRegistry | null): void => {
    // the generated source is highlighted by JupyterLab's CodeMirror, as a Python cell is
    if (languages) {
      setHighlighter((code, el) => languages.highlight(code, languages.findBest('python'), el));
    }
    // "Open in a tab" of the graph view adds its tab beside the notebook
    setMainArea(w => app.shell.add(w, 'main', { mode: 'split-right' }));
    registry.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      exports: Promise.all([
        import('./widgets/graphview'),
        import('./widgets/inspector'),
        import('./widgets/timing'),
        import('./widgets/dashboard'),
        import('./widgets/report'),
        import('./widgets/history'),
        import('./widgets/training_plot')
      ]).then(([g, i, t, d, r, h, p]) => ({
        GraphViewModel: g.GraphViewModel,
        GraphView: g.GraphView,
        TensorInspectorModel: i.TensorInspectorModel,
        TensorInspectorView: i.TensorInspectorView,
        TimingPanelModel: t.TimingPanelModel,
        TimingPanelView: t.TimingPanelView,
        DashboardModel: d.DashboardModel,
        DashboardView: d.DashboardView,
        DebugReportModel: r.DebugReportModel,
        DebugReportView: r.DebugReportView,
        BuildHistoryModel: h.BuildHistoryModel,
        BuildHistoryView: h.BuildHistoryView,
        TrainingPlotModel: p.TrainingPlotModel,
        TrainingPlotView: p.TrainingPlotView
      }))
    });
  }
};

/** Write the hybridlab widgets' state into the notebook's widget-state metadata (`saved_state.ts`). */
/** The part of a code cell's shared model (`ISharedCodeCell`, @jupyter/ydoc) the save needs. */
interface ISharedOutputs {
  getOutputs(): unknown[];
  updateOutputs(start: number, end: number, outputs: unknown[], origin?: unknown): void;
}

function saveWidgetState(panel: NotebookPanel): void {
  const model = panel.context.model;
  const cells: ISharedOutputs[] = [];
  for (const cell of panel.content.widgets) {
    const shared = (cell.model as { sharedModel?: Partial<ISharedOutputs> }).sharedModel;
    if (shared && typeof shared.getOutputs === 'function' && typeof shared.updateOutputs === 'function') {
      cells.push(shared as ISharedOutputs);
    }
  }
  const outputs = cells.flatMap(c => c.getOutputs());
  const shown = displayedModelIds(outputs);
  const live = liveWidgetState(shown);
  const meta = (model.getMetadata('widgets') || {}) as { [mime: string]: unknown };
  const existing = (meta[WIDGET_STATE_MIME] as IWidgetState | undefined) || null;
  const models = { ...(existing ? existing.state : {}), ...live.state };
  for (const cell of cells) {
    cell.getOutputs().forEach((o, i) => {
      const fresh = refreshedOutput(o, models);
      if (fresh) {
        cell.updateOutputs(i, i + 1, [fresh], 'silent-change'); // the saved file only: no view is rebuilt
      }
    });
  }
  const state = stateToSave(live, shown, existing);
  if (state) {
    model.setMetadata('widgets', { ...meta, [WIDGET_STATE_MIME]: state });
  }
}

/**
 * Saves the state of the hybridlab widgets with each notebook, so that a notebook reopened
 * without its kernel draws their last state (ipywidgets' manager restores it on open).
 */
const savedStatePlugin: JupyterFrontEndPlugin<void> = {
  id: 'hybridlab:saved-widget-state',
  description: "Saves hybridlab widgets' last state in the notebook, for kernel-less and reopened notebooks",
  requires: [INotebookTracker],
  autoStart: true,
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker): void => {
    tracker.widgetAdded.connect((_, panel) => {
      panel.context.saveState.connect((_ctx, phase) => {
        if (phase === 'started') {
          saveWidgetState(panel);
        }
      });
    });
  }
};

export default [widgetsPlugin, savedStatePlugin];
