"""Generate the ``mx.sym`` op functions from the registry (same names and aliases as ``mx.nd``).

``mx.sym.FullyConnected(data, num_hidden=8, name='fc1')`` composes a node; inputs not given become
variables ``fc1_weight``, ``fc1_bias`` as in MXNet.
"""
from ..ops.registry import NsName, all_ops
from .symbol import Symbol, compose

__all__ = ["populate"]


def _make(op, ns):
    possible = op.all_inputs if op.all_inputs is not None else ()
    positional_attrs = ns.args or tuple(k for k in op.attrs if k != "num_args")

    def fn(*args, name=None, attr=None, out=None, **kwargs):
        if ns.rename:
            kwargs = {ns.rename.get(k, k): v for k, v in kwargs.items()}
        if op.variadic:
            inputs = list(args[0]) if ns.packed else [x for x in args if isinstance(x, Symbol)]
            extra = args[1:] if ns.packed else args[len(inputs):]
        else:
            n = 0
            while n < len(args) and n < len(possible) and (isinstance(args[n], Symbol) or args[n] is None):
                n += 1
            inputs, extra = list(args[:n]), args[n:]
            for i, input_name in enumerate(possible):
                if input_name in kwargs:
                    inputs += [None] * (i + 1 - len(inputs))
                    inputs[i] = kwargs.pop(input_name)
            while inputs and inputs[-1] is None:
                inputs.pop()
        for k, v in zip(positional_attrs, extra):
            kwargs[k] = v
        for k, v in ns.defaults.items():
            kwargs.setdefault(k, v)
        return compose(op, inputs, kwargs, name=name, attr=attr, hint=ns.name.lower())

    fn.__name__ = fn.__qualname__ = ns.name
    fn.__doc__ = op.signature_doc()
    fn.op = op
    return fn


def populate(namespace, kind="sym"):
    """Fill ``namespace`` with one function per op name ('sym': MXNet 1.x names; 'sym.random')."""
    added = []
    for op in all_ops():
        entries = [NsName(n) for n in (op.name,) + op.aliases] if kind == "sym" else list(op.random_names)
        for entry in entries:
            namespace[entry.name] = _make(op, entry)
            added.append(entry.name)
    return added
