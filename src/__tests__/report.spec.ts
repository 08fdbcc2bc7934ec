// The widget base classes need a JupyterLab runtime: the panel under test does not use them.
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { GraphCanvas } from '../graph/canvas';
import { scopeKey } from '../graph/model';
import { errorHeat, markLevel } from '../graph/render';
import { IReport, MarkMap } from '../tokens';
import { firstRow, hasHeat, isReport, ReportPanel } from '../widgets/report';
import { HOSTILE, hostileGraph, mlpGraph } from './fixtures';

function compareReport(): IReport {
  const row = (node: string, rel: string, level: string) => ({
    cells: [node, 'FullyConnected', '(1, 2)', rel, rel, level === 'error' ? 'differs' : ''],
    level,
    node,
    source: { file: '/home/me/net.py', line: 12, code: 'x = self.dense(x)' },
    detail: level === 'error' ? 'hybridized value differs from the eager one beyond tolerance' : ''
  });
  return {
    version: 1,
    tool: 'compare',
    block: '',
    title: 'eager vs hybridized: hybridize(), default passes',
    verdict: "eager and hybridized DIFFER: first at node 'mlp_dense1_fwd' (FullyConnected)",
    ok: false,
    columns: ['node', 'op', 'shape', 'max abs err', 'max rel err', ''],
    rows: [row('mlp_dense2_fwd', '0.9', 'error'), row('mlp_dense1_fwd', '0.5', 'error'), row('mlp_dense0_fwd', '0', 'ok')],
    marks: {
      mlp_dense2_fwd: { level: 'error', label: 'max rel err 0.9', heat: 1, first: false, badge: true },
      mlp_dense1_fwd: { level: 'error', label: 'max rel err 0.5', heat: 0.6, first: true, badge: true },
      mlp_dense0_fwd: { level: 'ok', label: 'max rel err 0', heat: 0, first: false, badge: false }
    },
    graph: mlpGraph(),
    text: 'eager vs hybridized ...'
  };
}

describe('marks on the graph', () => {
  let canvas: GraphCanvas;
  beforeEach(() => {
    canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
  });
  afterEach(() => canvas.dispose());

  it('draws level classes, badges, the first node and heat fills; unknown levels draw as info', async () => {
    await canvas.setGraph(mlpGraph());
    await canvas.setMarks({
      mlp_dense0_fwd: { level: 'error', label: 'fails: branch at net.py:3', first: true },
      mlp_dense1_fwd: { level: 'warn', label: 'frozen', heat: 0.5 },
      mlp_dense2_fwd: { level: 'evil class', label: 'x', badge: false }
    });
    await canvas.reveal('mlp_dense2_fwd');
    const n0 = canvas.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!;
    expect(n0.getAttribute('data-hl-mark')).toBe('error');
    expect(n0.classList.contains('hl-first')).toBe(true);
    expect(n0.querySelector('.hl-mark-badge')).not.toBeNull();
    expect(n0.querySelector('title')!.textContent).toContain('fails: branch at net.py:3');
    const n1 = canvas.node.querySelector('[data-hl-node="mlp_dense1_fwd"]')!;
    expect(n1.getAttribute('data-hl-heat')).toBe('0.500');
    expect((n1.querySelector('rect') as SVGRectElement).style.fill.replace(/ /g, '')).toBe(errorHeat(0.5));
    const n2 = canvas.node.querySelector('[data-hl-node="mlp_dense2_fwd"]')!;
    expect(n2.getAttribute('data-hl-mark')).toBe('info');
    expect(n2.querySelector('.hl-mark-badge')).toBeNull();
    expect(markLevel({ level: 'evil class', label: '' })).toBe('info');
  }, 30000);

  it('a collapsed scope holding a marked node says so; reveal expands it and selects the node', async () => {
    await canvas.setGraph(mlpGraph());
    await canvas.setCollapsed(new Set([scopeKey(['mlp', 'dense1'])]));
    await canvas.setMarks({ mlp_dense1_relu_fwd: { level: 'error', label: 'NaN' } });
    expect(canvas.node.querySelector('[data-hl-node="mlp_dense1_relu_fwd"]')).toBeNull();
    expect(canvas.node.querySelectorAll('.hl-group.hl-has-marks')).toHaveLength(1);
    expect(await canvas.reveal('mlp_dense1_relu_fwd')).toBe(true);
    const node = canvas.node.querySelector('[data-hl-node="mlp_dense1_relu_fwd"]')!;
    expect(node.classList.contains('hl-selected')).toBe(true);
    expect(canvas.node.querySelector('[data-hl-details="mlp_dense1_relu_fwd"]')).not.toBeNull();
    expect(await canvas.reveal('no such node')).toBe(false);
  }, 30000);

  it('the heat scale runs from pale to deep red and clamps', () => {
    expect(errorHeat(0)).toBe('rgb(255,245,200)');
    expect(errorHeat(1)).toBe('rgb(200,40,30)');
    expect(errorHeat(7)).toBe(errorHeat(1));
    expect(errorHeat(NaN)).toBe(errorHeat(0));
  });
});

