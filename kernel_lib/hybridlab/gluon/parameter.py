"""``Parameter``: a block's weight, one array per device plus its gradient (MXNet's
``gluon.Parameter``), with deferred initialisation while a dimension is unknown (0).

* ``initialize`` fills the data with the parameter's own ``init``, else the given ``init``, else
  the default; while the shape has an unknown dimension and ``allow_deferred_init`` is set,
  initialisation waits for the first forward pass (which infers the shape).
* Gradients attach through ``NDArray.attach_grad`` semantics: ``grad_req`` 'write', 'add' or
  'null' (no gradient buffer).
* Deferred initialisation (finishing it, the placeholder a traced graph sees, the shape a trace
  inferred) is the ``DeferredInit`` half of the class, in ``gluon.deferred_init``.
* ``var()`` is the parameter's symbol variable (with MXNet's ``__shape__``/``__dtype__``/
  ``__lr_mult__``/``__wd_mult__``/``__init__`` attributes); while a graph is traced by deferred
  compute, ``data()`` returns a value-less array bound to that variable.

Example::

    >>> import hybridlab as mx
    >>> w = mx.gluon.Parameter('fc_weight', shape=(2, 3), init=mx.init.One())
    >>> w.initialize()
    >>> w.data().asnumpy().tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    >>> w.grad().shape
    (2, 3)
    >>> sorted(w.var().list_attr())
    ['__dtype__', '__init__', '__lr_mult__', '__shape__', '__storage_type__', '__wd_mult__']
"""
import uuid
import warnings

import numpy as np

from .. import autograd, initializer
from .. import deferred as _dc
from ..base import MXNetError, normalize_dtype
from ..device import Device, cpu, current_device
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol, var as _sym_var
from .deferred_init import DeferredInit, DeferredInitializationError, checked_shape
from .utils import shape_is_known

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "tensor_types"]


tensor_types = (Symbol, NDArray)


def _devices(device):
    if device is None:
        return [current_device()]
    if isinstance(device, Device):
        return [device]
    return list(device)


DATA_VERSION = [0]   # bumped whenever any Parameter's data arrays are replaced


