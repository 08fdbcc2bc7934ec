"""Axis permutations: ``transpose`` (any permutation; reversed axes by default), its NumPy variant
``_np_transpose`` (``np.transpose``: a repeated axis is a ValueError, an empty ``axes`` permutes a
0-d array only) and ``SwapAxis`` (``swapaxes``: two axes interchanged). Results are new arrays; each gradient is the inverse
permutation of the output gradient.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.transpose(mx.nd.zeros((2, 3, 4))).shape, mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=(1, 0, 2)).shape
    ((4, 3, 2), (3, 2, 4))
    >>> mx.nd.swapaxes(mx.nd.zeros((2, 3, 4)), dim1=0, dim2=2).shape
    (4, 3, 2)
"""
from ..base import MXNetValueError
from .attrs import Attr
from .infer import InferError, merge_shape, normalize_axis
from .registry import NsName, OpDef, register


def _perm(a, nd):
    axes = a["axes"]
    if not axes:
        return tuple(range(nd - 1, -1, -1))
    perm = tuple(normalize_axis(ax, nd) for ax in axes)
    if sorted(perm) != list(range(nd)):
        raise InferError(0, f"with ndim matching the permutation axes={tuple(axes)}", f"ndim {nd}")
    return perm


def _transpose_grad(F, a, inputs, outputs, ograds):
    perm = _perm(a, inputs[0].ndim)
    inv = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
    return [F.transpose(ograds[0], axes=inv)]


def _transpose_partial(a, in_shapes, outs):
    """Partial symbolic inference (MXNet's TransposeShape): the input from the output's shape."""
    out, data = outs[0], in_shapes[0]
    if out is None or data is not None and len(data) != len(out):
        return
    back = [0] * len(out)
    for i, p in enumerate(_perm(a, len(out))):
        back[p] = out[i]
    merge_shape(in_shapes, 0, tuple(back), "the output has this input's axes permuted")


register(OpDef("transpose", family="shape",
               attrs={"axes": Attr("shape?", (), doc="a permutation; () or None reverses the axes")},
               compute=lambda ctx, a, x: x.transpose(_perm(a, x.ndim)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][p] for p in _perm(a, len(s[0])))],
               infer_partial=_transpose_partial, grad=_transpose_grad,
               doc="Permute the axes (reverse them when `axes` is empty)."))


def _np_perm(a, nd):
    """MXNet's ``NumpyTransposeShape``: None reverses the axes; otherwise one axis per dimension, each
    once (a repeated axis is a ValueError, as NumPy's)."""
    axes = a["axes"]
    if axes is None:
        return tuple(range(nd - 1, -1, -1))
    if len(axes) != nd:
        raise InferError(0, f"ndim {len(axes)}, the number of axes (axes={tuple(axes)})", f"ndim {nd}")
    perm = tuple(normalize_axis(ax, nd) for ax in axes)
    if len(set(perm)) != nd:
        raise MXNetValueError(f"transpose: expected each axis once in axes, got a repeated axis in "
                              f"axes={tuple(axes)}")
    return perm


def _np_transpose_grad(F, a, inputs, outputs, ograds):
    perm = _np_perm(a, inputs[0].ndim)
    inv = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
    return [F._np_transpose(ograds[0], axes=inv)]


register(OpDef("_np_transpose", family="shape", np=NsName("transpose", args=("axes",)),
               inputs=("a",), attrs={"axes": Attr("shape?", None, doc="a permutation; None reverses the axes")},
               compute=lambda ctx, a, x: x.transpose(_np_perm(a, x.ndim)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][p] for p in _np_perm(a, len(s[0])))],
               grad=_np_transpose_grad,
               doc="NumPy transpose: permute the axes (reverse them when `axes` is None)."))


def _swap_perm(a, nd):
    d1, d2 = normalize_axis(a["dim1"], nd), normalize_axis(a["dim2"], nd)
    perm = list(range(nd))
    perm[d1], perm[d2] = perm[d2], perm[d1]
    return perm


def _swap_compute(ctx, a, x):
    return x.transpose(_swap_perm(a, x.ndim)).copy()


register(OpDef("SwapAxis", aliases=("swapaxes",), family="shape",
               np=NsName("swapaxes", rename={"axis1": "dim1", "axis2": "dim2"}, args=("dim1", "dim2")),
               attrs={"dim1": Attr("int", 0), "dim2": Attr("int", 0)}, compute=_swap_compute,
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][p] for p in _swap_perm(a, len(s[0])))],
               grad=lambda F, a, ins, outs, og: [F.SwapAxis(og[0], dim1=a["dim1"], dim2=a["dim2"])],
               doc="Interchange axes dim1 and dim2."))
