"""NumPy-style ops whose output shape depends on attributes only, so they build graphs with
``mx.sym.np`` (MXNet 1.9.1's operators of the same names and attributes):

* ``_npi_tensordot`` (``a_axes_summed``, ``b_axes_summed``) and ``_npi_tensordot_int_axes``
  (``axes``): NumPy's ``tensordot``, differentiable;
* ``_np_roll`` (``shift``, ``axis``): ``np.roll`` (``mx.sym.np.roll``), differentiable;
* ``_npi_tensorinv`` (``ind``): ``np.linalg.tensorinv``, differentiable;
* ``_npi_eig`` / ``_npi_eigvals``: real eigen-decomposition of general square matrices (complex
  eigenvalues are refused, as in MXNet), no gradient.

Example::

    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((2, 3)), mx.nd.ones((3, 4))
    >>> mx.nd._npi_tensordot(a, b, a_axes_summed=(1,), b_axes_summed=(0,)).shape
    (2, 4)
    >>> mx.nd._npi_tensordot_int_axes(a, b, axes=1).shape
    (2, 4)
    >>> mx.nd._np_roll(mx.nd.array([1, 2, 3]), shift=(1,)).asnumpy().tolist()
    [3.0, 1.0, 2.0]
"""
import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import NsName, OpDef, register

__all__ = []


# ---- tensordot -----------------------------------------------------------------------------------
def _norm_axes(axes, ndim, name, i):
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise InferError(i, f"axes in [-{ndim}, {ndim})", f"axis {ax}", name)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise InferError(i, "distinct summed axes", tuple(axes), name)
    return out


def _pair(a, ndims):
    """(summed axes of a, summed axes of b) for parsed attributes ``a`` of either op."""
    if "axes" in a:
        n = a["axes"]
        if n < 0 or n > min(ndims):
            raise InferError(0, f"axes between 0 and {min(ndims)}", n, "tensordot")
        return list(range(ndims[0] - n, ndims[0])), list(range(n))
    aa, bb = a["a_axes_summed"], a["b_axes_summed"]
    if len(aa) != len(bb):
        raise InferError(1, f"as many summed axes as a's {tuple(aa)}", tuple(bb), "tensordot")
    return _norm_axes(aa, ndims[0], "tensordot", 0), _norm_axes(bb, ndims[1], "tensordot", 1)


def _tensordot_infer(a, s):
    if s[0] is None or s[1] is None:
        return [None]
    ax_a, ax_b = _pair(a, (len(s[0]), len(s[1])))
    for i, j in zip(ax_a, ax_b):
        if s[0][i] != s[1][j]:
            raise InferError(1, f"size {s[0][i]} on axis {j} (a's axis {i})", tuple(s[1]), "tensordot")
    return [tuple(d for k, d in enumerate(s[0]) if k not in ax_a)
            + tuple(d for k, d in enumerate(s[1]) if k not in ax_b)]


def _tensordot_compute(ctx, a, x, y):
    ax_a, ax_b = _pair(a, (x.ndim, y.ndim))
    return ctx.xp.asarray(ctx.xp.tensordot(x, y, axes=(ax_a, ax_b)))


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _tensordot_grad(F, a, ins, outs, og):
    x, y = ins
    ax_a, ax_b = _pair(a, (x.ndim, y.ndim))
    free_a = [k for k in range(x.ndim) if k not in ax_a]
    free_b = [k for k in range(y.ndim) if k not in ax_b]
    n_free_a, n_out = len(free_a), og[0].ndim
    # dx = og . y over b's free axes: order free_a, then a's summed axes in the order of sorted b axes
    gx = F._npi_tensordot(og[0], y, a_axes_summed=tuple(range(n_free_a, n_out)), b_axes_summed=tuple(free_b))
    order_x = free_a + [ax_a[j] for j in sorted(range(len(ax_b)), key=lambda j: ax_b[j])]
    # dy = x . og over a's free axes: order b's summed axes in the order of sorted a axes, then free_b
    gy = F._npi_tensordot(x, og[0], a_axes_summed=tuple(free_a), b_axes_summed=tuple(range(n_free_a)))
    order_y = [ax_b[j] for j in sorted(range(len(ax_a)), key=lambda j: ax_a[j])] + free_b
    return [F.transpose(gx, axes=_inverse(order_x)), F.transpose(gy, axes=_inverse(order_y))]


def _dot_type(a, d):
    known = d[0] if d[0] is not None else d[1]
    return [known]


register(OpDef("_npi_tensordot", family="linalg", inputs=("a", "b"),
               attrs={"a_axes_summed": Attr("shape", doc="axes of a summed over"),
                      "b_axes_summed": Attr("shape", doc="axes of b summed over, paired with a's")},
               compute=_tensordot_compute, infer_shape=_tensordot_infer, infer_type=_dot_type,
               grad=_tensordot_grad,
               doc="Sum of products of a and b over the paired axes a_axes_summed and b_axes_summed."))

register(OpDef("_npi_tensordot_int_axes", family="linalg", inputs=("a", "b"),
               attrs={"axes": Attr("int", doc="the last axes of a summed with as many first axes of b")},
               compute=_tensordot_compute, infer_shape=_tensordot_infer, infer_type=_dot_type,
               grad=_tensordot_grad,
               doc="Sum of products over the last `axes` axes of a and the first `axes` axes of b."))


