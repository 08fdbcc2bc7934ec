"""``gluon.Trainer``: applies an optimizer to a set of Parameters (MXNet's ``gluon.Trainer``).

``step(batch_size)`` = ``allreduce_grads()`` (sum each parameter's gradients over its devices and
give every device the sum) + ``update(batch_size)`` (the optimizer, with ``rescale_grad =
1 / batch_size``, updates each device's copy in place, on that device). Optimizer states live next
to their weights; ``save_states``/``load_states`` write and read them as an ``mx.nd.save`` file (the
optimizer's settings as JSON inside it, no pickle).

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
"""
import os

from .. import optimizer as opt
from ..autograd import state as autograd_state
from ..base import MXNetError
from ..fileio import read_file
from .parameter import Parameter

__all__ = ["Trainer"]


class Trainer:
    """Updates ``params`` (a dict/ParameterDict of Parameters, or a list) with ``optimizer`` (a name
    for ``mx.optimizer.create`` with ``optimizer_params``, or an Optimizer instance).

    ``kvstore``, ``compression_params`` and ``update_on_kvstore`` are accepted for compatibility:
    gradients are always reduced locally and updates always run in the Trainer.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, dict) or hasattr(params, "keys") and hasattr(params, "values"):
            params = [params[k] for k in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"First argument must be a list or dict of Parameters, got {type(params)}.")
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError(f"First argument must be a list or dict of Parameters, got list of {type(param)}.")
            if id(param) in self._param2idx:
                continue                    # a shared Parameter is updated once (as MXNet 2.0)
            self._param2idx[id(param)] = len(self._params)
            self._params.append(param)
            param._set_trainer(self)
        self._kvstore_type = kvstore
        self._compression_params = compression_params
        self._update_on_kvstore = False
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad

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
        self._updaters = {}   # device -> Updater (one set of states per device)
        self._loaded_states = None
        self._loaded_source = None

    def __repr__(self):
        return (f"Trainer({len(self._params)} parameters, optimizer={self._optimizer!r}, "
                f"learning_rate={self.learning_rate})")

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
    def step(self, batch_size, ignore_stale_grad=False):
        """One optimisation step: reduce gradients over devices, then update with gradients
        rescaled by ``1 / batch_size``."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradients over its devices (every device gets the sum); use with
        ``update`` to modify gradients in between."""
        self._allreduce_grads()

    def update(self, batch_size, ignore_stale_grad=False):
        """The update half of ``step`` (call ``allreduce_grads`` first)."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad)

    def _trainable(self):
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            if param._data is None:
                if param._deferred_init:
                    raise MXNetError(f"Trainer: Parameter '{param.name}' has not been initialized yet (its "
                                     "initialization is deferred to the first forward pass): run a forward "
                                     "and backward pass before step()")
                raise MXNetError(f"Trainer: Parameter '{param.name}' has not been initialized: call "
                                 "initialize() on the block first")
            yield i, param

    def _allreduce_grads(self):
        for _, param in self._trainable():
            grads = param.list_grad()
            if len(grads) < 2:
                continue
            first = grads[0].device
            total = grads[0]._data.copy()
            for g in grads[1:]:
                total += first.put(g._data)
            for g in grads:
                g._data[...] = g.device.put(total)

    def _updater(self, device):
        updater = self._updaters.get(device)
        if updater is None:
            updater = self._updaters[device] = opt.get_updater(self._optimizer)
            if self._loaded_states is not None:   # load_states ran before this device's first update
                updater.set_states(self._loaded_states, load_optimizer=False, source=self._loaded_source)
        return updater

    def _update(self, ignore_stale_grad=False):
        per_device = {}
        for i, param in self._trainable():
            for w, g in zip(param.list_data(), param.list_grad()):
                if not autograd_state.take_fresh(g):
                    if not ignore_stale_grad:
                        raise UserWarning(
                            f"Gradient of Parameter `{param.name}` on context {w.device} has not been updated by "
                            f"backward since last `step`. This could mean a bug in your model that made it only use "
                            f"a subset of the Parameters (Blocks) for this iteration. If you are intentionally only "
                            f"using a subset, call step with ignore_stale_grad=True to suppress this warning and skip "
                            f"updating of Parameters with stale gradient")
                    continue   # MXNet: a stale gradient's parameter is not updated
                idx, ws, gs = per_device.setdefault(w.device, ([], [], []))
                idx.append(i)
                ws.append(w)
                gs.append(g)
        # the update counts (Adam's t, the scheduler's num_update) advance once per step, not per device
        optimizer = self._optimizer
        counts, num_update = dict(optimizer._index_update_count), optimizer.num_update
        for device, (idx, ws, gs) in per_device.items():
            optimizer._index_update_count, optimizer.num_update = dict(counts), num_update
            self._updater(device)(idx, gs, ws)

    # ---- states -----------------------------------------------------------------------------
    def save_states(self, fname):
        """Write the optimizer states (and settings, update counts) to ``fname`` (an ``mx.nd.save``
        file, readable with ``mx.nd.load``)."""
        from ..fileio import write_atomic
        updater = next(iter(self._updaters.values()), None)
        if updater is None:
            updater = opt.get_updater(self._optimizer)
            if self._loaded_states is not None:
                updater.set_states(self._loaded_states, load_optimizer=False, source=self._loaded_source)
        data = updater.get_states(dump_optimizer=True)
        write_atomic(fname, [data], "optimizer states file")

    def load_states(self, fname):
        """Read states written by ``save_states``: the optimizer's settings and counters are restored,
        and every device's states (moved to that device on the next update). The file is untrusted:
        only the optimizer's own hyperparameters are restored, type-checked, and each state is checked
        against its weight on first use; any problem is an MXNetError naming the file."""
        data = read_file(fname, "optimizer states file")
        path = os.fspath(fname)
        updater = opt.get_updater(self._optimizer)
        updater.set_states(data, source=path)
        self._optimizer = updater.optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
        self._loaded_states = data
        self._loaded_source = path
        self._updaters = {}
