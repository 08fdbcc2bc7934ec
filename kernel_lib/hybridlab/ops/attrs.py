"""Operator attributes: typed schema entries that parse MXNet attribute strings and print them back.

MXNet stores every operator keyword as Python ``str(value)`` ("(3, 3)", "True", "None", "1e-05");
its parameter parser also accepts "true"/"1", "[3, 3]" and a bare "3" for a shape. ``Attr`` turns
either a Python value or such a string into the Python value ops compute with, and ``format`` gives
the string MXNet would store. Attribute strings come from model files, so every parser is a
single linear pass (no backtracking regex) over at most ``MAX_ATTR_CHARS`` characters.

Example::

    >>> from hybridlab.ops.attrs import Attr
    >>> Attr("shape").parse("(3, 3)"), Attr("bool", False).parse("true"), Attr("float?", None).parse("None")
    ((3, 3), True, None)
    >>> Attr("shape").format((3, 3))
    '(3, 3)'
"""
import numpy as np

from ..base import MXNetError, is_bfloat16, normalize_dtype

__all__ = ["Attr", "REQUIRED", "format_value", "MAX_ATTR_CHARS"]

REQUIRED = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()
_TRUE = {"true": True, "1": True, "false": False, "0": False}
#: Longest attribute string parsed as a number, shape, bool, dtype or device. Attribute strings come
#: from model files; the longest real ones (a 32-d shape of int64 dims) are under 1000 characters.
#: Free-text attributes (str, enum) are not bounded here.
MAX_ATTR_CHARS = 4096
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_DIGITS = frozenset("0123456789")


def _int64(text):
    """The integer ``text`` spells if it is in int64 range, else ValueError (MXNet's dims and
    integer parameters are at most int64)."""
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{text[:40]} is outside the int64 range")
    return value


def _parse_int(v):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    if isinstance(v, str):
        return _int64(v.strip())
    raise ValueError(v)


def _parse_float(v):
    if isinstance(v, str):
        return float(v.strip())
    return float(v)


def _parse_bool(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in _TRUE:
        return _TRUE[v.strip().lower()]
    raise ValueError(v)


def _scan_shape(text):
    """Dims of a shape string, one left-to-right pass (no regex backtracking, linear time).

    Accepted (as before): an optional ``(`` or ``[``, integers separated by commas and/or
    whitespace, a trailing comma, an optional ``)`` or ``]``: "(3, 3)", "[3,3]", "3", "(3,)", "()".
    Dims are ASCII integers in int64 range.
    """
    n, i = len(text), 0
    if i < n and text[i] in "([":
        i += 1
    while i < n and text[i].isspace():
        i += 1
    dims = []
    while i < n and (text[i] == "-" or text[i] in _DIGITS):
        start = i
        i += 1 if text[i] == "-" else 0
        first = i
        while i < n and text[i] in _DIGITS:
            i += 1
        if i == first:
            raise ValueError(f"'-' without digits at position {start}")
        dims.append(_int64(text[start:i]))
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] == ",":
            i += 1
            while i < n and text[i].isspace():
                i += 1
    if i < n and text[i] in ")]":
        i += 1
    if i != n:
        raise ValueError(f"unexpected {text[i]!r} at position {i}")
    return tuple(dims)


def _parse_shape(v):
    if isinstance(v, str):
        return _scan_shape(v.strip())
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (tuple, list)):
        return tuple(_parse_int(x) for x in v)
    raise ValueError(v)


def _parse_float_tuple(v):
    if isinstance(v, str):
        text = v.strip().strip("()[]")
        return tuple(float(x) for x in text.split(",") if x.strip())
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    return tuple(float(x) for x in v)


def _parse_str(v):
    return str(v)


def _parse_dtype(v):
    if isinstance(v, str):
        # a plain scalar type name: NumPy would also build structured or sub-array dtypes from
        # strings such as "f4,i4" or "(2,)f4", which no MXNet attribute means
        text = v.strip()
        if not text.replace("_", "").isalnum() or not text.isascii():
            raise ValueError(v)
        dt = normalize_dtype(text)
        if dt.kind not in "biufc" and not is_bfloat16(dt):
            raise ValueError(v)
        return dt
    return normalize_dtype(v)


