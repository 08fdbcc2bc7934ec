"""Lesson 5's cells (``notebooks/05-debug-hybridize.ipynb``): when hybridize goes wrong, find it and
fix it with the debugging tools. ``tools/make_notebooks.py`` writes the notebook from them."""
from nbformat.v4 import new_code_cell, new_markdown_cell

DEBUG_HYBRIDIZE = [
    new_markdown_cell("""# 5. When hybridize goes wrong: find it, fix it

MXNet 1.9's hybridize tutorial lists what a hybridized block cannot do: branch on values, print or
`asnumpy()` them, write into arrays, read shapes, dtypes or devices. Each shows up as an error on
the first hybridized call, one at a time. Worse, some never show up: the result is just wrong.
hybridlab has one tool for each:

* `block.precheck(x)`: one dry trace that lists the problems of the whole `forward` at once, each with
  its line and the rewrite;
* shape guards and the build history: a shape read in `forward` no longer freezes the batch size;
* `compare(block, x)` and `mx.test_utils.check_gluon_hybridize_consistency`: eager vs hybridized;
* `find_nonfinite(block, x)`: the node and the line where a NaN starts;
* `check_export(block, x)`: the exported files load back as the same model;
* `mx.autograd.get_symbol(y)`: the graph of a recorded imperative computation."""),
    new_code_cell("""import numpy as np
import hybridlab as mx
from hybridlab import gluon, nd
from hybridlab.gluon import nn
from hybridlab.gluon.consistency import compare, compare_settings
from hybridlab.gluon.nonfinite import find_nonfinite
from hybridlab.gluon.export_check import check_export
from hybridlab.test_utils import check_gluon_hybridize_consistency

mx.random.seed(0)
x = nd.array(np.random.RandomState(0).uniform(-1, 1, size=(2, 3, 4)))"""),
    new_markdown_cell("""## Pre-check: every problem before the first hybridized call
A block in MXNet 1.x style with four of the tutorial's limitations, and a layer it never calls.
Imperatively it runs; `precheck` traces it once as `hybridize()` would, goes on past each problem,
and reports them all:"""),
    new_code_cell("""class Messy(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(4)
            self.spare = nn.Dense(4)

    def hybrid_forward(self, F, x):
        x = x.reshape((x.shape[0], -1))
        if x.sum() > 0:
            x = x * 2
        print('largest value', x.max().asscalar())
        x[:, 0] = 0
        return self.fc(x)

messy = Messy()
messy.initialize()
print(messy.precheck(x))"""),
    new_markdown_cell("""In JupyterLab the same report is a panel on the graph traced so far: `mx.lab.precheck` badges
the nodes each problem concerns (red: fails, amber: frozen), and a click on a row goes to its node
and shows its line and rewrite (a click on a node selects its row):"""),
    new_code_cell("""mx.lab.precheck(messy, x)"""),
    new_markdown_cell("""Each line gives the severity, the file and line, the code, why it breaks and the rewrite, in the
words of the block's style (`F.` ops here). The pre-check ran the code once with real values, so
the `print` printed. The unused `spare` layer is only a note: it hybridizes, but its parameters are
saved and trained for nothing.

Fix the two value problems first: compute both branches and choose with `F.where` (the condition
as an array like `x`); drop the `print` (to look at values, call the block before `hybridize()`
or use lesson 3's tensor inspector)."""),
    new_code_cell("""class Step1(Messy):
    def hybrid_forward(self, F, x):
        x = x.reshape((x.shape[0], -1))
        positive = F.broadcast_mul(F.ones_like(x), x.sum() > 0)
        x = F.where(positive, x * 2, x)
        x[:, 0] = 0
        return self.fc(x)

step1 = Step1()
step1.initialize()
print(step1.precheck(x))"""),
    new_markdown_cell("""Then the write and the shape: build a new array from slices instead of writing into one, and
let reshape's code `0` copy the batch dimension instead of reading it. Without the spare layer:"""),
    new_code_cell("""class Fixed(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(4)

    def hybrid_forward(self, F, x):
        x = x.reshape((0, -1))
        positive = F.broadcast_mul(F.ones_like(x), x.sum() > 0)
        x = F.where(positive, x * 2, x)
        first = F.slice_axis(x, axis=1, begin=0, end=1)
        x = F.concat(F.zeros_like(first), F.slice_axis(x, axis=1, begin=1, end=None), dim=1)
        return self.fc(x)

fixed = Fixed()
fixed.initialize()
print(fixed.precheck(x))
eager = fixed(x)
fixed.hybridize()
print('eager vs hybridized, max difference:', np.abs(fixed(x).asnumpy() - eager.asnumpy()).max())"""),
    new_markdown_cell("""### The same block in MXNet 2.0 style
In a 2.0-style `forward` on `mx.np` arrays, the advice uses `mx.np` / `mx.npx` words, and a shape
read is no error: its number is **frozen** into the graph. The report names the node attribute
that holds it."""),
    new_code_cell("""class Messy2(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4)

    def forward(self, x):
        x = x.reshape((x.shape[0], -1))
        if x.sum() > 0:
            x = x * 2
        print('largest value', x.max())
        x[:, 0] = 0
        return self.fc(x)

x2 = x.as_np_ndarray()
messy2 = Messy2()
messy2.initialize()
print(messy2.precheck(x2))"""),
    new_code_cell("""class Fixed2(Messy2):
    def forward(self, x):
        x = mx.npx.reshape(x, (-2, -1))
        x = mx.np.where(x.sum() > 0, x * 2, x)
        x = mx.np.concatenate([mx.np.zeros_like(x[:, :1]), x[:, 1:]], axis=1)
        return self.fc(x)

fixed2 = Fixed2()
fixed2.initialize()
print(fixed2.precheck(x2))
eager = fixed2(x2)
fixed2.hybridize()
print('eager vs hybridized, max difference:', np.abs(fixed2(x2).asnumpy() - eager.asnumpy()).max())"""),
    new_markdown_cell("""## dtype and device
The tutorial's *Data type* and *Compute context* limitations: a Symbol describes operations, not
data, so in `hybrid_forward` it has no `dtype` and no `context`. The hybridized call stops at the
line that reads one, with the rewrite:"""),
    new_code_cell("""class ByDtype(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.dtype == np.float16:
            return x
        return x * 2

by_dtype = ByDtype()
by_dtype.hybridize()
try:
    by_dtype(x)
except AttributeError as err:
    print(err)"""),
    new_markdown_cell("""The fix the tutorial gives: decide in the constructor (`ByDtype(half=True)`, or `net.cast('float16')`
for the parameters), so each setting builds its own graph. In 2.0 style `x.dtype` can be read while
tracing, but the branch it picks is baked into the graph like a shape: decide it in the constructor
there too."""),
    new_markdown_cell("""## Shape guards: the reshape story
In MXNet 2.0, `x.reshape((x.shape[0], -1))` in a hybridized `forward` traced with batch 2 records
`newshape=(2, -1)`; a batch of 3 then silently comes back as `(2, 18)`. hybridlab remembers every
shape read while tracing as a **guard** on the input signature; a call that breaks one traces
again, and the build history says why:"""),
    new_code_cell("""class Flatten(gluon.HybridBlock):
    def forward(self, x):
        return x.reshape((x.shape[0], -1))

flat = Flatten()
flat.hybridize()
print(flat(mx.np.ones((2, 3, 4))).shape, flat(mx.np.ones((3, 3, 4))).shape)
print(flat.hybridization.history[-1].reason)"""),
    new_markdown_cell("""`hybridize(shape_guards=False)` keeps MXNet's behaviour for whoever needs it, and warns (once per
read) when a call computes with a stale number:"""),
    new_code_cell("""like_mxnet = Flatten()
like_mxnet.hybridize(shape_guards=False)
like_mxnet(mx.np.ones((2, 3, 4)))
print(like_mxnet(mx.np.ones((3, 3, 4))).shape)"""),
    new_markdown_cell("""Every build is a record: why it happened, the flags, whether the graph was traced anew, and how
long the build took (it varies from run to run). `diff(i, j)` compares two builds' graphs node by
node: here the frozen attribute that the guard caught."""),
    new_code_cell("""history = flat.hybridization.history
print(history)
print(history.diff(0, 1))
for k, record in enumerate(history):
    print(k, dict(record.flags), 'traced anew' if record.retraced else 'same graph', f'{record.build_ms:.1f} ms')"""),
    new_markdown_cell("""`mx.lab.BuildHistory` draws the history and follows the block live: a row per build, and two
builds (by default the last two; pick others with a row's A and B buttons) side by side with the
nodes the later one added, removed or changed marked (here the reshape, whose `newshape` holds
the batch size). Call `flat` with another batch size and a row appears:"""),
    new_code_cell("""mx.lab.BuildHistory(flat)"""),
    new_markdown_cell("""## Eager vs hybridized: results differ after hybridize()
A Python number that changes between calls (an annealing temperature kept on the block) is read
once, while tracing, and baked into the graph. `compare` runs the block imperatively and
hybridized on the same inputs and parameters, and compares the outputs, the gradients and every
node (the graph run op by op against the compiled program):"""),
    new_code_cell("""class Annealed(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2)
        self.temperature = 1.0

    def forward(self, x):
        self.temperature = self.temperature / 2
        return self.fc(x) / self.temperature

batch = mx.np.array(np.random.RandomState(1).normal(size=(4, 3)), dtype='float32')
annealed = Annealed()
annealed.initialize()
print(compare(annealed, batch, backward=True))"""),
    new_markdown_cell("""As a panel, `mx.lab.compare` colours every compared node by its error (pale: agrees, deep red:
the largest) and opens on the first node that differs; the table lists the nodes largest error
first, then the outputs and gradients:"""),
    new_code_cell("""mx.lab.compare(annealed, batch)"""),
    new_markdown_cell("""Every node agrees with the compiled program, yet the outputs and gradients differ: the program
runs its graph faithfully, but the graph holds the temperature of the call that traced it (in
`_div_scalar`). A value that changes between calls must be an input (or a parameter). Then every
hybridize setting, and the default setting with each optimization pass left out, agree:"""),
    new_code_cell("""class Annealed2(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2)

    def forward(self, x, temperature):
        return self.fc(x) / temperature

annealed2 = Annealed2()
annealed2.initialize()
temperature = mx.np.array([0.5])
for report in compare_settings(annealed2, batch, temperature, backward=True):
    print(str(report).splitlines()[0])"""),
    new_markdown_cell("""MXNet's own test helper, `check_gluon_hybridize_consistency(net_builder, data_l)`, does the same
in a test: silent when they agree, an `AssertionError` naming the first node that differs
otherwise."""),
    new_code_cell("""check_gluon_hybridize_consistency(Annealed2, [batch, temperature])
print('Annealed2: consistent')
try:
    check_gluon_hybridize_consistency(Annealed, [batch])
except AssertionError as err:
    said = ('hybridized and imperative', 'the first node', 'no single node')
    print('\\n'.join(line for line in str(err).splitlines() if line.startswith(said)))"""),
    new_markdown_cell("""## Where a NaN comes from
`log` of a negative number. Hybridized, the NaN appears somewhere inside a compiled, fused
program; NumPy's warning is re-issued at **your** line, naming the node:"""),
    new_code_cell("""class LogScore(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, in_units=3)

    def forward(self, x):
        return self.fc(mx.np.log(x) * 2)

log_score = LogScore()
log_score.initialize()
log_score.hybridize()
values = mx.np.array([[1.0, -1.0, 2.0]])
print(log_score(values))"""),
    new_markdown_cell("""`find_nonfinite` runs the compiled program with a monitor and stops at the first node whose
output holds a NaN or an Inf, opening the fused node, with the statistics of its inputs (with
`backward=True` it checks the gradient program too when the forward is finite):"""),
    new_code_cell("""print(find_nonfinite(log_score, values, backward=True))"""),
    new_markdown_cell("""`mx.lab.find_nonfinite` marks the origin on the graph, with the statistics of its inputs and
outputs and the line that created it:"""),
    new_code_cell("""mx.lab.find_nonfinite(log_score, values)"""),
    new_code_cell("""class SafeLogScore(LogScore):
    def forward(self, x):
        return self.fc(mx.np.log(mx.np.abs(x) + 1e-6) * 2)

safe = SafeLogScore()
safe.initialize()
safe.hybridize()
print(find_nonfinite(safe, values, backward=True))"""),
    new_markdown_cell("""## Export, checked
`check_export` exports the block, loads the files back with `SymbolBlock.imports` and compares input
and output names, every parameter's name, shape and dtype, the graph node by node and the outputs
(with `HYBRIDLAB_MXNET_PYTHON` pointing at a Python with MXNet 1.9.1, real MXNet loads them too):"""),
    new_code_cell("""print(check_export(safe, values))
print(check_export(fixed, x))"""),
    new_markdown_cell("""## The graph of an imperative computation
`mx.autograd.get_symbol(y)` turns what `autograd.record()` recorded into a Symbol (MXNet's names:
`var0` for an array with `attach_grad`, `node_k` for each op); it prints, exports and evaluates to
the recorded values:"""),
    new_code_cell("""a = mx.np.array([1.0, 2.0])
a.attach_grad()
with mx.autograd.record():
    b = mx.np.log(a) * a + 1
graph = mx.autograd.get_symbol(b)
print(graph.graph_str())
print(graph.eval(var0=mx.nd.array([1.0, 2.0]))[0].asnumpy(), b.asnumpy())"""),
]
