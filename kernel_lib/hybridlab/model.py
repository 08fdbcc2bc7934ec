"""MXNet 1.x's ``mx.model`` checkpoints: ``save_checkpoint(prefix, epoch, symbol, arg_params,
aux_params)`` writes ``prefix-symbol.json`` and ``prefix-%04d.params`` (``arg:``/``aux:`` names, the
files real MXNet writes and reads), ``load_checkpoint`` reads them back; ``BatchEndParam`` is what
batch-end callbacks receive.

Example::

    >>> import os, tempfile
    >>> import hybridlab as mx
    >>> sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'net')
    >>> mx.model.save_checkpoint(prefix, 3, sym, {'fc_weight': mx.nd.ones((2, 4)), 'fc_bias': mx.nd.zeros(2)}, {})
    >>> sym2, args, aux = mx.model.load_checkpoint(prefix, 3)
    >>> sorted(args), sym2.list_arguments() == sym.list_arguments()
    (['fc_bias', 'fc_weight'], True)
"""
import logging
from collections import namedtuple

from .base import MXNetError

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "save_params_file", "load_params_file",
           "BatchEndParam"]

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params`` atomically."""
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
    param_name = f"{prefix}-{epoch:04d}.params"
    save_params_file(param_name, arg_params, aux_params)
    logging.info('Saved checkpoint to "%s"', param_name)


def save_params_file(fname, arg_params, aux_params):
    """Write ``arg_params`` / ``aux_params`` to ``fname`` as MXNet names them (``arg:``/``aux:``)."""
    from . import ndarray as nd
    params = {f"arg:{k}": v for k, v in arg_params.items()}
    params.update({f"aux:{k}": v for k, v in (aux_params or {}).items()})
    nd.save(fname, params)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``."""
    return load_params_file(f"{prefix}-{epoch:04d}.params")


def load_params_file(fname):
    """``(arg_params, aux_params)`` from a ``.params`` file with ``arg:``/``aux:`` names. The file is
    untrusted: anything else in it (unnamed or empty arrays, other names) is an MXNetError naming it."""
    from . import ndarray as nd
    saved = nd.load(fname)
    if not isinstance(saved, dict):
        raise MXNetError(f"load_params_file: {str(fname)!r} expected named arrays ('arg:<name>' / 'aux:<name>'), "
                         f"got a list of {len(saved)} unnamed arrays")
    arg_params, aux_params = {}, {}
    for key, value in saved.items():
        kind, _, name = key.partition(":")
        if kind not in ("arg", "aux") or not name:
            raise MXNetError(f"load_params_file: {str(fname)!r} has the name {key[:80]!r}; expected "
                             "'arg:<name>' or 'aux:<name>'")
        if value is None:
            raise MXNetError(f"load_params_file: {str(fname)!r}: {key[:80]!r} is an empty (none) array; "
                             "expected the parameter's values")
        (arg_params if kind == "arg" else aux_params)[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and ``prefix-%04d.params``."""
    from . import symbol as sym
    return (sym.load(f"{prefix}-symbol.json"),) + load_params(prefix, epoch)


# ---- data-parallel updates through a kvstore (what Module.init_optimizer / update use) ----------------
def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Give the store each parameter (``param_arrays[i]``: its array on every device); when it
    updates, every device starts from ``arg_params``' value."""
    for name, on_devices in zip(param_names, param_arrays):
        if not update_on_kvstore or arg_params[name].stype != "default":
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=on_devices)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """The store sums each parameter's gradients over devices, updates it and hands it back."""
    for index, (args, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        name = param_names[index]
        if grads[0].stype == "default" and args[0].stype == "default":
            kvstore.pushpull(name, grads, out=args, priority=-index)
        else:
            kvstore.push(name, grads, priority=-index)
            kvstore.pull(name, out=args, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None, param_names=None):
    """Sum each parameter's gradients over devices (through ``kvstore`` when given), then update
    every device's copy with ``updater`` (index ``i * num_device + k`` for device k)."""
    updates = [[] for _ in range(num_device)]
    for index, (args, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        if kvstore:
            name = param_names[index]
            if grads[0].stype == "default" and args[0].stype == "default":
                kvstore.pushpull(name, grads, priority=-index)
            else:
                kvstore.push(name, grads, priority=-index)
                kvstore.pull(name, out=grads, priority=-index)
        for k, (w, g) in enumerate(zip(args, grads)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if dev_updates:
            indices, grads, weights = zip(*dev_updates)
            updater(list(indices), list(grads), list(weights))
