"""Write the lesson notebooks from the cell sources below (run: python tools/make_notebooks.py).

Notebooks are generated so their sources stay reviewable as plain Python; outputs are not stored.
"""
import pathlib

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from lesson_data_parallel import DATA_PARALLEL
from lesson_debug_hybridize import DEBUG_HYBRIDIZE

HERE = pathlib.Path(__file__).resolve().parent.parent / "notebooks"

NDARRAY_AND_AUTOGRAD = [
    new_markdown_cell("""# 1. NDArray and autograd

hybridlab speaks MXNet: `import hybridlab as mx` and code written for MXNet 1.x (`mx.nd`) or 2.0
(`mx.np`, `mx.npx`) runs. Arrays live on a device: NumPy on `mx.cpu()`, CuPy on `mx.gpu()`."""),
    new_code_cell("""import numpy as np
import hybridlab as mx
from hybridlab import nd

x = nd.array([[1, 2, 3], [4, 5, 6]])
x"""),
    new_code_cell("""print(x.shape, x.dtype, x.context)
print((x * 2 + 1).asnumpy())
print(nd.dot(x, x, transpose_b=True))"""),
    new_markdown_cell("""Every function in `mx.nd`, `mx.np` and `mx.npx` comes from **one operator registry**.
The same `FullyConnected` op answers to its MXNet 1.x name and to `npx.fully_connected`:"""),
    new_code_cell("""print(mx.nd.FullyConnected.op is mx.npx.fully_connected.op)
help(mx.nd.FullyConnected)"""),
    new_markdown_cell("""MXNet's reshape codes: `0` copies a dimension, `-1` infers one, `-2` copies the rest,
`-3` merges two, `-4` splits one."""),
    new_code_cell("""a = nd.zeros((2, 3, 4))
print(a.reshape((0, -1)).shape, a.reshape((-3, 4)).shape, a.reshape((-4, 1, 2, -2)).shape)"""),
    new_markdown_cell("""## Autograd
Mark the arrays you want gradients for, record the computation, call `backward()`."""),
    new_code_cell("""w = nd.random.normal(shape=(3, 1))
w.attach_grad()
with mx.autograd.record():
    y = nd.dot(x, w)
    loss = (y * y).sum()
loss.backward()
print(w.grad)
print(2 * x.asnumpy().T @ (x.asnumpy() @ w.asnumpy()))   # the same, by hand"""),
    new_markdown_cell("""Gradients are themselves computed with registered ops, so they can be differentiated
again:"""),
    new_code_cell("""t = nd.array([0.5])
t.attach_grad()
with mx.autograd.record():
    f = nd.sin(t) * t
    (df,) = mx.autograd.grad(f, [t], create_graph=True)
df.backward()
print('df/dt  =', df.asscalar(), ' expected', np.cos(0.5) * 0.5 + np.sin(0.5))
print('d2f/dt2 =', t.grad.asscalar(), ' expected', 2 * np.cos(0.5) - 0.5 * np.sin(0.5))"""),
    new_markdown_cell("""## A tiny training loop
Linear regression with plain autograd and SGD."""),
    new_code_cell("""mx.random.seed(0)
X = nd.random.normal(shape=(200, 2))
true_w, true_b = nd.array([[2.0], [-3.4]]), 4.2
Y = nd.dot(X, true_w) + true_b + 0.01 * nd.random.normal(shape=(200, 1))

w, b = nd.zeros((2, 1)), nd.zeros((1,))
for p in (w, b):
    p.attach_grad()
for epoch in range(50):
    with mx.autograd.record():
        loss = ((nd.dot(X, w) + b - Y) ** 2).mean()
    loss.backward()
    for p in (w, b):
        p[:] = p - 0.1 * p.grad
print('loss', loss.asscalar(), 'w', w.asnumpy().ravel(), 'b', b.asscalar())
assert abs(w.asnumpy()[0, 0] - 2.0) < 0.05 and abs(b.asscalar() - 4.2) < 0.05"""),
]


