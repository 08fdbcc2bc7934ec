"""``DataParallelExecutorGroup``: MXNet 1.9.1's executors of one symbol on several devices, the
engine of ``Module``.

The batch is split along each input's batch axis (the 'N' of its layout) into one slice per
context, sized by the ``workload`` weights (``_split_input_slice``); each context gets an executor
bound for its slice. ``forward`` copies each slice into its executor and runs them all;
``get_outputs`` / ``get_input_grads`` / ``get_states`` concatenate the per-device arrays along the
batch axis (``merge_multi_context=True``) or hand them per device. ``param_arrays`` /
``grad_arrays`` / ``aux_arrays`` hold, per parameter, its array on every device (what a kvstore
sums and updates). A group made with ``shared_group`` uses that group's parameter arrays (and
gradients) and the memory of its inputs (``shared_data_arrays``), as bucketing does. With one
context there is one executor and a batch is copied into it whole.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.module.executor_group import DataParallelExecutorGroup
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    >>> group = DataParallelExecutorGroup(net, [mx.cpu(0), mx.cpu(1)], [1, 3], [('data', (8, 3))], None,
    ...                                   ['fc_weight', 'fc_bias'], for_training=True, inputs_need_grad=False)
    >>> group.slices
    [slice(0, 2, None), slice(2, 8, None)]
    >>> [e.arg_dict['data'].shape for e in group.execs]
    [(2, 3), (6, 3)]
    >>> group.forward(mx.io.DataBatch([mx.nd.ones((8, 3))]), is_train=False)
    >>> group.get_outputs()[0].shape
    (8, 2)
"""
import logging
from collections import OrderedDict

import numpy as np

from ..base import MXNetError
from ..device import Device, cpu
from ..io.batch import DataDesc, as_descs
from ..ndarray.ndarray import NDArray

__all__ = ["DataParallelExecutorGroup"]


def _split_input_slice(batch_size, work_load_list):
    """Slices of ``range(batch_size)``, one per workload weight, sized in proportion to the
    weights (rounded; the last takes what rounding leaves). An empty slice is a ValueError.

    >>> _split_input_slice(8, [1, 3])
    [slice(0, 2, None), slice(2, 8, None)]
    """
    total = float(sum(work_load_list))
    sizes = [int(round(w * batch_size / total)) for w in work_load_list]
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices, end = [], 0
    for size in sizes:
        begin = min(end, batch_size)
        end = min(begin + size, batch_size)
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


def _prepare_group2ctxs(group2ctxs, n):
    """One ``{ctx_group: Device}`` (or None) per context from a list of them or one dict whose
    values are a Device or a list of one or ``n`` Devices."""
    if group2ctxs is None:
        return [None] * n
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != n:
            raise MXNetError(f"group2ctxs: expected {n} entries (one per context), got {len(group2ctxs)}")
        return group2ctxs
    if not isinstance(group2ctxs, dict):
        raise MXNetError(f"group2ctxs: expected a dict or a list of dicts, got {type(group2ctxs).__name__}")
    out = [{} for _ in range(n)]
    for group, devices in group2ctxs.items():
        devices = [devices] * n if isinstance(devices, Device) else list(devices)
        if len(devices) == 1:
            devices = devices * n
        if len(devices) != n:
            raise MXNetError(f"group2ctxs[{group!r}]: expected 1 or {n} devices, got {len(devices)}")
        for i, dev in enumerate(devices):
            out[i][group] = dev
    return out


def _check_shape(desc):
    if not isinstance(desc.shape, (tuple, list)) or not all(isinstance(d, (int, np.integer)) for d in desc.shape):
        raise TypeError(f"bind: the shape of input {desc.name!r} must be a tuple of ints, got {desc.shape!r}")


def _slice_axis(array, axis, sl):
    if axis == 0:
        return array[sl.start:sl.stop]
    index = [slice(None)] * array.ndim
    index[axis] = sl
    return array._wrap(array._data[tuple(index)], array.context)


def _load(sources, targets, axes):
    """Copy each source (whole, or pre-split: a list per device) into its per-device targets."""
    for src, dsts, axis in zip(sources, targets, axes):
        if isinstance(src, (list, tuple)):
            for s, (_, d) in zip(src, dsts):
                d[:] = s
            continue
        if len(dsts) == 1 and tuple(src.shape) == dsts[0][1].shape:
            dsts[0][1][:] = src         # one device: the batch goes in whole
            continue
        for sl, dst in dsts:
            dst[:] = _slice_axis(src, axis, sl) if axis >= 0 else src