def _parse_device(v):
    from ..device import Device
    return Device.parse(v)


_PARSERS = {
    "int": _parse_int, "float": _parse_float, "bool": _parse_bool, "shape": _parse_shape,
    "floats": _parse_float_tuple, "str": _parse_str, "enum": _parse_str, "dtype": _parse_dtype,
    "device": _parse_device,
}
_TYPE_DOC = {
    "int": "int", "float": "float", "bool": "boolean", "shape": "Shape(tuple)", "floats": "tuple of float",
    "str": "string", "enum": "{...}", "dtype": "dtype", "device": "Device",
}


def _shorten(value, limit=80):
    """``repr(value)`` cut to ``limit`` characters (hostile attribute strings can be huge)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def format_value(value):
    """The string MXNet stores for an attribute value (``str(v)``; dtypes by name). NumPy scalars
    are written as MXNet 1.9.1 (with NumPy 1.x) writes them, also inside tuples: ``(0, 2)``, not
    NumPy 2's ``(np.int64(0), np.int64(2))``.

    >>> format_value((np.int64(0), np.int64(2))), format_value(np.float32(0.5)), format_value([1, 2])
    ('(0, 2)', '0.5', '(1, 2)')
    >>> format_value(np.float16), format_value(np.dtype([('bfloat16', np.uint16)]))
    ('float16', 'bfloat16')
    """
    if isinstance(value, np.dtype) or isinstance(value, type) and issubclass(value, np.generic):
        return normalize_dtype(value).name      # MXNet's bfloat16 spelling, a structured dtype, too
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, tuple):
        return _tuple_text(value)
    return str(value)


def _tuple_text(value):
    """``str(value)`` for a tuple, with NumPy scalars inside spelled as plain numbers (NumPy 1.x)."""
    parts = [_tuple_text(v) if isinstance(v, tuple) else str(v) if isinstance(v, np.generic) else repr(v)
             for v in value]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


class Attr:
    """One attribute of an operator schema.

    ``kind`` is one of int, float, bool, shape, floats, str, enum, dtype, device; a trailing ``?``
    allows ``None`` ("None" in files). ``default`` is the op-level default MXNet registers
    (``REQUIRED`` when the attribute must be given).
    """

    __slots__ = ("kind", "default", "choices", "doc", "optional", "_parse")

    def __init__(self, kind, default=REQUIRED, choices=None, doc=""):
        self.optional = kind.endswith("?")
        self.kind = kind.rstrip("?")
        if self.kind not in _PARSERS:
            raise ValueError(f"unknown attribute kind {kind!r}")
        self.default = default
        self.choices = tuple(choices) if choices is not None else None
        self.doc = doc
        self._parse = _PARSERS[self.kind]

    @property
    def required(self):
        return self.default is REQUIRED

    def parse(self, value, op_name="", attr_name=""):
        """Python value of ``value`` (a Python value or an MXNet attribute string)."""
        if value is None or (self.optional and isinstance(value, str) and value.strip() == "None"):
            if self.optional or value is None and self.default is None:
                return None
        if isinstance(value, str) and len(value) > MAX_ATTR_CHARS and self.kind not in ("str", "enum"):
            raise MXNetError(f"{op_name}: attribute '{attr_name}' expected {self.describe()} of at most "
                             f"{MAX_ATTR_CHARS} characters, got a {len(value)}-character string "
                             f"{_shorten(value)}")
        try:
            parsed = self._parse(value)
        except (ValueError, TypeError, OverflowError, MXNetError):
            raise MXNetError(f"{op_name}: attribute '{attr_name}' expected {self.describe()}, "
                             f"got {_shorten(value)}") from None
        if self.choices is not None and parsed not in self.choices:
            raise MXNetError(f"{op_name}: attribute '{attr_name}' expected one of {list(self.choices)}, "
                             f"got {_shorten(value)}")
        return parsed

    def format(self, value):
        return format_value(value)

    def describe(self):
        text = _TYPE_DOC[self.kind] if self.choices is None else "{" + ", ".join(map(repr, self.choices)) + "}"
        if self.optional:
            text += " or None"
        if self.required:
            return text + ", required"
        return f"{text}, optional, default={format_value(self.default)}"

    def __repr__(self):
        return f"Attr({self.describe()})"
