"""Reductions: sum, mean, prod, max, min, nansum, nanprod with MXNet 1.x semantics (reducing every
axis without ``keepdims`` gives shape ``(1,)``; ``axis=()`` means every axis), their NumPy-semantics
variants ``_np_*`` (0-d results, ``dtype=``, ``initial=``), argmax/argmin/argmax_channel and norm.

One factory (``reduction``) registers both flavours; gradients are written with registered ops:
the output gradient gets its reduced axes back (``expand_dims``/``Reshape``) and is broadcast over
the input. max/min give the full gradient to every element equal to the extreme value (ties are
not shared, as in MXNet's ``ReduceGrad<eq>``).
"""
import numpy as _numpy

from .attrs import Attr
from .infer import InferError, merge_shape, normalize_axis, prod
from .registry import InlineRule, NsName, OpDef, register
from .short_axis import reduce_last

__all__ = ["reduce_axes", "reduced_shape", "restore_reduced", "sum_rows"]


def reduce_axes(axis, ndim, exclude=False, legacy=True, arg=0):
    """Sorted tuple of the axes to reduce (``None`` = all; legacy ``()`` = all)."""
    if axis is None or (legacy and len(axis) == 0):
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    if ndim == 0:
        return ()
    axes = sorted(normalize_axis(int(x), ndim, arg) for x in axis)
    if len(set(axes)) != len(axes):
        raise InferError(arg, "distinct reduction axes", tuple(axis), "reduction axes have duplicates")
    if exclude:
        return tuple(i for i in range(ndim) if i not in axes)
    return tuple(axes)


def reduced_shape(shape, axes, keepdims, legacy):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return (1,) if legacy and not out else out


def restore_reduced(F, g, ndim, axes):
    """``g`` (a reduced result or its gradient) with size-1 dimensions back at ``axes``."""
    if g.ndim == ndim:
        return g
    if len(axes) == ndim:
        return F.Reshape(g, shape=(1,) * ndim)
    for ax in axes:
        g = F.expand_dims(g, axis=ax)
    return g


_REDUCE_ATTRS = {"axis": Attr("shape?", None, doc="axes to reduce; None or () = all"),
                 "keepdims": Attr("bool", False), "exclude": Attr("bool", False,
                                                                  doc="reduce every axis except `axis`")}
_NP_ATTRS = {"axis": Attr("shape?", None, doc="axes to reduce; None = all, () = none"),
             "dtype": Attr("dtype?", None), "keepdims": Attr("bool", False), "initial": Attr("float?", None)}


_AXES = {}   # (axis, ndim, exclude, legacy) -> the sorted axes (every imperative reduction asks)


def _axes_of(a, shape, legacy):
    key = (a["axis"], len(shape), a.get("exclude", False), legacy)
    try:
        return _AXES[key]
    except KeyError:
        pass
    except TypeError:          # an unhashable axis (a list): not cached
        return reduce_axes(a["axis"], len(shape), a.get("exclude", False), legacy)
    axes = reduce_axes(a["axis"], len(shape), a.get("exclude", False), legacy)
    if len(_AXES) < 4096:
        _AXES[key] = axes
    return axes


def _grad_sum(F, x, y, g):
    return F.broadcast_like(g, x)


