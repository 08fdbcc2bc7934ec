"""The declarative fields of an ``OpDef`` (see ``ops/registry.py``'s docstring for what each
means and who asks it): ``NsName``, ``InlineRule``, ``OutKernel``, ``SideEffect``, ``Lowering``,
``Epilogue``, ``ChannelAffine``, ``BlockedLayout``, ``InputFusion``. Plain data: the registry and
the op files import them from here (or through ``registry``); the compiler reads them and knows no
op by name."""
from dataclasses import dataclass, field

__all__ = ["NsName", "InlineRule", "OutKernel", "SideEffect", "Lowering", "Epilogue", "ChannelAffine", "BlockedLayout",
           "InputFusion"]


@dataclass(frozen=True)
class NsName:
    """How an op appears in a NumPy-style namespace: its name there, keyword renames
    (``{"axis": "dim"}`` maps the user's ``axis=`` onto the op's ``dim``), attribute defaults that
    differ from the op's, and ``packed`` when the inputs are passed as one sequence
    (``np.concatenate([a, b])``)."""
    name: str
    rename: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    packed: bool = False
    args: tuple = ()   # attribute names that positional arguments after the inputs fill, in order


@dataclass(frozen=True)
class InlineRule:
    """How a generated CPU program computes an op without calling its kernel (a call costs
    microseconds of Python; small models are dominated by them).

    ``expression(a, site)`` returns the Python expression of one call, exactly the kernel's result,
    or ``None`` when it does not apply (then the program calls the kernel). The compiler asks only on
    the CPU, in programs without op hooks, when every input has one floating dtype. ``site``
    describes the call, and is all the text the rule may put together:

    * ``site.args``: the identifiers of the input values (made by the compiler's namer),
    * ``site.shapes``: the input shapes (``None`` where unknown), ``site.dtype``: their dtype,
    * ``site.out``: the identifier of the buffer a static memory plan writes the result into, or
      ``None``; ``site.out_arg`` is ``", out=<that name>"`` (or ``""``) to end a ufunc call with,
    * ``site.target``: the identifier the statement assigns the result to (``None`` when there is
      none), which the expression may bind an intermediate to first (``add(t := dot(...), b, out=t)``),
    * ``site.literal(value)``: the one writer of numbers (``compiler.source_text.literal``); no
      attribute text is ever spliced in,
    * ``site.zero_row(n)``: the name of a row of ``n`` zeros of ``site.dtype`` bound in the program,
    * ``site.arg_rows``: per input, the identifier of row 0 of the static plan buffer holding it, bound
      once, when the input is a ``(1, n)`` value in such a buffer (else ``None``); ``site.out_row``:
      the same for ``site.out`` (a rule writing through it returns the ``site.out`` array itself),
    * ``site.steady``: per input, whether it is a graph input of a predict program. A parameter's
      array stays the same call after call, so a rule may read a value derived from it and kept
      between calls, keyed by the array and dropped when it is written (``ops/kept_transpose.py``:
      a dense layer's transposed weight); a data input is a graph input too, so ask for the input
      that is a parameter in practice (FullyConnected asks for its weight's).

    The expression's value is a new array, the array ``site.out`` names, or a view of either: the
    program owns what an inline expression computed.

    ``functions``: the NumPy functions the expression calls, bound in the program under their
    ``__name__``; ``methods``: array methods it calls (``"sum"``), for the program's header note.
    ``inplace``: the expression computes element by element and honours ``site.out``, which may
    then name one of its own inputs: a plain CPU program writes the result over an input that dies
    at this call (a value the program computed, read by this call only, of the output's shape and
    dtype) instead of allocating a new array, as a hand-written ``np.multiply(a, b, out=a)`` would.

    >>> import numpy as np
    >>> rule = InlineRule(lambda a, site: f"multiply({site.args[0]}, {site.args[1]}{site.out_arg})",
    ...                   functions=(np.multiply,))
    >>> [f.__name__ for f in rule.functions]
    ['multiply']
    """
    expression: object
    functions: tuple = ()
    methods: tuple = ()
    inplace: bool = False


