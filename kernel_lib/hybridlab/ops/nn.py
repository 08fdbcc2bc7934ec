"""Neural-network layer operators: ``FullyConnected``, ``Dropout``, ``Embedding`` (and its hidden
``_backward_Embedding`` scatter-add). Activations and softmax live in ``activation.py``, the loss
layers in ``loss_outputs.py``, normalisation in ``norm.py``.

Example::

    >>> import hybridlab as mx
    >>> x, w, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.zeros((4,))
    >>> mx.nd.FullyConnected(x, w, b, num_hidden=4).shape
    (2, 4)
    >>> mx.nd.Embedding(mx.nd.array([0, 2]), mx.nd.ones((3, 5)), input_dim=3, output_dim=5).shape
    (2, 5)
"""
import numpy as onp

from .attrs import Attr
from .dtype_check import check_dtypes, uniform_dtypes
from .infer import merge_shape, prod
from .kept_transpose import transposed
from .registry import InlineRule, OpDef, OutKernel, register


# ---- FullyConnected ---------------------------------------------------------------------------------
_fc_types = uniform_dtypes("FullyConnected")


def _product(xp, x2, w, out=None):
    """``x2 @ w.T`` of 2-d data, the one product every FullyConnected path computes (kernel, out kernel,
    inline rule): ``dot`` (less call overhead than matmul); one row of NumPy data is the weight's own
    row-major matrix-vector product (OpenBLAS's GEMV without the transpose: ~2 us faster than
    ``dot(x, w.T)`` on the tutorial MLP's 512 -> 256 layer)."""
    if x2.shape[0] == 1 and xp is onp:
        return xp.dot(w, x2[0], out=None if out is None else out[0]).reshape(1, -1)
    return xp.dot(x2, w.T, out=out)


def _fc_compute(ctx, a, x, w, b=None):
    if w.dtype != x.dtype or (b is not None and b.dtype != x.dtype):
        check_dtypes(_fc_types, a, x, w, b)
    x2 = x.reshape(x.shape[0], -1) if a["flatten"] else x
    out = _product(ctx.xp, x2, w) if x2.ndim == 2 else x2 @ w.T
    if b is not None:
        out += b   # a fresh array: add in place instead of allocating again
    return out.astype(x.dtype, copy=False)


def _fc_infer(a, s):
    d, nh = s[0], a["num_hidden"]
    if d is None:
        return [None]
    if a["flatten"]:
        in_units = prod(d[1:]) if len(d) > 1 else 1
        out = (d[0], nh)
    else:
        in_units = d[-1] if d else 0
        out = tuple(d[:-1]) + (nh,)
    merge_shape(s, 1, (nh, in_units), lambda: f"weight is (num_hidden, input units) = ({nh}, {in_units or '?'})")
    if not a["no_bias"]:
        merge_shape(s, 2, (nh,), lambda: f"bias is (num_hidden,) = ({nh},)")
    return [out]


def _fc_partial(a, s, outs):
    """Partial symbolic inference (MXNet's FullyConnectedShape): the data gets the output's batch
    size (a legacy begin state ``zeros((0, H))`` read by a dense layer learns its batch size)."""
    d, out = s[0], outs[0]
    if d and out and out[0] and not d[0]:
        merge_shape(s, 0, (out[0],) + tuple(d[1:]), "the output has this input's batch size")


def _fc_grad(F, a, ins, outs, og):
    x, w = ins[0], ins[1]
    g = og[0]
    if a["flatten"]:
        x2 = F.Flatten(x) if x.ndim != 2 else x
        dx = F.dot(g, w)                                     # (batch, in_units)
        if x.ndim != 2:
            dx = F.reshape_like(dx, x)
        dw = F.dot(g, x2, transpose_a=True)                  # (num_hidden, in_units)
        db = F.sum(g, axis=0)
    else:
        dx = F.dot(g, w)                                     # MXNet dot: last axis of g with w's first
        nh, n_in = w.shape
        g2 = F.Reshape(g, shape=(-1, nh)) if g.ndim != 2 else g
        x2 = F.Reshape(x, shape=(-1, n_in)) if x.ndim != 2 else x
        dw = F.dot(g2, x2, transpose_a=True)
        db = F.sum(g2, axis=0)
    return [dx, dw] if a["no_bias"] else [dx, dw, db]


def _fc_out(ctx, a, out, x, w, b=None):
    """``out = x @ w.T (+ b)`` written into ``out`` (never in place: ``out`` is not an input)."""
    if a["flatten"] and x.ndim != 2:
        x = x.reshape(x.shape[0], -1)
    if x.ndim == 2:
        _product(ctx.xp, x, w, out)
    else:
        ctx.xp.matmul(x, w.T, out=out)
    if b is not None:
        ctx.xp.add(out, b, out=out)
    return out


