"""The one operator registry: every op is an ``OpDef`` defined once, from which the ``nd``, ``np``,
``npx`` (and later ``sym``) namespaces are generated.

An op definition holds
  * its name, aliases, and the names it has in ``mx.np`` / ``mx.npx`` (``NsName``),
  * its inputs (names, or variadic with a ``num_args`` attribute) and which of them are auxiliary
    (mutated) states; ``count_attr`` names the attribute that says how many groups of inputs an op
    takes when their number is not ``num_args`` (the multi-tensor optimizer updates' ``num_weights``:
    ``weight_0, grad_0, weight_1, grad_1, ...``): binders then take every leading positional tensor
    as an input and the attributes by keyword only, as MXNet's ``op(*data, **kwargs)``,
  * an attribute schema with MXNet's op-level defaults (``Attr``) and ``bounds``: the inclusive
    ranges MXNet's parameter checks enforce (``{"p": (0, 1), "num_hidden": (1, None)}``; ``None``
    leaves a side open; for shape and tuple attributes every element is checked), checked where the
    attributes are parsed, so imperative calls, graph building and model files all refuse them,
  * ``compute(ctx, a, *arrays)``: xp-generic code (``ctx.xp`` is numpy or cupy) returning one array
    or a tuple of all outputs (hidden ones included),
  * ``infer_shape(a, in_shapes)`` and ``infer_type(a, in_dtypes)``: no data needed; they may fill
    unknown (``None``) input entries in place (parameter shapes) and return the output list,
  * ``infer_partial(a, in_shapes, out_shapes)``: MXNet's rule for symbolic partial inference (a 0
    dimension is unknown), asked there only, before ``infer_shape``: it fills unknown input entries
    in place from the known outputs (``out_shapes``, one per output, ``None`` when unknown: a
    transpose's input from its output, a Convolution's batch and stride-1 spatial sizes) and
    returns ``False`` when MXNet infers nothing for the node yet (``where`` with an unknown
    condition). Without it, ops whose ``infer_shape`` is ``same_shape`` / ``unary_shape`` give
    their inputs the output's shape.
  * ``grad(F, a, inputs, outputs, ograds)``: input gradients written with registered ops through
    the namespace ``F`` (``mx.nd`` now, ``mx.sym`` for graph-level backward), ``None`` for inputs
    without a gradient. An op without ``grad`` is not differentiable. Callers run it through
    ``OpDef.gradient``, which also passes the forward's training mode as ``training=`` to the ops
    declaring ``grad_mode`` (a gradient that differs by mode: BatchNorm's, rrelu's), so no gradient
    reads a global mode.
  * ``zero_grad``: a non-differentiable op (no ``grad``) that autograd still records, giving its
    inputs a zero gradient (MXNet's ``MakeZeroGradNodes``: comparisons, logical ops, one_hot,
    shape_array, ...), so ``(x > 1).backward()`` writes zeros instead of raising. Graph passes skip
    such ops, as they skip every op without ``grad``.
  * properties passes rely on, as booleans or predicates on the parsed attributes: ``monotone``
    (elementwise, non-decreasing, exactly order-preserving where it is not flat and with a zero
    gradient where it is: relu) and ``window_max`` (the maximum of windows of its one input: max
    pooling), so that ``window_max(monotone(x)) == monotone(window_max(x))``, gradients included.
  * ``train_variant``: ``(op name, input name)`` of a variant with the same inputs, attributes and
    visible outputs plus a hidden workspace its gradient for that input reads instead of rebuilding
    it (Convolution: ``("_Convolution_columns", "weight")``), optionally followed by a predicate
    ``applies(a, in_shapes, device)`` when the variant covers some cases only (Pooling's) or pays
    on some devices only (Convolution's); compiled training
    steps may run it (``compiler.passes.train_variants``).

What the compiler asks an op (it knows no op by name; each field is ``None`` for ops without it):

  * ``inline``: an ``InlineRule``: the op's call written as a NumPy expression in generated CPU
    programs (no kernel call: dense layers, relu and their gradients in small models),
  * ``out_kernel``: an ``OutKernel``: the ``out=`` variant of ``compute`` that static memory plans
    (``static_alloc``) call with a preallocated buffer, and whether that buffer may be an input,
  * ``train_side_effect``: a ``SideEffect``: what the gradient changes besides returning input
    gradients (BatchNorm's moving statistics), run as an explicit statement by compiled backward
    programs, whose traced gradients see no data,
  * ``lowering``: a ``Lowering``: the op as one step of a fused elementwise kernel (NumPy ufunc and
    C expression); ops with one are what the fusion pass fuses (``ops/fused.py``),
  * ``epilogue``: an ``Epilogue``: the op whose call can also run what follows it in predict programs
    (a per-channel affine map, an activation) and take a plain matrix-product form (Convolution,
    its fused form ``_FusedConvolution``); the inference passes rewrite producers that declare one,
  * ``predict_affine``: a ``ChannelAffine``: in predict programs the op's output 0 is its input 0
    times a per-channel scale plus a shift computed from its other inputs (BatchNorm: the moving
    statistics); the inference passes fold such an op into a producer with an ``Epilogue``,
  * ``elementwise_activation``: the activation kind (``"relu"``) the op applies to its one input, as
    a string or a predicate on the parsed attributes returning one or ``None``: an ``Epilogue``
    lists the kinds its fused op runs (``OpDef.activation_kind`` asks),
  * ``blocked_layout``: a ``BlockedLayout``: the op (or its fused form) reads and writes
    channel-blocked layouts when attributes say so (convolutions, ``_ChannelAffine``); the layout
    plan of predict programs keeps values in oneDNN's blocked layout between such ops,
  * ``input_fusion``: an ``InputFusion``: in backward graphs, this op's call together with the call
    producing one of its inputs is one call of a fused op (log_softmax's gradient after pick's:
    softmax cross-entropy's gradient in one kernel call),
  * ``subgraph_inputs``: the op's node carries a graph (``Node.subgraphs[0]``) whose inputs and
    outputs are the node's (``_CachedOp``); ``symbol.subgraph_inline.expand`` replaces such nodes
    by their graphs where a Symbol enters inference or compilation, so no pass meets one.

Example (the shape of every op file)::

    register(OpDef("negative", family="elemwise", compute=lambda ctx, a, x: -x,
                   infer_shape=same_shape, grad=lambda F, a, ins, outs, og: [F.negative(og[0])]))
"""
from ..base import MXNetError
from .attrs import MAX_ATTR_CHARS, REQUIRED, Attr
from .op_fields import (BlockedLayout, ChannelAffine, Epilogue, InlineRule, InputFusion, Lowering, NsName,  # noqa: F401
                        OutKernel, SideEffect)

