"""Input checks for layers: a layer given an input of the wrong rank or channel count raises an
error naming the layer, the expected and the got shape, before any operator runs.

A layer opts in by mixing in ``InputCheck`` (before ``HybridBlock``) and implementing
``_expected_input()`` -> ``(rank or None, channel axis or None, channel count or 0 if unknown,
description)``. Only concrete arrays are checked (Symbols carry no shapes; their errors come from
graph shape inference, which names the node ``<layer prefix>fwd``).

Example::

    >>> import hybridlab as mx
    >>> with mx.name.NameManager():
    ...     conv = mx.gluon.nn.Conv2D(4, 3, in_channels=3)
    >>> conv.initialize()
    >>> try:
    ...     conv(mx.nd.ones((1, 5, 8, 8)))
    ... except mx.base.MXNetError as e:
    ...     print(e)
    Layer 'conv0' (Conv2D): expected input of shape (N, 3, H, W) (rank 4, 3 channels on axis 1), got shape (1, 5, 8, 8)
"""
from ...base import MXNetError
from ...ndarray.ndarray import NDArray

__all__ = ["InputCheck"]


class InputCheck:
    """Mixin: validate the first input's shape at every call with an NDArray. Layers implement
    ``_expected_input()`` -> ``(rank or None, channel axis or None, channels or 0, layout text)``, or
    override ``_input_problem(shape)`` -> ``(expected text, None)`` when the shape is wrong."""

    def _expected_input(self):
        return None, None, 0, ""

    def _input_problem(self, shape):
        rank, axis, channels, layout = self._expected_input()
        bad = rank is not None and len(shape) != rank
        if not bad and axis is not None and channels:
            bad = shape[axis] != channels
        if not bad:
            return None
        want = f"rank {rank}" if rank is not None else "any rank"
        if axis is not None and channels:
            want += f", {channels} channels on axis {axis}"
        return f"{layout} ({want})"

    def __call__(self, x, *args):
        if isinstance(x, NDArray):
            expected = self._input_problem(x.shape)
            if expected is not None:
                raise MXNetError(f"Layer '{self.name}' ({type(self).__name__}): expected input of shape "
                                 f"{expected}, got shape {tuple(x.shape)}")
        return super().__call__(x, *args)
