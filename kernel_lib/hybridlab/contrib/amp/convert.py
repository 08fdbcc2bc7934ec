"""The graph pass of ``amp.convert_symbol``: a float32 Symbol rewritten with ``amp_cast`` /
``amp_multicast`` nodes where MXNet 1.9.1's ReducePrecision pass puts them (recorded from real
MXNet, see tests/test_amp.py). The input symbol is left unchanged.

Walking the graph in order, every output entry is known to be low precision (``"lp"``), float32
(``"fp32"``) or unknown (``None``); data inputs are float32. Then

* an op of the target list gets every input that is not known low precision through
  ``amp_cast(dtype=target)``; its outputs are low precision,
* an op of the float32 list (or a conditional one whose attribute matches, or a node named in
  ``excluded_sym_names``) gets every input not known float32 through ``amp_cast(dtype=float32)``,
* an op of the widest-type list with several inputs gets them all through one ``amp_multicast``
  unless all are low precision already; its outputs are then unknown,
* any other op runs in the precision its inputs have,
* each graph output not known float32 is cast to float32 at the end.

Casts of one entry to one dtype are shared. Cast nodes are named ``<entry>_amp_cast_<dtype>``,
multicasts ``<first entry>_amp_multicast``, where an entry is a variable's name or
``<node>_<output name>`` (``<node>_<index>`` for ops without MXNet output names).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.contrib.amp import amp
    >>> fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    >>> out = amp.convert_symbol(mx.sym.softmax(fc, name='sm'))
    >>> [n.name for n in out._nodes() if n.op is not None]
    ['data_amp_cast_float16', 'fc_weight_amp_cast_float16', 'fc_bias_amp_cast_float16', 'fc', 'fc_output_amp_cast_float32', 'sm']
"""
import numpy as _np

from ...base import MXNetError, dtype_flag
from ...ops import get_op
from ...symbol.graph import Node, topo_order
from ...symbol.symbol import Symbol

__all__ = ["reduce_precision"]

# ops that MXNet 1.9.1 gives output names (FListOutputNames; recorded from real MXNet): casts of
# their outputs are named after them (``fc_output_amp_cast_float32``), other ops' by index (``r_0_...``)
NAMED_OUTPUT_OPS = frozenset((
    "Activation", "BatchNorm", "BilinearSampler", "Concat", "Convolution", "Crop", "Deconvolution",
    "Dropout", "FullyConnected", "GridGenerator", "GroupNorm", "IdentityAttachKLSparseReg", "InstanceNorm",
    "L2Normalization", "LRN", "LayerNorm", "LeakyReLU", "MakeLoss", "Pad", "Pooling", "RNN", "ROIPooling",
    "SVMOutput", "SequenceLast", "SequenceMask", "SequenceReverse", "SliceChannel", "Softmax",
    "SoftmaxActivation", "SoftmaxOutput", "SpatialTransformer", "SwapAxis", "UpSampling", "concat",
    "elemwise_add", "make_loss", "softmax", "softmin", "swapaxes", "split"))


def _names(op):
    return {op.name, *op.aliases}


def _entry_name(node, index):
    if node.op is None:
        return node.name
    if _names(node.op) & NAMED_OUTPUT_OPS:
        return node.output_name(index)
    return f"{node.name}_{index}"


class _Pass:
    def __init__(self, target, lists, excluded, cast_optional_params):
        self.target = _np.dtype(target)
        self.lp_ops, self.fp32_ops, self.cond_ops, self.widest_ops = lists
        self.excluded = set(excluded)
        self.cast_optional = cast_optional_params
        self.state = {}     # (new node, index) -> "lp" | "fp32" | None
        self.casts = {}     # (id(new node), index, dtype name) -> cast entry

    def kind(self, node):
        names = _names(node.op)
        if node.name in self.excluded:
            return "fp32"
        if names & self.lp_ops:
            return "lp"
        if names & self.fp32_ops:
            return "fp32"
        for op_name, attr, values in self.cond_ops:
            if op_name in names and str(node.attrs.get(attr, "")) in values:
                return "fp32"
        if names & self.widest_ops:
            return "widest"
        return "any"

    def cast(self, entry, to_lp):
        dtype = self.target.name if to_lp else "float32"
        key = (id(entry[0]), entry[1], dtype)
        if key not in self.casts:
            node = Node(get_op("amp_cast"), f"{_entry_name(*entry)}_amp_cast_{dtype}", {"dtype": dtype}, [entry])
            self.casts[key] = (node, 0)
            self.state[(node, 0)] = "lp" if to_lp else "fp32"
        return self.casts[key]

    def rewrite(self, node, inputs):
        """The new inputs of op ``node`` and the state of its outputs."""
        kind = self.kind(node)
        states = [self.state.get(e) for e in inputs]
        aux = set(node.aux_input_indices())
        if kind == "lp":
            return [e if s == "lp" or i in aux else self.cast(e, True)
                    for i, (e, s) in enumerate(zip(inputs, states))], "lp"
        if kind == "fp32":
            return [e if s == "fp32" or i in aux else self.cast(e, False)
                    for i, (e, s) in enumerate(zip(inputs, states))], "fp32"
        if kind == "widest" and len(inputs) > 1:
            if all(s == "lp" for s in states):
                return inputs, "lp"
            multi = Node(get_op("amp_multicast"), f"{_entry_name(*inputs[0])}_amp_multicast",
                         {"num_outputs": str(len(inputs))}, inputs)
            return [(multi, i) for i in range(len(inputs))], None
        common = set(states)
        return inputs, (states[0] if len(common) == 1 else None) if states else None


