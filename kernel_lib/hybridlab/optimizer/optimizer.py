"""The optimizer base class, its registry (``create('sgd', ...)``) and the ``Updater`` that keeps one
state per parameter index.

An optimizer's ``update(indices, weights, grads, states)`` changes the weights **in place**, on the
weights' device, with the array module of that device (NumPy or CuPy): no autograd, no new weight
arrays, so hybridized blocks keep running their compiled programs on the updated values.

Every optimizer shares the preprocessing ``grad = clip(grad * rescale_grad, clip_gradient)``, the
learning rate ``lr_scheduler(num_update)`` (or ``learning_rate``) times the parameter's ``lr_mult``,
and the weight decay ``wd`` times its ``wd_mult``; subclasses implement ``_step`` on raw arrays.
With ``multi_precision=True`` a float16 weight is updated through a float32 master copy kept in its
state.

Example::

    >>> import hybridlab as mx
    >>> opt = mx.optimizer.create('sgd', learning_rate=0.1)
    >>> w, g = mx.nd.ones((2,)), mx.nd.array([1.0, -1.0])
    >>> opt.update([0], [w], [g], [opt.create_state(0, w)])
    >>> w.asnumpy().tolist()
    [0.8999999761581421, 1.100000023841858]
"""
import functools
import json
import warnings

import numpy as np

from ..base import MXNetError
from ..write_versions import wrote
from ..numpy_extension import is_np_array as _is_np_array
from ..ndarray.creation import zeros
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from .packed import Pack
from .states_file import check_hyper, check_state, flatten_state, parse_states, unflatten_state

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater"]

_BASE_ARGS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate", "lr_scheduler", "sym",
              "begin_num_update", "multi_precision", "param_dict", "aggregate_num", "use_fused_step")


