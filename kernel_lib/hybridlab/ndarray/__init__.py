"""``mx.nd``: the NDArray and one function per registered operator (MXNet 1.x names and aliases:
``FullyConnected``, ``broadcast_add``, ``_mul_scalar``, ...), plus creation helpers, ``waitall``,
``save``/``load``/``load_frombuffer`` and ``mx.nd.random``.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.ones((2, 3))
    >>> mx.nd.dot(x, x, transpose_b=True).asnumpy().tolist()
    [[3.0, 3.0], [3.0, 3.0]]
"""
import types as _types

from .. import ops as _ops  # noqa: F401  (registers every operator)
from .ndarray import NDArray, array, from_dlpack, to_dlpack_for_read, to_dlpack_for_write
from .namespace import populate as _populate

_OP_NAMES = _populate(globals(), "nd")

from .creation import *  # noqa: F401,F403,E402
from .ufunc import *  # noqa: F401,F403,E402
from .legacy import *  # noqa: F401,F403,E402
from .params_file import save, load, load_frombuffer  # noqa: E402,F401
from . import random_api as random  # noqa: E402
from . import sparse  # noqa: E402,F401  (mx.nd.sparse: CSR and row-sparse arrays)

contrib = _types.SimpleNamespace(**{n[len("_contrib_"):]: globals()[n] for n in _OP_NAMES if n.startswith("_contrib_")})
contrib.__doc__ = "MXNet's contrib operators (``F.contrib.boolean_mask``...)."
from .contrib_funcs import isinf as _isinf, isfinite as _isfinite, isnan as _isnan  # noqa: E402
contrib.isinf, contrib.isfinite, contrib.isnan = _isinf, _isfinite, _isnan   # Python functions in MXNet too
from .contrib_zipfian import rand_zipfian as _rand_zipfian  # noqa: E402
contrib.rand_zipfian = _rand_zipfian
from .control_flow import foreach as _foreach  # noqa: E402  (a Python function in MXNet)
contrib.foreach = _foreach
linalg = _types.SimpleNamespace(**{n[len("_linalg_"):]: globals()[n] for n in _OP_NAMES if n.startswith("_linalg_")})
linalg.__doc__ = "MXNet's linalg operators (``F.linalg.gemm2``, ``F.linalg.potrf``...)."
_internal = _types.SimpleNamespace(**{n: globals()[n] for n in _OP_NAMES if n.startswith("_")})
image = _types.SimpleNamespace(**{n[len("_image_"):]: globals()[n] for n in _OP_NAMES if n.startswith("_image_")})
image.__doc__ = "MXNet's image operators (``mx.nd.image.normalize``, ``to_tensor``...)."
_internal.__doc__ = "Internal operators (MXNet's mx.nd._internal)."


def waitall():
    """Block until every array is computed (GPU streams are synchronised; CPU work is synchronous)."""
    from ..device import cupy_or_none
    cp = cupy_or_none()
    if cp is not None:
        cp.cuda.Device().synchronize()
