"""Channel-blocked values on NumPy/CuPy: the reference for what oneDNN's blocked layouts hold.

A value of channel-first shape ``(N, C, *spatial)`` in the layout blocked by ``b`` channels
(oneDNN's ``aBcd8b`` for ``b = 8``) is stored as ``(N, C/b, *spatial, b)``; hybridlab keeps such a
value in an array of the channel-first shape (so shapes, memory plans and buffers stay those of
the graph), whose elements are in the blocked order. Block 0 means the plain layout. These
helpers move values between the layouts and view them per channel; the layout plan of predict
programs (``compiler/passes/layout.py``) decides which values are blocked, and the ops that read
them (``_LayoutReorder``, ``_ChannelAffine``, ``_FusedConvolution``) take the block as an attribute.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import blocked
    >>> x = np.arange(8, dtype=np.float32).reshape(1, 4, 1, 2)
    >>> y = blocked.to_block(np, x, 2)
    >>> y.shape, y.ravel().tolist()
    ((1, 4, 1, 2), [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0])
    >>> bool((blocked.from_block(np, y, 2) == x).all())
    True
"""
__all__ = ["to_block", "from_block", "per_channel", "fits", "expected"]


def fits(shape, block):
    """Whether values of ``shape`` can be in layout ``block``: any shape for the plain layout (0);
    a channel-first shape of 3 or more dimensions whose channels ``block`` divides otherwise."""
    return not block or (len(shape) >= 3 and shape[1] % block == 0)


def expected(block):
    """What :func:`fits` asks, for error messages."""
    return f"a channel-first shape of 3 or more dimensions with channels divisible by {block}"


def _blocked_view_shape(shape, block):
    return (shape[0], shape[1] // block) + tuple(shape[2:]) + (block,)


def to_block(xp, x, block):
    """``x`` (plain, channel-first) in the layout blocked by ``block`` (a new array of x's shape)."""
    if not block:
        return x
    n, c, sp = x.shape[0], x.shape[1], x.shape[2:]
    moved = x.reshape((n, c // block, block) + sp)
    order = (0, 1) + tuple(range(3, 3 + len(sp))) + (2,)
    return xp.ascontiguousarray(moved.transpose(order)).reshape(x.shape)


def from_block(xp, x, block):
    """``x`` (blocked by ``block``) in the plain channel-first layout (a new array of x's shape)."""
    if not block:
        return x
    nsp = x.ndim - 2
    view = xp.ascontiguousarray(x).reshape(_blocked_view_shape(x.shape, block))
    order = (0, 1, 2 + nsp) + tuple(range(2, 2 + nsp))
    return xp.ascontiguousarray(view.transpose(order)).reshape(x.shape)


def per_channel(x, values, block):
    """``(view of x, values shaped to broadcast along x's channels)`` for layout ``block``: the
    blocked view ``(N, C/b, *spatial, b)`` of a C-contiguous ``x`` and ``values`` as ``(1, C/b, 1.., b)``,
    or ``x`` itself and ``(1, C, 1, ...)`` for the plain layout."""
    nsp = x.ndim - 2
    if not block:
        return x, values.reshape((1, -1) + (1,) * nsp)
    return x.reshape(_blocked_view_shape(x.shape, block)), values.reshape((1, -1) + (1,) * nsp + (block,))