class Optimizer:
    """Base class of the optimizers (MXNet's ``mx.optimizer.Optimizer``).

    rescale_grad: multiplies every gradient (``Trainer.step`` sets it to ``1 / batch_size``).
    wd: weight decay. clip_gradient: clip the rescaled gradient to ``[-c, c]`` (None: no clipping).
    learning_rate: the rate (default 0.01 when no ``lr_scheduler`` either; overrides the scheduler's
    ``base_lr``). param_dict: index -> Parameter, whose ``lr_mult``/``wd_mult`` apply.
    multi_precision: update float16 weights through float32 master copies.
    """

    opt_registry = {}
    #: True where MXNet 1.x adds ``wd * weight`` before clipping (Adam, RMSProp, Adamax, Nadam, FTML):
    #: ``_step`` then gets the decayed gradient and ``wd = 0``.
    _wd_before_clip = False

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None,
                 aggregate_num=None, use_fused_step=None, **kwargs):
        if kwargs:
            raise TypeError(f"{self.__class__.__name__}: unexpected argument(s) {sorted(kwargs)}; expected "
                            f"{self.__class__.__name__}'s own arguments or one of {list(_BASE_ARGS)}")
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and lr_scheduler.base_lr != learning_rate:
            warnings.warn("learning rate from ``lr_scheduler`` has been overwritten by ``learning_rate`` in "
                          "optimizer.", UserWarning, stacklevel=3)
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = aggregate_num or 0
        self.use_fused_step = use_fused_step
        # MXNet's flag (np mode when created); hybridlab's updates take mx.np and mx.nd arrays alike
        self.allow_np_array = _is_np_array()
        self.idx2name = dict(param_idx2name or {})
        # a symbol's __lr_mult__ / __wd_mult__ attributes (Variable(lr_mult=...), FullyConnected(lr_mult=...))
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict is not None else {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry ---------------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-cased name (used by ``create``)."""
        return register(klass)

    @staticmethod
    def create_optimizer(name, **kwargs):
        return create(name, **kwargs)

    def __repr__(self):
        return f"{self.__class__.__name__}(learning_rate={self.learning_rate}, wd={self.wd})"

    # ---- learning rate ----------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (the scheduler's value at ``num_update`` when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate (only without an ``lr_scheduler``)."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that set_learning_rate "
                              "can mutate the value of the learning rate of the optimizer only when the LRScheduler "
                              "of the optimizer is undefined.")
        self.lr = lr

    def _symbol_mults(self, key):
        attr, arg_names = self.sym_info or ({}, [])
        return {n: float(attr[n][key]) for n in arg_names if key in attr.get(n, {})}

    def set_lr_mult(self, args_lr_mult):
        """Per-index (or per-name) learning-rate multipliers. As in MXNet, this resets the table to
        the symbol's ``__lr_mult__`` attributes (given ``sym``), then applies ``args_lr_mult``."""
        self.lr_mult = self._symbol_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Per-index (or per-name) weight-decay multipliers. As in MXNet, this resets the table: names
        in ``param_idx2name`` that end neither in ``_weight`` nor ``_gamma`` (biases, betas) get 0,
        the symbol's ``__wd_mult__`` attributes (given ``sym``) come next, ``args_wd_mult`` last."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values()
                        if not (str(n).endswith("_weight") or str(n).endswith("_gamma"))}
        self.wd_mult.update(self._symbol_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _mult(self, index, table, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _scheduled_lr(self):
        """The learning rate before multipliers: ``lr``, or the scheduler's rate at ``num_update``, asked
        once per count (as MXNet's ``_get_lrs`` asks once for the indices of an update)."""
        if self.lr_scheduler is None:
            return self.lr
        at = getattr(self, "_lr_at", None)
        if at is None or at[0] != self.num_update or at[1] is not self.lr_scheduler:
            at = self._lr_at = (self.num_update, self.lr_scheduler, self.lr_scheduler(self.num_update))
        return at[2]

    def _get_lr(self, index):
        return self._scheduled_lr() * self._mult(index, self.lr_mult, "lr_mult")

    def _get_lrs(self, indices):
        return [self._get_lr(i) for i in indices]

    def _get_wd(self, index):
        return self.wd * self._mult(index, self.wd_mult, "wd_mult")

    def _get_wds(self, indices):
        return [self._get_wd(i) for i in indices]

    def _update_count(self, index):
        counts = self._index_update_count
        for idx in index if isinstance(index, (list, tuple)) else (index,):
            n = counts.get(idx, self.begin_num_update) + 1
            counts[idx] = n
            if n > self.num_update:
                self.num_update = n

    # ---- states -----------------------------------------------------------------------------
    # the order of a multi-precision state: (master copy, state), or (state, master copy) for the
    # optimizers whose MXNet class orders it so (SGD, NAG, LARS)
    _master_last = False

    def create_state(self, index, weight):
        """The optimizer's state for one weight (None, an NDArray or a tuple of them)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """``(float32 master copy, state)`` for a float16 weight with ``multi_precision``, else
        ``create_state``."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            inner = self.create_state(index, master)
            return (inner, master) if self._master_last else (master, inner)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow convergence. "
                          "Consider using multi_precision=True option of the optimizer", stacklevel=2)
        return self.create_state(index, weight)

    @staticmethod
    def _zeros_like(weight, dtype=None):
        return zeros(weight.shape, ctx=weight.device, dtype=dtype or weight.dtype)

    # ---- the update -------------------------------------------------------------------------
    def update_multi_precision(self, indices, weights, grads, states):
        """MXNet's entry point for weights that may keep a float32 master copy. The optimizers here
        handle both in ``update``; an optimizer written as in MXNet 1.x (its own
        ``update(index, weight, grad, state)``) gets the master copy and a float32 gradient, and
        the weight is cast back from it, as MXNet does."""
        own_update = _own_update(type(self))
        if own_update or not self.multi_precision:
            self.update(indices, weights, grads, states)
            if not own_update:    # (an optimizer of the user's own may write raw arrays)
                for w in weights if isinstance(weights, (list, tuple)) else [weights]:
                    wrote(w)
            return
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        for index, weight, grad, state in zip(indices, weights, grads, states):
            if weight.dtype == np.float16:
                inner, master = state if self._master_last else state[::-1]
                self.update(index, master, grad.astype(np.float32), inner)
                weight[:] = master.astype(weight.dtype)
            else:
                self.update(index, weight, grad, state)
            wrote(weight)

    def update(self, indices, weights, grads, states):
        """Update ``weights`` in place from ``grads`` (lists, or one index/weight/grad/state)."""
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        for index, weight, grad in zip(indices, weights, grads):
            if weight._data.shape != grad._data.shape:
                raise MXNetError(f"{self.__class__.__name__}.update: weight {index} has shape {weight.shape}, "
                                 f"its gradient has shape {grad.shape}")
        self._apply(indices, weights, grads, states, self._count(indices))

    def update_packed(self, indices, weights, grads, states, pack):
        """``update`` of parameters packed into ``pack`` (``optimizer.packed``; ``weights``, ``grads``
        and ``states`` its intact arrays): when every index has the same learning rate, weight decay
        and update count, ONE ``_step_raw`` over the flat buffers (the rule is elementwise), else the
        per-parameter steps. Returns False, having done nothing, for what it does not cover (an
        optimizer of the user's own, clipping, float16 weights with multi_precision)."""
        if not self._updates_packed(pack.weight.dtype):
            return False
        hyper = self._count(indices)
        if hyper.count(hyper[0]) == len(hyper) and self._step_raw(np, pack.weight, pack.grad, pack.state, *hyper[0],
                                                                          scratch=pack.scratch):
            wrote(*weights)
            return True
        self._apply(indices, weights, grads, states, hyper)
        return True

    def _updates_packed(self, dtype):
        """Whether ``update_packed`` covers weights of ``dtype`` with these settings (what a pack is for)."""
        return _packable(type(self)) and self.clip_gradient is None and not (
            self.multi_precision and dtype == np.float16)

    def _count(self, indices):
        """Count one more update of every index, then return each one's ``(lr, wd, t)`` (MXNet's
        ``_update_impl`` order: the rates are asked after all the counts)."""
        self._update_count(indices)
        counts = self._index_update_count
        # (the rate methods may be overridden by the class or set on the instance)
        if not (_base_rates(type(self)) and self.__dict__.keys().isdisjoint(_RATE_METHODS)):
            return [(self._get_lr(index), self._get_wd(index), counts[index]) for index in indices]
        # (the rates as _get_lr and _get_wd give them, the scheduled rate asked once: a step's hot loop)
        lr, wd, params = self._scheduled_lr(), self.wd, self.param_dict
        hyper = []
        for index in indices:
            param = params.get(index)
            if param is None:
                hyper.append((lr * self._mult(index, self.lr_mult, "lr_mult"),
                              wd * self._mult(index, self.wd_mult, "wd_mult"), counts[index]))
            else:
                hyper.append((lr * param.lr_mult, wd * param.wd_mult, counts[index]))
        return hyper

    def _apply(self, indices, weights, grads, states, hyper):
        """The update of each weight with its counted ``(lr, wd, t)``."""
        for index, weight, grad, state, (lr, wd, t) in zip(indices, weights, grads, states, hyper):
            w, g = weight._data, grad._data
            xp = weight._device.xp
            mp = self.multi_precision and w.dtype == np.float16
            if mp:
                state, master = state if self._master_last else state[::-1]
                w, g = master._data, g.astype(np.float32)
            raw_state = _raw(state)
            rows = None if grad.__class__ in DENSE_CLASSES else self._lazy_rows(grad, xp)
            if rows is not None:       # a row_sparse gradient: only its rows update (MXNet's lazy_update)
                full_w, full_state = w, raw_state
                w, g, raw_state = w[rows], g[rows], _take_rows(raw_state, rows)
            elif not mp and self.clip_gradient is None and self._step_raw(xp, w, g, raw_state, lr, wd, t):
                wrote(weight)
                continue
            raw_g = g
            g = g * self.rescale_grad              # a new array: the gradient buffer stays untouched
            if self._wd_before_clip and wd:
                g += wd * w                         # clip(grad * rescale_grad + wd * weight)
                wd = 0.0
            if self.clip_gradient is not None:
                xp.clip(g, -self.clip_gradient, self.clip_gradient, out=g)
            self._step_index(index, weight, raw_g, xp, w, g, raw_state, lr, wd, t)
            if rows is not None:
                full_w[rows] = w
                _put_rows(full_state, rows, raw_state)
                w = full_w
            if mp:
                weight._data[...] = w.astype(weight.dtype)
            wrote(weight)        # the steps write the raw arrays in place

    def _lazy_rows(self, grad, xp):
        """The rows a row_sparse gradient holds when the optimizer updates lazily (``lazy_update``),
        else None (every row updates: weight decay and momentum reach rows without gradient)."""
        if not getattr(self, "lazy_update", False) or getattr(grad, "stype", "default") != "row_sparse":
            return None
        g = grad._data
        flat = g.reshape(g.shape[0], -1)
        return xp.nonzero(xp.any(flat != 0, axis=1))[0]

    def _step_raw(self, xp, w, g, state, lr, wd, t, scratch=None):
        """Optionally update ``w`` straight from the raw gradient ``g`` (not to be modified), folding
        ``rescale_grad`` into the scalars (no clipping is set): return True when done, False to take
        ``_step`` on the rescaled copy. Saves a pass over every gradient and its copy where the rule
        allows (SGD, Adam: the hand-written NumPy update's passes). ``scratch``: an array like ``g``
        to use for the temporary (a pack's, ``optimizer.packed``), else one is allocated. The rule
        must be elementwise: ``update_packed`` runs it once over many weights packed together."""
        return False

    def _step_index(self, index, weight, raw_g, xp, w, g, state, lr, wd, t):
        """``_step`` with the context some rules need: the index, the weight NDArray (its device) and
        the gradient before rescaling and clipping (``raw_g``, not to be modified)."""
        self._step(xp, w, g, state, lr, wd, t)

    def _step(self, xp, w, g, state, lr, wd, t):
        """Update the raw array ``w`` in place from the preprocessed gradient ``g`` (a fresh array the
        step may modify) and the raw state arrays (updated in place)."""
        raise NotImplementedError(f"{self.__class__.__name__} does not implement _step")

    # ---- hyperparameters (for saved states) -------------------------------------------------
    def _config(self):
        """The optimizer's JSON-able hyperparameters and counters."""
        out = {}
        for k, v in vars(self).items():
            if k in ("param_dict", "lr_scheduler", "sym_info"):
                continue
            if isinstance(v, (bool, int, float, str)) or v is None:
                out[k] = v
            elif k in ("lr_mult", "wd_mult", "idx2name", "_index_update_count"):
                out[k] = [[key, val] for key, val in v.items()]
        return out

    def _set_config(self, cfg, source="<optimizer states>"):
        """Restore hyperparameters and counters from a states file's config (untrusted): only the
        keys ``_config`` writes for this optimizer, each checked against its type (see
        ``states_file.check_hyper``); anything else raises MXNetError naming ``source`` and the key."""
        if not isinstance(cfg, dict):
            raise MXNetError(f"optimizer states {source!r}: config: expected a JSON object, got {type(cfg).__name__}")
        try:
            fresh = type(self)()._config()     # the defaults say which keys may be None
        except Exception:                      # noqa: BLE001 - a user optimizer with required arguments
            fresh = {}
        known = self._config()
        checked = {}
        for key, value in cfg.items():
            if key not in known:
                raise MXNetError(f"optimizer states {source!r}: config key {str(key)[:80]!r} is not a "
                                 f"hyperparameter of {type(self).__name__}; expected one of {sorted(known)}")
            checked[key] = check_hyper(key, value, known[key], fresh.get(key, known[key]), source)
        for key, value in checked.items():
            setattr(self, key, value)


def _take_rows(state, rows):
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(_take_rows(s, rows) for s in state)
    return state[rows]


def _put_rows(full, rows, part):
    if full is None:
        return
    if isinstance(full, tuple):
        for f, p in zip(full, part):
            _put_rows(f, rows, p)
    else:
        full[rows] = part


@functools.lru_cache(maxsize=None)
def _packable(cls):
    """Whether optimizer class ``cls`` updates with hybridlab's own methods only, ``_step_raw`` included
    (an elementwise rule, so one call over packed parameters equals one call per parameter)."""
    return _own_update(cls) and cls._step_raw.__module__.startswith("hybridlab.optimizer")


_RATE_METHODS = ("_get_lr", "_get_wd", "_mult", "_scheduled_lr")


@functools.lru_cache(maxsize=None)
def _base_rates(cls):
    """Whether optimizer class ``cls`` asks each index's rates through the base class's methods (which
    ``Optimizer._count`` then computes in one loop)."""
    return all(getattr(cls, m) is getattr(Optimizer, m) for m in _RATE_METHODS)


@functools.lru_cache(maxsize=None)
def _own_update(cls):
    """Whether optimizer class ``cls`` updates through hybridlab's own ``update`` and
    ``update_multi_precision`` (which note every weight they write, ``write_versions``); a user's
    version of either may write raw arrays unnoticed."""
    return all(getattr(cls, m).__module__.startswith("hybridlab.optimizer") for m in ("update", "update_multi_precision"))


def _raw(state):
    if state is None:
        return None
    if isinstance(state, NDArray):
        return state._data
    return tuple(_raw(s) for s in state)


def register(klass):
    """Register an optimizer class under its lower-cased name (a decorator)."""
    if not (isinstance(klass, type) and issubclass(klass, Optimizer)):
        raise TypeError(f"register: expected an Optimizer subclass, got {klass!r}")
    name = klass.__name__.lower()
    if name in Optimizer.opt_registry and Optimizer.opt_registry[name] is not klass:
        warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is overriding existing "
                      f"optimizer {name}", stacklevel=2)
    Optimizer.opt_registry[name] = klass
    return klass


