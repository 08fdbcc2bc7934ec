"""``out=`` variants of op kernels, for programs that run on a static memory plan.

An out kernel has the op's ``compute`` signature with the destination array inserted after the
attributes: ``kernel(ctx, a, out, *inputs)``. It writes the op's result into ``out`` (a preallocated
array of the output's exact shape and dtype) and returns ``out``, so a planned program allocates
nothing per call. Results are the op's own ``compute`` results (same NumPy/CuPy calls, written in
place); ``tests/test_memory_plan.py`` checks every entry against ``compute``.

``out_kernel(node, in_dtypes, out_dtypes)`` answers "can this node write into a buffer?" at planning
time: only single-output nodes of the ops below, only when every input and the output share one
floating dtype (so no casting question arises). ``inplace_ok(node)`` says whether ``out`` may be one
of the node's own inputs (true for the elementwise ufunc kernels, false for ``FullyConnected``).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.out_kernels import OUT_KERNELS
    >>> from hybridlab.ops.context import op_context
    >>> x = np.array([-1.0, 2.0], dtype=np.float32)
    >>> buf = np.empty(2, dtype=np.float32)
    >>> OUT_KERNELS["relu"](op_context(mx.cpu(), False), {}, buf, x) is buf
    True
    >>> buf.tolist()
    [0.0, 2.0]
"""
import numpy as _np

from ..ops.relu_cpu import relu

__all__ = ["OUT_KERNELS", "INPLACE_OPS", "out_kernel", "inplace_ok"]


def _unary(fn):
    def kernel(ctx, a, out, x):
        return fn(ctx.xp, x, out)
    return kernel


def _binary(ufunc):
    def kernel(ctx, a, out, lhs, rhs):
        return getattr(ctx.xp, ufunc)(lhs, rhs, out=out)
    return kernel


def _scalar(ufunc, reverse=False):
    if reverse:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(a["scalar"], x, out=out)
    else:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(x, a["scalar"], out=out)
    return kernel


def _fully_connected(ctx, a, out, x, w, b=None):
    """``out = x @ w.T (+ b)`` written into ``out`` (never in place: ``out`` is not an input)."""
    if a["flatten"] and x.ndim != 2:
        x = x.reshape(x.shape[0], -1)
    ctx.xp.matmul(x, w.T, out=out)
    if b is not None:
        ctx.xp.add(out, b, out=out)
    return out


def _activation(ctx, a, out, x):
    xp = ctx.xp
    if a["act_type"] == "relu":
        return relu(xp, x, out=out)
    return xp.tanh(x, out=out)


_UNARY = {
    "relu": lambda xp, x, out: relu(xp, x, out=out),
    "negative": lambda xp, x, out: xp.negative(x, out=out),
    "abs": lambda xp, x, out: xp.absolute(x, out=out),
    "square": lambda xp, x, out: xp.multiply(x, x, out=out),
    "exp": lambda xp, x, out: xp.exp(x, out=out),
    "log": lambda xp, x, out: xp.log(x, out=out),
    "sqrt": lambda xp, x, out: xp.sqrt(x, out=out),
    "tanh": lambda xp, x, out: xp.tanh(x, out=out),
    "sin": lambda xp, x, out: xp.sin(x, out=out),
    "cos": lambda xp, x, out: xp.cos(x, out=out),
    "_copy": lambda xp, x, out: xp.copyto(out, x) or out,
}
_BINARY = {
    "elemwise_add": "add", "elemwise_sub": "subtract", "elemwise_mul": "multiply", "elemwise_div": "divide",
    "broadcast_add": "add", "broadcast_sub": "subtract", "broadcast_mul": "multiply",
    "broadcast_div": "divide", "broadcast_maximum": "maximum", "broadcast_minimum": "minimum",
    "_maximum": "maximum", "_minimum": "minimum",
}
_SCALAR = {
    "_plus_scalar": ("add", False), "_minus_scalar": ("subtract", False), "_rminus_scalar": ("subtract", True),
    "_mul_scalar": ("multiply", False), "_div_scalar": ("divide", False), "_rdiv_scalar": ("divide", True),
    "_maximum_scalar": ("maximum", False), "_minimum_scalar": ("minimum", False),
}

OUT_KERNELS = {name: _unary(fn) for name, fn in _UNARY.items()}
OUT_KERNELS.update({name: _binary(uf) for name, uf in _BINARY.items()})
OUT_KERNELS.update({name: _scalar(uf, rev) for name, (uf, rev) in _SCALAR.items()})
OUT_KERNELS["FullyConnected"] = _fully_connected
OUT_KERNELS["Activation"] = _activation

# ops whose out kernel is an elementwise ufunc: ``out`` may alias an input of the output's shape
INPLACE_OPS = frozenset(_UNARY) | frozenset(_BINARY) | frozenset(_SCALAR) | {"Activation"}


def out_kernel(node, in_dtypes, out_dtypes):
    """The out kernel for ``node`` under these dtypes, or ``None`` when the node must allocate its
    own result (no out variant, several outputs, mixed or non-floating dtypes, an unsupported
    attribute such as ``Activation(act_type='sigmoid')``)."""
    if node.op is None or node.num_outputs() != 1:
        return None
    kernel = OUT_KERNELS.get(node.op.name)
    if kernel is None:
        return None
    dts = [d for d in list(in_dtypes) + list(out_dtypes)]
    if not dts or any(d is None for d in dts):
        return None
    dt = _np.dtype(dts[0])
    if dt.kind != "f" or any(_np.dtype(d) != dt for d in dts):
        return None
    a = node.parsed_attrs()
    if node.op.name == "Activation" and a["act_type"] not in ("relu", "tanh"):
        return None
    if "scalar" in a and not isinstance(a["scalar"], (int, float)):
        return None
    return kernel


def inplace_ok(node):
    """Whether ``node``'s out kernel may write over one of its inputs (elementwise ufuncs only)."""
    return node.op is not None and node.op.name in INPLACE_OPS
