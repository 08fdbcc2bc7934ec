"""The graph pass of ``amp.convert_symbol``: a float32 Symbol rewritten with ``amp_cast`` /
``amp_multicast`` nodes where MXNet 1.9.1's ReducePrecision pass puts them (checked against real
MXNet, see tests/test_amp.py and tests/test_amp_bf16.py). The input symbol is left unchanged.

Walking the graph in order, an output entry may be known to be float32 or known to be in the target
dtype (float16 or bfloat16); variables are known only once cast. Then

* an op of the float32 list (or a node named in ``excluded_sym_names``) gets every input that is not
  known float32 and not a variable through ``amp_cast(dtype=float32)``; its outputs are float32,
* an op of the target list runs its type inference with the data in the target dtype; each input
  not known in the target dtype gets ``amp_cast(dtype=target)``, except inputs the op wants in
  another dtype (BatchNorm's float32 statistics), mutated inputs and, with ``cast_optional_params``,
  the parameters (which are then stored in the target dtype); its outputs take the inferred dtypes,
* an op of the widest-type list whose inputs all have a known dtype gets them cast to float32 (when
  any is float32) or to the target dtype; with an unknown input they all go through one
  ``amp_multicast`` and its outputs stay unknown,
* a conditional float32 op whose attribute matches gets every input not known float32 (variables
  too) through ``amp_cast(dtype=float32)``,
* any other op keeps its inputs; when its first input's dtype is known its type inference gives
  the dtypes of its outputs,
* each graph output not known float32 is cast to float32 at the end.

Casts of one entry to one dtype are shared. Cast nodes are named ``<entry>_amp_cast_<dtype>``,
multicasts ``<first entry>_amp_multicast``, where an entry is a variable's name or
``<node>_<output name>`` (``<node>_<index>`` for ops without MXNet output names). Afterwards the
parameters (the inputs that are not data) get a ``__dtype__`` attribute from type inference with the
data in float32; with ``cast_optional_params`` a parameter read only through casts to one dtype (or
only by multicasts of parameters) is stored in that dtype instead (MXNet's AMPInferUnknown).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.contrib.amp import amp
    >>> fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    >>> out = amp.convert_symbol(mx.sym.softmax(fc, name='sm'))
    >>> [n.name for n in out._nodes() if n.op is not None]
    ['data_amp_cast_float16', 'fc_weight_amp_cast_float16', 'fc_bias_amp_cast_float16', 'fc', 'fc_output_amp_cast_float32', 'sm']
"""
import numpy as _np

from ...base import MXNetError, dtype_flag, normalize_dtype
from ...ops import get_op
from ...symbol.graph import Node, topo_order
from ...symbol.subgraph_inline import expand
from ...symbol.symbol import Symbol

__all__ = ["reduce_precision", "AMPListError"]


class AMPListError(MXNetError, AssertionError):
    """Op lists that ``convert_symbol`` cannot use (an op in two lists, or in none of the framework's):
    an ``MXNetError`` that ``except AssertionError`` catches too, as MXNet asserts these."""

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


def _infer(node, first):
    """``node``'s op type inference with input 0 in ``first`` and the others unknown: the inferred
    input and output dtypes, or ``(None, None)`` when it fails."""
    dtypes = [first] + [None] * (len(node.inputs) - 1)
    try:
        outs = node.op.infer_type(node.parsed_attrs(), dtypes)
    except (MXNetError, ValueError, TypeError, KeyError, IndexError):
        return None, None
    return dtypes, list(outs or ())


