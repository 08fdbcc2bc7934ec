/**
 * Shared TypeScript types mirroring the kernel's contracts.
 *
 * The graph JSON is documented in docs/graph-json.md and produced by
 * `hybridlab.lab.graph_json.graph_json` (ARCHITECTURE.md, contract 4). Every string in it
 * (names, attributes, scopes, source lines) comes from models or user files and is
 * rendered as text only, never as HTML. The widgets' synced state (`I...State`) mirrors the
 * traits tagged `sync=True` in `hybridlab/lab/*.py`.
 */
import type { WidgetModel } from '@jupyter-widgets/base';

/** `[node_id, output_index]`: one value read by a node, or one graph output. */
export type Entry = [number, number];

/** One visible output of a node. `shape` is `null` when unknown; a `0` inside is an unknown dim. */
export interface IOutput {
  name: string;
  shape: number[] | null;
  dtype: string | null;
}

/** The user source line that created a node. */
export interface ISourceLine {
  file: string;
  line: number;
  code: string;
}

/** Op families (docs/graph-json.md); `variable` for `op == "null"`. */
export type Family =
  | 'variable'
  | 'elemwise'
  | 'broadcast'
  | 'reduce'
  | 'shape'
  | 'index'
  | 'linalg'
  | 'nn'
  | 'conv'
  | 'pool'
  | 'norm'
  | 'rnn'
  | 'random'
  | 'creation'
  | 'loss'
  | 'internal';

/** One node of the graph JSON. */
/**
 * A shape guard baked into a node (docs/graph-json.md): `what` (`shape`, `len`, `ndim`, `size`,
 * `dtype`, `device`) of the array `array`, read by the block's forward while tracing, is `value`
 * in the node's attributes `attrs`; `source` is the line of the read.
 */
export interface IGuard {
  what: string;
  array: string;
  value: string;
  attrs: string[];
  source: ISourceLine | null;
}

export interface IGraphNode {
  id: number;
  name: string;
  op: string;
  family: Family | string;
  attrs: { [key: string]: string };
  inputs: Entry[];
  outputs: IOutput[];
  scope: string[];
  source: ISourceLine | null;
  is_param: boolean;
  is_aux: boolean;
  is_input: boolean;
  /** Shape guards baked into this node; absent in graphs from older kernels. */
  guards?: IGuard[];
}

/**
 * How a debugging tool marks one graph node (docs/report-json.md): `level` picks the colour
 * (`error`, `warn`, `info`, `ok`, `added`, `removed`, `changed`; anything else draws as `info`),
 * `label` is the tooltip line (text), `heat` (0..1) fills the node from the error heat scale, and
 * `first` marks the node to look at first (the first divergence, the NaN origin).
 */
export interface INodeMark {
  level: string;
  label: string;
  heat?: number | null;
  first?: boolean;
  /** Draw the badge (default true); heat-only marks of agreeing nodes leave it off. */
  badge?: boolean;
}

/** Marks keyed by graph node name. */
export type MarkMap = { [node: string]: INodeMark };

/** The graph after one compiler pass. */
export interface IPassGraph {
  name: string;
  graph: IGraphJSON;
}

/** The graph JSON object, contract version 1. */
export interface IGraphJSON {
  version: number;
  nodes: IGraphNode[];
  heads: Entry[];
  passes: IPassGraph[];
  source_code: string | null;
  /** Optional, additive: the backward graph when the kernel provides it. */
  backward?: IGraphJSON | null;
}

/** Statistics of one parameter, computed in the kernel (`hybridlab.lab.widgets.param_stats`). */
export interface IParamStats {
  shape: number[];
  dtype: string;
  mean: number | null;
  std: number | null;
  min: number | null;
  max: number | null;
  zeros: number;
}

/** Parameter statistics keyed by the parameter's graph variable name. */
export type ParamStatsMap = { [name: string]: IParamStats };

/** The MIME type of a static graph output (`hybridlab.lab.mime`). */
export const GRAPH_MIME_TYPE = 'application/vnd.hybridlab.graph+json';

/** The npm/Python module name and the widget protocol version shared with `hybridlab.lab.widgets`. */
export const MODULE_NAME = 'hybridlab';
export const MODULE_VERSION = '0.1.0';