def _optional_lp_params(nodes, params, p):
    """Parameters every consumer of which takes them in low precision (at least one lp op, the rest
    lp or widest ops): stored in the target dtype instead of cast (``cast_optional_params``)."""
    uses = {}
    for n in nodes:
        if n.op is None:
            continue
        kind = p.kind(n)
        for src, _ in n.inputs:
            if src.op is None and src.name in params:
                uses.setdefault(src.name, []).append(kind)
    return {name for name, kinds in uses.items() if "lp" in kinds and set(kinds) <= {"lp", "widest"}}


def reduce_precision(sym, target_dtype, lists, excluded, data_names, cast_optional_params):
    """``sym`` with AMP casts inserted (see the module docstring). ``lists``: (target ops, float32 ops,
    conditional ops as (op, attribute, values), widest-type ops); ``data_names``: the float32 inputs;
    the other inputs are parameters and get a ``__dtype__`` attribute."""
    lp, fp32, cond, widest = lists
    p = _Pass(target_dtype, (set(lp), set(fp32), [(o, a, [str(v) for v in vs]) for o, a, vs in cond], set(widest)),
              excluded, cast_optional_params)
    old_nodes = topo_order(sym._outputs)
    data = set(data_names)
    params = {n.name for n in old_nodes if n.op is None and n.name not in data}
    lp_params = _optional_lp_params(old_nodes, params, p) if cast_optional_params else set()
    new = {}
    for n in old_nodes:
        if n.op is None:
            c = Node(None, n.name, n.attrs)
            c.meta = dict(n.meta)
            if n.name in lp_params:
                c.attrs["__dtype__"] = str(dtype_flag(p.target))
            elif n.name in params and "__dtype__" not in c.attrs:
                c.attrs["__dtype__"] = "0"
            flag = c.attrs.get("__dtype__")
            p.state[(c, 0)] = ("fp32" if n.name in data or flag == "0" else
                               "lp" if flag == str(dtype_flag(p.target)) else None)
            new[id(n)] = c
            continue
        inputs = [(new[id(src)], i) for src, i in n.inputs]
        inputs, out_state = p.rewrite(n, inputs)
        c = Node(n.op, n.name, n.attrs, inputs)
        c.meta = dict(n.meta)
        new[id(n)] = c
        for i in range(c.num_outputs()):
            p.state[(c, i)] = out_state
    heads = []
    for node, i in sym._outputs:
        e = (new[id(node)], i)
        heads.append(e if p.state.get(e) == "fp32" else p.cast(e, False))
    return Symbol(heads)


def check_lists(target_ops, fp32_ops, cond_ops, known):
    """MXNet's checks on user lists: no op in two lists, every op in one of the framework's lists."""
    cond_names = [c[0] for c in cond_ops]
    for (a, an), (b, bn) in (((target_ops, "target_dtype_ops"), (fp32_ops, "fp32_ops")),
                             ((target_ops, "target_dtype_ops"), (cond_names, "conditional_fp32_ops")),
                             ((cond_names, "conditional_fp32_ops"), (fp32_ops, "fp32_ops"))):
        common = set(a) & set(b)
        if common:
            raise MXNetError(f"Ops cannot be in two or more lists. Common ops in {an} and {bn}: {sorted(common)}")
    illegal = set(target_ops) | set(fp32_ops) | set(cond_names)
    illegal -= known
    if illegal:
        raise MXNetError(f"Can only choose ops from the lists of amp.list_lp16_ops, list_fp32_ops, "
                         f"list_lp16_fp32_ops and list_conditional_fp32_ops: {sorted(illegal)} not in any of them")
