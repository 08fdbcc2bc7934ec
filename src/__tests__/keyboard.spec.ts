// Keystrokes inside a hybridlab widget never reach the notebook, and the graph canvas has its own
// keys. JupyterLab's shortcuts are a real Lumino CommandRegistry here, listening in the capture
// phase (so stopping propagation alone would not keep them out: the suppress attribute must).
jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub'));

import { CommandRegistry } from '@lumino/commands';

import { GraphCanvas } from '../graph/canvas';
import { ownKeyboard, SUPPRESS_SHORTCUTS } from '../keyboard';
import { GraphView, GraphViewModel } from '../widgets/graphview';
import { BuildHistoryModel, BuildHistoryView } from '../widgets/history';
import { TensorInspectorModel, TensorInspectorView } from '../widgets/inspector';
import { DebugReportModel, DebugReportView } from '../widgets/report';
import { TimingPanelModel, TimingPanelView } from '../widgets/timing';
import { mlpGraph } from './fixtures';

/** The command-mode keys that edit a notebook: `d`,`d` delete, `b`/`a` insert, `x` cut, ArrowDown move. */
const NOTEBOOK_KEYS = ['d', 'd', 'b', 'a', 'x', 'ArrowDown'];

function notebookShortcuts(): { commands: CommandRegistry; ran: string[]; dispose(): void } {
  const commands = new CommandRegistry();
  const ran: string[] = [];
  const bind = (id: string, keys: string[]): void => {
    commands.addCommand(id, { execute: () => void ran.push(id) });
    commands.addKeyBinding({ command: id, keys, selector: 'body' });
  };
  bind('delete-cell', ['D', 'D']);
  bind('insert-below', ['B']);
  bind('insert-above', ['A']);
  bind('cut-cell', ['X']);
  bind('move-down', ['ArrowDown']);
  const listener = (ev: KeyboardEvent): void => commands.processKeydownEvent(ev);
  document.addEventListener('keydown', listener, true);
  return { commands, ran, dispose: () => document.removeEventListener('keydown', listener, true) };
}

/** A keydown as a browser sends it (Lumino reads `code`/`keyCode`, the canvas reads `key`). */
function press(target: Element, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const letter = /^[a-z]$/i.test(key);
  const code = letter ? `Key${key.toUpperCase()}` : key;
  const keyCode = letter ? key.toUpperCase().charCodeAt(0) : key === 'ArrowDown' ? 40 : 0;
  const ev = new KeyboardEvent('keydown', { key, code, keyCode, bubbles: true, cancelable: true, ...init } as KeyboardEventInit);
  target.dispatchEvent(ev);
  return ev;
}

function focusables(root: HTMLElement): Element[] {
  return Array.from(root.querySelectorAll('button, select, input, [tabindex]'));
}

describe('ownKeyboard', () => {
  it('keeps every notebook shortcut out of every control of every widget view', async () => {
    const shortcuts = notebookShortcuts();
    const bubbled: string[] = [];
    const onBody = (ev: KeyboardEvent): number => bubbled.push(ev.key);
    document.body.addEventListener('keydown', onBody);
    const Model = <M>(C: new (a: object) => M, attrs: object): M => new C(attrs);
    const views = [
      new GraphView({ model: Model(GraphViewModel, { block: 'mlp', graph: mlpGraph(), status: 'built' }) } as never),
      new TensorInspectorView({ model: Model(TensorInspectorModel, { block: 'mlp' }) } as never),
      new TimingPanelView({ model: Model(TimingPanelModel, { block: 'mlp' }) } as never),
      new DebugReportView({ model: Model(DebugReportModel, {}) } as never),
      new BuildHistoryView({ model: Model(BuildHistoryModel, { block: 'mlp' }) } as never)
    ];
    try {
      for (const view of views) {
        document.body.appendChild(view.el);
        view.render();
        expect(view.el.getAttribute(SUPPRESS_SHORTCUTS)).toBe('true');
        const controls = focusables(view.el);
        expect(controls.length).toBeGreaterThan(0);
        for (const control of controls) {
          NOTEBOOK_KEYS.forEach(key => press(control, key));
        }
      }
      await (views[0] as GraphView).rendered;
      for (const control of focusables(views[0].el)) {
        NOTEBOOK_KEYS.forEach(key => press(control, key)); // the drawn nodes too
      }
      expect(shortcuts.ran).toEqual([]);
      expect(bubbled).toEqual([]);
      // the same registry does run them outside a widget: the test would see a leak
      NOTEBOOK_KEYS.forEach(key => press(document.body, key));
      expect(shortcuts.ran).toEqual(['delete-cell', 'insert-below', 'insert-above', 'cut-cell', 'move-down']);
    } finally {
      views.forEach(v => v.remove());
      document.body.removeEventListener('keydown', onBody);
      shortcuts.dispose();
    }
  }, 30000);

  it('returns the element it marked', () => {
    const el = document.createElement('div');
    expect(ownKeyboard(el)).toBe(el);
    expect(el.hasAttribute(SUPPRESS_SHORTCUTS)).toBe(true);
  });
});

