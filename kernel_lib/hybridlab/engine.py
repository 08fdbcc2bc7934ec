"""``mx.engine``: MXNet's engine bulk size (``set_bulk_size``, ``bulk``).

MXNet's threaded engine can bundle up to *bulk size* consecutive operators into one scheduled unit.
hybridlab has no asynchronous engine: imperative operators run as they are called and a hybridized
block runs one compiled program, which is the bundling already. The size is kept and returned as
MXNet does (MXNet 1.9.1 starts at 0), so code that sets and restores it runs unchanged; it changes no
result and no schedule.

Example::

    >>> import hybridlab as mx
    >>> previous = mx.engine.set_bulk_size(30)
    >>> with mx.engine.bulk(5):
    ...     inside = mx.engine.set_bulk_size(5)
    >>> previous, inside, mx.engine.set_bulk_size(previous)
    (0, 5, 30)
"""
import contextlib

from .base import MXNetError

__all__ = ["set_bulk_size", "bulk"]

_bulk_size = [0]        # what MXNet 1.9.1's first set_bulk_size returns


def set_bulk_size(size):
    """Set the bulk size (how many operators MXNet's engine may bundle); returns the previous one."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise MXNetError(f"engine.set_bulk_size: expected an int >= 0, got {size!r}")
    previous, _bulk_size[0] = _bulk_size[0], size
    return previous


@contextlib.contextmanager
def bulk(size):
    """A scope with bulk size ``size``; the previous size comes back at its end."""
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)