def _fc_inline(a, site):
    """``dot(x, w.T)`` (``add``-ed to the bias) for 2-d data, or data flattened to 2-d; in predict
    programs ``dot(x, transposed(w))`` of a weight parameter (``ops/kept_transpose.py``)."""
    shape = site.shapes[0]
    if shape is None or not (len(shape) == 2 or a["flatten"] and len(shape) > 2):
        return None
    x, w = site.args[0], site.args[1]
    if shape[0] == 1:
        # one row: ``_product``'s matrix-vector product. Rows of static plan buffers are bound once
        # (``site.arg_rows``, ``site.out_row``): a static program reads and writes them with no view
        # made per call, and the statement's value is the (1, n) buffer itself
        row = site.arg_rows[0] or (f"{x}[0]" if len(shape) == 2 else f"{x}.reshape(-1)")
        if site.out_row is not None:
            product = f"dot({w}, {row}, out={site.out_row})"
            filled = product if a["no_bias"] else f"add({product}, {site.args[2]}, out={site.out_row})"
            return f"({filled}, {site.out})[1]"
        product = f"dot({w}, {row})"
        return f"{product if a['no_bias'] else f'add({product}, {site.args[2]})'}.reshape(1, -1)"
    data = x if len(shape) == 2 else f"{x}.reshape({site.literal(shape[0])}, -1)"
    # a predict program's weight parameter: its row-major transpose, kept until written (the same bits
    # as the transposed operand's product, which OpenBLAS computes slower on some CPUs)
    weight = f"transposed({w})" if site.steady[1] else f"{w}.T"
    product = f"dot({data}, {weight}{site.out_arg})"
    if a["no_bias"]:
        return product
    if site.out is None and site.target is not None:     # the bias added in place to the new product
        return f"add({site.target} := {product}, {site.args[2]}, out={site.target})"
    return f"add({product}, {site.args[2]}{site.out_arg})"


register(OpDef(
    "FullyConnected", family="nn", npx="fully_connected",
    out_kernel=OutKernel(_fc_out), inline=InlineRule(_fc_inline, functions=(onp.dot, onp.add, transposed)),
    inputs=lambda a: ("data", "weight") if a["no_bias"] else ("data", "weight", "bias"),
    all_inputs=("data", "weight", "bias"),
    attrs={"num_hidden": Attr("int", doc="Number of hidden nodes of the output."),
           "no_bias": Attr("bool", False, doc="Whether to disable the bias parameter."),
           "flatten": Attr("bool", True, doc="Whether to collapse all but the first axis of the input.")},
    bounds={"num_hidden": (1, None)},
    compute=_fc_compute, infer_shape=_fc_infer, infer_type=_fc_types, grad=_fc_grad, infer_partial=_fc_partial,
    doc="out = dot(data, weight.T) + bias. With flatten=True (default) data is reshaped to "
        "(batch, -1) first; with flatten=False the product applies to the last axis. weight is "
        "(num_hidden, input units), bias (num_hidden,); unknown parameter shapes are inferred from data."))


# ---- Dropout ----------------------------------------------------------------------------------------
def _uniform01(rng, size):
    """Uniform [0, 1) float64 draws from a NumPy Generator or a CuPy RandomState."""
    return rng.random(size) if hasattr(rng, "integers") else rng.random_sample(size)


def _dropout_compute(ctx, a, x):
    xp, p = ctx.xp, a["p"]
    if not (ctx.is_train or a["mode"] == "always") or p <= 0:
        return x.copy(), xp.broadcast_to(xp.ones((), dtype=x.dtype), x.shape)
    keep = 1.0 - p
    shape = tuple(1 if i in a["axes"] or i - x.ndim in a["axes"] else n for i, n in enumerate(x.shape))
    if keep <= 0:   # MXNet scales the all-zero mask by 1 / 0: 0 * inf is NaN everywhere (zeros for integers)
        mask = xp.full(shape, onp.nan if x.dtype.kind == "f" else 0, dtype=x.dtype)
    else:  # MXNet: keep where u <= 1 - p, scaled by 1 / (1 - p)
        mask = ((_uniform01(ctx.rng, shape) <= keep) * (1.0 / keep)).astype(x.dtype)
    return x * mask, xp.broadcast_to(mask, x.shape)


