"""Automatic mixed precision (``mxnet.contrib.amp.amp``), as in MXNet 1.9.1.

Training: ``init()`` makes the ``mx.nd`` / ``mx.sym`` operator functions cast their inputs by the
op lists (FullyConnected, Convolution... in float16; softmax, norms, reductions in float32;
elementwise ops to the widest input type), ``init_trainer(trainer)`` attaches a dynamic
``LossScaler`` and ``scale_loss(loss, trainer)`` scales the loss for backward; the trainer skips a
step whose gradients overflow. Inference: ``convert_symbol`` / ``convert_model`` /
``convert_hybrid_block`` rewrite a float32 model with ``amp_cast`` / ``amp_multicast`` nodes.

``target_dtype`` is ``'float16'`` (op lists in ``lists.symbol_fp16``) or ``'bfloat16'`` (lists in
``lists.symbol_bf16``: Convolution and FullyConnected in bfloat16). bfloat16 arrays are
``ml_dtypes.bfloat16`` NumPy arrays (``hybridlab.base.bfloat16``; MXNet's spelling
``np.dtype([('bfloat16', np.uint16)])`` is accepted wherever a dtype is); Convolution, Pooling and
BatchNorm compute them in float32 and round the result, as MXNet's oneDNN kernels do.

Example (inference)::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.contrib.amp import amp
    >>> net = mx.gluon.nn.Dense(3, in_units=4)
    >>> net.initialize()
    >>> net.hybridize()
    >>> x = mx.nd.ones((2, 4))
    >>> y32 = net(x)
    >>> net16 = amp.convert_hybrid_block(net, ctx=mx.cpu())
    >>> y16 = net16(x)
    >>> y16.dtype.name, bool(np.allclose(y16.asnumpy(), y32.asnumpy(), atol=1e-2))
    ('float32', True)

Example (training with loss scaling)::

    >>> tr = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    >>> amp.init()
    >>> amp.init_trainer(tr)
    >>> with mx.autograd.record():
    ...     loss = net(x).sum()
    ...     with amp.scale_loss(loss, tr) as scaled:
    ...         mx.autograd.backward(scaled)
    >>> tr.step(2)
    >>> tr._amp_loss_scaler.loss_scale
    65536.0
    >>> amp._deinit()      # (hybridlab only) undo init(), as a fresh process would be

Example (bfloat16 inference)::

    >>> y32 = net(x)        # (the training example above changed the weights)
    >>> netbf = amp.convert_hybrid_block(net, target_dtype='bfloat16', ctx=mx.cpu())
    >>> ybf = netbf(x)
    >>> ybf.dtype.name, bool(np.allclose(ybf.asnumpy(), y32.asnumpy(), rtol=2e-2, atol=2e-2))
    ('float32', True)
"""
import contextlib
import functools

import numpy as _np

from ... import ndarray, symbol
from ...base import MXNetError, dtype_from_flag, is_bfloat16, normalize_dtype
from ...gluon import HybridBlock, SymbolBlock, Trainer
from ...gluon.hybrid_export import export_block
from ...ndarray import NDArray
from ...ops import find_op
from ...optimizer import Optimizer
from ...symbol import Symbol
from .convert import check_lists, reduce_precision
from . import lists  # noqa: F401  (mxnet.contrib.amp.amp.lists, as MXNet's module has it)
from .lists import symbol_bf16, symbol_fp16
from .loss_scaler import LossScaler

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_symbol", "convert_model",
           "convert_hybrid_block", "convert_bucketing_module", "list_lp16_ops", "list_fp32_ops",
           "list_lp16_fp32_ops", "list_conditional_fp32_ops", "list_widest_type_cast",
           "list_loss_output_functions", "list_lp16_use_fp32_params"]

_state = {"initialized": False, "scaler_used": False, "loss_scaler": None, "wrapped": []}


