"""``mx.contrib.symbol``: the ``_contrib_*`` operators of ``mx.sym`` under their short names.

    >>> import hybridlab as mx
    >>> mx.contrib.symbol.box_nms(mx.sym.var('data'), name='nms').list_outputs()
    ['nms_output0']
"""
from ..symbol import contrib as _contrib

globals().update({k: v for k, v in vars(_contrib).items() if not k.startswith("__")})
