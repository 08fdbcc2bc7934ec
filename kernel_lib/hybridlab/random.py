"""``mx.random``: seeding and sampling. ``seed`` makes every random op reproducible.

Example::

    >>> import hybridlab as mx
    >>> mx.random.seed(42); a = mx.random.uniform(shape=(3,)).asnumpy()
    >>> mx.random.seed(42); b = mx.random.uniform(shape=(3,)).asnumpy()
    >>> bool((a == b).all())
    True
"""
from .ops.context import seed as _seed
from .ndarray.random_api import *  # noqa: F401,F403
from .ndarray.random_api import multinomial  # noqa: F401  (generated from the registry, as in mx.nd.random)


def seed(seed_state, ctx="all", device=None):
    """Seed the random generators of all devices (``ctx="all"``) or of one device."""
    _seed(seed_state, device or ctx)