HYBRIDIZE = [
    new_markdown_cell("""# 2. Imperative vs symbolic: hybridize

A Gluon `HybridBlock` runs imperatively (each op computes as Python reaches it) until you call
`hybridize()`. The next call builds a **graph** of the whole forward pass, compiles it into one program,
and later calls run that program. This lesson shows each stage."""),
    new_code_cell("""import numpy as np
import hybridlab as mx
from hybridlab import nd, gluon
from hybridlab.gluon import nn

def get_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    net.initialize()
    return net

x = nd.random.normal(shape=(1, 512))
net = get_net()
imperative = net(x)
net.hybridize()
hybrid = net(x)
print(imperative, hybrid)
assert np.allclose(imperative.asnumpy(), hybrid.asnumpy(), atol=1e-6)"""),
    new_markdown_cell("""## What hybrid_forward sees
In MXNet 1.x style, `F` is `mx.nd` when running imperatively and `mx.sym` while the graph is built, so
`print(x)` prints an NDArray, then a Symbol once, then nothing: later calls never enter Python code."""),
    new_code_cell("""class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(10)
            self.fc2 = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print('  hybrid_forward sees', type(x).__name__, x if isinstance(x, mx.sym.Symbol) else x.shape)
        return self.fc2(F.relu(self.fc1(x)))

small = Net()
small.initialize()
print('imperative:'); small(nd.ones((1, 4)))
small.hybridize()
print('first hybridized call:'); small(nd.ones((1, 4)))
print('second hybridized call:'); small(nd.ones((1, 4)))"""),
    new_markdown_cell("""## The graph and the program
Calling a block on a `Symbol` returns the graph. The compiled program is plain Python: print it."""),
    new_code_cell("""graph = net(mx.sym.var('data'))
print(graph.list_arguments())
mx.viz.print_summary(graph, shape={'data': (1, 512)})"""),
    new_markdown_cell("""A Symbol (or a hybridized block) as a cell's result is drawn by the JupyterLab extension: the
graph of the forward pass, its Block scopes as boxes, each edge labelled with the shape it carries
(click a node for its attributes; the notebook keeps the drawing when saved)."""),
    new_code_cell("""graph"""),
    new_code_cell("""print(net.cached_op)"""),
    new_markdown_cell("""## Why hybridize: speed
Imperative calls pay Python dispatch per op; the compiled program pays it once per call."""),
    new_code_cell("""import timeit
imp = get_net(); imp(x)
hyb = get_net(); hyb.load_dict({k: v.data() for k, v in zip(hyb.collect_params(), imp.collect_params().values())})
hyb.hybridize(static_alloc=True, static_shape=True); hyb(x)
t_imp = min(timeit.repeat(lambda: imp(x), number=200, repeat=5)) / 200
t_hyb = min(timeit.repeat(lambda: hyb(x), number=200, repeat=5)) / 200
print(f'imperative {t_imp * 1e6:.1f} us, hybridized {t_hyb * 1e6:.1f} us: {t_imp / t_hyb:.1f}x')"""),
    new_markdown_cell("""## Deploy: export and import
`export` writes MXNet 1.9's files; `SymbolBlock.imports` (here or in real MXNet) loads them."""),
    new_code_cell("""import os, tempfile
prefix = os.path.join(tempfile.mkdtemp(), 'mlp')
print(net.export(prefix, epoch=1))
loaded = gluon.nn.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0001.params')
print(np.abs(loaded(x).asnumpy() - net(x).asnumpy()).max())"""),
    new_markdown_cell("""## Symbolic all the way: bind and Module
Before Gluon, MXNet programs were written as graphs from the start: `mx.sym` builds the graph,
`simple_bind` allocates every array from the input shapes, and the executor runs forward and
backward on them. The same graph trains with the `Module` API."""),
    new_code_cell("""data = mx.sym.var('data')
h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name='fc1'), act_type='relu', name='relu1')
sym_net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=2, name='fc2'), name='softmax')
ex = sym_net.simple_bind(mx.cpu(), data=(4, 8))
print({name: arr.shape for name, arr in ex.arg_dict.items()})
for name in ('fc1_weight', 'fc2_weight'):
    ex.arg_dict[name][:] = nd.random.normal(scale=0.1, shape=ex.arg_dict[name].shape)
out = ex.forward(is_train=True, data=nd.random.normal(shape=(4, 8)), softmax_label=nd.array([0, 1, 1, 0]))
ex.backward()                     # SoftmaxOutput is a loss: no head gradient needed
print(out[0].shape, ex.grad_dict['fc1_weight'].shape)"""),
    new_code_cell("""import logging
logging.getLogger().setLevel(logging.INFO)
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 8)).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.float32)
train = mx.io.NDArrayIter(X, Y, batch_size=20, shuffle=True)
mod = mx.mod.Module(sym_net)
mod.fit(train, num_epoch=5, optimizer='sgd', optimizer_params={'learning_rate': 0.5}, initializer=mx.init.Xavier())
print(mod.score(train, 'acc'))"""),
    new_markdown_cell("""## What a graph cannot do
A Symbol has no values, so value-dependent Python fails while the graph is built, with the rewrite
to use:"""),
    new_code_cell("""class UsesShape(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1))

bad = UsesShape()
bad.hybridize()
try:
    bad(nd.ones((2, 3, 4)))
except AttributeError as err:
    print(err)"""),
]


