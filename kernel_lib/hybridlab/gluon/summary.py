"""``Block.summary``: one forward pass with hooks recording every layer's output shape and
parameter count, printed as MXNet prints it.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3)
    >>> net.initialize()
    >>> net.summary(mx.nd.ones((1, 3)))     # doctest: +ELLIPSIS
    --------------------------------------------------------------------------------
            Layer (type)                                Output Shape         Param #
    ================================================================================
                   Input                                      (1, 3)               0
                 Dense-1                                      (1, 2)               8
    ...
"""
from collections import OrderedDict

from .. import deferred as _dc
from ..symbol.symbol import Symbol

__all__ = ["print_summary"]


def _shape_str(args):
    def shapes(a):
        if isinstance(a, (list, tuple)):
            return [shapes(x) for x in a]
        return getattr(a, "shape", a)
    s = shapes(args)
    text = str(s)[1:-1] if isinstance(s, list) else str(s)
    return text.replace("L", "")


def _has_symbol(x):
    if isinstance(x, (list, tuple)):
        return any(_has_symbol(i) for i in x)
    return isinstance(x, Symbol)


def print_summary(block, inputs):
    """Run ``block(*inputs)`` once and print the per-layer table (the block must not be hybridized)."""
    from .hybrid_block import HybridBlock
    from .nn.basic_layers import HybridSequential, Sequential
    summary = OrderedDict()
    seen = set()
    hooks = []

    def register(blk):
        if isinstance(blk, HybridBlock) and blk.hybridization.active:
            raise AssertionError(f'"{type(blk).__name__}" must not be hybridized to print summary.')

        def hook(b, _, outputs):
            if _dc.is_deferred_compute() or _has_symbol(outputs):
                return     # a graph being built for shape inference, not the summarised forward
            key = f"{b.__class__.__name__}-{len(summary)}"
            entry = summary[key] = OrderedDict(output_shape=_shape_str(outputs), n_params=0, trainable=0, shared=0)
            for p in b._reg_params.values():
                size = p.data().size
                entry["n_params"] += size
                entry["trainable"] += 0 if p.grad_req == "null" else size
                if id(p) in seen:
                    entry["shared"] += size
                else:
                    seen.add(id(p))
        if not isinstance(blk, (Sequential, HybridSequential)):
            hooks.append(blk.register_forward_hook(hook))

    summary["Input"] = OrderedDict(output_shape=_shape_str(inputs if len(inputs) != 1 else inputs[0]),
                                   n_params=0, trainable=0, shared=0)
    try:
        block.apply(register)
        block(*inputs)
        line = "{:>20}  {:>42} {:>15}"
        print("-" * 80)
        print(line.format("Layer (type)", "Output Shape", "Param #"))
        print("=" * 80)
        total = trainable = shared = 0
        for layer, e in summary.items():
            print(line.format(layer, str(e["output_shape"]), e["n_params"]))
            total += e["n_params"]
            trainable += e["trainable"]
            shared += e["shared"]
        print("=" * 80)
        print("Parameters in forward computation graph, duplicate included")
        print("   Total params: " + str(total))
        print("   Trainable params: " + str(trainable))
        print("   Non-trainable params: " + str(total - trainable))
        print("Shared params in forward computation graph: " + str(shared))
        print("Unique parameters in model: " + str(total - shared))
        print("-" * 80)
    finally:
        for h in hooks:
            h.detach()
