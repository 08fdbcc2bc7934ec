"""Tracebacks that start at the user's code: an exception escaping a block call (``HybridBlock.__call__``)
into user code leaves hybridlab's own frames out of its traceback, and out of the tracebacks of the
exceptions chained to it (``__cause__``, ``__context__``: kept, only their tracebacks are shorter). What
remains is the user's line that called the block, the entry ``__call__`` (marked ``__tracebackhide__``, which
IPython and pytest honour), and the user's lines inside ``forward`` / ``hybrid_forward`` down to where it
failed. A note on the exception says so. ``HYBRIDLAB_FULL_TRACEBACK=1`` keeps every frame, as raised.

Only the except branch of a block call runs this: a call that raises nothing pays nothing.

Example::

    >>> import traceback
    >>> import hybridlab as mx
    >>> class Branches(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         if x.sum() > 0:
    ...             return x * 2
    ...         return x
    >>> net = Branches()
    >>> net.hybridize()
    >>> try:
    ...     net(mx.np.ones((2,)))
    ... except mx.MXNetError as err:
    ...     frames = traceback.extract_tb(err.__traceback__)
    >>> [f.name for f in frames]        # the caller, the entry __call__, the user's forward
    ['<module>', '__call__', 'forward']
"""
import os
import types

from .provenance import in_package

__all__ = ["ENV", "full_traceback_wanted", "escapes_to_user", "without_package_frames"]

ENV = "HYBRIDLAB_FULL_TRACEBACK"
NOTE = f"(hybridlab left its own frames out of this traceback; {ENV}=1 shows them)"


def full_traceback_wanted():
    """Whether ``HYBRIDLAB_FULL_TRACEBACK`` asks for every frame (read when an error happens)."""
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def escapes_to_user(caller, block):
    """Whether an exception leaving ``block.__call__`` reaches user code; ``caller`` is the frame that
    called that ``__call__``. A hybridlab mixin's ``__call__`` of the same block (``InputCheck``, which
    calls ``super().__call__``) is looked through: the block's entry is the outermost one."""
    frame = caller
    while frame is not None and in_package(frame.f_code.co_filename) and frame.f_code.co_name == "__call__" \
            and frame.f_locals.get("self") is block:
        frame = frame.f_back
    return frame is not None and not in_package(frame.f_code.co_filename)


def without_package_frames(err):
    """``err`` (returned, to be raised again) with the frames of hybridlab's files left out of its
    traceback and those of its chained exceptions; a note says so when any were left out."""
    seen, todo, dropped = set(), [err], False
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        tb = _user_frames(exc.__traceback__)
        if tb is not exc.__traceback__:
            exc.__traceback__ = tb
            dropped = True
        todo += [exc.__cause__, exc.__context__]
    if dropped and NOTE not in getattr(err, "__notes__", ()):
        err.add_note(NOTE)
    return err


def _user_frames(tb):
    """A traceback of the entries of ``tb`` whose code is outside hybridlab (``tb`` itself when all are)."""
    kept, entry, dropped = [], tb, False
    while entry is not None:
        if in_package(entry.tb_frame.f_code.co_filename):
            dropped = True
        else:
            kept.append(entry)
        entry = entry.tb_next
    if not dropped:
        return tb
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out
