"""Autograd's runtime state: the recording and training flags, the scopes that set them, and the
tape node every recorded op call leaves. It imports nothing above ``base``: the dispatcher, the
cached op and Blocks read these flags on every call; the backward driver that walks the tape lives
in ``autograd.backward``.

Example::

    >>> from hybridlab.autograd import state
    >>> with state.record():
    ...     state.flags.recording, state.flags.training
    (True, True)
    >>> state.flags.recording
    False
"""
import threading
from itertools import repeat
from operator import is_not

from ..base import MXNetError

__all__ = ["flags", "Scope", "record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "TapeNode", "sources_of", "gradient_mask", "sources_mask", "recorded_sources",
           "needs_record", "check_grad_req", "mark_fresh", "take_fresh"]


class _Flags(threading.local):
    recording = False
    training = False


flags = _Flags()   # per thread: .recording (op calls go on the tape), .training (Dropout drops, ...)


def is_recording():
    """True inside ``record()`` (and not inside ``pause()``).

    >>> import hybridlab as mx
    >>> mx.autograd.is_recording()
    False
    """
    return flags.recording


def is_training():
    """True in training mode (``record()`` by default, ``train_mode()``): Dropout drops, BatchNorm
    uses batch statistics.

    >>> import hybridlab as mx
    >>> with mx.autograd.train_mode():
    ...     mx.autograd.is_training()
    True
    """
    return flags.training


def set_recording(is_recording):  # noqa: F811 - MXNet's name
    """Set recording on or off; returns the previous state.

    >>> import hybridlab as mx
    >>> mx.autograd.set_recording(True), mx.autograd.set_recording(False)
    (False, True)
    """
    prev, flags.recording = flags.recording, bool(is_recording)
    return prev


def set_training(train_mode):  # noqa: F811 - MXNet's name
    """Set training mode on or off; returns the previous state.

    >>> import hybridlab as mx
    >>> mx.autograd.set_training(True), mx.autograd.set_training(False)
    (False, True)
    """
    prev, flags.training = flags.training, bool(train_mode)
    return prev


class Scope:
    """Context manager behind record/pause/train_mode/predict_mode: sets ``recording`` and
    ``training`` (``None`` leaves one as it is) and restores both on exit.

    >>> with Scope(True, False):
    ...     flags.recording, flags.training
    (True, False)
    """

    def __init__(self, recording, training):
        self._enter = (recording, training)
        self._prev = None

    def __enter__(self):
        self._prev = (flags.recording, flags.training)
        recording, training = self._enter
        if recording is not None:
            flags.recording = recording
        if training is not None:
            flags.training = training
        return self

    def __exit__(self, *exc):
        flags.recording, flags.training = self._prev
        return False


def record(train_mode=True):  # noqa: F811 - MXNet's name
    """Record op calls for ``backward`` (in training mode unless ``train_mode=False``).

    >>> import hybridlab as mx
    >>> with mx.autograd.record():
    ...     mx.autograd.is_recording(), mx.autograd.is_training()
    (True, True)
    """
    return Scope(True, train_mode)


def pause(train_mode=False):  # noqa: F811 - MXNet's name
    """Stop recording inside a ``record()`` block (in prediction mode unless ``train_mode=True``).

    >>> import hybridlab as mx
    >>> with mx.autograd.record(), mx.autograd.pause():
    ...     mx.autograd.is_recording(), mx.autograd.is_training()
    (False, False)
    """
    return Scope(False, train_mode)


def train_mode():
    """Training mode without changing recording.

    >>> import hybridlab as mx
    >>> with mx.autograd.train_mode():
    ...     mx.autograd.is_recording(), mx.autograd.is_training()
    (False, True)
    """
    return Scope(None, True)


def predict_mode():
    """Prediction mode without changing recording.

    >>> import hybridlab as mx
    >>> with mx.autograd.record(), mx.autograd.predict_mode():
    ...     mx.autograd.is_recording(), mx.autograd.is_training()
    (True, False)
    """
    return Scope(None, False)


class TapeNode:
    """One recorded op call. ``sources[i]`` says where the gradient of input ``i`` goes: a
    ``(TapeNode, output_index)`` entry, a leaf NDArray (a variable), or ``None`` (a constant)."""

    __slots__ = ("op", "attrs", "inputs", "sources", "out_data", "device", "training", "freed")

    def __init__(self, op, attrs, inputs, out_data, device, sources=None):
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.sources = sources_of(inputs) if sources is None else sources   # (given: the caller's)
        self.out_data = out_data
        self.device = device
        self.training = flags.training   # the forward's mode: its gradient is computed in the same mode
        self.freed = False

    def __repr__(self):
        return f"<TapeNode {self.op.name}>"


def source_of(x):
    """Where the gradient of the array ``x`` goes when an op reads it: its ``(TapeNode, output)``
    entry, itself (a variable), or ``None`` (a constant). As in MXNet, an array computed in a graph
    that a backward has since freed (``retain_graph=False``) is a constant again."""
    return sources_of((x,))[0]


def sources_of(arrays):
    """``[source_of(x) for x in arrays]`` (the rule is here: one call for a recorded call's inputs)."""
    sources = []
    for x in arrays:
        node = x._node
        if node is not None and not node[0].freed:
            sources.append(node)
        else:
            sources.append(x if x._grad_req != "null" else None)
    return sources


def gradient_mask(arrays):
    """Per array, whether a recorded op reading it must pass a gradient back to it (it is on the tape
    or a variable: its source is not ``None``): what a cached op's backward plan is built for
    (``BackwardPlan.need``).

    >>> import hybridlab as mx
    >>> x, c = mx.nd.ones((1,)), mx.nd.ones((1,))
    >>> x.attach_grad()
    >>> gradient_mask([x, c])
    (True, False)
    """
    return sources_mask(sources_of(arrays))


def sources_mask(sources):
    """``gradient_mask`` of the arrays whose ``source_of`` are ``sources`` (a C pass)."""
    return tuple(map(is_not, sources, repeat(None)))


def recorded_sources(inputs):
    """``sources_of(inputs)`` when a recorded call on ``inputs`` needs a tape node (some input needs a
    gradient), else ``None``."""
    sources = sources_of(inputs)
    return sources if any(map(is_not, sources, repeat(None))) else None


def needs_record(inputs):
    """True when an op call on ``inputs`` must be recorded (recording, and some input needs a grad)."""
    return flags.recording and recorded_sources(inputs) is not None


def check_grad_req(req):
    """Raise unless ``req`` is one of MXNet's gradient requests ('write', 'add', 'null')."""
    if req not in ("write", "add", "null"):
        raise MXNetError(f"grad_req expected one of 'write', 'add', 'null', got {req!r}")


# A gradient buffer written by backward since its consumer last looked (``take_fresh``: the Trainer's
# stale-gradient check) carries ``_fresh = True`` (an NDArray slot, unset until the first backward).


def mark_fresh(*grads):
    """Note that backward just wrote the gradient buffers ``grads``."""
    for grad in grads:
        grad._fresh = True


def is_fresh(grad):
    """True if backward wrote ``grad`` since it was last taken (``take_fresh``), without taking it."""
    return getattr(grad, "_fresh", False)


def take_fresh(grad):
    """True if backward wrote ``grad`` since the last call for it (and forget that it did)."""
    fresh = getattr(grad, "_fresh", False)
    grad._fresh = False
    return fresh