describe('ReportPanel', () => {
  let panel: ReportPanel;
  beforeEach(() => {
    panel = new ReportPanel();
    document.body.appendChild(panel.node);
  });
  afterEach(() => panel.dispose());

  it('shows the verdict, a row per finding and selects the first divergence on the graph', async () => {
    const report = compareReport();
    expect(isReport(report)).toBe(true);
    expect(firstRow(report)).toBe(1);
    await panel.setReport(report);
    expect(panel.node.getAttribute('data-hl-tool')).toBe('compare');
    expect(panel.node.querySelector('.hl-report-verdict')!.textContent).toContain("first at node 'mlp_dense1_fwd'");
    const rows = panel.node.querySelectorAll('.hl-report-row');
    expect(rows).toHaveLength(3);
    expect(Array.from(rows).map(r => r.getAttribute('data-hl-level'))).toEqual(['error', 'error', 'ok']);
    expect(panel.selected).toBe(1);
    expect(rows[1].classList.contains('hl-selected')).toBe(true);
    const first = panel.node.querySelector('[data-hl-node="mlp_dense1_fwd"]')!;
    expect(first.classList.contains('hl-first') && first.classList.contains('hl-selected')).toBe(true);
    expect(panel.node.querySelector('.hl-report-where')!.textContent).toBe('/home/me/net.py:12');
    expect(panel.node.querySelector('.hl-report-code')!.textContent).toBe('x = self.dense(x)');
    expect(panel.node.querySelector('[data-hl-node="mlp_dense2_fwd"]')!.getAttribute('data-hl-heat')).toBe('1.000');
    const legend = panel.node.querySelector('.hl-report-legend') as HTMLElement;
    expect(legend.hidden).toBe(false);
    expect(legend.textContent).toBe('node fill: relative error (log scale)smallestlargest');
  }, 30000);

  it('a report without heat (pre-check) shows no heat legend', async () => {
    const report = compareReport();
    const marks: MarkMap = {};
    for (const [name, m] of Object.entries(report.marks)) {
      marks[name] = { ...m, heat: null };
    }
    expect(hasHeat(marks)).toBe(false);
    await panel.setReport({ ...report, tool: 'precheck', marks });
    expect((panel.node.querySelector('.hl-report-legend') as HTMLElement).hidden).toBe(true);
  }, 30000);

  it('a row click reveals its node; a node click selects its row', async () => {
    await panel.setReport(compareReport());
    (panel.node.querySelectorAll('.hl-report-row')[0] as HTMLElement).click();
    await panel.canvas.rendered;
    await new Promise(r => setTimeout(r, 0));
    expect(panel.selected).toBe(0);
    expect(panel.node.querySelector('[data-hl-node="mlp_dense2_fwd"]')!.classList.contains('hl-selected')).toBe(true);
    const node = panel.node.querySelector('[data-hl-node="mlp_dense0_fwd"]')!;
    node.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(panel.selected).toBe(2);
    expect(panel.node.querySelectorAll('.hl-report-row')[2].classList.contains('hl-selected')).toBe(true);
  }, 30000);

  it('model strings are text: hostile names, cells and lines never become HTML', async () => {
    const g = hostileGraph();
    const name = g.nodes[3].name;
    const report: IReport = {
      ...compareReport(),
      tool: 'precheck',
      title: HOSTILE,
      verdict: HOSTILE,
      columns: [HOSTILE],
      rows: [{ cells: [HOSTILE], level: '<b>', node: name, source: { file: HOSTILE, line: 1, code: HOSTILE }, detail: HOSTILE }],
      marks: { [name]: { level: 'error', label: HOSTILE, first: true } },
      graph: g
    };
    await panel.setReport(report);
    expect(panel.node.querySelector('img')).toBeNull();
    expect(panel.node.querySelector('.hl-report-title')!.textContent).toBe(HOSTILE);
    expect(panel.node.querySelector('.hl-report-row')!.getAttribute('data-hl-level')).toBe('info');
    expect(panel.node.querySelector('.hl-report-code')!.textContent).toBe(HOSTILE);
    const marked = Array.from(panel.node.querySelectorAll('[data-hl-node]')).filter(e => e.getAttribute('data-hl-node') === name);
    expect(marked).toHaveLength(1);
    expect(marked[0].getAttribute('data-hl-mark')).toBe('error');
  }, 30000);

  it('an empty report says there is nothing to report and hides the graph', async () => {
    await panel.setReport({ ...compareReport(), ok: true, rows: [], marks: {}, graph: {}, verdict: 'agree' });
    expect(panel.node.getAttribute('data-hl-ok')).toBe('true');
    expect(panel.node.querySelector('.hl-report-empty')!.textContent).toBe('Nothing to report.');
    expect((panel.node.querySelector('.hl-report-graph') as HTMLElement).hidden).toBe(true);
  }, 30000);
});