class Parameter(DeferredInit):
    """A container of a block's weight: its data on each device and their gradients.

    ``name`` picks the default initialisation by suffix (weight, bias, gamma, beta, running_mean,
    running_var); ``shape`` may contain 0 for dimensions inferred at the first forward pass.
    """

    _from_dict = False   # created by ParameterDict.get (its name already carries the block prefix)

    @property
    def _data(self):
        return self._data_arrays

    @_data.setter
    def _data(self, arrays):
        # any Parameter getting new arrays invalidates the hybridized blocks' cached argument lists
        self._data_arrays = arrays
        DATA_VERSION[0] += 1

    def __init__(self, name="weight", grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True, stype="default",
                 grad_stype="default"):
        self._var = None
        self._uuid = str(uuid.uuid4())
        self._var_name = None
        self._data = None
        self._device_list = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._placeholders = []
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = checked_shape(name, shape)
        self._name = name
        self._dtype = normalize_dtype(dtype)
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for kind, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in ("default", "row_sparse", "csr"):
                raise AssertionError(f"{kind} for Parameter must be one of 'default', 'row_sparse', or "
                                     f"'csr', but got '{value}'")
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    # ---- attributes -------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ("write", "add", "null"):
            raise AssertionError(f"grad_req must be one of 'write', 'add', or 'null', but got '{req}'")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if self._data is not None:
            if req == "null":
                self._data = [d.detach() for d in self._data]
            else:
                self._init_grad()

    @property
    def dtype(self):
        """The data type; setting it casts the data (``cast``)."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape; unknown dimensions are 0 until the first forward pass infers them."""
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = checked_shape(self.name, new_shape)
        if self._shape is None or new_shape is None:
            self._shape = new_shape
            return
        if len(self._shape) != len(new_shape) or any(j not in (-1, 0, i) for i, j in zip(new_shape, self._shape)):
            raise AssertionError(f"Expected shape {new_shape} is incompatible with given shape {self._shape} "
                                 f"for Parameter {self.name}.")
        self._shape = new_shape

    def _set_trainer(self, trainer):
        """Remember the Trainer updating this parameter (MXNet 1.9.1 keeps it, not a weak reference);
        a row_sparse parameter belongs to one Trainer (its rows live in that Trainer's kvstore)."""
        if self._stype != "default" and self._trainer is not None and trainer is not None \
                and self._trainer is not trainer:
            raise RuntimeError(f"Failed to set the trainer for Parameter '{self.name}' because it was already set. "
                               f"More than one trainers for a {self._stype} Parameter is not supported.")
        self._trainer = trainer

    # ---- data access ------------------------------------------------------------------------
    def _check_and_get(self, arr_list, device):
        if arr_list is not None:
            if device is list:
                return arr_list
            if device is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                device = current_device()
            for d, arr in zip(self._device_list, arr_list):
                if d == device:
                    return arr
            raise RuntimeError(f"Parameter '{self.name}' was not initialized on device {device}. "
                               f"It was only initialized on {self._device_list}.")
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization was deferred. "
                "Actual initialization happens during the first forward pass. Please pass one batch of data "
                "through the network before accessing Parameters. You can also avoid deferred initialization "
                "by specifying in_units, num_features, etc., for network layers.")
        raise RuntimeError(
            f"Parameter '{self.name}' has not been initialized. Note that you should initialize parameters "
            "and create Trainer with Block.collect_params() instead of Block.params because the later does "
            "not include Parameters of nested child Blocks")

    def data(self, device=None, ctx=None):
        """The data on ``device`` (the only copy when there is one). While deferred compute traces a
        graph, an array without values bound to ``var()`` (shape unknown dims as 0)."""
        device = device if device is not None else ctx
        if self._stype != "default":
            raise RuntimeError(f"Cannot return a copy of Parameter '{self.name}' on ctx {device} via data() because "
                               f"its storage type is {self._stype}. Please use row_sparse_data() instead.")
        if _dc.is_deferred_compute():
            return self._traced(device)
        return self._check_and_get(self._data, device)

    def list_data(self):
        """The data on every device, in initialisation order."""
        if self._stype != "default":
            raise RuntimeError(f"Cannot return copies of Parameter '{self.name}' on all contexts via list_data() "
                               f"because its storage type is {self._stype}. Please use row_sparse_data() instead.")
        return self._check_and_get(self._data, list)

    def row_sparse_data(self, row_id):
        """The row_sparse parameter on ``row_id``'s device, only the rows ``row_id`` (an NDArray of
        row indices) kept: pulled from its Trainer's kvstore (the other rows are zero).

        >>> import hybridlab as mx
        >>> w = mx.gluon.Parameter('w', shape=(3, 2), stype='row_sparse', init=mx.init.One())
        >>> w.initialize()
        >>> trainer = mx.gluon.Trainer([w], 'sgd')
        >>> w.row_sparse_data(mx.nd.array([0, 2])).asnumpy().tolist()
        [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
        """
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return a copy of Parameter {self.name} via row_sparse_data() because its "
                               f"storage type is {self._stype}. Please use data() instead.")
        return self._get_row_sparse(row_id.device, row_id)

    def list_row_sparse_data(self, row_id):
        """``row_sparse_data(row_id)`` on every device, in initialisation order."""
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return copies of Parameter '{self.name}' on all contexts via "
                               f"list_row_sparse_data() because its storage type is {self._stype}. Please use "
                               "data() instead.")
        return self._get_row_sparse(list, row_id)

    def _get_row_sparse(self, device, row_id):
        if not isinstance(row_id, NDArray):
            raise TypeError(f"row_id must have NDArray type, but {type(row_id)} is given")
        if self._trainer is None:
            raise RuntimeError(f"Cannot get row_sparse data for Parameter '{self.name}' when no Trainer is created "
                               "with it.")
        results = self._check_and_get(self._data, device)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    def grad(self, device=None, ctx=None):
        """The gradient buffer on ``device``."""
        device = device if device is not None else ctx
        if self._data is not None and self._grad_req == "null":
            raise RuntimeError(f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'")
        return self._check_and_get(None if self._data is None else [d.grad for d in self._data], device)

    @property
    def _grad(self):
        """MXNet 1.x's internal list of gradient buffers (one per device); None before initialisation
        and while ``grad_req`` is 'null'. Code written against 1.x reads it to test for gradients."""
        if self._data is None or self._grad_req == "null":
            return None
        return [d.grad for d in self._data]

    def list_grad(self):
        """The gradient buffers on every device."""
        if self._data is not None and self._grad_req == "null":
            raise RuntimeError(f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'")
        return self._check_and_get(None if self._data is None else [d.grad for d in self._data], list)

    def list_device(self):
        """The devices this parameter lives on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError(f"Parameter '{self.name}' has not been initialized")
        return list(self._device_list)

    def list_ctx(self):
        """Deprecated name of ``list_device``."""
        warnings.warn("Parameter.list_ctx has been renamed to Parameter.list_device", DeprecationWarning)
        return self.list_device()

    # ---- initialisation ---------------------------------------------------------------------
    def initialize(self, init=None, device=None, default_init=initializer.Uniform(), force_reinit=False,
                   ctx=None):
        """Create the data (and gradient) on ``device`` (a Device or list; default the current one).
        ``init`` overrides the parameter's own ``init``, which overrides ``default_init``. With an
        unknown dimension and ``allow_deferred_init``, initialisation waits for the first forward."""
        if device is None:
            device = ctx
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set force_reinit=True "
                          f"to re-initialize.", stacklevel=2)
            return
        self._data = None
        devices = _devices(device)
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, devices, default_init, None)
                return
            raise ValueError(f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                             f"{self.shape}.")
        self._deferred_init = (init, devices, default_init, None)
        self._finish_deferred_init()

    def _init_impl(self, data, devices):
        from ..numpy_extension import is_np_array
        self._device_list = list(devices)
        self._data = [data.copyto(d) if d != data.device else data.copy() for d in self._device_list]
        if self._stype != "default":  # a row_sparse weight is held as one (its rows come from the kvstore)
            self._data = [d.tostype(self._stype) for d in self._data]
        np_style = is_np_array()      # after npx.set_np() parameters are mx.np arrays (and so their grads)
        for d in self._data:
            d._set_np_style(np_style)
        self._init_grad()

    def _init_grad(self):
        if self._grad_req == "null":
            return
        for d in self._data:
            d.attach_grad(self._grad_req, stype=self._grad_stype)

    def _load_init(self, data, device, cast_dtype=False, dtype_source="current"):
        """(Re)initialise from loaded ``data`` (checks shape and dtype against the parameter's)."""
        if cast_dtype and dtype_source not in ("current", "saved"):
            raise AssertionError(f"dtype_source must be 'current' or 'saved', got {dtype_source!r}")
        if self.shape:
            if len(self.shape) != len(data.shape) or any(s not in (0, -1, d) for s, d in zip(self.shape, data.shape)):
                raise AssertionError(f"Failed loading Parameter '{self.name}' from saved params: shape incompatible "
                                     f"expected {self.shape} vs saved {data.shape}")
            self._shape = tuple(d if s in (0, -1) else s for s, d in zip(self.shape, data.shape))
        else:
            self._shape = tuple(data.shape)
        if self.dtype != data.dtype:
            if not cast_dtype:
                raise AssertionError(f"Failed loading Parameter '{self.name}' from saved params: dtype incompatible "
                                     f"expected {self.dtype} vs saved {data.dtype}. Set cast_dtype=True to cast "
                                     f"the dtype of saved params.")
            if dtype_source == "current":
                data = data.astype(self.dtype)
            elif self._data is not None:
                self.cast(data.dtype)
            else:
                self._dtype = normalize_dtype(data.dtype)
                self._var = None
        if isinstance(device, Device):
            device = [device]
        if self._data is None:
            if self._deferred_init:
                device = self._deferred_init[1] if device is None else device
            elif device is None:
                device = [cpu()]
            with autograd.pause():
                self._init_impl(data.detach() if hasattr(data, "detach") else data, device)
        else:
            self.set_data(data)
        self._deferred_init = ()

    def reset_device(self, device):
        """Move the parameter to ``device`` (a Device or a list)."""
        devices = _devices(device)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, devices)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, devices, default_init, data)
        else:
            raise ValueError(f"Cannot reset device for Parameter '{self.name}' because it has not been initialized.")

    def reset_ctx(self, ctx):
        """Deprecated name of ``reset_device``."""
        warnings.warn("Parameter.reset_ctx has been renamed to Parameter.reset_device", DeprecationWarning)
        self.reset_device(ctx)

    def set_data(self, data):
        """Set the value on every device (before deferred init: the value it will start from)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise AssertionError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer      # the kvstore holds a copy when it updates: make it again (MXNet)
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore \
                and self not in trainer._params_to_init:
            trainer._reset_kvstore()
        for arr in self._data:
            src = data.as_in_context(arr.device) if isinstance(data, NDArray) else data
            arr[:] = src

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing to do without gradients)."""
        if self._data is None or self._grad_req == "null":
            return
        for d in self._data:
            d.zero_grad()

    def _reduce(self):
        """The value on the CPU (the mean over devices when there are several copies; a row_sparse
        parameter's every row, from its Trainer's kvstore)."""
        if self._stype != "default" and self._trainer is not None:
            from ..ndarray import sparse
            data = sparse.zeros(self._stype, self.shape, ctx=cpu(), dtype=self.dtype)
            self._trainer._row_sparse_pull(self, data, None, full_idx=True)
            return data
        block = self._check_and_get(self._data, list)
        if len(block) == 1:
            return block[0].copyto(cpu()) if block[0].device != cpu() else block[0].copy()
        total = block[0].copyto(cpu())
        for w in block[1:]:
            total = total + w.copyto(cpu())
        return total / len(block)

    # ---- graph ------------------------------------------------------------------------------
    def var(self):
        """The symbol variable for this parameter (created once, with MXNet's attributes)."""
        if self._var is None:
            init = self.init
            if init is not None and not isinstance(init, str):
                try:
                    init = init.dumps()
                except MXNetError:
                    init = None
            self._var = _sym_var(self._var_name or self.name, shape=self.shape, dtype=self.dtype,
                                 lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=init, stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Cast the data and gradient to ``dtype``."""
        self._dtype = normalize_dtype(dtype)
        self._var = None
        if self._data is None:
            return
        with autograd.pause():
            self._data = [d.detach().astype(self._dtype) for d in self._data]
            self._init_grad()

    def _check_and_setattr(self, **kwargs):
        """Merge requested attributes into this (shared) parameter; unknown dims are filled, a
        conflict is an error naming both values."""
        for k, v in kwargs.items():
            existing = getattr(self, k, None)
            if existing is None:
                setattr(self, "_shape" if k == "shape" else k, v)
                continue
            if k == "shape":
                v = (v,) if isinstance(v, int) else tuple(v)
                if len(v) == len(existing) and all(a == b or a in (0, -1) or b in (0, -1) for a, b in zip(v, existing)):
                    self._shape = tuple(b if a in (0, -1) else a for a, b in zip(v, existing))
                    continue
            elif k == "dtype" and normalize_dtype(v) == existing:
                continue
            if v is not None and v != existing:
                raise AssertionError(f"Cannot retrieve Parameter '{self.name}' because desired attribute does not "
                                     f"match with stored for attribute '{k}': desired '{v}' vs stored '{existing}'.")


class Constant(Parameter):
    """A parameter holding a fixed value: no gradient, ignored by optimisers (``set_data`` still works).

    >>> import hybridlab as mx
    >>> c = mx.gluon.Constant([[1, 2], [3, 4]])
    >>> c.initialize()
    >>> c.data().asnumpy().tolist(), c.grad_req
    ([[1.0, 2.0], [3.0, 4.0]], 'null')
    >>> mx.gluon.Constant('scale', [2.0]).name        # MXNet 1.x's signature: Constant(name, value)
    'scale'
    """

    def __init__(self, *args, name=None, value=None):
        from ..ndarray.ndarray import array
        if len(args) == 2 and name is None and value is None:
            name, value = args                                  # 1.x: Constant(name, value)
        elif len(args) == 1 and value is None:
            value = args[0]                                     # 2.0: Constant(value)
        elif args or value is None:
            raise TypeError(f"Constant: expected Constant(value), Constant(name, value) or keywords name=, "
                            f"value=; got {len(args)} positional argument(s) and value={value!r}")
        if name is None:
            name = "const"
        if isinstance(value, str):
            raise TypeError(f"Constant {name!r}: expected an array-like value, got the string {value!r}")
        if not isinstance(value, NDArray):
            value = array(value)
        self.value = value
        super().__init__(name=name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=initializer.Constant(value))

    def __repr__(self):
        return f"Constant {self.name} (shape={self.shape}, dtype={self.dtype})"

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn(f"Constant parameter \"{self.name}\" does not support grad_req other than \"null\", "
                          f"and new value \"{req}\" is ignored.", stacklevel=2)
        self._grad_req = "null"