def _merge(per_device, axes):
    """One array per output: the devices' arrays joined along ``axis`` (the first's when < 0)."""
    from ..ndarray import concat
    merged = []
    for arrays, axis in zip(per_device, axes):
        if len(arrays) == 1 or axis < 0 or arrays[0] is None:
            merged.append(arrays[0])
        else:
            dev = arrays[0].context
            merged.append(concat(*[a.as_in_context(dev) for a in arrays], dim=axis))
    return merged


class DataParallelExecutorGroup:
    """Executors of ``symbol`` on ``contexts``, each for its share (``workload``) of the batch (see
    the module docstring); ``param_names`` are the arguments that are parameters."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=logging, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self._default_execs = None
        self.execs = []
        self.batch_size = None
        self.slices = None
        self.data_shapes = self.label_shapes = None
        self.data_names = self.label_names = None
        self.data_layouts = self.label_layouts = None
        self.output_names = symbol.list_outputs()
        self.output_layouts = [DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
                               for i in range(len(self.output_names))]
        self.num_outputs = len(self.output_names)
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in contexts])
        data_names = [d[0] if not isinstance(d, DataDesc) else d.name for d in data_shapes]
        self.grad_req = self._grad_reqs(grad_req, data_names)
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_names):
        if isinstance(grad_req, dict):
            return dict(grad_req)
        reqs = {}
        for i, name in enumerate(self.arg_names):
            req = grad_req[i] if isinstance(grad_req, (list, tuple)) else grad_req
            if name in self.param_names:
                reqs[name] = "null" if not self.for_training or name in self.fixed_param_names else req
            elif name in data_names:
                reqs[name] = req if self.inputs_need_grad else "null"
            else:
                reqs[name] = "null"
        return reqs

    # ---- slicing ------------------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """The batch size (all inputs with a batch axis must agree) and the per-context slices;
        returns each input's batch axis."""
        axes = [DataDesc.get_batch_axis(d.layout) for d in data_shapes]
        for desc, axis in zip(data_shapes, axes):
            if axis == -1:
                continue
            size = desc.shape[axis]
            if self.batch_size is not None and size != self.batch_size:
                raise MXNetError(f"all data must have the same batch size: batch_size = {self.batch_size}, but "
                                 f"{desc.name} has shape {desc.shape}")
            self.batch_size = size
            self.slices = _split_input_slice(self.batch_size, self.workload)
        return axes

    def _sliced(self, descs, i, axes):
        out = []
        for desc, axis in zip(descs, axes):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            out.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return out

    def _collect_arrays(self):
        per_exec = list(zip(self.execs, self.slices))
        self.data_arrays = [[(sl, e.arg_dict[d.name]) for e, sl in per_exec] for d in self.data_shapes]
        self.state_arrays = [[e.arg_dict[n] for e in self.execs] for n in self.state_names]
        self.label_arrays = ([[(sl, e.arg_dict[d.name]) for e, sl in per_exec] for d in self.label_shapes]
                             if self.label_shapes else None)
        idx = [i for i, n in enumerate(self.arg_names) if n in self.param_names]
        self.param_arrays = [[e.arg_arrays[i] for e in self.execs] for i in idx]
        self.grad_arrays = [[e.grad_arrays[i] for e in self.execs] for i in idx] if self.for_training else None
        # as MXNet's: None for an input whose grad_req is 'null'
        self.input_grad_arrays = ([[e.grad_dict.get(d.name) for e in self.execs] for d in self.data_shapes]
                                  if self.inputs_need_grad else None)
        self.aux_arrays = [[e.aux_arrays[i] for e in self.execs] for i in range(len(self.aux_names))]

    # ---- binding ------------------------------------------------------------------------------
    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, reshape the first-bound) executors for ``data_shapes`` /
        ``label_shapes`` (DataDescs or ``(name, shape)``)."""
        data_shapes = as_descs(data_shapes, "bind: data_shapes")
        label_shapes = as_descs(label_shapes, "bind: label_shapes") if label_shapes else None
        for desc in data_shapes + (label_shapes or []):
            _check_shape(desc)
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        self.label_layouts = self.decide_slices(label_shapes) if label_shapes else None
        execs = []
        for i in range(len(self.contexts)):
            shapes = self._sliced(data_shapes, i, self.data_layouts)
            if label_shapes:
                shapes += self._sliced(label_shapes, i, self.label_layouts)
            if reshape:
                execs.append(self._default_execs[i].reshape(partial_shaping=True, allow_up_sizing=True,
                                                            **{d.name: d.shape for d in shapes}))
            else:
                shared = shared_group.execs[i] if shared_group is not None else None
                execs.append(self._bind_ith_exec(i, shapes, shared))
        self.execs = execs
        self.data_shapes, self.label_shapes = data_shapes, label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes else []
        self._collect_arrays()

    def _bind_ith_exec(self, i, shapes, shared_exec):
        return self.symbol.simple_bind(self.contexts[i], grad_req=self.grad_req,
                                       type_dict={d.name: d.dtype for d in shapes},
                                       shared_arg_names=self.param_names, shared_exec=shared_exec,
                                       shared_buffer=self.shared_data_arrays[i], group2ctx=self.group2ctxs[i],
                                       **{d.name: tuple(d.shape) for d in shapes})

    def reshape(self, data_shapes, label_shapes):
        """Executors for new input shapes, sharing the parameters with the first-bound ones."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # ---- parameters ---------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy ``arg_params`` / ``aux_params`` into every executor (a name the symbol lacks is a
        ValueError unless ``allow_extra``)."""
        for ex in self.execs:
            for params, table in ((arg_params, ex.arg_dict), (aux_params or {}, ex.aux_dict)):
                for name, value in params.items():
                    if name in table:
                        table[name][:] = value
                    elif not allow_extra:
                        raise ValueError(f"set_params: {name!r} is not a parameter of the symbol; expected "
                                         f"allow_extra=True to ignore it")

    def get_params(self, arg_params, aux_params):
        """Write the parameters (the mean over devices) into ``arg_params`` / ``aux_params``."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                if len(block) == 1:
                    target[name][:] = block[0]
                    continue
                total = block[0].as_in_context(cpu()).astype("float64")
                for w in block[1:]:
                    total = total + w.as_in_context(cpu()).astype("float64")
                target[name][:] = (total / len(block)).astype(target[name].dtype)

    # ---- running ------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Copy the batch's slices into the executors and run them (``is_train`` None: as bound)."""
        _load(data_batch.data, self.data_arrays, self.data_layouts)
        is_train = self.for_training if is_train is None else is_train
        label = getattr(data_batch, "label", None)
        if label and self.label_arrays:
            _load(label, self.label_arrays, self.label_layouts)
        for ex in self.execs:
            ex.forward(is_train=is_train)

    def get_output_shapes(self):
        """``[(name, shape)]`` of the merged outputs."""
        shapes = []
        for name, out, axis in zip(self.output_names, self.execs[0].outputs, self.output_layouts):
            shape = list(out.shape)
            if axis >= 0 and len(self.execs) > 1:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """The outputs: one array each (merged), or per output a list with one array per device."""
        end = self.num_outputs if end is None else end
        outputs = [[ex.outputs[i] for ex in self.execs] for i in range(begin, end)]
        return _merge(outputs, self.output_layouts[begin:end]) if merge_multi_context else outputs

    def get_states(self, merge_multi_context=True):
        """The state arrays (``state_names``), merged along axis 0 or per device."""
        return _merge(self.state_arrays, [0] * len(self.state_arrays)) if merge_multi_context \
            else self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the states from ``states`` (per state, a list per device or one array) or to ``value``."""
        if states is not None:
            if value is not None:
                raise MXNetError("set_states: expected states or value, got both")
            _load(states, [[(sl, a) for sl, a in zip(self.slices, arrs)] for arrs in self.state_arrays],
                  [0] * len(self.state_arrays))
            return
        for arrays in self.state_arrays:
            for arr in arrays:
                arr[:] = value

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs (bound with ``inputs_need_grad``)."""
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: expected inputs_need_grad=True when binding")
        return _merge(self.input_grad_arrays, self.data_layouts) if merge_multi_context \
            else self.input_grad_arrays

    def backward(self, out_grads=None):
        """Backward on every executor; ``out_grads`` (whole-batch head gradients) are split."""
        if not self.for_training:
            raise MXNetError("backward: re-bind with for_training=True to run backward")
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for i, (ex, sl) in enumerate(zip(self.execs, self.slices)):
            grads = out_grads
            if out_grads is not None and len(self.execs) > 1:
                grads = [(_slice_axis(g, axis, sl) if axis >= 0 else g).as_in_context(self.contexts[i])
                         for g, axis in zip(out_grads, self.output_layouts)]
            ex.backward(out_grads=grads)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with each device's outputs and its slice of ``labels``."""
        labels = list(labels or [])
        axes = self.label_layouts or [0] * len(labels)
        names = self.label_names if len(self.label_names) == len(labels) else \
            [f"label{i}" for i in range(len(labels))]
        for k, (ex, sl) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                part = labels[k]
            elif len(self.execs) == 1:
                part = labels
            else:
                part = [_slice_axis(lb, axis, sl) if axis >= 0 and isinstance(lb, NDArray) else lb
                        for lb, axis in zip(labels, axes)]
            eval_metric.update_dict(OrderedDict(zip(names, part)), OrderedDict(zip(self.output_names, ex.outputs)))

    def install_monitor(self, mon):
        """Install ``mon`` (``mx.mon.Monitor``) on every executor."""
        for ex in self.execs:
            mon.install(ex)
