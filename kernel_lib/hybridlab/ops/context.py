"""What an op's compute function gets besides its inputs: the array module, the device, whether
the call runs in training mode, and the device's random generator (seeded by ``mx.random.seed``)."""
import numpy as np

__all__ = ["OpContext", "op_context", "seed", "get_rng"]

#: MXNet's NumPy-semantics switches (``mx.npx.set_np``, ``mx.util.np_shape``), kept here so shape
#: inference can read them: outside NumPy shape semantics MXNet 1.x takes a 0 in a shape for an
#: unknown size, so ops refuse to make (or take) zero-size arrays where MXNet does
np_mode = {"array": False, "shape": False}


def legacy_zero_size(shape):
    """Whether ``shape`` has a zero dimension (or no dimension) while NumPy shape semantics are off:
    a shape MXNet 1.x's legacy inference cannot produce.

    >>> legacy_zero_size((2, 0)), legacy_zero_size((2, 3))
    (True, False)
    """
    return not np_mode["shape"] and (len(shape) == 0 or 0 in tuple(shape))


_rngs = {}          # Device -> generator (numpy.random.Generator or cupy.random.RandomState)
_seed_state = {"seed": None}


def get_rng(device):
    """The random generator of ``device``, created from the last ``seed`` (or OS entropy)."""
    rng = _rngs.get(device)
    if rng is None:
        s = _seed_state["seed"]
        if device.is_gpu:
            rng = device.xp.random.RandomState(s)
        else:
            rng = np.random.Generator(np.random.PCG64(s))
        _rngs[device] = rng
    return rng


def seed(seed_state, device="all"):
    """Reseed the generators of every device (``device="all"``) or one device. Any int is a seed:
    MXNet passes it to C as a 32-bit int, so seeds equal modulo 2**32 (``-5`` and ``2**32 - 5``)
    give the same draws, as there."""
    if isinstance(seed_state, (float, np.floating)) or not hasattr(seed_state, "__index__"):
        raise ValueError(f"seed_state must be int, got {type(seed_state).__name__} {seed_state!r}")
    seed_state = seed_state.__index__() % (1 << 32)
    if device == "all":
        _seed_state["seed"] = seed_state
        _rngs.clear()
    else:
        _rngs.pop(device, None)
        saved = _seed_state["seed"]
        _seed_state["seed"] = seed_state
        get_rng(device)
        _seed_state["seed"] = saved


class OpContext:
    """Per-call context handed to ``compute(ctx, a, *arrays)``."""

    __slots__ = ("device", "xp", "is_train")

    def __init__(self, device, is_train):
        self.device = device
        self.xp = device.xp
        self.is_train = is_train

    @property
    def rng(self):
        return get_rng(self.device)


_contexts = {}


def op_context(device, is_train):
    """A cached ``OpContext`` (one per device and mode: creating one per call would cost time)."""
    key = (device, is_train)
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = _contexts[key] = OpContext(device, is_train)
    return ctx