def _grad_mean(F, x, y, g):
    n = max(1, x.size // max(1, g.size))
    if g.dtype != x.dtype:     # an integer mean (dtype=) of a float input: its gradient is a float 1/n
        g = F.Cast(g, dtype=x.dtype)
    return F._div_scalar(F.broadcast_like(g, x), scalar=float(n))


def _grad_prod(F, x, y, g):
    return F.broadcast_div(F.broadcast_mul(g, y), x)


def _grad_extreme(F, x, y, g):
    return F.broadcast_mul(g, F.broadcast_equal(x, y))


def _grad_nansum(F, x, y, g):
    return F.broadcast_mul(g, F.broadcast_equal(x, x))


def _grad_nanprod(F, x, y, g):
    t = F.broadcast_div(F.broadcast_mul(g, y), x)
    return F.where(F.broadcast_equal(x, x), t, F.zeros_like(t))


def _sum_type(a, dtypes):
    import numpy as np
    x = dtypes[0]
    if a.get("dtype") is not None:
        return [a["dtype"]]
    return [np.dtype(np.int64) if x is not None and np.dtype(x) == np.bool_ else x]


def _mean_type(a, dtypes):
    import numpy as np
    x = dtypes[0]
    if a.get("dtype") is not None:
        return [a["dtype"]]
    return [x if x is None or np.dtype(x).kind == "f" else np.dtype(np.float32)]


def reduction(name, kernel, grad, *, legacy, uses_y=False, aliases=(), np=(), doc="", infer_type=None,
              initial=None, has_dtype=True, grad_op=None, inline=None, no_identity=False, unit_axes=None):
    """Register a reduction. ``kernel(xp, x, axes, dtype)`` reduces with keepdims=True;
    ``unit_axes``: how a reduction whose reduced axes all have size 1 gives each value back without
    the kernel (a loss's mean over its one column): ``"copy"`` (prod, max, min) or ``"add"`` (sum,
    mean: the identity +0 added, as the kernels start from it, so -0.0 sums to 0.0);
    ``no_identity``: reducing a zero-size axis is an error (NumPy max/min: there is no identity);
    ``"any"``: any zero-size input is (MXNet's legacy max/min);
    ``grad(F, x, y_keep, g_keep)`` gives dx from keepdims-shaped output and output gradient, or
    ``grad_op`` names the one op that does (``_backward_sum``, ``_backward_mean``); ``inline``: its
    ``InlineRule``."""
    if legacy:
        attrs = dict(_REDUCE_ATTRS)
    else:
        attrs = dict(_NP_ATTRS)
        if not has_dtype:
            del attrs["dtype"]

    def infer_shape(a, in_shapes):
        if in_shapes[0] is None:
            return [None]
        if no_identity == "any" and prod(in_shapes[0]) == 0:     # MXNet's legacy max/min: any empty input
            raise InferError(0, "an input of size > 0", f"shape {tuple(in_shapes[0])}",
                             "reduction input's size should be > 0")
        if no_identity is True:
            _check_nonempty(a, in_shapes[0])
        return [reduced_shape(in_shapes[0], _axes_of(a, in_shapes[0], legacy), a["keepdims"], legacy)]

    def geometry(a, x):
        """``(a, axes, result dtype, result shape, unit)`` of reducing ``x`` with attributes ``a``
        (``unit``: every reduced axis has size 1)."""
        axes = _axes_of(a, x.shape, legacy)
        out_dtype = (infer_type or (lambda a_, d: [x.dtype]))(a, [x.dtype])[0]
        shape = reduced_shape(x.shape, axes, a["keepdims"], legacy)
        unit = unit_axes is not None and x.size and prod(shape) == x.size
        return a, axes, out_dtype, shape, unit

    geometries = {}     # (id(attrs), shape, dtype) -> geometry: a loop's calls reduce the same shapes

    def compute(ctx, a, x):
        key = (id(a), x.shape, x.dtype)
        found = geometries.get(key)
        if found is None or found[0] is not a:       # (the attributes kept alive in it: ids stay theirs)
            found = geometry(a, x)
            if len(geometries) >= 1024:
                geometries.clear()
            geometries[key] = found
        _, axes, out_dtype, shape, unit = found
        if unit:
            res = x.astype(out_dtype) if unit_axes == "copy" else ctx.xp.add(x, 0, dtype=out_dtype, casting="unsafe")
        else:
            res = kernel(ctx.xp, x, axes, out_dtype)
        if not legacy and a["initial"] is not None:
            res = initial(ctx.xp, res, a["initial"])
        return res.astype(out_dtype, copy=False).reshape(shape)

    def gradient(F, a, inputs, outputs, ograds):
        x = inputs[0]
        if grad_op is not None:
            return [getattr(F, grad_op)(ograds[0], x, axis=a["axis"], keepdims=a["keepdims"], exclude=a["exclude"])]
        axes = _axes_of(a, x.shape, legacy)
        g = restore_reduced(F, ograds[0], x.ndim, axes)
        y = restore_reduced(F, outputs[0], x.ndim, axes) if uses_y else None
        return [grad(F, x, y, g)]

    return register(OpDef(name, compute=compute, infer_shape=infer_shape, attrs=attrs, grad=gradient,
                          infer_type=infer_type, aliases=aliases, np=np, family="reduce", doc=doc,
                          inputs=("data",) if legacy else ("a",), inline=inline))


def _check_nonempty(a, shape):
    """MXNet's check for NumPy max/min: a reduced axis (given as a non-negative number) of size 0,
    or a whole-array reduction of an empty array, has no identity to start from."""
    axis = a["axis"]
    if axis is None:
        empty = prod(shape) == 0
    else:
        axis = (axis,) if isinstance(axis, int) else axis
        empty = any(0 <= ax < len(shape) and shape[ax] == 0 for ax in axis)
    if empty:
        raise InferError(0, f"a non-empty array or axis to reduce (axis={axis})", f"shape {tuple(shape)}",
                         "zero-size array to reduction operation which has no identity")


def _keep(fn):
    return lambda xp, x, axes, dt: fn(xp, x, axes)


ROW_BLOCK = 64       # rows added one after another before their block's sum joins the others (sum_rows)
BLOCKED_ROWS = 2 * ROW_BLOCK     # from this many rows, sum_rows adds in blocks (fewer: one plain sum)


def sum_rows(x, out=None, dtype=None):
    """``x.sum(axis=0)`` of a NumPy array, in blocks of ``ROW_BLOCK`` rows whose sums are then added.
    Summing down the rows, NumPy adds one row after another into a running sum, whose rounding error
    grows with the number of rows (up to 3e-4 over 4096 float32 rows of standard normal values); in
    blocks it grows like ``n / ROW_BLOCK + ROW_BLOCK`` (4e-5 there, for 8% more time). MXNet's CPU sums
    are compensated (Kahan): a gradient summed over a large batch (a bias's, LayerNorm's gamma) then
    stays about as close.

    >>> import numpy as np
    >>> x = np.full((4096, 2), 0.1, np.float32)
    >>> bool(abs(sum_rows(x)[0] - 409.6) < abs(x.sum(axis=0)[0] - 409.6))
    True
    """
    if x.ndim == 0 or x.shape[0] < BLOCKED_ROWS or not x.flags.c_contiguous:
        return x.sum(axis=0, out=out, dtype=dtype)
    k = x.shape[0] // ROW_BLOCK
    blocks = x[:k * ROW_BLOCK].reshape((k, ROW_BLOCK) + x.shape[1:]).sum(axis=1, dtype=dtype)
    if k * ROW_BLOCK < x.shape[0]:
        blocks[0] += x[k * ROW_BLOCK:].sum(axis=0, dtype=dtype)
    return blocks.sum(axis=0, out=out)


def _staged_sum(xp, x, axes, dtype):
    """``sum(x, axes, keepdims=True)``; when the reduced axes start with leading axes, those are summed
    first, as whole rows added together (``sum_rows``: NumPy's fastest reduction, in blocks of rows),
    then any others on the small result (a bias gradient: axes (0, 2, 3) of (N, C, H, W), about 2x
    faster than NumPy's multi-axis sum)."""
    nd = x.ndim
    lead = 0
    while lead < nd and lead in axes:
        lead += 1
    if xp is not _numpy or lead in (0, nd) or not x.flags.c_contiguous or not x.size:
        return xp.sum(x, axis=axes, keepdims=True, dtype=dtype)
    rows = sum_rows(x.reshape((-1,) + x.shape[lead:]), dtype=dtype)
    if lead == len(axes):
        return rows.reshape((1,) * lead + rows.shape)
    rest = tuple(a - lead for a in axes if a >= lead)
    return rows.sum(axis=rest, keepdims=True).reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))


