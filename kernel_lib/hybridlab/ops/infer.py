"""Shape-inference helpers shared by op definitions.

Shapes are tuples; an unknown shape is ``None`` and an unknown dimension is ``0`` (MXNet's legacy
convention, used by deferred parameter initialisation). Inference functions raise ``InferError``
naming the offending input (an ``MXNetError``); the dispatcher rewrites it with the op's name.
"""

from ..base import MXNetError

__all__ = ["InferError", "merge_shape", "same_shape", "broadcast_shape", "known", "unary_shape",
           "normalize_axis", "prod"]


class InferError(MXNetError):
    """Input ``arg`` (an index or a name) is ``got`` where ``expected`` was required; ``why`` says
    why. Inference code raises it without knowing the op: the places that know the op (imperative
    dispatch, tracing, graph inference, the cached op build) rewrite it naming the op and the input
    (``ndarray.dispatch.shape_error``); its own text is readable too. It is an ``MXNetError``, so an
    error that escapes anyway is still caught by ``except mx.MXNetError``.

    >>> from hybridlab.ops.infer import InferError
    >>> err = InferError(0, "an input with more than 99 dimensions (axis=99)", "ndim 2")
    >>> print(err)
    input 0: expected an input with more than 99 dimensions (axis=99), got ndim 2
    >>> print(InferError(1, (2, 3), (3, 2), "all inputs must have the same shape"))
    input 1: expected shape (2, 3), got (3, 2) (all inputs must have the same shape)

    ``alone=True``: the input is wrong whatever the other inputs turn out to be (it was checked
    against the attributes only, such as a kernel larger than the padded input), so partial
    inference reports it instead of waiting for the unknown inputs.
    """

    def __init__(self, arg, expected, got, why="", alone=False):
        super().__init__(arg, expected, got, why, alone)     # the fields as args: the error pickles
        self.arg, self.expected, self.got, self.why, self.alone = arg, expected, got, why, alone

    def expected_text(self, what="shape"):
        """What was expected, as a phrase: ``shape (2, 3)``, ``shape with 8 elements``, or the
        description itself (``an input with more than 2 dimensions``)."""
        e = self.expected
        if isinstance(e, (tuple, list)) or (isinstance(e, str) and e.startswith(("with ", "of ", "("))):
            return f"{what} {e}"
        return str(e)

    def __str__(self):
        arg = f"input {self.arg}" if isinstance(self.arg, int) else f"input {self.arg!r}"
        return f"{arg}: expected {self.expected_text()}, got {self.got}" + (f" ({self.why})" if self.why else "")


def known(shape):
    """True when ``shape`` and all its dimensions are known (no ``None``, no 0 dimension)."""
    return shape is not None and 0 not in shape


def prod(dims):
    out = 1
    for d in dims:
        out *= d
    return out


def merge_shape(in_shapes, i, expected, why=""):
    """Check input ``i`` against ``expected`` (0 = any dimension) and fill what is unknown.
    ``why`` (a string, or a callable building one: only called on error) explains the expectation."""
    got = in_shapes[i]
    if got == expected:
        return got
    if got is None:
        in_shapes[i] = tuple(expected)
        return in_shapes[i]
    if len(got) != len(expected) or any(e and g and e != g for e, g in zip(expected, got)):
        raise InferError(i, tuple(expected), tuple(got), why() if callable(why) else why)
    in_shapes[i] = tuple(g or e for e, g in zip(expected, got))
    return in_shapes[i]


def same_shape(a, in_shapes):
    """All inputs and the one output share a shape (elementwise ops without broadcasting)."""
    ref = next((s for s in in_shapes if s is not None), None)
    if ref is None:
        return [None]
    for i in range(len(in_shapes)):     # known dimensions of every input complete the reference
        ref = merge_shape(in_shapes, i, ref, "all inputs must have the same shape")
    for i in range(len(in_shapes)):     # ... and then every input
        merge_shape(in_shapes, i, ref, "all inputs must have the same shape")
    return [in_shapes[0]]


def unary_shape(a, in_shapes):
    return [in_shapes[0]]


def broadcast_shape(lhs, rhs, arg=1):
    """NumPy broadcasting of two shapes; ``InferError`` on input ``arg`` when they do not broadcast."""
    if lhs is None or rhs is None:
        return None
    if lhs == rhs:
        return tuple(lhs)
    n = max(len(lhs), len(rhs))
    a = (1,) * (n - len(lhs)) + tuple(lhs)
    b = (1,) * (n - len(rhs)) + tuple(rhs)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise InferError(arg, f"a shape broadcastable with {tuple(lhs)}", tuple(rhs))
    return tuple(out)


def normalize_axis(axis, ndim, arg=0):
    """``axis`` in ``[0, ndim)``; negative axes count from the end."""
    if not -ndim <= axis < max(ndim, 1):
        raise InferError(arg, f"an input with more than {axis if axis >= 0 else -axis - 1} dimensions "
                              f"(axis={axis})", f"ndim {ndim}")
    return axis % ndim if ndim else 0