__all__ = ["OpDef", "NsName", "InlineRule", "OutKernel", "SideEffect", "Lowering", "Epilogue", "ChannelAffine", "BlockedLayout",
           "InputFusion",
           "register", "get_op",
           "find_op", "all_ops", "OPS"]

OPS = {}        # canonical name -> OpDef
_ALIASES = {}   # every name an op answers to (canonical and aliases) -> OpDef

# Op families (tinygrad-style groups): passes ask "is this op elementwise?", never "is this add?".
FAMILIES = ("elemwise", "broadcast", "reduce", "shape", "index", "linalg", "nn", "conv", "pool", "norm",
            "rnn", "random", "creation", "loss", "internal")


def _same_dtype(a, dtypes):
    """Default type inference: all inputs and outputs share the first known dtype."""
    known = next((d for d in dtypes if d is not None), None)
    for i, d in enumerate(dtypes):
        if d is None:
            dtypes[i] = known
    return [known]


class OpDef:
    """One operator. See the module docstring for the meaning of each field. The fields the compiler
    asks, given where the op is defined, are ``None`` or an object whose class documents it:
    ``inline`` (``InlineRule``), ``out_kernel`` (``OutKernel``), ``train_side_effect``
    (``SideEffect``), ``lowering`` (``Lowering``), ``epilogue`` (``Epilogue``) and
    ``predict_affine`` (``ChannelAffine``), ``input_fusion`` (``InputFusion``); ``train_variant``
    names another op.

    >>> fc = get_op("FullyConnected")
    >>> [f.__name__ for f in fc.inline.functions], fc.out_kernel.inplace, fc.lowering is None
    (['dot', 'add', 'transposed'], False, True)
    >>> get_op("BatchNorm").train_side_effect.doc
    'moving statistics updated in place'
    """

    def __init__(self, name, *, compute, infer_shape, inputs=("data",), attrs=None, grad=None,
                 infer_type=None, aliases=(), np=(), npx=(), aux=(), num_outputs=1, num_visible=None,
                 output_names=None, family="elemwise", doc="", variadic=False, needs_train=False,
                 needs_rng=False, hidden=False, no_grad_reason="", device_attr=None, dynamic_shape=False,
                 all_inputs=None, random=(), np_random=(), monotone=False, window_max=False,
                 train_variant=None, zero_grad=False, bounds=None, grad_mode=False, inline=None,
                 out_kernel=None, train_side_effect=None, lowering=None, open_attrs=False, count_attr=None,
                 var_init=None, infer_partial=None, epilogue=None, predict_affine=None,
                 elementwise_activation=None, subgraph_inputs=False, blocked_layout=None, input_fusion=None):
        self.name = name
        self.inputs = inputs
        self.variadic = variadic
        self.attrs = dict(attrs or {})
        self.open_attrs = bool(open_attrs)   # other keywords are kept as strings (Custom's)
        # {input name: initializer JSON} given to a variable input without an ``__init__`` when a
        # Symbol is composed (MXNet's FSetInputVarAttrOnCompose: BatchNorm's moving_var is "one")
        self.var_init = dict(var_init or {})
        if variadic and "num_args" not in self.attrs:
            self.attrs["num_args"] = Attr("int")
        if count_attr is not None and (variadic or count_attr not in self.attrs or not callable(inputs)):
            raise ValueError(f"{name}: count_attr expects an attribute of a non-variadic op whose inputs "
                             f"depend on it, got {count_attr!r}")
        self.count_attr = count_attr    # inputs counted by this attribute: see the module docstring
        self.bounds = dict(bounds or {})
        for k in self.bounds:
            if k not in self.attrs:
                raise ValueError(f"{name}: bounds for unknown attribute {k!r}")
        self.compute = compute
        self.infer_shape = infer_shape
        self.infer_type = infer_type or _same_dtype
        self.infer_partial = infer_partial      # partial symbolic inference only: see the module docstring
        self.grad = grad
        self.grad_mode = bool(grad_mode)   # grad takes the forward's mode as ``training=``
        self.zero_grad = bool(zero_grad) and grad is None
        self.aliases = tuple(aliases)
        self.np_names = tuple(n if isinstance(n, NsName) else NsName(n) for n in _as_tuple(np))
        self.npx_names = tuple(n if isinstance(n, NsName) else NsName(n) for n in _as_tuple(npx))
        self.random_names = tuple(n if isinstance(n, NsName) else NsName(n) for n in _as_tuple(random))
        self.np_random_names = tuple(n if isinstance(n, NsName) else NsName(n) for n in _as_tuple(np_random))
        # every input an op can take, in order (for keyword inputs when ``inputs`` depends on attrs)
        self.all_inputs = tuple(all_inputs) if all_inputs is not None else (
            inputs if not callable(inputs) else None)
        self.aux = aux if callable(aux) else tuple(aux)
        self.num_outputs = num_outputs
        self.num_visible = num_visible if num_visible is not None else num_outputs
        self._output_names = output_names
        if family not in FAMILIES:
            raise ValueError(f"{name}: unknown family {family!r}")
        self.family = family
        self.doc = doc
        self.needs_train = needs_train
        self.needs_rng = needs_rng
        self.hidden = hidden            # internal helper ops: in the registry, not in nd's public listing
        self.no_grad_reason = no_grad_reason  # why an op has no gradient (shown by the op checker)
        self.device_attr = device_attr      # attribute naming the output device (creation ops: "ctx")
        self.dynamic_shape = dynamic_shape  # output shape depends on values (boolean_mask, unique)
        self._monotone, self._window_max = monotone, window_max
        self.train_variant = train_variant
        for key, value, kind in (("inline", inline, InlineRule), ("out_kernel", out_kernel, OutKernel),
                                 ("train_side_effect", train_side_effect, SideEffect),
                                 ("lowering", lowering, Lowering), ("epilogue", epilogue, Epilogue),
                                 ("predict_affine", predict_affine, ChannelAffine),
                                 ("blocked_layout", blocked_layout, BlockedLayout),
                                 ("input_fusion", input_fusion, InputFusion)):
            if value is not None and not isinstance(value, kind):
                raise ValueError(f"{name}: {key} expected a {kind.__name__} or None, got {value!r}")
        self.inline = inline                        # what the compiler asks: see the module docstring
        self.out_kernel = out_kernel
        self.train_side_effect = train_side_effect
        self.lowering = lowering
        self.epilogue = epilogue
        self.predict_affine = predict_affine
        self.blocked_layout = blocked_layout
        self.input_fusion = input_fusion
        self._activation = elementwise_activation
        self.subgraph_inputs = bool(subgraph_inputs)
        self._attr_cache = {}
        self._attr_keys = {}          # id(parsed attributes cached) -> ("kw", the keywords' key they came from)
        # (id(attrs), input shapes, NumPy shape semantics) -> attrs: shapes this op's inference accepted
        # imperatively (the value keeps the attrs dict alive, so its id stays its own; see dispatch)
        self.shapes_checked = {}
        # fixed input count (None when it depends on attributes): saves a call on the hot path
        self.n_inputs = None if (variadic or callable(inputs)) else len(inputs)

    # ---- structure -------------------------------------------------------------------------
    @property
    def differentiable(self):
        return self.grad is not None

    def gradient(self, F, a, inputs, outputs, ograds, training):
        """The input gradients of one call of the op made in mode ``training`` (the one way every
        caller runs ``grad``): ``training=`` goes to the gradients that declare ``grad_mode``.

        >>> import hybridlab as mx
        >>> x, g = mx.nd.array([-2.0, 3.0]), mx.nd.array([1.0, 1.0])
        >>> y, mask = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.2, upper_bound=0.4)
        >>> op = get_op("LeakyReLU")
        >>> a = op.parse_attrs({"act_type": "rrelu", "lower_bound": 0.2, "upper_bound": 0.4})
        >>> dx, = op.gradient(mx.nd, a, [x], [y, mask], [g, mx.nd.zeros_like(mask)], training=False)
        >>> [round(v, 4) for v in dx.asnumpy().tolist()]   # predict mode: the mean slope 0.3
        [0.3, 1.0]
        """
        if self.grad_mode:
            return self.grad(F, a, inputs, outputs, ograds, training=training)
        return self.grad(F, a, inputs, outputs, ograds)

    def input_names(self, a):
        """Input names for parsed attributes ``a`` (``arg0..`` for variadic ops)."""
        if self.variadic:
            return tuple(f"arg{i}" for i in range(a["num_args"]))
        return self.inputs(a) if callable(self.inputs) else self.inputs

    def aux_names(self, a):
        aux = self.aux(a) if callable(self.aux) else self.aux
        return tuple(n for n in self.input_names(a) if n in aux)

    def n_outputs(self, a):
        return self.num_outputs(a) if callable(self.num_outputs) else self.num_outputs

    def n_visible(self, a):
        return self.num_visible(a) if callable(self.num_visible) else self.num_visible

    def output_names(self, a):
        """Names of the visible outputs (``output``, ``output0``.., or op-specific names)."""
        if self._output_names is not None:
            return tuple(self._output_names(a) if callable(self._output_names) else self._output_names)
        n = self.n_visible(a)
        return ("output",) if n == 1 else tuple(f"output{i}" for i in range(n))

    def monotone(self, a):
        """Whether the op with parsed attributes ``a`` is an elementwise non-decreasing function (see
        the module docstring)."""
        return self._monotone(a) if callable(self._monotone) else bool(self._monotone)

    def window_max(self, a):
        """Whether the op with parsed attributes ``a`` takes maxima over windows of its input."""
        return self._window_max(a) if callable(self._window_max) else bool(self._window_max)

    def activation_kind(self, a):
        """The elementwise activation (``"relu"``) the op with parsed attributes ``a`` applies to its
        one input, or ``None`` (see ``elementwise_activation`` in the module docstring).

        >>> act = get_op("Activation")
        >>> act.activation_kind(act.parse_attrs({"act_type": "relu"})), get_op("relu").activation_kind({})
        ('relu', 'relu')
        >>> act.activation_kind(act.parse_attrs({"act_type": "tanh"})), get_op("exp").activation_kind({}) is None
        ('tanh', True)
        """
        kind = self._activation(a) if callable(self._activation) else self._activation
        return kind or None

    # ---- attributes ------------------------------------------------------------------------
    def parse_attrs(self, kwargs):
        """All attributes as Python values, defaults filled in; a clear error for unknown or missing
        ones. Results are cached by the (hashable) keyword values, so repeated calls cost a lookup."""
        try:
            key = tuple(kwargs.items())
            cached = self._attr_cache.get(key)
            if cached is not None:
                return cached
        except TypeError:  # an unhashable value (a list): parse without caching
            key = None
        parsed = {}
        schema = self.attrs
        for k, v in kwargs.items():
            spec = schema.get(k)
            if spec is None:
                if k.startswith("__") and k.endswith("__"):
                    continue  # hidden MXNet keys (__layout__, __lr_mult__, ...) are not op attributes
                if self.open_attrs:
                    parsed[k] = _open_attr(self.name, k, v)
                    continue
                if not schema:
                    _ignored(self.name, k)      # MXNet ignores keywords given to ops without attributes
                    continue
                raise MXNetError(f"{self.name}: unknown attribute '{k}'; valid attributes are: "
                                 f"{', '.join(schema) or '(none)'}")
            parsed[k] = spec.parse(v, self.name, k)
        for k, spec in schema.items():
            if k not in parsed:
                if spec.default is REQUIRED:
                    raise MXNetError(f"{self.name}: required attribute '{k}' ({spec.describe()}) is missing")
                parsed[k] = spec.default
        for k in self.bounds:
            if k in kwargs and not self._within(k, parsed[k]):   # defaults are in range
                raise MXNetError(f"{self.name}: attribute '{k}' expected {self.bound_text(k)}, "
                                 f"got {kwargs[k]!r}")
        if key is not None and len(self._attr_cache) < 4096:
            self._attr_cache[key] = parsed
            self._attr_keys[id(parsed)] = ("kw",) + key      # (never equal to a tuple of items)
        return parsed

    def attrs_key(self, a):
        """A hashable key of the parsed attributes ``a``: the keywords they were parsed from when
        ``parse_attrs`` cached them (a lookup), else their items.

        >>> op = get_op("sum")
        >>> op.attrs_key(op.parse_attrs({"axis": 1})) == op.attrs_key(op.parse_attrs({"axis": 1}))
        True
        """
        return self._attr_keys.get(id(a)) or tuple(a.items())

    def _within(self, k, value):
        if value is None:                       # an optional attribute left unset
            return True
        lo, hi = self.bounds[k]
        values = value if isinstance(value, tuple) else (value,)
        return all((lo is None or v >= lo) and (hi is None or v <= hi) for v in values)

    def bound_text(self, k):
        """What attribute ``k``'s bounds expect, as a phrase ("a value in [0, 1]", "a value >= 1")."""
        lo, hi = self.bounds[k]
        each = "values" if self.attrs[k].kind in ("shape", "floats") else "a value"
        if lo is not None and hi is not None:
            return f"{each} in [{lo}, {hi}]"
        return f"{each} >= {lo}" if lo is not None else f"{each} <= {hi}"

    def attr_problem(self, k, value):
        """``None`` when ``value`` is a valid value of attribute ``k``, else what was expected
        (for callers that name the value their own way: a Gluon layer's constructor argument).

        >>> get_op("Dropout").attr_problem("p", 1.5)
        'expected a value in [0, 1]'
        >>> get_op("FullyConnected").attr_problem("num_hidden", 4) is None
        True
        """
        spec = self.attrs[k]
        try:
            parsed = spec.parse(value, self.name, k)
        except MXNetError:
            text = spec.describe()      # the kind without ", required" / ", optional, default=..."
            ends = [j for j in (text.find(", required"), text.find(", optional")) if j >= 0]
            return f"expected {text[:min(ends, default=len(text))]}"
        if k in self.bounds and not self._within(k, parsed):
            return f"expected {self.bound_text(k)}"
        return None

    def format_attrs(self, kwargs):
        """MXNet attribute strings for the explicitly given keywords (what a symbol JSON stores)."""
        return {k: self.attrs[k].format(v) if k in self.attrs else str(v) for k, v in kwargs.items()}

    # ---- inference -------------------------------------------------------------------------
    def infer(self, a, in_shapes, in_dtypes):
        """Output shapes and dtypes (all outputs). ``in_shapes``/``in_dtypes`` are lists that unknown
        parameter entries may be filled into."""
        return self.infer_shape(a, in_shapes), self.infer_type(a, in_dtypes)

    def signature_doc(self):
        lines = [f"{self.name}({', '.join(self.inputs if not callable(self.inputs) else ('...',))}"
                 f"{', ' if self.attrs else ''}{', '.join(self.attrs)})", ""]
        if self.doc:
            lines += [self.doc.strip(), ""]
        if self.attrs:
            lines.append("Attributes:")
            lines += [f"    {k}: {spec.describe()}" + (f", {self.bound_text(k)}" if k in self.bounds else "")
                      + (f" -- {spec.doc}" if spec.doc else "") for k, spec in self.attrs.items()]
        return "\n".join(lines)

    def __repr__(self):
        return f"<OpDef {self.name} family={self.family}>"