@dataclass(frozen=True)
class OutKernel:
    """The ``out=`` variant of an op's ``compute``: ``kernel(ctx, a, out, *inputs)`` writes the op's
    one output into ``out`` (preallocated, of the output's exact shape and dtype) and returns
    ``out``, with the same NumPy/CuPy calls as ``compute``. Static memory plans use it only when
    every input and the output share one floating dtype. ``applies(a)``: whether it covers these
    parsed attributes (all when ``None``); ``inplace``: ``out`` may be one of the inputs (elementwise
    ufuncs; never a matrix product).

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops.context import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> k = get_op("exp").out_kernel
    >>> buf = np.empty(2, np.float32)
    >>> k.kernel(op_context(mx.cpu(), False), {}, buf, np.zeros(2, np.float32)) is buf, buf.tolist(), k.inplace
    (True, [1.0, 1.0], True)
    """
    kernel: object
    applies: object = None
    inplace: bool = False

    def covers(self, a):
        """Whether the kernel computes the op with parsed attributes ``a``."""
        return self.applies is None or bool(self.applies(a))


@dataclass(frozen=True)
class SideEffect:
    """What an op's gradient changes besides returning the input gradients (BatchNorm in training
    mode updates its moving statistics in place). Compiled backward programs trace gradients over
    values without data, so the change is made by an explicit statement instead: ``update(a,
    *arrays)`` on the raw arrays ``reads`` names, each ``("output", i)`` (the forward's output
    ``i``, hidden ones counted) or ``("input", k)``. ``when(a, training)``: whether a call made in
    that mode has the effect; ``doc``: what changes, for the generated comment."""
    reads: tuple
    update: object
    when: object
    doc: str = ""

    def __post_init__(self):
        for read in self.reads:
            if not (isinstance(read, tuple) and len(read) == 2 and read[0] in ("output", "input")
                    and isinstance(read[1], int)):
                raise ValueError(f"SideEffect: reads expected ('output' | 'input', index) pairs, got {read!r}")


@dataclass(frozen=True)
class Lowering:
    """An elementwise op as one step of a fused kernel (``ops/fused.py``): the NumPy ufunc it is on
    the CPU (``ufunc``, a name of NumPy and CuPy), how its arguments are passed (``pattern``: ``"x"``
    the input, ``"xy"`` two inputs, ``"xs"`` input and the ``scalar`` attribute, ``"sx"`` scalar and
    input, ``"x0"`` input and 0), and its CUDA C expression over ``{0}``, ``{1}`` (the inputs) and
    ``{s}`` (the scalar), in the element type ``T``.

    >>> from hybridlab.ops.registry import get_op
    >>> get_op("_rminus_scalar").lowering
    Lowering(ufunc='subtract', pattern='sx', c_expr='({s} - {0})')
    """
    ufunc: str
    pattern: str
    c_expr: str

    def __post_init__(self):
        if self.pattern not in ("x", "xy", "xs", "sx", "x0"):
            raise ValueError(f"Lowering: pattern expected one of x, xy, xs, sx, x0, got {self.pattern!r}")


@dataclass(frozen=True)
class Epilogue:
    """What predict programs may run inside a call of an op, after its result (the inference passes,
    ``compiler/passes/fold_affine.py``, ``fuse_activation.py``, ``as_matmul.py``, ask it; they know
    no op by name). ``op`` names the fused op that runs it (or is its ``OpDef``): it takes this op's
    inputs and attributes plus the attributes ``affine`` (bool: two more inputs ``scale`` and
    ``shift`` follow, one value per channel, and the result is ``out * scale + shift``),
    ``act_type`` (``None`` or one of
    ``activations``, applied last) and ``gemm`` (bool: computed as one plain matrix product), and
    declares an ``Epilogue`` itself (so epilogues add up: affine, then activation).

    ``channel_axes(a)``: the axes of the output that are its channel axis (both signs: ``(1, -3)``
    for channel-first 2-D data), for per-channel affine maps; ``activations``: the kinds of
    ``OpDef.activation_kind`` the fused op applies; ``matmul(a)``: whether the op with parsed
    attributes ``a`` is one plain matrix product (a 1x1 convolution), or ``None``.

    >>> from hybridlab.ops.registry import get_op
    >>> e = get_op("Convolution").epilogue
    >>> a = get_op("Convolution").parse_attrs({"kernel": "(3, 3)", "num_filter": "2"})
    >>> e.op, e.activations, e.channel_axes(a)
    ('_FusedConvolution', ('relu',), (1, -3))
    """
    op: str
    channel_axes: object
    activations: tuple = ()
    matmul: object = None