class _Pass:
    def __init__(self, target, lists, excluded, data_names, cast_optional_params):
        self.target = _np.dtype(target)
        self.lp_ops, self.fp32_ops, self.cond_ops, self.widest_ops = lists
        self.excluded = set(excluded)
        self.data = set(data_names)
        self.cast_optional = cast_optional_params
        self.new = {}       # id(old node) -> its copy
        self.fp32 = {}      # (id(old node), index) -> new entry holding that value in float32
        self.lp = {}        # (id(old node), index) -> new entry holding that value in the target dtype

    def kind(self, node):
        if node.name in self.excluded:
            return "fp32"
        if node.op is None:
            return "var"
        names = _names(node.op)
        if names & self.fp32_ops:
            return "fp32"
        if names & self.lp_ops:
            return "lp"
        if names & self.widest_ops:
            return "widest"
        for op_name, attr, values in self.cond_ops:
            if op_name in names and str(node.attrs.get(attr, "")) in values:
                return "cond"
        return "any"

    def mirror(self, entry):
        return (self.new[id(entry[0])], entry[1])

    def cast(self, entry, to_lp):
        """The new entry of old ``entry`` cast to the target dtype (``to_lp``) or float32, shared."""
        table, dtype = (self.lp, self.target.name) if to_lp else (self.fp32, "float32")
        node = Node(get_op("amp_cast"), f"{_entry_name(*entry)}_amp_cast_{dtype}", {"dtype": dtype},
                    [self.mirror(entry)])
        table[(id(entry[0]), entry[1])] = (node, 0)
        return (node, 0)

    def mark(self, node, out_types):
        """Record ``node``'s outputs whose inferred dtype is the target or float32."""
        c = self.new[id(node)]
        for i, t in enumerate(out_types):
            if t is None:
                continue
            if _np.dtype(t) == self.target:
                self.lp[(id(node), i)] = (c, i)
            elif _np.dtype(t) == _np.float32:
                self.fp32[(id(node), i)] = (c, i)

    def visit(self, node):
        """Copy ``node`` with its inputs rewritten (see the module docstring)."""
        kind = self.kind(node)
        c = Node(node.op, node.name, node.attrs)
        c.meta = dict(node.meta)
        self.new[id(node)] = c
        if node.op is None:
            if kind == "fp32":
                self.fp32[(id(node), 0)] = (c, 0)
            return
        keys = [(id(src), i) for src, i in node.inputs]
        mutable = set(node.aux_input_indices())
        inputs = []
        if kind == "fp32":
            self.mark(node, [_np.dtype(_np.float32)] * node.num_outputs())
            for e, k in zip(node.inputs, keys):
                inputs.append(self.fp32[k] if k in self.fp32 else
                              self.mirror(e) if e[0].op is None else self.cast(e, False))
        elif kind == "lp":
            in_types, out_types = _infer(node, self.target)
            if in_types is None:
                raise MXNetError(f"amp: type inference of {node.op.name} node {node.name!r} failed with its "
                                 f"data in {self.target.name}")
            self.mark(node, out_types)
            for i, (e, k) in enumerate(zip(node.inputs, keys)):
                param = self.cast_optional and e[0].op is None and e[0].name not in self.data
                if k in self.lp:
                    inputs.append(self.lp[k])
                elif param or i in mutable or in_types[i] not in (None, self.target):
                    inputs.append(self.mirror(e))
                    if param:
                        self.lp[k] = self.mirror(e)
                else:
                    inputs.append(self.cast(e, True))
        elif kind == "widest" and any(k not in self.lp and k not in self.fp32 for k in keys):
            multi = Node(get_op("amp_multicast"), f"{_entry_name(*node.inputs[0])}_amp_multicast",
                         {"num_outputs": str(len(keys))}, [self.mirror(e) for e in node.inputs])
            inputs = [(multi, i) for i in range(len(keys))]
        elif kind == "widest":
            to_lp = not any(k in self.fp32 for k in keys)
            table = self.lp if to_lp else self.fp32
            self.mark(node, [self.target if to_lp else _np.dtype(_np.float32)] * node.num_outputs())
            inputs = [table[k] if k in table else self.cast(e, to_lp) for e, k in zip(node.inputs, keys)]
        elif kind == "cond":
            self.mark(node, [_np.dtype(_np.float32)] * node.num_outputs())
            for i, (e, k) in enumerate(zip(node.inputs, keys)):
                inputs.append(self.fp32[k] if k in self.fp32 else
                              self.mirror(e) if i in mutable else self.cast(e, False))
        else:
            if keys and (keys[0] in self.lp or keys[0] in self.fp32):
                first = self.target if keys[0] in self.lp else _np.dtype(_np.float32)
                in_types, out_types = _infer(node, first)
                if out_types is not None:
                    self.mark(node, out_types)
            inputs = [self.mirror(e) for e in node.inputs]
        c.inputs = inputs

    def heads(self, outputs):
        return [self.fp32.get((id(n), i)) or self.cast((n, i), False) for n, i in outputs]