/** The `_model_*` / `_view_*` defaults of a hybridlab widget model: `model` drawn by `view`. */
export function widgetNames(model: string, view: string): { [key: string]: string } {
  return {
    _model_name: model,
    _model_module: MODULE_NAME,
    _model_module_version: MODULE_VERSION,
    _view_name: view,
    _view_module: MODULE_NAME,
    _view_module_version: MODULE_VERSION
  };
}

/** Type guard: does `value` look like a graph JSON object (contract version 1)? */
export function isGraphJSON(value: unknown): value is IGraphJSON {
  if (!value || typeof value !== 'object') {
    return false;
  }
  const g = value as { [key: string]: unknown };
  return Array.isArray(g.nodes) && Array.isArray(g.heads) && typeof g.version === 'number';
}

/** Statistics of one op output, computed in the kernel (`hybridlab.lab.inspector.tensor_stats`). */
export interface ITensorStats {
  name: string;
  node: string;
  op: string;
  shape: number[];
  dtype: string;
  size: number;
  sampled: boolean;
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
  zeros: number;
  nan: number;
  inf: number;
  hist: { lo: number | null; hi: number | null; counts: number[] };
  preview: (number | null)[][] | null;
}

/** One inspected call of a `TensorInspector`. */
export interface IInspectorStep {
  step: number;
  nodes: ITensorStats[];
}

/** The first op output that held a NaN or Inf (`{}` when none yet). */
export interface INonFinite {
  step?: number;
  node?: string;
  tensor?: string;
  op?: string;
}

/** One mode of a `TimingPanel` run (`hybridlab.lab.timing.time_block`). */
export interface ITimingMode {
  name: string;
  flags: { [key: string]: boolean };
  latencies_ms: number[];
  median_ms: number;
  mean_ms: number;
  p10_ms: number;
  p90_ms: number;
  min_ms: number;
  trace_ms: number | null;
  build_ms: number | null;
  first_ms: number | null;
  speedup: number | null;
  breakeven_calls: number | null;
  /** When hybridizing pays off, in words (`payoff_text`); '' for imperative. */
  pays_off?: string;
}

/** One graph node's time in the profiled hybridized calls. */
export interface ITimingOp {
  node: string;
  op: string;
  family: string;
  scope: string[];
  count: number;
  total_ms: number;
  avg_ms: number;
  share: number;
}

/** The results of a `TimingPanel` run. */
export interface ITimingResults {
  block: string;
  inputs: string;
  calls: number;
  modes: ITimingMode[];
  ops: ITimingOp[];
  nodes: number;
}

/**
 * A widget model seen through its synced state `S`: `get` is typed by key. Any widget model is
 * one (its own `get` returns `any`), so a view reads `const m: IStateModel<S> = this.model`.
 */
export interface IStateModel<S> {
  get<K extends keyof S & string>(key: K): S[K];
}

/** Synced state of `hybridlab.lab.GraphView` (`hybridlab/lab/widgets.py`). */
export interface IGraphViewState {
  /** The graph JSON; `{}` until the block's first hybridized call. */
  graph: IGraphJSON | Record<string, never>;
  /** The block's name; `''` for a Symbol. */
  block: string;
  /** Why the cached op was last built (`first call`, `new input signature`...). */
  reason: string;
  /** The change that caused the build, in words (`data: (1, 3) float32 -> (5, 3) float32`). */
  detail: string;
  /** The input signature the cached op was built for. */
  signature: string;
  rebuilds: number;
  /** The last hybridization error as text, `''` when none. */
  error: string;
  param_stats: ParamStatsMap;
  hybridized: boolean;
  /** The status line, computed in the kernel (`GraphView.status_text`): shown as is. */
  status: string;
  /** Time per call of each node (ms, by node name) from `GraphView.profile` or a dashboard's timings. */
  op_times: { [name: string]: number };
}

/** Synced state of `hybridlab.lab.TensorInspector` (`hybridlab/lab/inspector.py`). */
export interface ITensorInspectorState {
  block: string;
  /** The inspected calls' statistics (`IInspectorStep[]`) as a JSON string. */
  steps_json: string;
  calls: number;
  inspected: number;
  first_nonfinite: INonFinite;
  error: string;
  /** The status line, computed in the kernel (`TensorInspector.status_text`): shown as is. */
  status: string;
}