def _target(target_dtype):
    """The NumPy dtype of ``target_dtype``: float16, or bfloat16 (``'bfloat16'``, ``ml_dtypes.bfloat16``
    or MXNet's ``np.dtype([('bfloat16', np.uint16)])``)."""
    try:
        dt = normalize_dtype(target_dtype)
    except MXNetError:
        dt = None
    if dt != _np.dtype(_np.float16) and not is_bfloat16(dt):
        raise MXNetError(f"amp: only float16 and bfloat16 are supported as target_dtype, got {target_dtype!r}")
    return dt


def _lists(target_dtype):
    if is_bfloat16(_target(target_dtype)):
        return symbol_bf16, "BF16"
    return symbol_fp16, "FP16"


# ---- the op lists ---------------------------------------------------------------------------------
def list_lp16_ops(target_dtype):
    """Ops run in the low-precision ``target_dtype``.

    >>> 'FullyConnected' in list_lp16_ops('float16')
    True
    """
    mod, pre = _lists(target_dtype)
    return list(getattr(mod, f"{pre}_FUNCS"))


def list_fp32_ops(target_dtype):
    """Ops run in float32 (reductions, softmax, norms, ...)."""
    return list(_lists(target_dtype)[0].FP32_FUNCS)


def list_lp16_fp32_ops(target_dtype):
    """Ops run in the precision of their inputs."""
    mod, pre = _lists(target_dtype)
    return list(getattr(mod, f"{pre}_FP32_FUNCS"))


def list_conditional_fp32_ops(target_dtype):
    """``(op, attribute, values)``: ops run in float32 when the attribute has one of the values."""
    return list(_lists(target_dtype)[0].CONDITIONAL_FP32_FUNCS)


def list_widest_type_cast(target_dtype):
    """Ops whose inputs are cast to their widest type (``amp_multicast``)."""
    return list(_lists(target_dtype)[0].WIDEST_TYPE_CASTS)


def list_loss_output_functions(target_dtype):
    """The loss output ops."""
    return list(_lists(target_dtype)[0].LOSS_OUTPUT_FUNCTIONS)


def list_lp16_use_fp32_params(target_dtype):
    """Ops whose listed inputs stay float32 (bfloat16 only; None for float16)."""
    mod, pre = _lists(target_dtype)
    params = getattr(mod, f"{pre}_USE_FP32_PARAMS", None)
    return None if params is None else dict(params)


# ---- init: casting operator functions -------------------------------------------------------------
def _is_tensor(x):
    return isinstance(x, (NDArray, Symbol))


def _wrap(module, name, func, how, target):
    """``func`` with its tensor arguments cast as ``how`` says ('lp', 'fp32', 'widest', or a
    conditional ``(attribute, values)``)."""
    @functools.wraps(func)
    def amp_wrapper(*args, **kwargs):
        mode = how
        if isinstance(how, tuple):
            attr, values = how
            mode = "fp32" if str(kwargs.get(attr, "")) in values else None
        pos = [i for i, a in enumerate(args) if _is_tensor(a)]
        keys = [k for k, v in kwargs.items() if _is_tensor(v)]
        if mode in ("lp", "fp32"):
            dtype = target.name if mode == "lp" else "float32"
            args = tuple(module.amp_cast(a, dtype=dtype) if i in pos else a for i, a in enumerate(args))
            kwargs = {k: module.amp_cast(v, dtype=dtype) if k in keys else v for k, v in kwargs.items()}
        elif mode == "widest" and len(pos) + len(keys) > 1:
            tensors = [args[i] for i in pos] + [kwargs[k] for k in keys]
            cast = list(module.amp_multicast(*tensors, num_outputs=len(tensors)))
            args = list(args)
            for i in pos:
                args[i] = cast.pop(0)
            for k in keys:
                kwargs[k] = cast.pop(0)
        return func(*args, **kwargs)
    amp_wrapper._amp_original = func
    return amp_wrapper


