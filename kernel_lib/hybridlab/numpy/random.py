"""``mx.np.random``: NumPy-style sampling functions generated from the random ops."""
from ..ndarray.namespace import populate as _populate
from ..ops.context import seed as _seed

_populate(globals(), "np.random", np_style=True)


def seed(seed_state):
    """Seed every device's generator."""
    _seed(seed_state)