/** Synced state of `hybridlab.lab.TimingPanel` (`hybridlab/lab/timing.py`). */
export interface ITimingPanelState {
  block: string;
  /** `time_block`'s results; `{}` before a run. */
  results: ITimingResults | Record<string, never>;
  /** 0..1 while `running`. */
  progress: number;
  stage: string;
  running: boolean;
  error: string;
  /** The status line, computed in the kernel (`TimingPanel.status_text`): shown as is. */
  status: string;
}

/** Synced state of `hybridlab.lab.Dashboard` (`hybridlab/lab/dashboard.py`): its child widgets' models. */
export interface IDashboardState {
  block: string;
  graph: WidgetModel | null;
  inspector: WidgetModel | null;
  timing: WidgetModel | null;
}

/** One row of a debugging report's table (docs/report-json.md). */
export interface IReportRow {
  /** One text cell per column. */
  cells: string[];
  /** `error`, `warn`, `info` or `ok`: the row's colour. */
  level: string;
  /** The graph node the row is about (a click reveals it), or null. */
  node: string | null;
  /** The user's line the row is about (shown when the row is selected), or null. */
  source: ISourceLine | null;
  /** The longer text shown when the row is selected (why, the rewrite, expected vs got). */
  detail: string;
}

/** A debugging report (`hybridlab.lab.report_json`): pre-check, compare, NaN origin, export check. */
export interface IReport {
  version: number;
  tool: 'precheck' | 'compare' | 'nonfinite' | 'export' | string;
  block: string;
  title: string;
  verdict: string;
  ok: boolean;
  columns: string[];
  rows: IReportRow[];
  /** Marks drawn on `graph`'s nodes. */
  marks: MarkMap;
  /** The graph the rows name; `{}` when there is none. */
  graph: IGraphJSON | Record<string, never>;
  /** `print(report)` in the kernel. */
  text: string;
}

/** Synced state of `hybridlab.lab.DebugReport` (`hybridlab/lab/report.py`). */
export interface IDebugReportState {
  /** The report JSON; `{}` before the kernel's first sync. */
  report: IReport | Record<string, never>;
}

/** One build of a block's cached op (`hybridlab.lab.build_history.build_entries`). */
export interface IBuildRecord {
  /** The build's position in `block.rebuild_history` (0 = the first build). */
  index: number;
  /** When it was built, `HH:MM:SS` in the kernel's local time. */
  time: string;
  /** Why it was built (`first call`, `new input signature`, `shape read at net.py:5 changed: ...`). */
  reason: string;
  /** What changed, in words (`data: (1, 3) float32 -> (5, 3) float32`, `static_alloc: False -> True`). */
  detail: string;
  /** The input signature it was built for. */
  signature: string;
  /** The hybridize flags that differ from the defaults (`static_alloc=True`); `''` for the defaults. */
  flags: string;
  /** Time spent tracing, running the passes and compiling (ms); null when unknown. */
  build_ms: number | null;
  /** static_alloc's planned bytes; null without static_alloc. */
  memory_bytes: number | null;
  /** Whether the graph was traced anew (false: the previous build's graph was reused). */
  retraced: boolean;
  /** The graph's node count. */
  nodes: number;
  /** The traced graph's JSON; `{}` when the build kept none. */
  graph: IGraphJSON | Record<string, never>;
}

/** Synced state of `hybridlab.lab.BuildHistory` (`hybridlab/lab/build_history.py`). */
export interface IBuildHistoryState {
  /** The block's name. */
  block: string;
  /** The kept builds, oldest first (the newest `limit`). */
  builds: IBuildRecord[];
  /** The status line, computed in the kernel (`BuildHistory.status_text`): shown as is. */
  status: string;
}

/** Synced state of `hybridlab.lab.TrainingPlot` (hybridlab/lab/training_plot.py). */
export interface ITrainingPlotState {
  title: string;
  /** Per metric, in the order named: `[step, value]` points, oldest first. */
  series: { [metric: string]: [number, number][] };
  /** The kernel's status line, shown as is. */
  status: string;
}
