/**
 * The Dashboard widget (`hybridlab.lab.inspect`): a GraphView above tabs for the TensorInspector
 * and the TimingPanel. The node the inspector flagged for a NaN/Inf is highlighted on the graph
 * (class `hl-flagged` on its `[data-hl-node]` element, re-applied whenever the graph redraws).
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers, unpack_models, WidgetModel } from '@jupyter-widgets/base';

import { IDashboardState, IStateModel, ITensorInspectorState, widgetNames } from '../tokens';
import { widgetRoot } from './root';

/** Mark the drawn node named `name` (compared as text, never put in a selector) inside `root`. */
export function highlightNode(root: Element, name: string): number {
  let n = 0;
  root.querySelectorAll('[data-hl-node]').forEach(e => {
    const hit = !!name && e.getAttribute('data-hl-node') === name;
    e.classList.toggle('hl-flagged', hit);
    n += hit ? 1 : 0;
  });
  return n;
}

/** The state of a Dashboard before the kernel's first sync. */
const INITIAL_STATE: IDashboardState = { block: '', graph: null, inspector: null, timing: null };

export class DashboardModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash & IDashboardState {
    return {
      ...super.defaults(),
      ...widgetNames('DashboardModel', 'DashboardView'),
      ...INITIAL_STATE
    };
  }

  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers,
    graph: { deserialize: unpack_models },
    inspector: { deserialize: unpack_models },
    timing: { deserialize: unpack_models }
  };
}

export class DashboardView extends DOMWidgetView {
  private _observer: MutationObserver | null = null;
  private _graphBox: HTMLDivElement | null = null;

  private get _state(): IStateModel<IDashboardState> {
    return this.model;
  }

  render(): void {
    this.el.classList.add('hl-dashboard');
    const status = document.createElement('div');
    status.className = 'hl-status';
    this._graphBox = document.createElement('div');
    this._graphBox.className = 'hl-dashboard-graph';
    const tabs = document.createElement('div');
    tabs.className = 'hl-toolbar hl-dashboard-tabs';
    tabs.setAttribute('role', 'tablist');
    tabs.setAttribute('aria-label', 'Dashboard views');
    const pages = document.createElement('div');
    pages.className = 'hl-dashboard-pages';
    this.el.append(status, this._graphBox, tabs, pages);
    void this._children(tabs, pages);
    widgetRoot(this, 'state of each view below', text => {
      status.textContent = text;
      status.dataset.hlKind = 'disconnected';
    });
  }

  private async _children(tabs: HTMLElement, pages: HTMLElement): Promise<void> {
    const graph = this._state.get('graph');
    if (graph && this._graphBox) {
      const v = await this.create_child_view(graph);
      this._graphBox.appendChild(v.el);
      this._observer = new MutationObserver(() => this._highlight());
      this._observer.observe(this._graphBox, { childList: true, subtree: true });
    }
    const entries: [string, WidgetModel | null][] = [
      ['Tensor inspector', this._state.get('inspector')],
      ['Timing', this._state.get('timing')]
    ];
    const buttons: HTMLButtonElement[] = [];
    const shown: HTMLElement[] = [];
    for (const [label, model] of entries) {
      if (!model) {
        continue;
      }
      const v = await this.create_child_view(model);
      const page = document.createElement('div');
      page.className = 'hl-dashboard-page';
      page.appendChild(v.el);
      const b = document.createElement('button');
      b.textContent = label;
      const index = shown.length;
      // WAI-ARIA tabs: one tab stop, arrows move between the tabs, the panel is labelled by its tab
      b.id = `${this.cid}-tab-${index}`;
      page.id = `${this.cid}-panel-${index}`;
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-controls', page.id);
      page.setAttribute('role', 'tabpanel');
      page.setAttribute('aria-labelledby', b.id);
      const pick = (): void => {
        shown.forEach((p, i) => (p.hidden = i !== index));
        buttons.forEach((x, i) => {
          x.classList.toggle('hl-active', i === index);
          x.setAttribute('aria-selected', i === index ? 'true' : 'false');
          x.tabIndex = i === index ? 0 : -1;
        });
      };
      b.addEventListener('click', pick);
      b.addEventListener('keydown', ev => {
        const step = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
        if (step) {
          ev.preventDefault();
          const next = buttons[(index + step + buttons.length) % buttons.length];
          next.click();
          next.focus();
        }
      });
      buttons.push(b);
      shown.push(page);
      page.hidden = index !== 0;
      b.classList.toggle('hl-active', index === 0);
      b.setAttribute('aria-selected', index === 0 ? 'true' : 'false');
      b.tabIndex = index === 0 ? 0 : -1;
      tabs.appendChild(b);
      pages.appendChild(page);
      if (label === 'Tensor inspector') {
        this.listenTo(model, 'change:first_nonfinite', () => this._highlight());
      }
    }
    this._highlight();
  }

  private _highlight(): void {
    const inspector: IStateModel<ITensorInspectorState> | null = this._state.get('inspector');
    const flag = inspector?.get('first_nonfinite') || {};
    if (this._graphBox) {
      this._observer?.disconnect();
      highlightNode(this._graphBox, flag.node || '');
      this._observer?.observe(this._graphBox, { childList: true, subtree: true });
    }
  }

  remove(): void {
    this._observer?.disconnect();
    this._observer = null;
    super.remove();
  }
}
