"""``mx.contrib.ndarray``: the ``_contrib_*`` operators of ``mx.nd`` under their short names.

    >>> import hybridlab as mx
    >>> mx.contrib.ndarray.div_sqrt_dim(mx.nd.ones((1, 4))).asnumpy().tolist()
    [[0.5, 0.5, 0.5, 0.5]]
"""
from ..ndarray import contrib as _contrib

globals().update({k: v for k, v in vars(_contrib).items() if not k.startswith("__")})
