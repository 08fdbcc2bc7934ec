"""``BucketingModule``: MXNet 1.x's module for inputs of varying length (sentences bucketed by
length). ``sym_gen(bucket_key)`` returns ``(symbol, data_names, label_names)`` for one bucket; each
bucket gets its own ``Module``, and every bucket's executors share the parameters, their gradients
and the memory of the inputs with the *default* bucket's module (``Module.bind(shared_module=...)``).

``bind`` binds the default bucket; ``forward`` switches to the batch's ``bucket_key`` (binding that
bucket's module on first use, with the default module's optimizer borrowed) and runs it; ``backward``
and ``update`` act on the current bucket, so training on mixed buckets updates one set of parameters.
``save_checkpoint`` writes ``prefix-<key>-symbol.json`` per bucket, ``prefix-%04d.params`` and
``prefix.buckets`` (the keys, which must be integers), and ``BucketingModule.load`` reads them back.

Example::

    >>> import hybridlab as mx
    >>> def sym_gen(seq_len):
    ...     data = mx.sym.var('data')
    ...     w = mx.sym.var('scale_weight', shape=(1,))
    ...     out = mx.sym.sum(mx.sym.broadcast_mul(data, w), axis=1)
    ...     return mx.sym.make_loss(out, name='loss'), ('data',), None
    >>> mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=4)
    >>> mod.bind([('data', (2, 4))])
    >>> mod.init_params(mx.init.One())
    >>> for key in (4, 2):
    ...     batch = mx.io.DataBatch([mx.nd.ones((2, key))], bucket_key=key,
    ...                             provide_data=[mx.io.DataDesc('data', (2, key))])
    ...     mod.forward(batch, is_train=False)
    ...     print(key, mod.get_outputs()[0].asnumpy().tolist())
    4 [4.0, 4.0]
    2 [2.0, 2.0]
    >>> sorted(mod._buckets)
    [2, 4]
"""
import logging
import warnings

import numpy as np

from .. import ndarray as nd
from .. import symbol as _sym
from ..base import MXNetError
from ..device import cpu
from ..initializer import Uniform
from ..model import load_params, save_params_file
from ..name import NameManager
from .base_module import BaseModule
from .module import Module

__all__ = ["BucketingModule"]


