// A minimal in-memory stand-in for @jupyter-widgets/base: models hold attributes and fire
// `change:<key>` (and any triggered event) on their views' handlers; views get an `el`. The widget
// specs mock the package with it: jest.mock('@jupyter-widgets/base', () => require('./widget_base_stub')).
type Handler = () => void;
export class DOMWidgetModel {
  static serializers = {};
  comm_live = true;
  private _attrs: { [key: string]: unknown };
  private _handlers: { [event: string]: Handler[] } = {};
  constructor(attrs: { [key: string]: unknown } = {}) {
    this._attrs = { ...this.defaults(), ...attrs };
  }
  defaults(): object {
    return {};
  }
  get(key: string): unknown {
    return this._attrs[key];
  }
  set(values: { [key: string]: unknown }): void {
    Object.assign(this._attrs, values);
    const events = Object.keys(values).map(k => `change:${k}`);
    for (const h of new Set(events.flatMap(e => this._handlers[e] || []))) {
      h();
    }
  }
  trigger(event: string): void {
    (this._handlers[event] || []).forEach(h => h());
  }
  on(event: string, handler: Handler): void {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
  }
}
export class DOMWidgetView {
  el: HTMLDivElement = document.createElement('div');
  model: DOMWidgetModel;
  constructor(options: { model: DOMWidgetModel }) {
    this.model = options.model;
  }
  listenTo(model: DOMWidgetModel, events: string, handler: Handler): void {
    for (const e of events.split(' ')) {
      model.on(e, handler.bind(this));
    }
  }
  send(): void {
    return;
  }
  remove(): void {
    this.el.remove();
  }
}
export const WidgetModel = DOMWidgetModel;
export const unpack_models = (x: unknown): unknown => x;
