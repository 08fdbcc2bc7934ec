"""Errors and dtype helpers shared by every layer.

``MXNetError`` is the one error type the library raises for bad user input, so
code written for MXNet (``except mx.MXNetError``) keeps working. As in MXNet it is a
``RuntimeError``; where MXNet raises a Python ``IndexError`` / ``ValueError`` / ``TypeError``
(an out-of-range index, a value that cannot be assigned, an unknown dtype) the library raises
``MXNetIndexError`` / ``MXNetValueError`` / ``MXNetTypeError``, which are both.
"""
import numpy as np

__all__ = ["MXNetError", "HybridlabError", "MXNetIndexError", "MXNetValueError", "MXNetTypeError", "MXNetNotImplementedError",
           "normalize_dtype", "bfloat16", "bfloat16_dtype", "is_bfloat16", "is_float_dtype",
           "dtype_flag", "dtype_from_flag", "DEFAULT_DTYPE", "NotImplementedForSymbol", "integer_types",
           "numeric_types", "string_types", "py_str", "mx_real_t", "data_dir"]


class MXNetError(RuntimeError):
    """Raised for invalid input: the message says what was expected, what was got, and where.

    Example::

        >>> import hybridlab as mx
        >>> try:
        ...     mx.nd.FullyConnected(mx.nd.ones((1, 4)), mx.nd.ones((3, 5)), num_hidden=3, no_bias=True)
        ... except mx.MXNetError as err:
        ...     print(type(err).__name__)
        MXNetError
    """


class MXNetIndexError(MXNetError, IndexError):
    """An index out of range (or too many indices): ``except IndexError`` catches it, as in MXNet.

    >>> import hybridlab as mx
    >>> try:
    ...     mx.nd.zeros((2, 3))[5]
    ... except IndexError as err:
    ...     print(isinstance(err, mx.MXNetError), err)
    True index 5 is out of bounds for axis 0 with size 2
    """


class MXNetValueError(MXNetError, ValueError):
    """A value that does not fit (an assignment of the wrong shape): ``except ValueError`` catches it."""


class MXNetTypeError(MXNetError, TypeError):
    """An unknown dtype: ``except TypeError`` catches it, as in MXNet."""


class MXNetNotImplementedError(MXNetError, NotImplementedError):
    """A valid request that MXNet does not support (``order='F'`` for a creation function):
    ``except NotImplementedError`` catches it, as in MXNet.

    >>> import hybridlab as mx
    >>> try:
    ...     mx.np.empty((2,), order='F')
    ... except NotImplementedError as err:
    ...     print(isinstance(err, mx.MXNetError), err)
    True np.empty: order expected 'C' (row-major only), got 'F'
    """


HybridlabError = MXNetError


class NotImplementedForSymbol(MXNetError):
    """A function that exists for NDArray only, called on a Symbol (MXNet's ``mxnet.base`` error,
    with its message).

    >>> from hybridlab.base import NotImplementedForSymbol
    >>> print(NotImplementedForSymbol(len, "size", 3))
    Function len (namely operator "size") with arguments (<class 'int'>) is not implemented for Symbol and only available in NDArray.
    """

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        said = f"Function {self.function}"
        if self.alias:
            said += f' (namely operator "{self.alias}")'
        if self.args:
            said += f" with arguments ({', '.join(self.args)})"
        return said + " is not implemented for Symbol and only available in NDArray."


# The type tuples and helpers MXNet code imports from ``mxnet.base``.
integer_types = (int, np.int32, np.int64)
numeric_types = (float, int, np.generic)
string_types = (str,)
mx_real_t = np.float32


def py_str(raw):
    """Bytes from the C API as text (MXNet's ``py_str``); text stays as it is.

    >>> py_str(b"relu"), py_str("relu")
    ('relu', 'relu')
    """
    return raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw


def _as_list(obj):
    """``obj`` itself when it is a list or tuple, else ``[obj]`` (MXNet's ``_as_list``)."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


def data_dir():
    """Where downloaded models and datasets go: ``$MXNET_HOME``, else ``~/.mxnet`` (``%APPDATA%/mxnet``
    on Windows), as in MXNet."""
    import os
    import platform
    if os.environ.get("MXNET_HOME"):
        return os.environ["MXNET_HOME"]
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA", ""), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")

DEFAULT_DTYPE = np.dtype(np.float32)

_MXNET_BFLOAT16 = np.dtype([("bfloat16", np.uint16)])
_BFLOAT16 = []      # np.dtype(ml_dtypes.bfloat16), once imported


def bfloat16_dtype():
    """bfloat16 (mshadow flag 12): ``ml_dtypes.bfloat16``, a NumPy dtype that ufuncs and matmul work with
    (MXNet 1.9.1 itself spells it ``np.dtype([('bfloat16', np.uint16)])``, accepted as an input spelling).
    ``ml_dtypes`` is imported on first use: its import takes about a second, half of ``import hybridlab``'s.
    ``hybridlab.base.bfloat16`` is the same dtype.

    >>> bfloat16_dtype().name, bfloat16_dtype().itemsize
    ('bfloat16', 2)
    """
    if not _BFLOAT16:
        import ml_dtypes
        _BFLOAT16.append(np.dtype(ml_dtypes.bfloat16))
    return _BFLOAT16[0]


def is_bfloat16(dtype):
    """Whether ``dtype`` (a NumPy dtype or type, or ``None``) is bfloat16, without importing ``ml_dtypes``
    (an array can hold bfloat16 only once it is imported).

    >>> is_bfloat16(np.dtype(np.float16)), is_bfloat16(None), is_bfloat16(bfloat16_dtype())
    (False, False, True)
    """
    # (kind first: a C attribute; NumPy computes ``name`` in Python, ~1 us, on every call of every op)
    return getattr(dtype, "kind", None) == "V" and dtype.name == "bfloat16"


def __getattr__(name):
    if name == "bfloat16":        # the dtype itself, imported on first use (see bfloat16_dtype)
        return bfloat16_dtype()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# mshadow TypeFlag <-> NumPy dtype (FORMATS.md, section 2); 12 is bfloat16 (bfloat16_dtype)
BFLOAT16_FLAG = 12
_FLAG_TO_DTYPE = {
    0: np.dtype(np.float32), 1: np.dtype(np.float64), 2: np.dtype(np.float16),
    3: np.dtype(np.uint8), 4: np.dtype(np.int32), 5: np.dtype(np.int8), 6: np.dtype(np.int64),
    7: np.dtype(np.bool_), 8: np.dtype(np.int16), 9: np.dtype(np.uint16), 10: np.dtype(np.uint32),
    11: np.dtype(np.uint64),
}
_DTYPE_TO_FLAG = {dt: flag for flag, dt in _FLAG_TO_DTYPE.items()}


def normalize_dtype(dtype, default=DEFAULT_DTYPE):
    """Return ``np.dtype`` for a dtype given as a name, a NumPy type or ``None`` (-> ``default``).
    ``'bfloat16'`` (and MXNet's spelling ``np.dtype([('bfloat16', np.uint16)])``) is ``ml_dtypes.bfloat16``.

    >>> normalize_dtype('float16').name, normalize_dtype('bfloat16').name
    ('float16', 'bfloat16')
    >>> normalize_dtype(np.dtype([('bfloat16', np.uint16)])) == bfloat16_dtype()
    True
    """
    if dtype is None:
        return default
    if isinstance(dtype, np.dtype):
        return bfloat16_dtype() if dtype == _MXNET_BFLOAT16 else dtype
    if isinstance(dtype, str) and dtype.strip().lower() in ("bfloat16", "bf16"):
        return bfloat16_dtype()
    try:
        dt = np.dtype(dtype)
    except TypeError as err:
        raise MXNetTypeError(f"unknown dtype {dtype!r}: expected a NumPy dtype name such as 'float32'") from err
    return bfloat16_dtype() if dt == _MXNET_BFLOAT16 else dt


def is_float_dtype(dtype):
    """Whether ``dtype`` is a floating-point type, bfloat16 included (NumPy files it as kind 'V').

    >>> is_float_dtype('bfloat16'), is_float_dtype('float16'), is_float_dtype('int32')
    (True, True, False)
    """
    dt = normalize_dtype(dtype)
    return dt.kind == "f" or is_bfloat16(dt)


def dtype_flag(dtype):
    """mshadow type flag of ``dtype`` (0 for float32, ...), as stored in ``.params`` files."""
    dt = normalize_dtype(dtype)
    if is_bfloat16(dt):
        return BFLOAT16_FLAG
    try:
        return _DTYPE_TO_FLAG[dt]
    except KeyError:
        raise MXNetError(f"dtype {dt.name} cannot be stored in MXNet files: expected one of "
                         f"{sorted([d.name for d in _DTYPE_TO_FLAG] + ['bfloat16'])}") from None


def dtype_from_flag(flag):
    """NumPy dtype of an mshadow type flag (12 is ``ml_dtypes.bfloat16``).

    >>> dtype_from_flag(0).name, dtype_from_flag(12).name
    ('float32', 'bfloat16')
    """
    if flag == BFLOAT16_FLAG:
        return bfloat16_dtype()
    try:
        return _FLAG_TO_DTYPE[flag]
    except (KeyError, TypeError):
        known = ", ".join([f"{f} ({d.name})" for f, d in _FLAG_TO_DTYPE.items()] + [f"{BFLOAT16_FLAG} (bfloat16)"])
        raise MXNetError(f"unsupported type flag {flag}: expected one of {known}") from None