def _short_last_first(ufunc, kernel):
    """``kernel(xp, x, axes)``, but a short last axis alone reduced column by column where that is
    cheaper and exact (``ops/short_axis.py``)."""
    def reduce(xp, x, axes):
        if len(axes) == 1 and axes[0] == x.ndim - 1:
            out = reduce_last(ufunc, x)
            if out is not None:
                return out
        return kernel(xp, x, axes)
    return reduce


_K_SUM = _keep(_short_last_first(_numpy.add, lambda xp, x, axes: _staged_sum(
    xp, x, axes, None if x.dtype.kind == "b" else x.dtype)))
_K_PROD = _keep(lambda xp, x, axes: xp.prod(x, axis=axes, keepdims=True))
_K_MAX = _keep(_short_last_first(_numpy.maximum, lambda xp, x, axes: xp.max(x, axis=axes, keepdims=True) if x.size
                                 else xp.zeros([1 if i in axes else d for i, d in enumerate(x.shape)], x.dtype)))
_K_MIN = _keep(_short_last_first(_numpy.minimum, lambda xp, x, axes: xp.min(x, axis=axes, keepdims=True) if x.size
                                 else xp.zeros([1 if i in axes else d for i, d in enumerate(x.shape)], x.dtype)))
_K_NANSUM = _keep(lambda xp, x, axes: xp.nansum(x, axis=axes, keepdims=True))
_K_NANPROD = _keep(lambda xp, x, axes: xp.nanprod(x, axis=axes, keepdims=True))


