"""``gluon.Trainer``: applies an optimizer to a set of Parameters (MXNet 1.9.1's ``gluon.Trainer``).

``step(batch_size)`` = ``allreduce_grads()`` + ``update(batch_size)``, the gradients rescaled by
``1 / batch_size``. How gradients meet across devices is MXNet's kvstore logic, decided on the
first step (``_init_kvstore``):

* one device and dense gradients: no kvstore (``_kvstore is None``); the Trainer's updater runs;
* several devices with ``kvstore='device'`` (the default), ``'local'`` or a KVStore: gradients are
  summed in the store; with ``update_on_kvstore`` (the default, or env ``MXNET_UPDATE_ON_KVSTORE``)
  the store runs the optimizer and every device pulls the new weight, otherwise every device gets
  the summed gradient and the Trainer's per-device updaters (``_updaters``, one per device) run;
* ``kvstore=None``: no store, each device is updated with its own gradient (not summed, as MXNet);
* row_sparse weights always update on a kvstore (``update_on_kvstore=False`` is a ValueError);
  they are read with ``Parameter.row_sparse_data(row_id)``, which pulls the rows from the store.

Optimizer states are saved as an ``mx.nd.save`` file (the optimizer's settings as JSON inside it,
no pickle), by the store when it runs the optimizer.

Without a kvstore, after the first step that updates every parameter of a device, the Trainer packs
that device's weights, gradients and optimizer states into one flat buffer per kind
(``optimizer.packed``; the NDArrays stay the same objects): SGD, NAG and Adam then update all of
them in one call per step (MXNet's multi-tensor updates), and a hybridized block's backward writes
its gradients straight into their slices.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(1, in_units=2, use_bias=False)
    >>> net.initialize(mx.init.One())
    >>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    >>> with mx.autograd.record():
    ...     loss = net(mx.nd.array([[1.0, 2.0]])).sum()
    >>> loss.backward()
    >>> trainer.step(1)
    >>> net.weight.data().asnumpy().tolist()
    [[0.8999999761581421, 0.800000011920929]]
    >>> trainer._kvstore is None          # one device: no kvstore needed
    True
"""
import os

from .. import kvstore as kvs
from .. import optimizer as opt
from ..autograd import state as autograd_state
from ..base import MXNetError
from ..fileio import read_file, write_atomic
from .parameter import DATA_VERSION, Parameter

__all__ = ["Trainer"]

