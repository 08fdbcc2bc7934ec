/**
 * The JupyterLab plugins of hybridlab (definitions only). The MIME renderer for static graph
 * outputs is a separate mime extension: `src/mime.ts` (package.json `jupyterlab.mimeExtension`).
 */
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';

import { MODULE_NAME, MODULE_VERSION } from './tokens';

/** Registers the hybridlab widgets (`hybridlab.lab.GraphView`...) with the widget manager. */
const widgetsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'hybridlab:widgets',
  description: 'hybridlab widgets: live graph view, tensor inspector, timing panel, dashboard, debugging reports, build history',
  requires: [IJupyterWidgetRegistry],
  autoStart: true,
  activate: (_app: JupyterFrontEnd, registry: IJupyterWidgetRegistry): void => {
    registry.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      exports: Promise.all([
        import('./widgets/graphview'),
        import('./widgets/inspector'),
        import('./widgets/timing'),
        import('./widgets/dashboard'),
        import('./widgets/report'),
        import('./widgets/history')
      ]).then(([g, i, t, d, r, h]) => ({
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
        BuildHistoryView: h.BuildHistoryView
      }))
    });
  }
};

export default [widgetsPlugin];