def _k_mean(xp, x, axes, dt):
    if dt.kind in "iu":      # an integer dtype=: summed in that dtype (wrapping, as NumPy and MXNet), then divided
        n = prod([x.shape[a] for a in axes])
        return (xp.sum(x, axis=axes, keepdims=True, dtype=dt) / max(n, 1)).astype(dt)
    acc = (_numpy.float32 if dt == _numpy.float16 else dt) if dt.kind == "f" else None   # float16: float32 sums
    n = prod([x.shape[a] for a in axes])
    if xp is _numpy and acc is not None and n:
        # NumPy's mean without its Python wrapper: the same sum, divided in place by the count
        s = _numpy.add.reduce(x, axis=axes, keepdims=True, dtype=acc)
        return _numpy.true_divide(s, _numpy.intp(n), out=s, casting="unsafe")
    return xp.mean(x, axis=axes, keepdims=True, dtype=acc)


def _k_np_sum(xp, x, axes, dt):
    if dt == _numpy.float16:      # MXNet's NumPy sum accumulates float16 in float32 (safe accumulation)
        return _staged_sum(xp, x, axes, _numpy.float32).astype(dt)
    return _staged_sum(xp, x, axes, dt)


def _k_np_prod(xp, x, axes, dt):
    return xp.prod(x, axis=axes, keepdims=True, dtype=dt)


_LEGACY_DOC = (" over `axis` (all axes when None or ()); `exclude=True` reduces every other axis; "
               "reducing every axis without keepdims gives shape (1,).")
def _channel_axes(axes, nd):
    """Whether ``axes`` are every axis of an ``nd``-d array but axis 1 (a convolution's bias gradient)."""
    return nd >= 3 and tuple(axes) == (0,) + tuple(range(2, nd))


def _sum_inline(a, site):
    """A bias gradient in a backward program: ``x.sum(axis=0)`` of a 2-d input (a dense layer's), or
    the sums over every axis but 1 of a channel-first input (a convolution's), as ``_staged_sum`` adds
    them: the batch rows first (``sum_rows`` where they make blocks), then each channel's values."""
    shape, x = site.shapes[0], site.args[0]
    if a["keepdims"] or a["exclude"] or shape is None or not all(shape):
        return None
    def rows(out_arg):      # (add.reduce: x.sum's own call, without NumPy's Python wrapper around it)
        return f"sum_rows({x}{out_arg})" if shape[0] >= BLOCKED_ROWS else f"add.reduce({x}, 0{out_arg})"
    if a["axis"] == (0,) and len(shape) == 2:
        return rows(site.out_arg)
    if a["axis"] is not None and _channel_axes(a["axis"], len(shape)):
        rest = ", ".join(site.literal(k) for k in range(1, len(shape) - 1))
        return f"{rows('')}.sum(axis=({rest},){site.out_arg})"
    return None


reduction("sum", _K_SUM, _grad_sum, legacy=True, aliases=("sum_axis",), doc="Sum" + _LEGACY_DOC,
          grad_op="_backward_sum", inline=InlineRule(_sum_inline, functions=(sum_rows, _numpy.add), methods=("sum",)),
          unit_axes="add")
reduction("mean", _k_mean, _grad_mean, legacy=True, doc="Mean" + _LEGACY_DOC + " Integer inputs keep their dtype.",
          grad_op="_backward_mean", unit_axes="add")
reduction("prod", _K_PROD, _grad_prod, legacy=True, uses_y=True, unit_axes="copy", doc="Product" + _LEGACY_DOC)
reduction("max", _K_MAX, _grad_extreme, legacy=True, uses_y=True, aliases=("max_axis",), no_identity="any", unit_axes="copy", doc="Maximum" + _LEGACY_DOC)
reduction("min", _K_MIN, _grad_extreme, legacy=True, uses_y=True, aliases=("min_axis",), no_identity="any", unit_axes="copy", doc="Minimum" + _LEGACY_DOC)
reduction("nansum", _K_NANSUM, _grad_nansum, legacy=True, doc="Sum treating NaN as 0" + _LEGACY_DOC)
reduction("nanprod", _K_NANPROD, _grad_nanprod, legacy=True, uses_y=True,
          doc="Product treating NaN as 1" + _LEGACY_DOC)