class Trainer:
    """Updates ``params`` (a dict/ParameterDict of Parameters, or a list) with ``optimizer`` (a name
    for ``mx.optimizer.create`` with ``optimizer_params``, or an Optimizer instance).

    ``kvstore``: 'device' (default), 'local', another ``mx.kv.create`` name, a KVStore, or None.
    ``compression_params``: gradient compression for the store (``{'type': '2bit', 'threshold':
    0.5}``, 'device' stores). ``update_on_kvstore``: None (choose as MXNet), True or False.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, dict) or hasattr(params, "keys") and hasattr(params, "values"):
            params = [params[k] for k in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"First argument must be a list or dict of Parameters, got {type(params)}.")
        self._params = []
        self._param2idx = {}
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        for param in params:
            if not isinstance(param, Parameter):
                raise ValueError(f"First argument must be a list or dict of Parameters, got list of {type(param)}.")
            if id(param) in self._param2idx:
                continue                    # a shared Parameter is updated once (as MXNet 2.0)
            self._param2idx[id(param)] = len(self._params)
            self._params.append(param)
            param._set_trainer(self)
            self._contains_sparse_weight |= param._stype != "default"
            self._contains_sparse_grad |= param._grad_stype != "default"
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        """The devices every Parameter lives on (None while none is initialized)."""
        contexts = None
        for param in self._params:
            if param._data is None and not param._deferred_init:
                continue                    # not initialized yet: known at the first step
            devices = param.list_device()
            if contexts is not None and contexts != devices:
                raise AssertionError(f"All Parameters must be initialized on the same set of contexts, but Parameter "
                                     f"{param.name} is initialized on {devices} while previous Parameters are "
                                     f"initialized on {contexts}.")
            contexts = devices
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise AssertionError("optimizer_params must be None if optimizer is an instance of Optimizer "
                                     "instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in (self._contexts or [None])]
        self._loaded_states = None      # (bytes, source): for updaters of devices added after load_states

    def __repr__(self):
        return (f"Trainer({len(self._params)} parameters, optimizer={self._optimizer!r}, "
                f"learning_rate={self.learning_rate})")

    # ---- kvstore ----------------------------------------------------------------------------
    def _reset_kvstore(self):
        """Forget the kvstore (made again on the next step); called when parameters are loaded."""
        if self._kvstore is not None and "dist" in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the kvstore and decide ``_update_on_kvstore`` (MXNet's rules)."""
        shapes = [p.shape for p in self._params]
        config = self._kvstore_params
        self._contexts = self._check_contexts() or self._contexts
        num_device = len(self._contexts) if self._contexts else 1
        while len(self._updaters) < num_device:
            self._updaters.append(self._new_updater())
        if self._contains_sparse_weight:
            kvstore = config["kvstore"]   # sparse weights live in a store that runs the optimizer
            if isinstance(kvstore, str):
                kvstore = kvs.create(kvstore)
            elif not isinstance(kvstore, kvs.KVStore):
                raise TypeError(f"Cannot create '{kvstore}' KVStore with row_sparse parameters. The type must be "
                                "KVStore or str.")
            if not kvstore.is_capable(kvs.KVStoreBase.OPTIMIZER):
                raise AssertionError("KVStore with sparse weight requires optimizer support.")
            update_on_kvstore = True
            self._distributed = "dist" in kvstore.type
            if config["update_on_kvstore"] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights are present.")
        elif self._contains_sparse_grad:
            # dense weights, sparse gradients: push and pull the gradients, update here
            kvstore, _ = kvs.for_devices(config["kvstore"], num_device, shapes)
            self._distributed = "dist" in kvstore.type if kvstore else False
            update_on_kvstore = self._distributed
            if config["update_on_kvstore"] is not None:
                if config["update_on_kvstore"] is False and self._distributed:
                    raise ValueError("Cannot set update_on_kvstore=False on dist kvstore when sparse gradients "
                                     "are present.")
                update_on_kvstore = config["update_on_kvstore"]
            if kvstore is not None and not isinstance(kvstore, kvs.KVStore):
                raise ValueError(f"Cannot use {type(kvstore)} for multi-device training with sparse gradients")
        else:
            kvstore, update_on_kvstore = kvs.for_devices(config["kvstore"], num_device, shapes)
            self._distributed = "dist" in kvstore.type if kvstore else False
            if config["update_on_kvstore"] is not None:
                update_on_kvstore = config["update_on_kvstore"]
            if kvstore is not None and update_on_kvstore and not kvstore.is_capable(kvs.KVStoreBase.OPTIMIZER):
                if config["update_on_kvstore"]:
                    raise ValueError(f"Please set update_on_kvstore=False when training with {type(kvstore)}")
                update_on_kvstore = False
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore, self._update_on_kvstore = kvstore, update_on_kvstore
        else:
            self._kvstore, self._update_on_kvstore = None, None
        self._kv_initialized = True

    def _init_params(self):
        """Give the kvstore the initialized parameters (deferred ones wait for their first forward)."""
        if not self._kv_initialized:
            raise AssertionError("Cannot initialize parameters in KVStore when KVStore is not initialized.")
        waiting = []
        if self._kvstore is not None:
            for param in self._params_to_init:
                if param._data is None:
                    waiting.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                idx = self._param2idx[id(param)]
                if param._stype != "default":
                    self._kvstore.init(idx, arrays[0])
                else:
                    self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = waiting

    def _ready(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Fetch rows ``row_id`` of a row_sparse Parameter from the kvstore into ``out``."""
        self._ready()
        idx = self._param2idx[id(parameter)]
        if full_idx and "dist" not in self._kvstore.type:
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # ---- learning rate ----------------------------------------------------------------------
    @property
    def optimizer(self):
        return self._optimizer

    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (not allowed with an lr_scheduler)."""
        self._optimizer.set_learning_rate(lr)

    # ---- steps ------------------------------------------------------------------------------
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning("Possible change in the `batch_size` from previous `step` detected.")
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One optimisation step: reduce gradients over devices, then update with gradients
        rescaled by ``1 / batch_size``."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._ready()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its devices (every device gets the sum) through the
        kvstore; use with ``update`` to modify gradients in between. Not available when the
        kvstore runs the optimizer (``update_on_kvstore``)."""
        self._ready()
        assert not (self._kvstore and self._update_on_kvstore), \
            "allreduce_grads() when parameters are updated on kvstore is not supported. Try setting " \
            "`update_on_kvstore` to False when creating trainer."
        self._allreduce_grads()

    def update(self, batch_size, ignore_stale_grad=False):
        """The update half of ``step`` (call ``allreduce_grads`` first). Not available when the
        kvstore runs the optimizer (``update_on_kvstore``)."""
        self._ready()
        assert not (self._kvstore and self._update_on_kvstore), \
            "update() when parameters are updated on kvstore is not supported. Try setting " \
            "`update_on_kvstore` to False when creating trainer."
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _trainable(self):
        """``[(index, Parameter)]`` of the parameters with a gradient, all initialized (else the error)."""
        found = []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            found.append((i, param))
            if param._data_arrays is None:
                if param._deferred_init:
                    raise MXNetError(f"Trainer: Parameter '{param.name}' has not been initialized yet (its "
                                     "initialization is deferred to the first forward pass): run a forward "
                                     "and backward pass before step()")
                raise MXNetError(f"Trainer: Parameter '{param.name}' has not been initialized: call "
                                 "initialize() on the block first")
        return found

    def _allreduce_grads(self):
        if not self._kvstore:
            return                          # no store: each device keeps its own gradient (as MXNet)
        for i, param in self._trainable():
            grads = param.list_grad()
            if grads[0].stype != "default":
                self._kvstore.push(i, grads, priority=-i)
                if param._stype == "default":
                    pull_to = param.list_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, pull_to, priority=-i, ignore_sparse=self._distributed)
            elif self._update_on_kvstore:
                self._kvstore.pushpull(i, grads, out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, grads, priority=-i)

    def _new_updater(self):
        updater = opt.get_updater(self._optimizer)
        if self._loaded_states is not None:   # load_states ran before this device's updater existed
            updater.set_states(self._loaded_states[0], load_optimizer=False, source=self._loaded_states[1])
        return updater

    def _update(self, ignore_stale_grad=False):
        loss_scaler = getattr(self, "_amp_loss_scaler", None)    # attached by contrib.amp.init_trainer
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return                          # an overflowing AMP step is skipped (MXNet)
        trainable = self._trainable()
        is_fresh, take_fresh = autograd_state.is_fresh, autograd_state.take_fresh
        if not ignore_stale_grad:
            for _, param in trainable:
                for w in param._data_arrays:        # (the _data property, without its call)
                    g = w._grad
                    if not is_fresh(g):
                        raise UserWarning(
                            f"Gradient of Parameter `{param.name}` on context {g.device} has not been updated by "
                            f"backward since last `step`. This could mean a bug in your model that made it only use "
                            f"a subset of the Parameters (Blocks) for this iteration. If you are intentionally only "
                            f"using a subset, call step with ignore_stale_grad=True to suppress this warning and skip "
                            f"updating of Parameters with stale gradient")
        if self._kvstore and self._update_on_kvstore:
            return                          # the store updated the weights (MXNet keeps the grads 'fresh')
        per_device = []         # per device: (indices, gradients, weights)
        for i, param in trainable:
            weights = param._data_arrays
            if len(weights) == 1 and per_device and not ignore_stale_grad:   # (the common case, one device)
                w = weights[0]
                g = w._grad
                take_fresh(g)               # (checked fresh above)
                idx, gs, ws = per_device[0]
                idx.append(i)
                gs.append(g)
                ws.append(w)
                continue
            for j, w in enumerate(weights):
                if not take_fresh(w._grad) and ignore_stale_grad:
                    continue                # MXNet: a stale gradient's parameter is not updated
                while len(per_device) <= j:
                    per_device.append(([], [], []))
                idx, gs, ws = per_device[j]
                idx.append(i)
                gs.append(w._grad)
                ws.append(w)
        while len(self._updaters) < len(per_device):
            self._updaters.append(self._new_updater())
        # the update counts (Adam's t, the scheduler's num_update) advance once per step, not per device
        optimizer = self._optimizer
        counts, num_update = dict(optimizer._index_update_count), optimizer.num_update
        for updater, (idx, gs, ws) in zip(self._updaters, per_device):
            if idx:
                optimizer._index_update_count, optimizer.num_update = dict(counts), num_update
                updater(idx, gs, ws)
                # every parameter of the device updated: pack them (optimizer.packed) for the next steps
                # to update at once (not with a kvstore: it writes the gradients it reduces)
                if not updater.packed_last and not self._kvstore and len(idx) == len(trainable) \
                        and updater.pack(idx, gs, ws):
                    DATA_VERSION[0] += 1    # their arrays are views now: hybridized blocks bind them again

    # ---- states -----------------------------------------------------------------------------
    def save_states(self, fname):
        """Write the optimizer states (and settings, update counts) to ``fname`` (an ``mx.nd.save``
        file, readable with ``mx.nd.load``); the kvstore writes them when it runs the optimizer."""
        self._ready()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise AssertionError("Cannot save trainer states when some parameters are not yet initialized "
                                     "in kvstore.")
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            write_atomic(fname, [self._updaters[0].get_states(dump_optimizer=True)], "optimizer states file")

    def load_states(self, fname):
        """Read states written by ``save_states``: the optimizer's settings and counters are restored,
        and every device's states (moved to that device on the next update). The file is untrusted:
        only the optimizer's own hyperparameters are restored, type-checked, and each state is checked
        against its weight on first use; any problem is an MXNetError naming the file."""
        self._ready()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            data, path = read_file(fname, "optimizer states file"), os.fspath(fname)
            first = self._updaters[0]
            first.set_states(data, source=path)
            for updater in self._updaters[1:]:
                updater.set_states(data, load_optimizer=False, source=path)
                updater.optimizer = first.optimizer
            self._optimizer = first.optimizer
            self._loaded_states = (data, path)
        self._optimizer.param_dict = dict(enumerate(self._params))
