"""``mx.np``: NumPy-style functions generated from the operator registry (each op's ``np`` names),
returning arrays with NumPy semantics (0-d reductions, NumPy repr).

Example::

    >>> import hybridlab as mx
    >>> a = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> float(mx.np.sum(a))
    10.0
"""
import numpy as _onp

from ..ndarray.namespace import populate as _populate
from ..ndarray.ndarray import NumpyNDArray as ndarray, from_dlpack  # noqa: F401
from .. import ops as _ops  # noqa: F401

_populate(globals(), "np", np_style=True)

from .creation import *  # noqa: F401,F403,E402
from .manipulation import *  # noqa: F401,F403,E402  (replaces the generated clip, split, concatenate)
from . import random  # noqa: E402,F401
from . import _internal  # noqa: E402,F401  (mx.np._internal: the _npi_* ops)
from . import linalg  # noqa: E402,F401
from .stacking import *  # noqa: F401,F403,E402
from .shaping import *  # noqa: F401,F403,E402
from .products import *  # noqa: F401,F403,E402
from .statistics import *  # noqa: F401,F403,E402
from .mathfuncs import *  # noqa: F401,F403,E402
from .logic import *  # noqa: F401,F403,E402  (replaces the generated where, unique, argsort)
from .binning import *  # noqa: F401,F403,E402
from .memory import *  # noqa: F401,F403,E402
from ._call import UFUNCS as _UFUNCS, wrap_ufunc as _wrap_ufunc  # noqa: E402

for _name in _UFUNCS:             # NumPy's ufunc keywords (where=, casting=...) checked as MXNet does
    if _name in globals():
        globals()[_name] = _wrap_ufunc(globals()[_name], _name)
del _name

pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int32, int64, uint8, bool_ = _onp.int8, _onp.int32, _onp.int64, _onp.uint8, _onp.bool_
bool = _onp.bool_                 # MXNet's mx.np.bool (NumPy's own alias was removed in NumPy 1.24)
dtype = _onp.dtype