SEE_IT = [
    new_markdown_cell("""# 3. See it in JupyterLab: graph, tensors, timings

Three widgets show what hybridization does, live (they need the hybridlab JupyterLab extension;
elsewhere their text form prints):

* `mx.lab.GraphView(block)`: the cached graph, updated when the block rebuilds;
* `mx.lab.TensorInspector(block)`: per-op statistics of each call (an op hook; statistics are
  computed in the kernel), with the first node that produced a NaN/Inf flagged;
* `mx.lab.TimingPanel(block, x)`: imperative vs hybridized (default, static_alloc,
  static_alloc+static_shape), trace and build cost, per-op time, and after how many calls
  hybridizing pays off.

`mx.lab.inspect(block, x)` shows all three in one dashboard."""),
    new_code_cell("""import numpy as np
import hybridlab as mx
from hybridlab import nd
from hybridlab.gluon import nn

def get_mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    net.initialize()
    return net

def get_lenet():
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(channels=16, kernel_size=3, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(120, activation="relu"),
                nn.Dense(84, activation="relu"),
                nn.Dense(10))
    net.initialize()
    return net"""),
    new_markdown_cell("""## The tutorial MLP: graph and tensor inspector
Create the widgets, then call the block: the graph appears on the first hybridized call and the
inspector fills in (`every=1`: every call is inspected; the default samples calls so that
inspecting costs at most a quarter of the block's own time)."""),
    new_code_cell("""mlp = get_mlp()
mlp.hybridize()
graph = mx.lab.GraphView(mlp)
inspector = mx.lab.TensorInspector(mlp, every=1)
x = nd.random.uniform(shape=(1, 512))
for _ in range(3):
    mlp(x)
graph"""),
    new_code_cell("""inspector"""),
    new_code_cell("""last = inspector.steps[-1]
for t in last["nodes"]:
    print(f"{t['node']:<24}{str(t['shape']):<12}mean {t['mean']:+.3f}  zeros {t['zeros']:.0%}")"""),
    new_markdown_cell("""A NaN in the input: the inspector names the first node whose output held one (the dashboard
highlights it on the graph)."""),
    new_code_cell("""bad = x.copy()
bad[0, 3] = np.nan
mlp(bad)
print(inspector.first_nonfinite)"""),
    new_markdown_cell("""## Imperative vs hybridized
The timing panel measures on the block itself and puts it back as it was (flags, cached op,
history, hooks) afterwards. Press *Run again* to measure with a progress bar."""),
    new_code_cell("""timing = mx.lab.TimingPanel(mlp, x, calls=30)
print(timing.text())     # per mode: median, speed-up, after how many calls hybridizing pays off
timing"""),
    new_markdown_cell("""## LeNet: everything in one dashboard
The dashboard's inspector samples calls for full statistics, but checks the outputs of *every*
call for NaN/Inf: feed it a few inputs holding an Inf and it flags the first such call and the node
that produced it, highlighted on the graph."""),
    new_code_cell("""lenet = get_lenet()
images = nd.random.uniform(shape=(4, 1, 28, 28))
board = mx.lab.inspect(lenet, images, calls=10)
board"""),
    new_code_cell("""broken = images.copy()
broken[0, 0, 5, 5] = np.inf
with np.errstate(invalid="ignore"):      # Inf * 0 inside the convolution gives NaN: NumPy would warn
    for _ in range(6):
        lenet(broken)
print(board.inspector)
print(board.inspector.first_nonfinite.get("detail", board.inspector.first_nonfinite))
print(board.timing)"""),
    new_markdown_cell("""The widgets above keep listening to their blocks. When you are done watching,
`detach()` removes the hooks and subscriptions but leaves every view on screen (`close()` would
also remove the views from the notebook):"""),
    new_code_cell("""inspector.detach(); graph.detach(); board.detach()
mlp(x)                   # no longer inspected: the inspector's count stays
print(inspector)"""),
]


