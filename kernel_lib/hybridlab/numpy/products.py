"""``mx.np`` products composed of registered ops (so they record gradients): einsum, tensordot,
inner, outer, kron, vdot, cross.

Example::

    >>> import hybridlab as mx
    >>> mx.np.tensordot(mx.np.ones((2, 3)), mx.np.ones((3, 4)), axes=1).shape
    (2, 4)
    >>> mx.np.outer(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
"""
import operator


from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, call, slice_axis

__all__ = ["einsum", "tensordot", "inner", "outer", "kron", "vdot", "cross"]


def einsum(subscripts, *operands, out=None, optimize=False):
    """Einstein summation (NumPy's ``einsum``: explicit or implicit output, ``...``), differentiable
    (see ops/np_einsum.py).

    >>> import hybridlab as mx
    >>> x = mx.np.arange(6.0).reshape(2, 3)
    >>> mx.np.einsum('ij->j', x).tolist(), mx.np.einsum('ij,ij', x, x).tolist()
    ([3.0, 5.0, 7.0], 55.0)
    """
    if not isinstance(subscripts, str):
        raise MXNetValueError(f"np.einsum: expected the subscripts string first, got {type(subscripts).__name__}")
    return call("_npi_einsum", *[as_array(o) for o in operands], out=out, subscripts=subscripts,
                num_args=len(operands), optimize=int(bool(optimize)))


def tensordot(a, b, axes=2):
    """Sum products over the last ``axes`` axes of ``a`` and the first of ``b`` (or the given pair of
    axis lists).

    >>> import hybridlab as mx
    >>> float(mx.np.tensordot(mx.np.ones((2, 3)), mx.np.ones((2, 3))))
    6.0
    """
    a, b = as_array(a), as_array(b)
    if hasattr(axes, "__index__"):
        return call("_npi_tensordot_int_axes", a, b, axes=operator.index(axes))
    ax_a, ax_b = ([x] if hasattr(x, "__index__") else list(x) for x in axes)
    return call("_npi_tensordot", a, b, a_axes_summed=tuple(ax_a), b_axes_summed=tuple(ax_b))


def inner(a, b):
    """Sum of products over the last axes of ``a`` and ``b``.

    >>> import hybridlab as mx
    >>> float(mx.np.inner(mx.np.array([1.0, 2.0]), mx.np.array([3.0, 4.0])))
    11.0
    """
    a, b = as_array(a), as_array(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))


def outer(a, b):
    """Outer product of the flattened inputs.

    >>> import hybridlab as mx
    >>> mx.np.outer(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    """
    return _np.reshape(as_array(a), (-1, 1)) * _np.reshape(as_array(b), (1, -1))


def kron(a, b):
    """Kronecker product.

    >>> import hybridlab as mx
    >>> mx.np.kron(mx.np.array([1.0, 10.0]), mx.np.array([1.0, 2.0])).tolist()
    [1.0, 2.0, 10.0, 20.0]
    """
    a, b = as_array(a), as_array(b)
    nd = max(a.ndim, b.ndim)
    a = _np.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = _np.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ea = _np.reshape(a, tuple(x for s in a.shape for x in (s, 1)))
    eb = _np.reshape(b, tuple(x for s in b.shape for x in (1, s)))
    return _np.reshape(ea * eb, tuple(p * q for p, q in zip(a.shape, b.shape)))


def vdot(a, b):
    """Dot product of the flattened inputs.

    >>> import hybridlab as mx
    >>> float(mx.np.vdot(mx.np.ones((2, 2)), mx.np.ones((2, 2))))
    4.0
    """
    return _np.sum(_np.reshape(as_array(a), (-1,)) * _np.reshape(as_array(b), (-1,)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors give the z component) along the last axis.

    >>> import hybridlab as mx
    >>> mx.np.cross(mx.np.array([1.0, 0.0, 0.0]), mx.np.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a, b = as_array(a), as_array(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _np.moveaxis(a, axisa, -1), _np.moveaxis(b, axisb, -1)

    def c(x, i):
        return _np.reshape(slice_axis(x, -1, i, i + 1), x.shape[:-1]) if x.shape[-1] > i else None

    a0, a1, a2 = c(a, 0), c(a, 1), c(a, 2)
    b0, b1, b2 = c(b, 0), c(b, 1), c(b, 2)
    z = a0 * b1 - a1 * b0
    if a2 is None and b2 is None:
        return z
    a2 = a2 if a2 is not None else a0 * 0
    b2 = b2 if b2 is not None else b0 * 0
    out = _np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z], axis=-1)
    return _np.moveaxis(out, -1, axisc)