register(OpDef(
    "Dropout", family="nn", npx="dropout", needs_train=True, needs_rng=True,
    num_outputs=2, num_visible=1, output_names=("output",),
    attrs={"p": Attr("float", 0.5, doc="Fraction of the input that gets dropped out during training."),
           "mode": Attr("enum", "training", choices=("always", "training"),
                        doc="training: drop only in training mode; always: drop in every mode."),
           "axes": Attr("shape", (), doc="Axes along which one mask value is shared (variational dropout)."),
           "cudnn_off": Attr("bool?", False, doc="Accepted for compatibility; no effect.")},
    bounds={"p": (0, 1)},
    compute=_dropout_compute, infer_shape=lambda a, s: [s[0], s[0]],
    infer_type=lambda a, d: [d[0], d[0]],
    grad=lambda F, a, ins, outs, og: [F.elemwise_mul(og[0], outs[1])],
    doc="Randomly zeroes elements with probability ``p`` and scales the rest by 1/(1-p) in training "
        "mode (or always with mode='always'); the identity otherwise. The mask is drawn from the "
        "device generator (``mx.random.seed`` makes it reproducible) and kept as the hidden second "
        "output; ``axes`` share one mask value along those axes."))


# ---- Embedding --------------------------------------------------------------------------------------
def _indices(xp, data, input_dim):
    """Row indices of ``data`` (float or int), clipped into [0, input_dim) as MXNet does."""
    return xp.clip(data.astype(onp.int64), 0, input_dim - 1)


def _embedding_compute(ctx, a, data, weight):
    return weight[_indices(ctx.xp, data, a["input_dim"])]


def _embedding_infer(a, s):
    merge_shape(s, 1, (a["input_dim"], a["output_dim"]), "weight is (input_dim, output_dim)")
    d = s[0]
    return [None if d is None else tuple(d) + (a["output_dim"],)]


def _embedding_type(a, d):
    if d[1] is None:
        d[1] = onp.dtype(a["dtype"])
    return [d[1]]


_EMB_ATTRS = {"input_dim": Attr("int", doc="Vocabulary size of the input indices."),
              "output_dim": Attr("int", doc="Dimension of the embedding vectors.")}
_EMB_BOUNDS = {"input_dim": (1, None), "output_dim": (1, None)}

register(OpDef(
    "Embedding", family="nn", npx="embedding", inputs=("data", "weight"),
    attrs={**_EMB_ATTRS,
           "dtype": Attr("dtype", onp.dtype("float32"),
                         choices=("float16", "float32", "float64", "int32", "int64", "int8", "uint8"),
                         doc="Data type of the weight (and of the output)."),
           "sparse_grad": Attr("bool", False, doc="Accepted for compatibility; gradients are dense.")},
    bounds=_EMB_BOUNDS, compute=_embedding_compute, infer_shape=_embedding_infer, infer_type=_embedding_type,
    grad=lambda F, a, ins, outs, og: [None, F._backward_Embedding(
        ins[0], og[0], input_dim=a["input_dim"], output_dim=a["output_dim"])],
    doc="Maps integer indices to rows of ``weight`` (input_dim, output_dim): out[..., :] = "
        "weight[data[...]]; indices are truncated to integers and clipped to [0, input_dim). The output "
        "has data's shape plus (output_dim,) and weight's dtype. Only ``weight`` gets a gradient."))


def _scatter_rows(xp, idx, rows, n):
    """Sum of ``rows`` (k, d) into a zero (n, d) array at row indices ``idx`` (k,)."""
    out = xp.zeros((n, rows.shape[1]), dtype=rows.dtype)
    if hasattr(xp.add, "at"):
        xp.add.at(out, idx, rows)
    else:  # pragma: no cover - older CuPy
        import cupyx
        cupyx.scatter_add(out, idx, rows)
    return out


def _embedding_backward_compute(ctx, a, data, ograd):
    idx = _indices(ctx.xp, data, a["input_dim"]).reshape(-1)
    return _scatter_rows(ctx.xp, idx, ograd.reshape(-1, a["output_dim"]), a["input_dim"])


def _embedding_backward_infer(a, s):
    d = s[0]
    if d is not None:
        merge_shape(s, 1, tuple(d) + (a["output_dim"],), "ograd has data's shape plus (output_dim,)")
    return [(a["input_dim"], a["output_dim"])]


register(OpDef(
    "_backward_Embedding", family="nn", hidden=True, inputs=("data", "ograd"), attrs=dict(_EMB_ATTRS),
    bounds=_EMB_BOUNDS,
    compute=_embedding_backward_compute, infer_shape=_embedding_backward_infer,
    infer_type=lambda a, d: [d[1]],
    grad=lambda F, a, ins, outs, og: [None, F.Embedding(
        ins[0], og[0], input_dim=a["input_dim"], output_dim=a["output_dim"])],
    doc="Gradient of Embedding w.r.t. its weight: the rows of ``ograd`` summed into an "
        "(input_dim, output_dim) array at the indices ``data`` (a scatter-add)."))
