"""``mxnet._numpy_op_doc``: the NumPy signature of each builtin ``mx.np`` / ``mx.npx`` function
that is a registered operator named ``_np_<name>`` / ``_npx_<name>``, written as a Python function
of that name (``_np_sum`` documents ``mx.np.sum``). The generated functions of the registry have
the op's attribute names as parameters; ``numpy_op_signature`` gives each function named here
the signature written here, so ``inspect.signature(mx.np.sum)`` reads as NumPy's. The bodies do
nothing: these functions are documentation, never called.

Example::

    >>> import inspect
    >>> import hybridlab as mx
    >>> from hybridlab import _numpy_op_doc
    >>> str(inspect.signature(_numpy_op_doc._np_sum))
    '(a, axis=None, dtype=None, keepdims=False, initial=None, out=None)'
    >>> inspect.signature(mx.np.sum) == inspect.signature(_numpy_op_doc._np_sum)
    True
"""


# ---- reductions ------------------------------------------------------------------------------------
def _np_all(a, axis=None, keepdims=False, out=None):
    """Whether every element of ``a`` (along ``axis``) is true."""


def _np_any(a, axis=None, keepdims=False, out=None):
    """Whether any element of ``a`` (along ``axis``) is true."""


def _np_sometrue(a, axis=None, keepdims=False, out=None):
    """``any`` under its older name."""


def _np_sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    """Sum of the elements of ``a`` along ``axis`` (all when None), plus ``initial``."""


def _np_mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean of ``a`` along ``axis``."""


def _np_prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product of the elements of ``a`` along ``axis``."""


def _np_product(a, axis=None, dtype=None, out=None, keepdims=False):
    """``prod`` under its older name."""


def _np_max(a, axis=None, keepdims=False, out=None):
    """Maximum of ``a`` along ``axis``."""


def _np_amax(a, axis=None, keepdims=False, out=None):
    """``max`` under NumPy's other name."""


def _np_min(a, axis=None, keepdims=False, out=None):
    """Minimum of ``a`` along ``axis``."""


def _np_amin(a, axis=None, keepdims=False, out=None):
    """``min`` under NumPy's other name."""


def _np_argmax(a, axis=None, out=None):
    """Indices of the maxima of ``a`` along ``axis`` (of the flattened array when None)."""


def _np_argmin(a, axis=None, out=None):
    """Indices of the minima of ``a`` along ``axis`` (of the flattened array when None)."""


def _np_cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum of ``a`` along ``axis`` (of the flattened array when None)."""


def _np_trace(a, offset=0, axis1=0, axis2=1, out=None):
    """Sum along the ``offset`` diagonal of the ``axis1``/``axis2`` planes of ``a``."""


# ---- products ----------------------------------------------------------------------------------------
def _np_dot(a, b, out=None):
    """Dot product of ``a`` and ``b`` (matrix product for 2-D arrays, sum over the last axis of
    ``a`` and the second-to-last of ``b`` in general)."""


def _np_matmul(a, b, out=None):
    """Matrix product of ``a`` and ``b``, broadcast over their leading (batch) axes."""


# ---- shapes and copies ---------------------------------------------------------------------------------
def _np_copy(a, out=None):
    """A copy of ``a``."""


def _np_reshape(a, newshape, order='C', out=None):
    """``a`` with shape ``newshape`` (one entry may be -1), read and written in ``order``."""


def _np_transpose(a, axes=None):
    """``a`` with its axes permuted by ``axes`` (reversed when None)."""


def _np_squeeze(a, axis=None, out=None):
    """``a`` without its length-1 axes (only those of ``axis`` when given)."""


def _np_moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to the positions ``destination``."""


def _np_repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (flattened when None)."""


def _np_roll(a, shift, axis=None):
    """``a`` rolled by ``shift`` positions along ``axis`` (of the flattened array when None)."""


def _np_flip(m, axis=None, out=None):
    """``m`` with the order of the elements along ``axis`` (all axes when None) reversed."""


def _np_atleast_1d(*arys):
    """The arrays with at least one dimension."""


def _np_atleast_2d(*arys):
    """The arrays with at least two dimensions."""


def _np_atleast_3d(*arys):
    """The arrays with at least three dimensions."""


def _np_diag(array, k=0):
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with a 1-D array on it."""


def _np_diagflat(array, k=0):
    """A 2-D array with the flattened input on its ``k``-th diagonal."""


def _np_diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonals of the ``axis1``/``axis2`` planes of ``a``."""


def _np__random_shuffle(x):
    """``x`` shuffled in place along its first axis."""


# ---- mx.npx ------------------------------------------------------------------------------------------
def _npx_nonzero(a):
    """The indices of the non-zero elements of ``a``, one row per element: shape (count, a.ndim)."""


def _npx_constraint_check(x, msg):
    """array(True) when every element of the bool array ``x`` is true; otherwise ValueError(msg)."""


def _npx_reshape(a, newshape, reverse=False, order='C'):
    """``a`` reshaped with MXNet's special values in ``newshape`` (-1 infer, -2 copy, -3 skip a
    size-1 axis, -4 copy the rest, -5 merge two, -6 split one), read right to left when ``reverse``."""