def _wrap_functions(module, target, lp_ops, cond_ops, fp32_ops, widest_ops):
    plan = {}
    for names, how in ((widest_ops, "widest"), (fp32_ops, "fp32"), (lp_ops, "lp")):
        for n in names:
            plan[n] = how
    for op_name, attr, values in cond_ops:
        plan[op_name] = (attr, [str(v) for v in values])
    for name, how in plan.items():
        func = getattr(module, name, None)
        if func is None or not callable(func) or hasattr(func, "_amp_original") or find_op(name) is None:
            continue
        setattr(module, name, _wrap(module, name, func, how, target))
        _state["wrapped"].append((module, name, func))


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Initialize AMP: from now on the ``mx.nd`` and ``mx.sym`` operator functions cast their inputs
    by the op lists (``target_precision_ops`` / ``conditional_fp32_ops`` / ``fp32_ops`` replace the
    defaults). Call it before building the model; later calls do nothing, as in MXNet."""
    if _state["initialized"]:
        return
    target = _target(target_dtype)
    lp = list_lp16_ops(target) if target_precision_ops is None else list(target_precision_ops)
    fp32 = list_fp32_ops(target) if fp32_ops is None else list(fp32_ops)
    cond = list_conditional_fp32_ops(target) if conditional_fp32_ops is None else list(conditional_fp32_ops)
    widest = list_widest_type_cast(target)
    for module in (symbol, ndarray):
        _wrap_functions(module, target, lp, cond, fp32, widest)
    _state["initialized"] = True
    _state["loss_scaler"] = LossScaler()


def _deinit():
    """Undo ``init`` (hybridlab only, for tests: MXNet has no way back but a new process)."""
    for module, name, func in reversed(_state["wrapped"]):
        setattr(module, name, func)
    _state.update(initialized=False, scaler_used=False, loss_scaler=None, wrapped=[])


# ---- training: loss scaling -----------------------------------------------------------------------
def _check_trainer(optimizer_or_trainer):
    if isinstance(optimizer_or_trainer, Trainer):
        return
    if isinstance(optimizer_or_trainer, Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    raise TypeError(f"optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is "
                    f"{type(optimizer_or_trainer)}")


def init_trainer(optimizer_or_trainer):
    """Attach dynamic loss scaling to a Gluon Trainer (``amp.init()`` first): the trainer skips
    steps whose gradients overflow and divides the loss scale out of the gradients."""
    if not _state["initialized"]:
        raise MXNetError("AMP not initialized, did you forget to call amp.init()?")
    _check_trainer(optimizer_or_trainer)
    if not _state["scaler_used"]:
        _state["scaler_used"] = True
        scaler = _state["loss_scaler"]
    else:
        scaler = LossScaler()
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield ``loss`` (or each loss of a list) times the current loss scale, and make the trainer
    divide the gradients by it."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    if scaler is None:
        raise MXNetError("Loss scaler is not initialized, did you forget to call amp.init_trainer()?")
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divide the loss scale out of the gradients now (e.g. before gradient clipping); the trainer
    then applies no scale of its own in this step."""
    _check_trainer(optimizer_or_trainer)
    for param in optimizer_or_trainer._params:
        if param.grad_req == "null" or param._data is None:
            continue
        for g in param.list_grad():
            g[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.0


# ---- inference: converting models -----------------------------------------------------------------
def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """``sym`` (a float32 network) with ``amp_cast`` / ``amp_multicast`` nodes inserted by the op
    lists (see ``convert.py``). ``data_names``: the float32 inputs (default: every input without a
    ``__dtype__`` attribute); the other inputs are parameters, and with ``cast_optional_params``
    those used only in ``target_dtype`` are stored in it (``__dtype__``) instead of cast."""
    if not isinstance(sym, Symbol):
        raise MXNetError("First argument to convert_symbol should be Symbol")
    target = _target(target_dtype)
    for value, what in ((target_dtype_ops, "target_dtype_ops"), (fp32_ops, "fp32_ops"),
                        (conditional_fp32_ops, "conditional_fp32_ops"), (excluded_sym_names, "excluded_sym_names")):
        if value is not None and not isinstance(value, list):
            raise MXNetError(f"{what} should be a list")
    lp = list_lp16_ops(target) if target_dtype_ops is None else target_dtype_ops
    fp32 = list_fp32_ops(target) if fp32_ops is None else fp32_ops
    cond = list_conditional_fp32_ops(target) if conditional_fp32_ops is None else conditional_fp32_ops
    for c in cond:
        if not (isinstance(c, (list, tuple)) and len(c) == 3 and isinstance(c[0], str) and isinstance(c[1], str)
                and isinstance(c[2], list)):
            raise MXNetError("conditional_fp32_ops should be a list of (str, str, list of str)")
    known = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                + [c[0] for c in list_conditional_fp32_ops(target)])
    check_lists(lp, fp32, cond, known)
    if data_names is None:
        attrs = sym.attr_dict()
        data_names = [n for n in sym.list_inputs() if "__dtype__" not in attrs.get(n, {})]
    return reduce_precision(sym, target, (lp, fp32, cond, list_widest_type_cast(target)),
                            excluded_sym_names or [], data_names, cast_optional_params)