def create(name, **kwargs):
    """An optimizer by (case-insensitive) name, e.g. ``create('sgd', learning_rate=0.1, momentum=0.9)``;
    an Optimizer instance is returned as is."""
    if isinstance(name, Optimizer):
        return name
    key = str(name).lower()
    if key not in Optimizer.opt_registry:
        raise ValueError(f"Cannot find optimizer {name!r}: expected one of {sorted(Optimizer.opt_registry)}")
    return Optimizer.opt_registry[key](**kwargs)


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, creating each index's state on first use.
    ``get_states``/``set_states`` (de)serialise the states as an ``mx.nd.save`` file (no pickle)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.packs = {}        # tuple of indices -> their ``packed.Pack`` (``pack``), or None: not again
        self._packed_times = {}     # tuple of indices -> how often ``pack`` packed them
        self.packed_last = False

    def pack(self, index, grad, weight):
        """Pack the weights, gradients and states of ``index`` (lists, states created already) into
        flat buffers (``optimizer.packed``) so that later calls with these indices update them all
        at once; returns True when it rebound the arrays (a Trainer's updater, after the update
        that created the states). A pack that broke (a parameter given new arrays, states loaded)
        is made again, at most ``_REPACKS`` times."""
        key = tuple(index)
        states = [self.states.get(i) for i in index]
        old = self.packs.get(key, False)
        if old is None or (old is not False and old.intact(weight, grad, states)) \
                or not self.optimizer._updates_packed(weight[0].dtype):
            return False
        times = self._packed_times.get(key, 0)
        made = Pack.build(weight, grad, states) if times <= _REPACKS else None
        self.packs[key] = made
        self._packed_times[key] = times + 1
        return made is not None

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            index, grad, weight = [index], [grad], [weight]
        pack = self.packs.get(tuple(index)) if self.packs else None
        self.packed_last = False          # whether this call updated through a pack (see ``pack``)
        if pack is not None:
            states = [self.states.get(i) for i in index]
            if pack.intact(weight, grad, states) and self.optimizer.update_packed(index, weight, grad, states, pack):
                self.packed_last = True
                return
        for i, w in zip(index, weight):
            if i not in self.states:
                self.states[i] = self.optimizer.create_state_multi_precision(i, w)
                self.states_synced[i] = True
            elif not self.states_synced[i]:
                # a loaded state must have the structure, shapes and dtypes this weight's state has
                expected = self.optimizer.create_state_multi_precision(i, w)
                check_state(self.states[i], expected, f"optimizer states {getattr(self, '_source', '')!r}: "
                             f"state of index {i!r} (weight {w.shape} {w.dtype})")
                self.states[i] = _to_device(self.states[i], w.device)
                self.states_synced[i] = True
        self.optimizer.update_multi_precision(list(index), list(weight), list(grad), [self.states[i] for i in index])
        if not _own_update(type(self.optimizer)):   # (an optimizer of the user's own may write raw arrays too)
            wrote(*weight)

    def get_states(self, dump_optimizer=False):
        """The states (and with ``dump_optimizer`` the optimizer's hyperparameters and counters) as the
        bytes of an ``mx.nd.save`` dict: arrays under ``"<index>/<path>"``, the structure and settings as
        JSON under ``"__hybridlab_optimizer__"`` (a uint8 array)."""
        from ..ndarray.params_file import dumps
        arrays, layout = {}, {}
        for i, state in self.states.items():
            layout[str(i)] = [type(i).__name__, flatten_state(state, str(i), arrays)]
        meta = {"format": "hybridlab-optimizer-states/1", "states": layout,
                "optimizer": type(self.optimizer).__name__.lower() if dump_optimizer else None,
                "config": self.optimizer._config() if dump_optimizer else None}
        arrays["__hybridlab_optimizer__"] = NDArray(np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8))
        return dumps(arrays)

    def set_states(self, states, load_optimizer=True, *, source="<optimizer states>"):
        """Restore what ``get_states`` returned (states move to the weights' devices on next use);
        with ``load_optimizer`` also the optimizer's settings and counters when they were dumped.
        The bytes are untrusted: only JSON and arrays are read, hyperparameters are type-checked
        (``Optimizer._set_config``) and each state is checked against its weight on first use;
        errors are MXNetError naming ``source``."""
        meta, data = parse_states(states, source)
        restored = {}
        for key, (kind, tree) in meta["states"].items():
            restored[int(key) if kind == "int" else key] = unflatten_state(tree, data, source, key)
        optimizer = self.optimizer
        if load_optimizer and meta.get("optimizer") is not None:
            name = meta["optimizer"]
            if not isinstance(name, str) or name.lower() not in Optimizer.opt_registry:
                raise MXNetError(f"optimizer states {source!r}: expected a registered optimizer name, got "
                                 f"{str(name)[:80]!r}; expected one of {sorted(Optimizer.opt_registry)}")
            if type(optimizer).__name__.lower() != name.lower():
                try:
                    optimizer = create(name)
                except (TypeError, ValueError) as err:
                    raise MXNetError(f"optimizer states {source!r}: cannot create optimizer {name!r} "
                                     f"with its defaults ({err})") from None
            optimizer._set_config(meta.get("config") or {}, source)
            optimizer._index_update_count = {(int(k) if isinstance(k, str) and k.isdigit() else k): v
                                             for k, v in optimizer._index_update_count.items()}
        self.optimizer = optimizer
        self.states, self.states_synced = restored, {i: False for i in restored}
        self._source = source

    def sync_state_context(self, state, device):
        return _to_device(state, device)


_REPACKS = 3     # a pack broken more often than this stays unpacked (something keeps replacing its arrays)


def _to_device(state, device):
    if state is None:
        return None
    if isinstance(state, NDArray):
        return state.as_in_context(device)
    return tuple(_to_device(s, device) for s in state)


def get_updater(optimizer):
    """An ``Updater`` for ``optimizer``."""
    return Updater(optimizer)
