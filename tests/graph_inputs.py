"""The shapes of every input of a Symbol (arguments and auxiliary states, in ``list_inputs`` order)
from the shapes of some of them, for the tests that feed whole graphs."""


def input_shapes(sym, **known):
    """``[shape of each name in sym.list_inputs()]`` inferred from ``known`` (``name=shape``)."""
    args, _, aux = sym.infer_shape(**known)
    by_name = dict(zip(sym.list_arguments() + sym.list_auxiliary_states(), args + aux))
    return [by_name[n] for n in sym.list_inputs()]