@dataclass(frozen=True)
class ChannelAffine:
    """An op that in predict programs computes ``input0 * scale + shift``, one ``scale`` and
    ``shift`` value per channel along ``axis(a)`` of its output 0 (its other outputs, if any, are
    side values). ``scale_shift(F, a, inputs)`` returns ``(scale, shift)`` written with registered
    ops through the namespace ``F`` from the op's inputs (``inputs[0]`` is the data; passes call it
    with ``mx.sym`` on the graph's entries, so the values are computed on every call from the
    current parameters: nothing is frozen).

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import get_op
    >>> bn = get_op("BatchNorm")
    >>> a = bn.parse_attrs({"fix_gamma": "False", "eps": "0.5"})
    >>> ins = [mx.nd.ones((1, 2, 1, 1)), mx.nd.array([2.0, 1.0]), mx.nd.array([0.0, 1.0]),
    ...        mx.nd.array([1.0, 1.0]), mx.nd.array([3.5, 3.5])]
    >>> [v.asnumpy().tolist() for v in bn.predict_affine.scale_shift(mx.nd, a, ins)]
    [[1.0, 0.5], [-1.0, 0.5]]
    """
    axis: object
    scale_shift: object


@dataclass(frozen=True)
class BlockedLayout:
    """An op whose call can read its data (input 0) and write its output in a channel-blocked
    layout (``ops/blocked.py``) when attributes say so: the layout plan of predict programs
    (``compiler/passes/layout.py``) asks it, and knows no op by name. ``op`` names the op whose
    attributes take the blocks (``None``: this op; Convolution names ``_FusedConvolution``);
    ``in_attr`` and ``out_attr`` are those attributes (``out_attr=None``: the output is in the
    data's layout); ``applies(a, ndim)``: whether a call with parsed attributes ``a`` on data of
    ``ndim`` dimensions has its channels on axis 1 (channel-first), which a blocked layout needs;
    ``weight_cache_attr``: the attribute (of ``op``) telling the call that its input 1 (the weight)
    is a graph input, whose reordered copy oneDNN may keep between calls while it is not written.

    >>> from hybridlab.ops.registry import get_op
    >>> b = get_op("Convolution").blocked_layout
    >>> b.op, b.in_attr, b.out_attr, b.applies(get_op("Convolution").parse_attrs({"kernel": "(3, 3)",
    ...                                                                          "num_filter": "8"}), 4)
    ('_FusedConvolution', 'in_block', 'out_block', True)
    """
    applies: object
    op: object = None
    in_attr: str = "in_block"
    out_attr: object = "out_block"
    weight_cache_attr: object = None


@dataclass(frozen=True)
class InputFusion:
    """In a backward graph, a call of this op whose input ``input`` is output 0 of a call of the op
    named ``producer`` that nothing else reads is ONE call of the op named ``op`` (the gradient
    passes ask it, ``compiler/passes/fuse_gradients.py``; they know no op by name). The fused call
    reads the producer's inputs, then this op's other inputs, in order; ``attrs(a, producer_a,
    shapes)`` gives its attributes from the two calls' parsed attributes and its input shapes
    (``None`` where unknown), or ``None`` when these two calls do not fuse.

    >>> from hybridlab.ops.registry import get_op
    >>> f = get_op("_backward_log_softmax").input_fusion
    >>> f.producer, f.op, f.input
    ('_backward_pick', '_backward_pick_log_softmax', 0)
    """
    producer: str
    op: str
    attrs: object
    input: int = 0