describe("the graph canvas's keys", () => {
  let canvas: GraphCanvas;
  beforeEach(async () => {
    canvas = new GraphCanvas();
    document.body.appendChild(canvas.node);
    await canvas.setGraph(mlpGraph());
  });
  afterEach(() => canvas.dispose());

  const area = (): HTMLElement => canvas.node.querySelector('.hl-graph-area') as HTMLElement;
  const transform = (): string => canvas.node.querySelector('.hl-viewport')!.getAttribute('transform')!;

  it('arrows pan, + and - zoom, 0 fits again', () => {
    const fitted = transform();
    const scale = canvas.view!.scale;
    press(area(), 'ArrowLeft');
    expect(canvas.view!.tx).not.toBe(fitted);
    const tx = canvas.view!.tx;
    press(area(), 'ArrowRight', { shiftKey: true });
    expect(canvas.view!.tx).toBeLessThan(tx);
    press(area(), '+');
    expect(canvas.view!.scale).toBeCloseTo(scale * 1.25);
    press(area(), '-');
    press(area(), '-');
    expect(canvas.view!.scale).toBeCloseTo(scale * 0.8);
    expect(canvas.view!.auto).toBe(false);
    press(area(), '0');
    expect(canvas.view!.auto).toBe(true);
    expect(transform()).toBe(fitted);
  });

  it('/ goes to the search box; n and N walk the matches with a count; Enter opens; Esc goes back', async () => {
    area().focus();
    const ev = press(area(), '/');
    expect(ev.defaultPrevented).toBe(true);
    const search = canvas.node.querySelector('.hl-search') as HTMLInputElement;
    expect(document.activeElement).toBe(search);
    canvas.search('dense1');
    const count = canvas.node.querySelector('.hl-match-count')!;
    expect(count.textContent).toBe('4 matches');
    press(search, 'Enter');
    await canvas.rendered;
    expect(count.textContent).toBe('1 of 4');
    area().focus();
    press(area(), 'n');
    await canvas.rendered;
    await Promise.resolve();
    expect(count.textContent).toBe('2 of 4');
    const focused = document.activeElement as Element;
    const second = focused.getAttribute('data-hl-node');
    expect(second).toMatch(/dense1/);
    expect(focused.getAttribute('role')).toBe('button');
    expect(focused.getAttribute('aria-label')).toContain(second!);
    press(focused, 'N');
    await canvas.rendered;
    await Promise.resolve();
    expect(count.textContent).toBe('1 of 4');
    const first = document.activeElement as Element;
    press(first, 'Enter');
    expect(canvas.node.querySelector(`[data-hl-details="${first.getAttribute('data-hl-node')}"]`)).not.toBeNull();
    press(first, 'Escape');
    expect(document.activeElement).toBe(area());
    // the previous/next buttons do what N/n do; a search with no match says so
    (canvas.node.querySelector('.hl-match-next') as HTMLButtonElement).click();
    await canvas.rendered;
    await Promise.resolve();
    expect(count.textContent).toBe('2 of 4');
    canvas.search('no such node');
    expect(count.textContent).toBe('no match');
    expect((canvas.node.querySelector('.hl-match-next') as HTMLButtonElement).disabled).toBe(true);
  }, 30000);

  it('leaves typing in the search box to the box and plain keys on buttons to the buttons', () => {
    const search = canvas.node.querySelector('.hl-search') as HTMLInputElement;
    const before = transform();
    expect(press(search, 'ArrowLeft').defaultPrevented).toBe(false);
    expect(press(search, '0').defaultPrevented).toBe(false);
    expect(transform()).toBe(before);
    const fit = canvas.node.querySelector('.hl-fit') as HTMLButtonElement;
    expect(press(fit, 'Enter').defaultPrevented).toBe(false);
  });

  it('labels its controls for screen readers', () => {
    expect(canvas.node.querySelector('.hl-view-select')!.getAttribute('aria-label')).toBe('Which graph to show');
    expect(canvas.node.querySelector('.hl-search')!.getAttribute('aria-label')).toContain('Search nodes');
    expect(area().getAttribute('tabindex')).toBe('0');
    expect(area().getAttribute('aria-label')).toContain('arrows pan');
    for (const b of Array.from(canvas.node.querySelectorAll('button'))) {
      // an accessible name: its visible words, or an aria-label for a symbol (‹ ›)
      expect(/\w/.test(b.textContent || '') || !!b.getAttribute('aria-label')).toBe(true);
    }
  });
});

describe('keyboard operation of the panels', () => {
  it('inspector rows: Enter shows a row, arrows move between rows', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { InspectorPanel } = require('../widgets/inspector');
    const t = (name: string) => ({
      name, node: name, op: 'FullyConnected', shape: [2], dtype: 'float32', size: 2, sampled: false, min: 0, max: 1,
      mean: 0.5, std: 0.5, zeros: 0, nan: 0, inf: 0, hist: { lo: 0, hi: 1, counts: [1, 1] }, preview: [[0, 1]]
    });
    const panel = new InspectorPanel();
    document.body.appendChild(panel.node);
    panel.setSteps([{ step: 1, nodes: [t('fc0_output'), t('fc1_output')] }]);
    const rows = (): HTMLElement[] => Array.from(panel.node.querySelectorAll('.hl-stats-row'));
    expect(rows().every(r => r.tabIndex === 0)).toBe(true);
    rows()[0].focus();
    press(rows()[0], 'ArrowDown');
    expect(document.activeElement).toBe(rows()[1]);
    press(rows()[1], 'Enter');
    expect(panel.node.querySelector('.hl-selected')!.getAttribute('data-hl-tensor')).toBe('fc1_output');
    expect((document.activeElement as HTMLElement).dataset.hlTensor).toBe('fc1_output');
    expect(panel.node.querySelector('.hl-detail-title')!.textContent).toContain('fc1_output');
    panel.node.remove();
  });
});