def _spread(reduce_name, scaled):
    """The gradient op of the legacy reduction ``reduce_name``: ``ograd`` spread back over the reduced
    axes of ``data`` (divided by their size for a mean), in one op (MXNet's _backward_sum/mean)."""
    def compute(ctx, a, og, x):
        xp = ctx.xp
        axes = _axes_of(a, x.shape, True)
        g = og.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
        n = prod(x.shape[i] for i in axes)
        if scaled and n > 1:
            g = (g / n).astype(og.dtype, copy=False)
        out = xp.empty(x.shape, dtype=og.dtype)
        out[...] = g
        return out

    def inline(a, site):
        # only where every reduced axis has size 1 (a loss's mean over its one column): ograd's values
        # as they are, in data's shape (positive: a copy, or written into the planned buffer)
        og, shape = site.shapes
        if og is None or shape is None or any(shape[i] != 1 for i in _axes_of(a, shape, True)):
            return None
        return f"positive({site.args[0]}.reshape({site.literal(tuple(shape))}){site.out_arg})"

    def gradient(F, a, inputs, outputs, ograds):   # linear in ograd: its adjoint is the reduction
        return [getattr(F, reduce_name)(ograds[0], axis=a["axis"], keepdims=a["keepdims"], exclude=a["exclude"]),
                None]

    def infer_shape(a, s):
        og, x = s
        if x is None:
            return [None]
        merge_shape(s, 0, reduced_shape(x, _axes_of(a, x, True), a["keepdims"], True),
                    f"ograd has the {reduce_name} output's shape")
        return [tuple(x)]

    register(OpDef(f"_backward_{reduce_name}", inputs=("ograd", "data"), attrs=dict(_REDUCE_ATTRS),
                   compute=compute, infer_shape=infer_shape, infer_type=lambda a, d: [d[0]], grad=gradient,
                   family="reduce", hidden=True, inline=InlineRule(inline, functions=(_numpy.positive,)),
                   doc=f"Gradient of {reduce_name}: ``ograd`` broadcast back over the reduced axes of ``data``"
                       + (" and divided by their size." if scaled else ".")))


_spread("sum", False)
_spread("mean", True)

_NP_DOC = " with NumPy semantics: axis=None reduces all axes to a 0-d array, axis=() reduces none."
reduction("_np_sum", _k_np_sum, _grad_sum, legacy=False, infer_type=_sum_type,
          initial=lambda xp, r, v: r + v, np=NsName("sum", args=("axis", "dtype")), unit_axes="add",
          doc="Sum" + _NP_DOC + " Bool input sums to int64.")
reduction("_np_mean", _k_mean, _grad_mean, legacy=False, infer_type=_mean_type,
          initial=lambda xp, r, v: r, np=NsName("mean", args=("axis", "dtype")), unit_axes="add",
          doc="Mean" + _NP_DOC + " Integer input gives float32.")
reduction("_np_prod", _k_np_prod, _grad_prod, legacy=False, uses_y=True, infer_type=_sum_type,
          initial=lambda xp, r, v: r * v, np=NsName("prod", args=("axis", "dtype")), unit_axes="copy", doc="Product" + _NP_DOC)
reduction("_np_max", _K_MAX, _grad_extreme, legacy=False, uses_y=True, has_dtype=False, no_identity=True,
          initial=lambda xp, r, v: xp.maximum(r, v), unit_axes="copy",
          np=(NsName("max", args=("axis",)), NsName("amax", args=("axis",))), doc="Maximum" + _NP_DOC)
reduction("_np_min", _K_MIN, _grad_extreme, legacy=False, uses_y=True, has_dtype=False, no_identity=True,
          initial=lambda xp, r, v: xp.minimum(r, v), unit_axes="copy",
          np=(NsName("min", args=("axis",)), NsName("amin", args=("axis",))), doc="Minimum" + _NP_DOC)


# ---- argmax / argmin ---------------------------------------------------------------------------
def _arg_shape(a, shape, legacy, axis_key="axis"):
    axis = a[axis_key]
    if axis is None:
        axes = tuple(range(len(shape)))
    elif not legacy and len(shape) == 0 and axis in (0, -1):     # NumPy: a 0-d array has axis 0 here
        axes = ()
    else:
        axes = (normalize_axis(axis, len(shape)),)
    if not legacy and len(shape) and any(shape[ax] == 0 for ax in axes):
        raise InferError(0, f"a non-empty axis to search (axis={axis})", f"shape {tuple(shape)}",
                         "attempt to get argmax/argmin of an empty sequence")
    return reduced_shape(shape, axes, a["keepdims"], legacy), axes


