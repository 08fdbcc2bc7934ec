"""The ``mx.sym.np`` functions that choose among registered ops by their arguments (MXNet 1.9.1's
``mxnet.symbol.numpy`` front ends), and ``mx.sym.np.linalg``: what ``mx.np`` offers that a graph can
hold without knowing shapes. ``install`` fills the namespace from the ``mx.sym`` op functions.

Example::

    >>> import hybridlab as mx
    >>> a, b = mx.sym.var('a'), mx.sym.var('b')
    >>> s = mx.sym.np.tensordot(a, b, ([1], [0]))
    >>> s.infer_shape(a=(2, 3), b=(3, 4))[1]
    [(2, 4)]
    >>> mx.sym.np.linalg.det(a).infer_shape(a=(5, 2, 2))[1]
    [(5,)]
"""
import operator
import types

__all__ = ["install"]

# mx.sym.np.linalg name -> the registered op it composes (attributes passed through)
_LINALG = {"det": "_npi_det", "slogdet": "_npi_slogdet", "inv": "_npi_inv", "solve": "_npi_solve",
           "cholesky": "_npi_cholesky", "eigh": "_npi_eigh", "eigvalsh": "_npi_eigvalsh", "svd": "_npi_svd",
           "qr": "_npi_qr", "tensorinv": "_npi_tensorinv", "eig": "_npi_eig", "eigvals": "_npi_eigvals"}


def install(np_ns, ops):
    """Add tensordot, inner, outer, vdot and the ``linalg`` namespace to ``np_ns`` (``mx.sym.np``),
    built with ``ops`` (the ``mx.sym`` namespace dict)."""

    def tensordot(a, b, axes=2, name=None):
        """``np.tensordot`` as a graph node: ``axes`` an int (last axes of a with first of b) or a
        pair of axis sequences (``_npi_tensordot_int_axes`` / ``_npi_tensordot``)."""
        if hasattr(axes, "__index__"):
            return ops["_npi_tensordot_int_axes"](a, b, axes=operator.index(axes), name=name)
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes expected an int or a pair of axis sequences, got {axes!r}")
        ax_a, ax_b = ([x] if hasattr(x, "__index__") else list(x) for x in axes)
        return ops["_npi_tensordot"](a, b, a_axes_summed=tuple(ax_a), b_axes_summed=tuple(ax_b), name=name)

    def inner(a, b, name=None):
        """Sum of products over the last axes of a and b."""
        return tensordot(a, b, ([-1], [-1]), name=name)

    def outer(a, b, name=None):
        """Outer product of the flattened a and b."""
        return tensordot(np_ns.reshape(a, (-1,)), np_ns.reshape(b, (-1,)), 0, name=name)

    def vdot(a, b, name=None):
        """Dot product of the flattened a and b."""
        return tensordot(np_ns.reshape(a, (-1,)), np_ns.reshape(b, (-1,)), 1, name=name)

    for fn in (tensordot, inner, outer, vdot):
        np_ns.__dict__[fn.__name__] = fn

    linalg = types.ModuleType(np_ns.__name__ + ".linalg", "mx.np.linalg's functions building Symbols.")

    def front(name, op):
        def fn(*args, **kwargs):
            return ops[op](*args, **kwargs)
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"``np.linalg.{name}`` as a graph node (the ``{op}`` op)."
        return fn

    for name, op in _LINALG.items():
        setattr(linalg, name, front(name, op))
    np_ns.linalg = linalg