def _check_input_names(symbol, names, typename, throw):
    """Names of data, labels, states or fixed parameters must be arguments of ``symbol`` (labels
    only warn, as in MXNet)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        msg = (f"BucketingModule: you created a module with {typename}_names={list(names)}, but the "
               f"{typename} name {name!r} is not an argument of the symbol; its arguments are {args}")
        if throw:
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)


class BucketingModule(BaseModule):
    """One ``Module`` per bucket key, all sharing the default bucket's parameters (see the module
    docstring). ``sym_gen(key) -> (symbol, data_names, label_names)``."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None, work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise MXNetError("BucketingModule: expected a default_bucket_key, got None")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        state_names = list(state_names or [])
        fixed_param_names = list(fixed_param_names or [])
        _check_input_names(symbol, list(data_names or []), "data", True)
        _check_input_names(symbol, list(label_names or []), "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context if context is not None else cpu()
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, key):
        with NameManager():          # each bucket's graph gets the same automatic names
            return self._sym_gen(key)

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    # ---- names and shapes (of the current bucket once bound) -----------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The symbol of the current bucket."""
        self._check_bound("symbol")
        return self._curr_module.symbol

    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"BucketingModule.{what}: expected a bound module (call bind first)")

    def _check_ready(self, what):
        if not (self.binded and self.params_initialized):
            raise MXNetError(f"BucketingModule.{what}: expected a bound module with initialized parameters "
                             f"(call bind and init_params first), got binded={self.binded}, "
                             f"params_initialized={self.params_initialized}")

    # ---- parameters ------------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: the shared parameters' current values."""
        if not self.params_initialized:
            raise MXNetError("BucketingModule.get_params: expected initialized parameters (call init_params)")
        module = self._curr_module
        self._params_dirty = False
        if not module.binded:        # loaded, not bound yet: the values read from the file
            return module._arg_params, module._aux_params
        return module.get_params()

    def _assign_params(self, arg_params, aux_params, allow_missing, force_init, allow_extra):
        """``set_params(allow_missing=True)``: through the current bucket's module (they share them)."""
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing, force_init=force_init,
                                     allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize the parameters through the current (default) bucket's module."""
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def save_params(self, fname):
        """Save the parameters (``arg:``/``aux:`` names) to ``fname``."""
        save_params_file(fname, *self.get_params())

    def load_params(self, fname):
        """Load parameters saved by ``save_params`` (or MXNet) from ``fname``."""
        from ..model import load_params_file
        self.set_params(*load_params_file(fname))

    def get_states(self, merge_multi_context=True):
        self._check_ready("get_states")
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready("set_states")
        self._curr_module.set_states(states, value)

    # ---- binding and buckets ---------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind the default bucket's module for ``data_shapes`` / ``label_shapes``; the other buckets
        bind on their first batch (``switch_bucket``)."""
        arg_params = aux_params = None
        if self.params_initialized:          # a rebind keeps the parameters
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise MXNetError("BucketingModule.bind: shared_module is not supported for BucketingModule; expected None")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._buckets.get(self._default_bucket_key)
        if module is None:
            module = self._new_module(*self._call_sym_gen(self._default_bucket_key))
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self._curr_module, self._curr_bucket_key = module, self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if arg_params is not None:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key``'s module the current one, creating and binding it (sharing the
        default bucket's parameters and memory) on first use."""
        self._check_bound("switch_bucket")
        module = self._buckets.get(bucket_key)
        if module is None or not module.binded:
            if module is None:
                module = self._new_module(*self._call_sym_gen(bucket_key))
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key], grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module, self._curr_bucket_key = module, bucket_key

    # ---- optimizer -----------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Create the optimizer on the current module; every other bucket borrows it."""
        if self._skip_optimizer_init(force_init):
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # ---- per batch -----------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket if needed (and let it prepare), then switch back."""
        self._check_ready("prepare")
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to ``data_batch.bucket_key``'s module and run it."""
        self._check_ready("forward")
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step on the shared parameters with the current bucket's gradients."""
        self._check_ready("update")
        if not self.optimizer_initialized:
            raise MXNetError("BucketingModule.update: expected init_optimizer first")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise MXNetError("BucketingModule.get_input_grads: expected bind(..., inputs_need_grad=True)")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._check_ready("update_metric")
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install ``mon`` on every bucket's executors (and on buckets bound later)."""
        self._check_bound("install_monitor")
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # ---- files ---------------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """Write ``prefix-%04d.params``, one ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the bucket keys: integers)."""
        if not self._buckets:
            raise MXNetError("BucketingModule.save_checkpoint: an empty BucketingModule cannot be saved")
        keys = list(self._buckets)
        if not all(isinstance(k, (int, np.integer)) for k in keys):
            raise MXNetError(f"BucketingModule.save_checkpoint: expected integer bucket keys (saved in "
                             f"{prefix}.buckets), got {keys}")
        self.save_params(f"{prefix}-{epoch:04d}.params")
        for key in keys:
            symbol = self._call_sym_gen(key)[0]
            symbol.save(f"{prefix}-{key}-symbol.json", remove_amp_cast=remove_amp_cast)
        nd.save(f"{prefix}.buckets", nd.array(keys, dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from the files of ``save_checkpoint`` (bind it before use); ``sym_gen``
        and ``default_bucket_key`` as the saved module had them; ``kwargs`` go to the constructor."""
        if sym_gen is None or default_bucket_key is None:
            raise MXNetError("BucketingModule.load: expected sym_gen and default_bucket_key (those of the "
                             "saved module)")
        saved = nd.load(f"{prefix}.buckets")
        keys = saved[0] if isinstance(saved, list) else next(iter(saved.values()))
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key in (int(k) for k in keys.asnumpy().astype("int32")):
            _, data_names, label_names = mod._call_sym_gen(key)
            mod._buckets[key] = Module(_sym.load(f"{prefix}-{key}-symbol.json"), data_names, label_names,
                                       **kwargs)
            if key == default_bucket_key:
                mod._curr_module = mod._buckets[key]
        if mod._curr_module is None:
            raise MXNetError(f"BucketingModule.load: {prefix}.buckets has the keys {sorted(mod._buckets)}, "
                             f"expected the default bucket key {default_bucket_key!r} among them")
        arg_params, aux_params = load_params(prefix, epoch)
        mod._curr_module._arg_params, mod._curr_module._aux_params = arg_params, aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None, aux_params=None,
                  **kwargs):
        """A BucketingModule from ``{bucket_key: symbol}`` and shared ``arg_params`` / ``aux_params``."""
        if sym_dict is None or arg_params is None or aux_params is None or default_bucket_key is None:
            raise MXNetError("BucketingModule.load_dict: expected sym_dict, arg_params, aux_params and "
                             "default_bucket_key")
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key, symbol in sym_dict.items():
            _, data_names, label_names = mod._call_sym_gen(default_bucket_key)
            mod._buckets[key] = Module(symbol, data_names, label_names, **kwargs)
            if key == default_bucket_key:
                mod._curr_module = mod._buckets[key]
        mod._curr_module._arg_params, mod._curr_module._aux_params = arg_params, aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

    def __repr__(self):
        state = f"bucket {self._curr_bucket_key!r} of {len(self._buckets)}" if self.binded else "not bound"
        return f"<BucketingModule default_bucket_key={self._default_bucket_key!r} {state}>"