def search(name, pick_max, *, legacy, np=(), doc=""):
    import numpy as onp

    def infer_shape(a, in_shapes):
        return [None if in_shapes[0] is None else _arg_shape(a, in_shapes[0], legacy)[0]]

    def infer_type(a, dtypes):
        return [dtypes[0] if legacy else onp.dtype(onp.int64)]

    def compute(ctx, a, x):
        xp = ctx.xp
        out_shape, axes = _arg_shape(a, x.shape, legacy)
        fn = xp.argmax if pick_max else xp.argmin
        res = fn(x.reshape(-1)) if a["axis"] is None or not axes else fn(x, axis=axes[0])
        return xp.asarray(res).astype(x.dtype if legacy else onp.int64).reshape(out_shape)

    return register(OpDef(name, compute=compute, infer_shape=infer_shape, infer_type=infer_type,
                          attrs={"axis": Attr("int?", None), "keepdims": Attr("bool", False)}, np=np,
                          family="reduce", doc=doc, no_grad_reason="returns indices (piecewise constant)",
                          zero_grad=True))


_ARG_DOC = (" along `axis` (the flattened array when None); the first occurrence wins. Legacy: the output "
            "has the input's dtype and an all-axes result has shape (1,).")
search("argmax", True, legacy=True, doc="Indices of the maximum values" + _ARG_DOC)
search("argmin", False, legacy=True, doc="Indices of the minimum values" + _ARG_DOC)
search("_np_argmax", True, legacy=False, np=NsName("argmax", args=("axis",)),
       doc="NumPy argmax: int64 indices, 0-d for axis=None.")
search("_np_argmin", False, legacy=False, np=NsName("argmin", args=("axis",)),
       doc="NumPy argmin: int64 indices, 0-d for axis=None.")


def _argmax_channel_compute(ctx, a, x):
    return ctx.xp.argmax(x, axis=1).astype(x.dtype)


def _argmax_channel_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None]
    if len(s) < 2:
        raise InferError(0, "with at least 2 dimensions", tuple(s))
    return [reduced_shape(s, (1,), False, True)]


register(OpDef("argmax_channel", compute=_argmax_channel_compute, infer_shape=_argmax_channel_infer,
               family="reduce", inputs=("data",), no_grad_reason="returns indices (piecewise constant)",
               doc="Argmax along axis 1 (the channel axis), in the input's dtype: (N, C) -> (N,)."))


# ---- norm --------------------------------------------------------------------------------------
def _norm_axes(a, shape):
    return reduce_axes(a["axis"], len(shape), False, True)


def _norm_type(a, dtypes):
    import numpy as np
    return [np.dtype(a["out_dtype"]) if a["out_dtype"] is not None else dtypes[0]]


def _norm_compute(ctx, a, x):
    xp = ctx.xp
    axes = _norm_axes(a, x.shape)
    if a["ord"] == 1:
        res = xp.sum(xp.abs(x), axis=axes, keepdims=True)
    else:
        res = xp.sqrt(xp.sum(x * x, axis=axes, keepdims=True))
    dt = _norm_type(a, [x.dtype])[0]
    return res.astype(dt, copy=False).reshape(reduced_shape(x.shape, axes, a["keepdims"], True))


def _norm_infer(a, in_shapes):
    if a["ord"] not in (1, 2):
        raise InferError(0, "ord 1 or 2", a["ord"], "norm supports ord=1 and ord=2 only")
    s = in_shapes[0]
    return [None if s is None else reduced_shape(s, _norm_axes(a, s), a["keepdims"], True)]


def _norm_grad(F, a, inputs, outputs, ograds):
    x = inputs[0]
    axes = _norm_axes(a, x.shape)
    g = restore_reduced(F, ograds[0], x.ndim, axes)
    if a["ord"] == 1:
        return [F.broadcast_mul(g, F.sign(x))]
    y = restore_reduced(F, outputs[0], x.ndim, axes)
    return [F.broadcast_mul(g, F.broadcast_div(x, y))]


register(OpDef("norm", compute=_norm_compute, infer_shape=_norm_infer, infer_type=_norm_type, grad=_norm_grad,
               attrs={"ord": Attr("int", 2), "axis": Attr("shape?", None), "out_dtype": Attr(
                   "enum?", None, choices=("float16", "float32", "float64", "int32", "int64", "int8")),
                   "keepdims": Attr("bool", False)},
               family="reduce", doc="L1 (ord=1) or L2 (ord=2) norm over `axis` (all axes when None); an "
                                    "all-axes result without keepdims has shape (1,)."))
