"""``Block``: the base of every Gluon layer and model (MXNet 2.0's ``gluon.Block`` surface, with
MXNet 1.x's ``prefix``/``params``/``name_scope`` naming).

Children and Parameters assigned as attributes are registered; ``collect_params`` gathers them
under their full names (``'dense0_weight'``, MXNet 1.x's keys; MXNet 2.0's structural names such
as ``'dense0.weight'`` find them too); ``save_parameters`` / ``load_parameters`` store them under
structural names in an MXNet ``.params`` file, as both MXNet versions do.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> class Model(mx.gluon.Block):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.dense0 = nn.Dense(4)
    ...         self.dense1 = nn.Dense(2)
    ...     def forward(self, x):
    ...         return self.dense1(mx.nd.relu(self.dense0(x)))
    >>> with mx.name.NameManager():          # fresh name counters: dense0, dense1
    ...     model = Model()
    >>> model.initialize()
    >>> model(mx.nd.ones((3, 5))).shape
    (3, 2)
    >>> params = model.collect_params('.*weight')
    >>> sorted(params)
    ['dense0_weight', 'dense1_weight']
    >>> params['dense1.weight'] is model.dense1.weight
    True
"""
import re
import threading
import warnings
from collections import OrderedDict

from .. import initializer
from ..monitor_state import switches as _monitor_switches
from .. import name as _name
from ..base import MXNetError
from .parameter import Parameter
from .parameter_dict import ParamLoadError, ParameterDict, load_checked
from ..numpy_extension import is_np_array as _is_np_array
from .utils import HookHandle, _check_all_np_ndarrays, brief_print_list, indent

__all__ = ["Block", "ParamLoadError"]