# ---- roll ----------------------------------------------------------------------------------------
def _roll_args(a, ndim):
    shift, axis = a["shift"], a["axis"]
    if shift is None:
        raise MXNetError("roll missing 1 required positional argument: 'shift'.")
    if axis is None:
        if len(shift) != 1:
            raise MXNetError(f"roll: expected one shift when axis is None, got shift={shift}")
        return shift[0], None
    if len(shift) != 1 and len(axis) != 1 and len(shift) != len(axis):
        raise MXNetError(f"roll: expected shift and axis of equal length, got shift={shift}, axis={axis}")
    for ax in axis:
        if not -ndim <= ax < max(ndim, 1):
            raise MXNetError(f"roll: axis expected in [-{ndim}, {ndim}), got {ax}")
    n = max(len(shift), len(axis))
    return tuple(shift) * (n if len(shift) == 1 else 1), tuple(axis) * (n if len(axis) == 1 else 1)


def _roll_compute(ctx, a, x):
    shift, axis = _roll_args(a, x.ndim)
    return ctx.xp.roll(x, shift, axis)


def _roll_grad(F, a, ins, outs, og):
    shift, axis = _roll_args(a, ins[0].ndim)
    back = (-shift,) if axis is None else tuple(-s for s in shift)
    return [F._np_roll(og[0], shift=back, axis=axis)]


register(OpDef("_np_roll", family="shape",
               attrs={"shift": Attr("shape?", None, doc="elements shifted (one per axis, or one for all)"),
                      "axis": Attr("shape?", None, doc="axes rolled; None rolls the flattened array")},
               compute=_roll_compute, infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0])],
               grad=_roll_grad, np=NsName("roll", args=("shift", "axis")),
               doc="Elements shifted cyclically by shift along axis (the flattened array when axis is None)."))


# ---- tensorinv -----------------------------------------------------------------------------------
def _tensorinv_split(a, shape):
    ind = a["ind"]
    if ind <= 0:
        raise InferError(0, "ind > 0", f"ind={ind}", "tensorinv")
    head, tail = tuple(shape[:ind]), tuple(shape[ind:])
    if int(onp.prod(head)) != int(onp.prod(tail)):
        raise InferError(0, f"prod(shape[:ind]) == prod(shape[ind:]) (ind={ind})", tuple(shape), "tensorinv")
    return head, tail


def _tensorinv_infer(a, s):
    if s[0] is None:
        return [None]
    head, tail = _tensorinv_split(a, s[0])
    return [tail + head]


def _tensorinv_compute(ctx, a, x):
    head, tail = _tensorinv_split(a, x.shape)
    n = int(onp.prod(head))
    return ctx.xp.linalg.inv(x.reshape(n, n)).reshape(tail + head)


def _tensorinv_grad(F, a, ins, outs, og):
    head, tail = _tensorinv_split(a, ins[0].shape)
    n = int(onp.prod(head))
    inv_t = F.transpose(F.reshape(outs[0], shape=(n, n)))        # (A^-1)^T
    g = F.reshape(og[0], shape=(n, n))
    return [F.reshape(F.negative(F.dot(F.dot(inv_t, g), inv_t)), shape=head + tail)]


register(OpDef("_npi_tensorinv", family="linalg", inputs=("a",),
               attrs={"ind": Attr("int", 2, doc="number of leading axes forming the rows")},
               compute=_tensorinv_compute, infer_shape=_tensorinv_infer, grad=_tensorinv_grad,
               doc="The tensor inverse of a with respect to tensordot over ind axes."))


# ---- eig / eigvals -------------------------------------------------------------------------------
def _square_infer(name):
    def infer(a, s):
        if s[0] is None:
            return [None] * (2 if name == "eig" else 1)
        if len(s[0]) < 2 or s[0][-1] != s[0][-2]:
            raise InferError(0, "(..., n, n): a stack of square matrices", tuple(s[0]), name)
        w = tuple(s[0][:-1])
        return [w, tuple(s[0])] if name == "eig" else [w]
    return infer


def _eig_real(xp, x, name, vectors):
    if x.size == 0:
        w = xp.zeros(x.shape[:-1], x.dtype)
        return (w, xp.zeros(x.shape, x.dtype)) if vectors else w
    host = x.get() if hasattr(x, "get") else onp.asarray(x)     # CuPy has no general eig
    res = onp.linalg.eig(host) if vectors else onp.linalg.eigvals(host)
    w = res[0] if vectors else res
    if onp.iscomplexobj(w):
        if onp.any(onp.abs(w.imag) > 1e-15):
            raise MXNetError(f"{name}: expected real eigenvalues, got complex ones (complex {name} is unsupported)")
        w = w.real
        if vectors:
            res = (w, res[1].real)
    if vectors:
        return xp.asarray(w.astype(x.dtype)), xp.asarray(res[1].astype(x.dtype))
    return xp.asarray(w.astype(x.dtype))


register(OpDef("_npi_eig", family="linalg", inputs=("A",), num_outputs=2, output_names=("w", "v"),
               compute=lambda ctx, a, x: _eig_real(ctx.xp, x, "eig", True),
               infer_shape=_square_infer("eig"), infer_type=lambda a, d: [d[0], d[0]],
               no_grad_reason="MXNet 1.9.1 defines no gradient for eig",
               doc="Eigenvalues w and right eigenvectors v (columns) of real square matrices with real eigenvalues."))

register(OpDef("_npi_eigvals", family="linalg", inputs=("A",),
               compute=lambda ctx, a, x: _eig_real(ctx.xp, x, "eigvals", False),
               infer_shape=_square_infer("eigvals"),
               no_grad_reason="MXNet 1.9.1 defines no gradient for eigvals",
               doc="Eigenvalues of real square matrices with real eigenvalues."))