def _optional_dtypes(new_nodes, inferred, target):
    """MXNet's AMPInferUnknown: variables of unknown dtype read by ``amp_cast`` take its dtype (and
    those read only by multicasts of variables the target dtype); a variable cast to two dtypes keeps
    its inferred one."""
    result, visited = dict(inferred), {}

    def update(var, dtype):
        if var.name not in visited:
            if result.get(var.name) is None:
                visited[var.name] = dtype
                result[var.name] = dtype
        elif visited[var.name] != dtype:
            result[var.name] = inferred.get(var.name)

    for n in new_nodes:
        if n.op is None:
            continue
        if n.op.name == "amp_cast":
            for src, _ in n.inputs:
                if src.op is None:
                    update(src, normalize_dtype(n.parsed_attrs()["dtype"]))
        elif n.op.name == "amp_multicast" and all(src.op is None for src, _ in n.inputs):
            for src, _ in n.inputs:
                update(src, target)
    return result


def reduce_precision(sym, target_dtype, lists, excluded, data_names, cast_optional_params):
    """``sym`` with AMP casts inserted (see the module docstring). ``lists``: (target ops, float32 ops,
    conditional ops as (op, attribute, values), widest-type ops); ``data_names``: the float32 inputs;
    the other inputs are parameters and get a ``__dtype__`` attribute."""
    lp, fp32, cond, widest = lists
    sym = expand(sym)        # a _CachedOp node (autograd.get_symbol's graph): its ops get the casts
    p = _Pass(target_dtype, (set(lp), set(fp32), [(o, a, [str(v) for v in vs]) for o, a, vs in cond], set(widest)),
              excluded, data_names, cast_optional_params)
    for n in topo_order(sym._outputs):
        p.visit(n)
    out = Symbol(p.heads(sym._outputs))
    _set_param_dtypes(out, data_names, p.target, cast_optional_params)
    return out


def _set_param_dtypes(out, data_names, target, cast_optional_params):
    """The ``__dtype__`` of the parameters (of the inputs that had one when ``data_names`` names every
    input): type inference with the data in float32 and the ``__dtype__`` attributes ignored, as
    MXNet's, an unknown dtype meaning float32."""
    data = set(data_names)
    variables = [n for n in topo_order(out._outputs) if n.op is None]
    params = {n.name for n in variables if n.name not in data}
    had = {n.name: n.attrs.pop("__dtype__") for n in variables if "__dtype__" in n.attrs}
    try:
        args, _, auxs = out.infer_type_partial(**{n.name: "float32" for n in variables if n.name in data})
        inferred = dict(zip(out.list_arguments() + out.list_auxiliary_states(), list(args) + list(auxs)))
    except MXNetError:
        inferred = {}
    if cast_optional_params:
        inferred = _optional_dtypes(topo_order(out._outputs), inferred, target)
    for n in variables:
        if (n.name in params) if params else (n.name in had):
            dt = inferred.get(n.name)
            n.attrs["__dtype__"] = str(dtype_flag(dt) if dt is not None else 0)
        elif n.name in had:
            n.attrs["__dtype__"] = had[n.name]


def check_lists(target_ops, fp32_ops, cond_ops, known):
    """MXNet's checks on user lists: no op in two lists, every op in one of the framework's lists."""
    cond_names = [c[0] for c in cond_ops]
    for (a, an), (b, bn) in (((target_ops, "target_dtype_ops"), (fp32_ops, "fp32_ops")),
                             ((target_ops, "target_dtype_ops"), (cond_names, "conditional_fp32_ops")),
                             ((cond_names, "conditional_fp32_ops"), (fp32_ops, "fp32_ops"))):
        common = set(a) & set(b)
        if common:
            raise AMPListError(f"Ops cannot be in two or more lists. Common ops in {an} and {bn}: {sorted(common)}")
    illegal = set(target_ops) | set(fp32_ops) | set(cond_names)
    illegal -= known
    if illegal:
        raise AMPListError(f"Can only choose ops from the lists of amp.list_lp16_ops, list_fp32_ops, "
                         f"list_lp16_fp32_ops and list_conditional_fp32_ops: {sorted(illegal)} not in any of them")
