"""Write the lesson notebooks from the cell sources below (run: python tools/make_notebooks.py).

Notebooks are generated so their sources stay reviewable as plain Python; outputs are not stored.
"""
import pathlib

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

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


def main():
    HERE.mkdir(exist_ok=True)
    nb = new_notebook(cells=NDARRAY_AND_AUTOGRAD, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, HERE / "01-ndarray-and-autograd.ipynb")


if __name__ == "__main__":
    main()