def _cast_params(sym, arg_params, aux_params):
    """Cast the parameters that ``sym`` declares (``__dtype__``) in another dtype."""
    attrs = sym.attr_dict()
    for names, params in ((sym.list_arguments(), arg_params), (sym.list_auxiliary_states(), aux_params)):
        for name in names:
            flag = attrs.get(name, {}).get("__dtype__")
            if name in params and flag not in (None, "-1"):
                dtype = dtype_from_flag(int(flag))
                if params[name].dtype != dtype:
                    params[name] = params[name].astype(dtype)


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """``convert_symbol`` for a model with its parameters: returns ``(sym, arg_params, aux_params)``,
    the parameters cast where the new symbol stores them in ``target_dtype``."""
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise ValueError(f"excluded_sym_names must be a list of strings representing the names of the symbols "
                         f"that should not be casted, while received type {type(excluded_sym_names)}")
    _target(target_dtype)
    if not isinstance(arg_params, dict) or not isinstance(aux_params, dict):
        raise MXNetError("convert_model: arg_params and aux_params should be dicts of name to NDArray")
    param_names = set(arg_params) | set(aux_params)
    data_names = [n for n in sym.list_inputs() if n not in param_names]
    sym = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)
    _cast_params(sym, arg_params, aux_params)
    return sym, arg_params, aux_params


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None, cast_optional_params=False):
    """A SymbolBlock running the converted graph of ``block`` (a hybridized HybridBlock that ran
    forward once), with its parameters (cast where the graph stores them in ``target_dtype``) on
    ``ctx`` (MXNet's default is gpu(0); here the current device)."""
    if not isinstance(block, HybridBlock):
        raise MXNetError("block input should be a HybridBlock")
    if block.hybridization.graph is None:
        raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                           "once before calling export.")
    sym, arg_dict = export_block(block, None, remove_amp_cast=False)
    params = {k.split(":", 1)[1] for k in arg_dict}
    data_names = [n for n in sym.list_inputs() if n not in params]
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names, cast_optional_params)
    args = {k[4:]: v for k, v in arg_dict.items() if k.startswith("arg:")}
    auxs = {k[4:]: v for k, v in arg_dict.items() if k.startswith("aux:")}
    _cast_params(converted, args, auxs)
    net = SymbolBlock(converted, [symbol.var(n) for n in data_names])
    values = {**args, **auxs}
    for name, param in net.collect_params().items():
        if name in values and param.dtype != values[name].dtype:
            param.cast(values[name].dtype)
    net.load_dict(values, device=ctx)
    return net


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """Not available: hybridlab's BucketingModule cannot be converted yet."""
    raise MXNetError("amp.convert_bucketing_module is not supported by hybridlab yet: convert each bucket's "
                     "symbol with amp.convert_model")
