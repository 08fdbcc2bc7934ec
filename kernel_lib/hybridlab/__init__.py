"""hybridlab: MXNet Gluon's hybridization, re-implemented on NumPy (CPU) and CuPy (GPU), made
visible in JupyterLab. Import it as MXNet: ``import hybridlab as mx``.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.random.normal(shape=(1, 4))
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.relu(x).sum()
    >>> y.backward()
    >>> x.grad.shape
    (1, 4)
"""
import sys as _sys

from .base import MXNetError, HybridlabError  # noqa: F401
from . import host_pool
host_pool.enable()  # freed NumPy buffers stay in the heap: no page faults per training step
from . import threads  # noqa: F401  (thread counts of BLAS and oneDNN, chosen from the free CPUs)
from . import device, context  # noqa: F401
from .device import Device, cpu, gpu, cpu_pinned, num_gpus, current_device  # noqa: F401
from .context import Context, current_context  # noqa: F401
from . import ops  # noqa: F401  (registers every operator)
from . import autograd  # noqa: F401
from . import ndarray  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import numpy as np  # noqa: F401
from . import numpy_extension as npx  # noqa: F401
from . import random  # noqa: F401
from . import name  # noqa: F401
from .attribute import AttrScope  # noqa: F401
from . import symbol  # noqa: F401
from . import operator  # noqa: F401  (mx.operator: CustomOp / CustomOpProp)
from . import symbol as sym  # noqa: F401
from . import contrib  # noqa: F401  (mx.contrib.nd / mx.contrib.sym)
from .contrib import amp as _contrib_amp  # noqa: F401,E402  (mx.contrib.amp: sits in the gluon layer)
from . import amp  # noqa: F401,E402  (mx.amp: MXNet 2.0's name for it)
# MXNet 1.x ``F.np`` / ``F.npx``: with F = mx.nd they are mx.np / mx.npx (mxnet.ndarray.numpy)
nd.np, nd.npx = np, npx
_sys.modules[__name__ + '.ndarray.numpy'], _sys.modules[__name__ + '.ndarray.numpy_extension'] = np, npx
_sys.modules[__name__ + '.symbol.numpy'], _sys.modules[__name__ + '.symbol.numpy_extension'] = sym.np, sym.npx
from . import deferred as _deferred_compute  # noqa: F401
_sys.modules[__name__ + '._deferred_compute'] = _deferred_compute   # MXNet's module name: `import mxnet._deferred_compute`
from . import runtime  # noqa: F401
from . import events, viz, compiler  # noqa: F401
from . import gluon, initializer  # noqa: F401
from . import optimizer, lr_scheduler; from .gluon import metric  # noqa: F401,E702
from . import kvstore  # noqa: F401
kv = kvstore
visualization = viz
# MXNet's module paths for these: `import mxnet.metric`, `from mxnet.visualization import plot_network`
_sys.modules[__name__ + '.metric'] = metric
_sys.modules[__name__ + '.visualization'] = viz
from . import profiler  # noqa: F401
from . import io, model, callback, module  # noqa: F401
from . import rnn  # noqa: F401  (mx.rnn: the legacy symbolic RNN cells)
from . import image  # noqa: F401
from . import recordio  # noqa: F401
from . import engine  # noqa: F401  (mx.engine: the bulk size, kept for code that sets it)
from . import module as mod  # noqa: F401
from . import monitor  # noqa: F401
mon = monitor
from . import test_utils  # noqa: F401
from . import util  # noqa: F401
from . import numpy_op_signature  # noqa: F401  (NumPy signatures of the builtin np ops)
# MXNet's top-level np-mode switches (mxnet/__init__.py re-exports them from util)
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape  # noqa: F401
from .util import is_np_array, np_array, use_np_array, use_np  # noqa: F401
from . import lab  # noqa: F401  (the lab layer: widgets and graph display in notebooks)
from .lab import _jupyter_labextension_paths  # noqa: F401
init = initializer
from .ndarray.fluent import attach as _attach_fluent

_attach_fluent(nd, np)

__version__ = "0.1.0"
