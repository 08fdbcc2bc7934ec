"""``mx.contrib``: MXNet's contrib namespaces ``mx.contrib.nd`` (``mx.contrib.ndarray``) and
``mx.contrib.sym`` (``mx.contrib.symbol``), holding the ``_contrib_*`` operators under their short
names, as ``mx.nd.contrib`` and ``mx.sym.contrib`` do; and ``mx.contrib.text`` (token counting and
vocabularies).

Example::

    >>> import hybridlab as mx
    >>> mx.contrib.nd.box_iou(mx.nd.array([[0, 0, 2, 2]]), mx.nd.array([[1, 1, 3, 3]])).asnumpy().astype('float64').round(4).tolist()
    [[0.1429]]
    >>> mx.contrib.sym.box_nms is mx.sym.contrib.box_nms
    True
"""
from . import ndarray, symbol  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import symbol as sym  # noqa: F401
from . import text  # noqa: F401