DIGITS = [
    new_markdown_cell("""# 4. Train on real data, hybridized

scikit-learn ships a small real dataset, 1797 handwritten digits of 8x8 pixels (no download). A
LeNet-style network trains on it **hybridized**: every step runs the compiled forward program, one
tape node, and the compiled backward program."""),
    new_code_cell("""import time
import numpy as np
import ipywidgets as widgets
from IPython.display import display
from sklearn.datasets import load_digits
import hybridlab as mx
from hybridlab import autograd, gluon
from hybridlab.gluon import nn

d = load_digits()
x = (d.images / 16.0).astype('float32')[:, None]          # (1797, 1, 8, 8)
y = d.target.astype('float32')
perm = np.random.RandomState(0).permutation(len(y))
(x_train, y_train), (x_test, y_test) = (x[perm][:1437], y[perm][:1437]), (x[perm][1437:], y[perm][1437:])
print(x_train.shape, x_test.shape)"""),
    new_code_cell("""mx.random.seed(7)
net = nn.HybridSequential()
net.add(nn.Conv2D(16, 3, padding=1, activation='relu'), nn.MaxPool2D(2),
        nn.Conv2D(32, 3, padding=1, activation='relu'), nn.MaxPool2D(2),
        nn.Flatten(), nn.Dense(64, activation='relu'), nn.Dense(10))
net.initialize(mx.init.Xavier())
net.hybridize()
trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.005})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=64, shuffle=True)
metric = mx.metric.Accuracy()"""),
    new_code_cell("""epochs = 6
progress = widgets.IntProgress(min=0, max=epochs * len(loader), description='training')
display(progress)
curves = mx.lab.TrainingPlot('loss', 'train accuracy', title='LeNet on digits')
display(curves)                   # redraws live: a point every 5 steps
start = time.perf_counter()
for epoch in range(epochs):
    metric.reset()
    for data, label in loader:
        with autograd.record():
            out = net(data)
            loss = loss_fn(out, label)
        loss.backward()
        trainer.step(data.shape[0])
        metric.update(label, out)
        progress.value += 1
        if progress.value % 5 == 0:
            curves.add(loss=loss.mean().asscalar(), **{'train accuracy': metric.get()[1]})
test_acc = (net(mx.nd.array(x_test)).asnumpy().argmax(axis=1) == y_test).mean()
print(f'{epochs} epochs in {time.perf_counter() - start:.1f} s, test accuracy {test_acc:.3f}')
assert test_acc > 0.9 and curves.latest('loss') < curves.series['loss'][0][1]"""),
    new_markdown_cell("""The block rebuilt its program only when the input signature changed (the last batch is
smaller, and the test set is one big batch):"""),
    new_code_cell("""print(net.rebuild_history)"""),
    new_markdown_cell("""## What hybridizing buys per training step
The same step (forward under `autograd.record()`, then backward) imperatively and hybridized with
each flag set, on one batch. Timings on a shared machine are noisy: compare the modes of one run,
and press *Run again* to see how much they move."""),
    new_code_cell("""batch = mx.nd.array(x_train[:64])
step_timing = mx.lab.TimingPanel(net, batch, calls=10, backward=True)
print(step_timing.text())
step_timing"""),
    new_markdown_cell("""The compiled graph the training ran (open the backward graph in the selector):"""),
    new_code_cell("""mx.lab.GraphView(net)"""),
]


def main():
    HERE.mkdir(exist_ok=True)
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    lessons = (("01-ndarray-and-autograd", NDARRAY_AND_AUTOGRAD), ("02-hybridize", HYBRIDIZE),
               ("03-see-it-in-jupyterlab", SEE_IT), ("04-train-on-digits", DIGITS),
               ("05-debug-hybridize", DEBUG_HYBRIDIZE), ("06-data-parallel", DATA_PARALLEL))
    for name, cells in lessons:
        for i, cell in enumerate(cells):
            cell["id"] = f"{name[:2]}-{i:02d}"     # stable ids: regenerating does not churn the files
        nbformat.write(new_notebook(cells=cells, metadata=meta), HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main()
