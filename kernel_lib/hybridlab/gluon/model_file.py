"""MXNet 1.9's whole-model files: ``Block.save(prefix)`` writes ``<prefix>-model.json`` (the block
tree; per HybridBlock its cached graph when it has one, and its parameters' graph names) and
``<prefix>-model.params`` (structural names); ``Block.load(prefix)`` restores both into an
identically constructed model.

Example::

    >>> import os, tempfile, hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(2, in_units=3))
    >>> net.initialize(); net.hybridize(); y = net(mx.nd.ones((1, 3)))
    >>> prefix = os.path.join(tempfile.mkdtemp(), "m")
    >>> net.save(prefix)
    >>> sorted(os.listdir(os.path.dirname(prefix)))
    ['m-model.json', 'm-model.params']
    >>> other = mx.gluon.nn.HybridSequential()
    >>> other.add(mx.gluon.nn.Dense(2, in_units=3))
    >>> other.load(prefix)
    >>> bool((other(mx.nd.ones((1, 3))).asnumpy() == y.asnumpy()).all())
    True
"""
import json

from .. import symbol
from ..fileio import write_atomic

__all__ = ["save_model", "load_model"]


def save_model(block, prefix):
    from .hybrid_block import HybridBlock
    model = {}

    def save(blk, structure, index=0):
        mdl = {}
        structure[type(blk).__name__.lower() + str(index)] = mdl
        index += 1
        if isinstance(blk, HybridBlock):
            if blk._cached_graph:
                syms, out = blk._cached_graph
                mdl["in_format"] = blk._in_format
                mdl["out_format"] = blk._out_format
                mdl["inputs"] = [s.tojson() for s in syms]
                mdl["symbol"] = out.tojson()
                mdl["hybridized"] = True
            else:
                mdl["hybridized"] = False
        mdl["params"] = {name: p.var().name for name, p in blk._reg_params.items()}
        for child in blk._children.values():
            index = save(child, mdl, index)
        return index

    save(block, model)
    write_atomic(prefix + "-model.json", json.dumps(model), "model file")
    block.save_parameters(prefix + "-model.params")


def load_model(block, prefix):
    from .hybrid_block import HybridBlock
    with open(prefix + "-model.json", encoding="utf-8") as f:
        model = json.load(f)

    def load(blk, structure, index=0):
        key = type(blk).__name__.lower() + str(index)
        if key not in structure:
            raise ValueError(f"Block.load: the saved model has no block '{key}' at this position (it has "
                             f"{sorted(k for k in structure if isinstance(structure[k], dict))}): the model must "
                             f"be constructed exactly as the saved one")
        mdl = structure[key]
        index += 1
        for name, var_name in mdl.get("params", {}).items():
            param = blk._reg_params[name]
            param._var_name, param._var = var_name, None
        if isinstance(blk, HybridBlock) and mdl.get("hybridized"):
            blk._clear_cached_op("loaded")
            blk._in_format = mdl["in_format"]
            blk._out_format = mdl["out_format"]
            blk._cached_graph = ([symbol.fromjson(s) for s in mdl["inputs"]], symbol.fromjson(mdl["symbol"]))
            blk._active = True
        for child in blk._children.values():
            index = load(child, mdl, index)
        return index

    load(block, model)
    block.load_parameters(prefix + "-model.params")
