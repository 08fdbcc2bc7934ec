// What a notebook save writes into its widget-state metadata (saved_state.ts).
import { displayedModelIds, GRAPH_MIME, ISavedModel, IWidgetState, liveWidgetState, refreshedOutput, stateToSave, trackManager, WIDGET_VIEW_MIME } from '../saved_state';

const ours = (name: string, state: object = {}): ISavedModel => ({
  model_name: name, model_module: 'hybridlab', model_module_version: '^0.1.0', state: { ...state }
});
const theirs = (name: string, state: object = {}): ISavedModel => ({
  model_name: name, model_module: '@jupyter-widgets/controls', model_module_version: '2.0.0', state: { ...state }
});
const shows = (...ids: string[]): unknown[] => ids.map(id => ({
  output_type: 'display_data', data: { [WIDGET_VIEW_MIME]: { version_major: 2, version_minor: 0, model_id: id }, 'text/plain': 'GraphView' }
}));
const live = (state: { [id: string]: ISavedModel }): IWidgetState => ({ version_major: 2, version_minor: 0, state });

describe('displayedModelIds', () => {
  it('finds the widget models that outputs display, and nothing else', () => {
    const outputs = [...shows('a', 'b'), { output_type: 'stream', text: 'IPY_MODEL_c' }, { output_type: 'execute_result', data: { 'text/plain': '1' } }];
    expect(Array.from(displayedModelIds(outputs)).sort()).toEqual(['a', 'b']);
  });
});

describe('stateToSave', () => {
  it("saves the shown hybridlab models and what they reference, keeps other widgets' entries", () => {
    const state = live({
      graph: ours('GraphViewModel', { graph: { nodes: [] } }),
      dash: ours('DashboardModel', { graph: 'IPY_MODEL_graph', inspector: 'IPY_MODEL_insp', children: ['IPY_MODEL_box'] }),
      insp: ours('TensorInspectorModel'),
      box: theirs('HBoxModel'),
      stale: ours('GraphViewModel'),            // its output was cleared
      slider: theirs('IntSliderModel')         // not ours: the manager's own setting decides
    });
    const existing = live({ old: ours('GraphViewModel'), kept: theirs('ButtonModel') });
    const saved = stateToSave(state, new Set(['dash', 'slider']), existing)!;
    expect(Object.keys(saved.state).sort()).toEqual(['box', 'dash', 'graph', 'insp', 'kept']);
    expect(saved.state.dash).toBe(state.state.dash);
    expect(saved.version_major).toBe(2);
  });

  it('never loses a saved hybridlab model an output still shows, even with no manager holding it', () => {
    const existing = live({ graph: ours('GraphViewModel', { graph: { nodes: [{ name: 'x' }] } }) });
    const saved = stateToSave(live({}), new Set(['graph']), existing)!;
    expect(saved.state.graph).toBe(existing.state.graph);
  });

  it('writes nothing when no hybridlab widget is shown or was saved', () => {
    expect(stateToSave(live({ s: theirs('IntSliderModel') }), new Set(['s']), null)).toBeNull();
    // but drops a saved hybridlab entry whose output is gone
    expect(stateToSave(live({}), new Set(), live({ old: ours('GraphViewModel') }))!.state).toEqual({});
  });
});

describe('liveWidgetState', () => {
  it("asks the managers that hold a shown model for their state", () => {
    const full = live({ g: ours('GraphViewModel'), other: ours('GraphViewModel') });
    const calls: object[] = [];
    trackManager({ has_model: (id: string) => id in full.state, get_state_sync: (o: object) => (calls.push(o), full) });
    trackManager({ has_model: () => false, get_state_sync: () => { throw new Error('not this notebook'); } });
    trackManager(undefined); // a view without a manager (tests) is ignored
    const saved = stateToSave(liveWidgetState(new Set(['g'])), new Set(['g']), null)!;
    expect(Object.keys(saved.state)).toEqual(['g']);
    expect(calls).toEqual([{ drop_defaults: true }]);
  });
});

describe('refreshedOutput', () => {
  it("brings a hybridlab widget output's snapshot and graph JSON up to the model's state", () => {
    const [out] = shows('g');
    const withOld = { ...(out as object), data: { ...(out as { data: object }).data, 'text/html': '<p>at display</p>', [GRAPH_MIME]: { nodes: [] } } };
    const graph = { version: 1, nodes: [{ name: 'x' }] };
    const models = { g: ours('GraphViewModel', { snapshot: '<p>last state: NaN in x</p>', graph }), s: theirs('IntSliderModel', { snapshot: '<p>no</p>' }) };
    const fresh = refreshedOutput(withOld, models) as { data: { [mime: string]: unknown }; output_type: string };
    expect(fresh.output_type).toBe('display_data');
    expect(fresh.data['text/html']).toBe('<p>last state: NaN in x</p>');
    expect(fresh.data[GRAPH_MIME]).toEqual(graph);
    expect(fresh.data['text/plain']).toBe('GraphView');
    expect(refreshedOutput(fresh, models)).toBeNull(); // already current
    expect(refreshedOutput(shows('s')[0], models)).toBeNull(); // not ours
    expect(refreshedOutput(shows('gone')[0], models)).toBeNull();
    expect(refreshedOutput({ output_type: 'stream', text: 'x' }, models)).toBeNull();
    // no graph JSON output is added where the kernel did not put one
    expect((refreshedOutput(out, models) as { data: object }).data).not.toHaveProperty(GRAPH_MIME);
  });

  it('keeps the snapshot out of the saved metadata (the output holds it)', () => {
    const saved = stateToSave(live({ g: ours('GraphViewModel', { snapshot: '<p>x</p>', graph: {} }) }), new Set(['g']), null)!;
    expect(saved.state.g.state).toEqual({ graph: {} });
  });
});