class _BlockScope:
    """Scope for collecting child Blocks and naming them (``with block.name_scope():``)."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._entered = []      # per entry (nested ones too: one block's scope entered again): what to restore

    @staticmethod
    def create(prefix, params, hint):
        """The prefix and the ParameterDict of a new Block."""
        current = getattr(_BlockScope._current, "value", None)
        if params is not None and not isinstance(params, ParameterDict):
            shared = ParameterDict("")
            shared.update(params)
            params = shared
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        name_scope = _name.Prefix(self._block.prefix)
        name_scope.__enter__()
        self._entered.append((old_scope, name_scope))
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return False
        old_scope, name_scope = self._entered.pop()
        name_scope.__exit__(*exc)
        _BlockScope._current.value = old_scope
        return False


class Block:
    """Base class for all neural network layers and models: subclass it, assign child Blocks and
    Parameters as attributes, and define ``forward``.

    ``prefix`` (MXNet 1.x) names the block's parameters and graph nodes (default: the lower-cased
    class name and a counter, ``dense0_``); ``params`` shares another block's parameters.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        modstr = "\n".join(f"  ({key}): {indent(repr(block), 2)}" for key, block in self.__dict__.items()
                           if isinstance(block, Block))
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __setattr__(self, name, value):
        """Registers child Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(f"Changing attribute type for {name} from {type(existing)} to {type(value)} "
                                f"is not allowed.")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            self._register_param(name, value)
        super().__setattr__(name, value)

    def _register_param(self, name, param):
        old = self._reg_params.get(name)
        if old is not None and old is not param:
            for k in [k for k, v in self._params.items() if v is old]:
                del self._params[k]
        if not param._from_dict and param._var_name is None:
            param._var_name = self._prefix + name     # graph variable named like MXNet 1.x: dense0_weight
        self._reg_params[name] = param
        key = param._var_name or param.name
        if key not in self._params:
            self._params[key] = param

    def _check_container_with_block(self):
        children = set(id(c) for c in self._children.values())

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(x) for x in data)
            if isinstance(data, dict):
                return any(unregistered(x) for x in data.values())
            if isinstance(data, Block):
                return id(data) not in children
            return False

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k in ("_children", "_params",
                                                                                     "_reg_params")):
                if unregistered(v):
                    warnings.warn(f'"{self.__class__.__name__}.{k}" is an unregistered container with Blocks. Note '
                                  "that Blocks inside the list, tuple or dict will not be registered automatically. "
                                  "Make sure to register them using register_child() or switching to "
                                  "nn.Sequential/nn.HybridSequential instead. ", stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    # ---- names (MXNet 1.x) ------------------------------------------------------------------
    @property
    def prefix(self):
        """Prefix of this Block (``'dense0_'``): its parameters' and graph nodes' names start with it."""
        return self._prefix

    @property
    def name(self):
        """Name of this Block, without '_' in the end."""
        return self._name

    def name_scope(self):
        """A context manager naming the child Blocks and parameters created inside after this block:
        ``with self.name_scope(): self.dense = nn.Dense(20)`` gives ``<prefix>dense0_``."""
        return self._scope

    @property
    def params(self):
        """This Block's own parameters (not its children's), by full name; ``params.get(name, ...)``
        creates ``<prefix><name>`` (MXNet 1.x)."""
        return self._params

    # ---- parameters -------------------------------------------------------------------------
    def collect_params(self, select=None):
        """The parameters of this Block and its children, keyed by their full names as in MXNet
        1.x (``'dense0_weight'``; a structural name such as ``'0.weight'``, MXNet 2.0's key, finds
        the same parameter), the ones whose structural or full name matches the regular expression
        ``select`` if given. A Parameter shared by several blocks (``params=other.params`` or
        ``share_parameters``) appears once. Two different parameters with one full name (explicit
        equal prefixes) keep apart: the second is keyed by its structural name."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        seen = set()
        for key, param in self._collect_params_with_prefix(select=select).items():
            ret._structural.setdefault(key, param)
            if id(param) not in seen:
                seen.add(id(param))
                dict.__setitem__(ret, param.name if param.name not in ret else key, param)
        return ret

    def _collect_params_with_prefix(self, prefix="", select=None, in_file=False):
        """{structural name: Parameter}; ``in_file``: the names MXNet's ``.params`` files use, which
        differ for a few layers (``_RNNLayer._file_key``)."""
        if prefix:
            prefix += "."
        pattern = re.compile(select) if select else None
        ret = {}
        for key, val in self._reg_params.items():
            if pattern is None or pattern.match(prefix + key) or pattern.match(val.name) or \
                    (val._var_name and pattern.match(val._var_name)):
                ret[prefix + (self._file_key(key) if in_file else key)] = val
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name, select, in_file))
        return ret

    def _file_key(self, key):
        """The name of this Block's own parameter ``key`` in MXNet's ``.params`` files."""
        return key

    def save_parameters(self, filename, deduplicate=False):
        """Save the parameters under structural names to an MXNet ``.params`` file (atomically);
        ``deduplicate`` stores a shared parameter once."""
        from ..ndarray import save as _save
        params = self._collect_params_with_prefix(in_file=True)
        if deduplicate:
            first = {}
            for k, v in params.items():
                first.setdefault(id(v), (k, v))
            params = dict(first.values())
        _save(filename, {key: val._reduce() for key, val in params.items()})

    def save_params(self, filename):
        """MXNet 1.x's deprecated ``save_params``: the parameters under their full names, less this
        block's prefix (``ParameterDict.save(strip_prefix=prefix)``). Use ``save_parameters``."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you want load "
                      "from SymbolBlock later, please use export instead. For details, see "
                      "https://mxnet.apache.org/api/python/docs/tutorials/packages/gluon/blocks/save_load_params.html")
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """MXNet 1.x's deprecated ``load_params``: reads a ``save_params`` file (full names, this
        block's prefix restored). Use ``load_parameters``."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix)

    def load_parameters(self, filename, device=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current", ctx=None):
        """Load parameters saved by ``save_parameters`` (also accepts ``export``'s ``arg:``/``aux:``
        files and full-name files)."""
        from ..ndarray import load as _load
        loaded = _load(filename)
        if not loaded:          # an empty file restores nothing: fine only for a block without parameters
            if not self.collect_params():
                return
            loaded = {}
        if not isinstance(loaded, dict):
            raise MXNetError(f"{filename!r} holds a list of arrays without names: expected a dict of parameters")
        self.load_dict({"params": loaded, "filename": filename}, device if device is not None else ctx,
                       allow_missing, ignore_extra, cast_dtype, dtype_source)

    def load_dict(self, param_dict, device=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                  dtype_source="current"):
        """Load parameters from a dict of arrays (keys: structural names, full names, or ``arg:``/``aux:``
        names as in exported files)."""
        from ..base import MXNetValueError
        filename = None
        if isinstance(param_dict.get("filename"), str) and "params" in param_dict:
            filename, param_dict = param_dict["filename"], param_dict["params"]
        self._check_container_with_block()
        params = self._collect_params_with_prefix()
        error_str = f"file: {filename}" if filename else "param_dict"
        loaded = {k[4:] if k.startswith(("arg:", "aux:")) else k: v for k, v in param_dict.items()}
        aliases = {file_key: key for file_key, key in zip(self._collect_params_with_prefix(in_file=True),
                                                          self._collect_params_with_prefix()) if file_key != key}
        for key, p in params.items():
            for alt in (p.name, p._var_name, p.name[len(self._prefix):] if p.name.startswith(self._prefix) else None):
                if alt and alt not in params:
                    aliases.setdefault(alt, key)
        loaded = {(k if k in params else aliases.get(k, k)): v for k, v in loaded.items()}
        if not allow_missing:
            keys_of = {}
            for k, p in params.items():
                keys_of.setdefault(id(p), []).append(k)
            for name, p in params.items():
                if not any(k in loaded for k in keys_of[id(p)]):
                    raise ParamLoadError(f"Parameter '{name}' is missing in '{error_str}', which contains parameters: "
                                         f"{brief_print_list(loaded.keys()) or '(none)'}. Set allow_missing=True to "
                                         f"ignore missing parameters.")
        pairs = []
        for name, value in loaded.items():
            if name not in params:
                if not ignore_extra:
                    raise MXNetValueError(f"Parameter '{name}' loaded from '{error_str}' is not present in Dict, "
                                          f"which contains parameters {brief_print_list(params.keys())}. Set "
                                          f"ignore_extra=True to ignore. ")
                continue
            pairs.append((dict.__getitem__(params, name), name, value))
        load_checked(pairs, error_str, device, cast_dtype, dtype_source)

    def register_child(self, block, name=None):
        """Register ``block`` as a child (attributes that are Blocks are registered automatically)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before each forward; returns a handle with ``detach()``."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after each forward; returns a handle with ``detach()``."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Apply ``fn(block)`` to every child recursively, then to this block; returns this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), device=None, verbose=False, force_reinit=False, ctx=None):
        """Initialise the parameters of this block and its children (``init`` is the default for
        parameters without their own initializer)."""
        params = self.collect_params()
        if verbose:
            init.set_verbosity(verbose=verbose)
        for p in {id(v): v for v in params.values()}.values():
            p.initialize(None, device if device is not None else ctx, init, force_reinit=force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlock children (a plain Block itself always runs imperatively)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast this block's parameters (and its children's) to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self._reg_params.values():
            param.cast(dtype)

    def zero_grad(self):
        """Set every parameter's gradient buffer to 0."""
        for p in self.collect_params().values():
            p.zero_grad()

    def reset_device(self, device):
        """Move every parameter to ``device`` (a Device or a list)."""
        for p in self.collect_params().values():
            p.reset_device(device)

    def reset_ctx(self, ctx):
        """Deprecated name of ``reset_device``."""
        warnings.warn("Block.reset_ctx has been renamed to Block.reset_device", DeprecationWarning)
        self.reset_device(ctx)

    def setattr(self, name, value):
        """Set attribute ``name`` of every parameter (``model.setattr('grad_req', 'null')``)."""
        for p in self.collect_params().values():
            setattr(p, name, value)

    def share_parameters(self, shared):
        """Use the Parameters of ``shared`` (a dict by structural name) in place of this block's own."""
        if shared is None:
            return self
        if not isinstance(shared, dict):
            raise ValueError(f"'shared' should be in type of Dict. Get type {type(shared)}!")
        if isinstance(shared, ParameterDict) and shared._structural:
            shared = shared._structural       # collect_params(): its structural names, as MXNet 2.0 keys it
        shared_set = set(shared.keys())
        self._shared_parameters(shared, shared_set)
        for name in shared_set:
            warnings.warn(f"Parameter name {name} is not in the current model!")
        return self

    def _shared_parameters(self, shared, shared_set, prefix=""):
        if prefix:
            prefix += "."
        for name in list(self._reg_params):
            key = prefix + name
            if key in shared and dict.get(shared, key) is not None:
                setattr(self, name, dict.__getitem__(shared, key))
                shared_set.discard(key)
        for name, child in self._children.items():
            child._shared_parameters(shared, shared_set, prefix + name)

    # ---- calling ----------------------------------------------------------------------------
    _callback = None        # the op hook (register_op_hook) and its monitor_all flag
    _monitor_all = False

    def __call__(self, *args):
        """Run the pre-hooks, ``forward`` and the hooks (with an op hook set or the profiler
        running, through ``gluon.monitoring``)."""
        if self._callback is not None or _monitor_switches.running:
            from .monitoring import call_monitored
            out = call_monitored(self, self._call, args)
        else:
            out = self._call(*args)
        if _is_np_array():
            _check_all_np_ndarrays(out)        # np mode: a Block returns mx.np arrays only (as MXNet)
        return out

    def _call(self, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Override to define the computation (positional arguments only)."""
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, *args)")

    def register_op_hook(self, callback, monitor_all=False):
        """Install ``callback(name, op_name, array)`` on this block's ops and its children's
        (see ``HybridBlock.register_op_hook``; ``None`` removes it)."""
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    @property
    def op_hook(self):
        """The op hook installed by ``register_op_hook`` (``None`` when there is none).

        >>> import hybridlab as mx
        >>> net = mx.gluon.nn.Dense(2)
        >>> net.op_hook is None
        True
        >>> net.register_op_hook(print); net.op_hook is print
        True
        """
        return self._callback

    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for one forward on ``inputs``."""
        from .summary import print_summary
        print_summary(self, inputs)

    # ---- whole-model files (MXNet 1.9's Block.save / Block.load) ---------------------------------
    def save(self, prefix):
        """Save the structure (``<prefix>-model.json``: per block its cached graph if hybridized and
        its parameters' graph names) and the parameters (``<prefix>-model.params``)."""
        from .model_file import save_model
        save_model(self, prefix)

    def load(self, prefix):
        """Load what ``save`` wrote into this (identically constructed) model."""
        from .model_file import load_model
        load_model(self, prefix)