def _ignored(op_name, k):
    import warnings
    warnings.warn(f"{op_name} takes no attributes: '{k}' is ignored (as MXNet ignores it)", stacklevel=4)


def _open_attr(op_name, k, v):
    """A free keyword of an ``open_attrs`` op: MXNet's ``str(value)``, bounded like every attribute."""
    text = v if isinstance(v, str) else str(v)
    if len(text) > MAX_ATTR_CHARS:
        raise MXNetError(f"{op_name}: attribute '{k}' expected at most {MAX_ATTR_CHARS} characters, "
                         f"got {len(text)}")
    return text


def _as_tuple(v):
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return (v,) if v else ()


def register(op):
    """Add ``op`` to the registry under its name and aliases; a name may be registered once."""
    for n in (op.name,) + op.aliases:
        if n in _ALIASES:
            raise ValueError(f"operator name {n!r} is registered twice ({_ALIASES[n].name} and {op.name})")
        _ALIASES[n] = op
    OPS[op.name] = op
    return op


def find_op(name):
    """The ``OpDef`` answering to ``name`` (canonical or alias), or ``None``."""
    return _ALIASES.get(name)


def get_op(name):
    """The ``OpDef`` answering to ``name``; ``MXNetError`` naming close matches if there is none."""
    op = _ALIASES.get(name)
    if op is None:
        import difflib
        close = difflib.get_close_matches(name, list(_ALIASES), n=5)
        raise MXNetError(f"unknown operator {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return op


def all_ops():
    """Every registered op (canonical names), in registration order."""
    return list(OPS.values())


def registered_count():
    """How many ops are registered (ops are only ever added: a cache of what they hold can key on it)."""
    return len(OPS)


def all_names():
    return dict(_ALIASES)
