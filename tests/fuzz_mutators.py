"""Mutators for the loader fuzz (tests/loader_fuzz.py): byte-level (bit flips, truncation, inflated
lengths, wrong magic), record-aware for ``.params`` files (ndim, dims, storage type, dtype flag and
name lengths set to hostile numbers) and structure-aware for symbol/model JSON (deep nesting,
control characters and code in names, huge/negative indices, cycles, unknown ops, bad attribute
strings, wrong types). Each takes a ``random.Random`` and the seed file's bytes or text."""
import json
import struct

import numpy as np

HOSTILE_NAMES = [
    "a\nb", "a\rb", "a\u2028b", "a\u2029b", "a\x0bb", "a\x0cb", "a\x85b", "a\x00b", "a\x01b", "'''", '"""',
    "x\n    __import__('os').system('touch pwned')\n    #", "#", "\\", "\\n", "é\U0001F600", "", " ",
    "__import__", "a" * 5000,
]
BAD_ATTR_STRINGS = [
    "(" + "1" * 5000 + "x", "(" * 3000, "[" + "1," * 4000 + "]", "nan", "inf", "-inf", "1e400", "-1",
    "-2147483649", "9" * 400, "(1, -5)", "(0, 0)", "None", "", "True", "1.5", "(1.5, 2)", "\x00", "\n",
    "(2147483648,)", "((1))", "'relu'", "__import__('os')",
]
HOSTILE_VALUES = [None, -1, -(2 ** 63), 2 ** 63, 2 ** 31, 10 ** 30, 1.5, float("nan"), True, "x", [], {},
                  [[[[]]]], [0, 0], [0, 0, 0, 0], {"a": 1}]
HUGE_INTS = [2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 62, 2 ** 63 - 1, 2 ** 64 - 1, -1, -2, -(2 ** 31)]


# ---- byte mutators -------------------------------------------------------------------------------
def _bit_flip(rng, b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def _byte_set(rng, b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    return bytes(b)


def _truncate(rng, b):
    return b[:rng.randrange(len(b))]


def _extend(rng, b):
    return b + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))


def _delete(rng, b):
    i = rng.randrange(len(b))
    return b[:i] + b[i + rng.randint(1, 16):]


def _insert(rng, b):
    i = rng.randrange(len(b) + 1)
    return b[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + b[i:]


def _inflate_u64(rng, b):
    """An 8-byte aligned word (lengths, counts, dims in .params files) set to a hostile number."""
    if len(b) < 8:
        return b
    i = rng.randrange(len(b) // 8) * 8
    return b[:i] + struct.pack("<Q", rng.choice(HUGE_INTS) % 2 ** 64) + b[i + 8:]


def _inflate_i32(rng, b):
    """A 4-byte aligned word (ndim, storage type, dtype flag, device) set to a hostile number."""
    if len(b) < 4:
        return b
    i = rng.randrange(len(b) // 4) * 4
    return b[:i] + struct.pack("<I", rng.choice(HUGE_INTS) % 2 ** 32) + b[i + 4:]


def _wrong_magic(rng, b):
    return struct.pack("<Q", rng.choice([0, 0x113, 0xF993FAC9, 2 ** 64 - 1])) + b[8:]


BYTE_MUTATORS = [_bit_flip, _byte_set, _truncate, _extend, _delete, _insert, _inflate_u64, _inflate_i32,
                 _wrong_magic]


# ---- .params record-aware mutators ---------------------------------------------------------------
def params_fields(b):
    """Offsets of the header fields of a V2/V3 dense ``.params`` file: a list of
    ``(offset, format, what)`` for the count, each record's magic, storage type, ndim, dims, device,
    dtype flag, and the names' count and lengths. Stops at the first record it cannot walk."""
    fields = [(16, "<Q", "count")]
    count = min(struct.unpack_from("<Q", b, 16)[0], 10000)
    pos = 24
    try:
        for _ in range(count):
            magic = struct.unpack_from("<I", b, pos)[0]
            if magic not in (0xF993FAC9, 0xF993FACA):
                return fields
            fields += [(pos, "<I", "magic"), (pos + 4, "<i", "stype"), (pos + 8, "<i", "ndim")]
            stype, ndim = struct.unpack_from("<ii", b, pos + 4)
            if stype != 0 or ndim < 0:
                return fields
            pos += 12
            dims = struct.unpack_from(f"<{ndim}q", b, pos)
            fields += [(pos + 8 * k, "<q", "dim") for k in range(ndim)]
            pos += 8 * ndim
            fields += [(pos, "<i", "dev_type"), (pos + 4, "<i", "dev_id"), (pos + 8, "<i", "dtype flag")]
            flag = struct.unpack_from("<i", b, pos + 8)[0]
            pos += 12
            itemsize = {0: 4, 1: 8, 2: 2, 3: 1, 4: 4, 5: 1, 6: 8, 7: 1}.get(flag, 4)
            pos += itemsize * int(np.prod(dims, dtype=np.int64))
        fields.append((pos, "<Q", "name count"))
        n = struct.unpack_from("<Q", b, pos)[0]
        pos += 8
        for _ in range(n):
            fields.append((pos, "<Q", "name length"))
            pos += 8 + struct.unpack_from("<Q", b, pos)[0]
    except (struct.error, OverflowError, ValueError):   # already mutated past walking: keep what was found
        pass
    return fields


_FIELD_VALUES = {
    "count": [0, 1, 2 ** 32, 2 ** 63 - 1, 2 ** 64 - 1],
    "magic": [0, 1, 5, 33, 0xF993FAC8, 0xF993FACA, 0xF993FAC9, 0xFFFFFFFF],
    "stype": [-1, 1, 2, 3, 2 ** 31 - 1],
    "ndim": [-2, -1, 0, 3, 33, 65, 1000, 2 ** 31 - 1],
    "dim": [-5, -1, 0, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1],
    "dev_type": [0, 2, 4, 99, -1],
    "dev_id": [-1, 7, 2 ** 31 - 1],
    "dtype flag": [-1, 6, 7, 8, 9, 12, 99],
    "name count": [1, 2 ** 63, 2 ** 64 - 1],
    "name length": [2 ** 32, 2 ** 63, 2 ** 64 - 1],
}


def _params_field(rng, b):
    fields = params_fields(b) if len(b) >= 24 else []
    if not fields:
        return _inflate_u64(rng, b)
    off, fmt, what = rng.choice(fields)
    value = rng.choice(_FIELD_VALUES[what])
    lo, hi = {"<Q": (0, 2 ** 64), "<q": (-(2 ** 63), 2 ** 63), "<i": (-(2 ** 31), 2 ** 31),
              "<I": (0, 2 ** 32)}[fmt]
    value = min(max(value, lo), hi - 1)
    return b[:off] + struct.pack(fmt, value) + b[off + struct.calcsize(fmt):]


PARAMS_MUTATORS = BYTE_MUTATORS + [_params_field] * 4


# ---- JSON structure-aware mutators ---------------------------------------------------------------
def _walk(doc):
    """Every (container, key) pair of a parsed JSON document (iteratively: files may be deep)."""
    out, stack = [], [doc]
    while stack:
        v = stack.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            out.append((v, k))
            if isinstance(x, (dict, list)):
                stack.append(x)
    return out


def _nodes(doc):
    return doc.get("nodes") if isinstance(doc, dict) and isinstance(doc.get("nodes"), list) else []


def _j_replace_value(rng, doc):
    places = _walk(doc)
    if places:
        c, k = rng.choice(places)
        c[k] = rng.choice(HOSTILE_VALUES)
    return doc


def _j_delete_key(rng, doc):
    places = [(c, k) for c, k in _walk(doc) if isinstance(c, dict)]
    if places:
        c, k = rng.choice(places)
        del c[k]
    return doc


def _j_hostile_name(rng, doc):
    nodes = [n for n in _nodes(doc) if isinstance(n, dict)]
    if nodes:
        rng.choice(nodes)["name"] = rng.choice(HOSTILE_NAMES)
    return doc


def _j_bad_attr(rng, doc):
    with_attrs = [n for n in _nodes(doc) if isinstance(n, dict) and isinstance(n.get("attrs"), dict)
                  and n["attrs"]]
    if with_attrs:
        n = rng.choice(with_attrs)
        n["attrs"][rng.choice(sorted(n["attrs"]))] = rng.choice(BAD_ATTR_STRINGS)
    else:
        _j_var_attr(rng, doc)
    return doc


def _j_var_attr(rng, doc):
    """A variable given a hostile ``__shape__`` / ``__dtype__`` / ``__init__`` / ``__lr_mult__``."""
    nodes = [n for n in _nodes(doc) if isinstance(n, dict)]
    if nodes:
        n = rng.choice(nodes)
        attrs = n.setdefault("attrs", {}) if isinstance(n.get("attrs", {}), dict) else {}
        key = rng.choice(["__shape__", "__dtype__", "__init__", "__lr_mult__", "__storage_type__"])
        attrs[key] = rng.choice(BAD_ATTR_STRINGS + [
            "(100000000000, 100000000000)", "(1000000, 1000000)", "99", "-1",
            '["load", {"param": "/etc/passwd"}]', '["zeros", {}]', '["nosuchinit", {}]', "[",
        ])
    return doc


def _j_input_index(rng, doc):
    """An input entry pointing at a huge, negative, own (a cycle) or later node, or a bad output."""
    nodes = _nodes(doc)
    cand = [(i, n) for i, n in enumerate(nodes) if isinstance(n, dict) and isinstance(n.get("inputs"), list)
            and n["inputs"]]
    if cand:
        i, n = rng.choice(cand)
        k = rng.randrange(len(n["inputs"]))
        entry = n["inputs"][k]
        entry = list(entry) if isinstance(entry, list) else [0, 0, 0]
        pos = rng.randrange(max(1, len(entry)))
        entry[pos:pos + 1] = [rng.choice([i, len(nodes) - 1, len(nodes), 10 ** 12, -1, 2 ** 63, 1.5, "0", None, 7])]
        n["inputs"][k] = entry
    return doc


def _j_cycle(rng, doc):
    nodes = _nodes(doc)
    ops = [i for i, n in enumerate(nodes) if isinstance(n, dict) and n.get("op") != "null"
           and isinstance(n.get("inputs"), list) and n["inputs"]]
    if len(ops) >= 1:
        a = rng.choice(ops)
        b = rng.choice(ops[ops.index(a):])
        nodes[a]["inputs"][0] = [b, 0, 0]
    return doc


def _j_unknown_op(rng, doc):
    nodes = [n for n in _nodes(doc) if isinstance(n, dict)]
    if nodes:
        rng.choice(nodes)["op"] = rng.choice(["NoSuchOp", "", "null", "_fused_elemwise", "_hl_constant",
                                             "Custom", "__import__", "FullyConnected", "Convolution",
                                             "Reshape", "_copyto", "SliceChannel", "RNN", "BatchNorm"])
    return doc


def _j_heads(rng, doc):
    if isinstance(doc, dict):
        doc["heads"] = rng.choice([[], [[10 ** 9, 0, 0]], [[0, 5, 0]], [[-1, 0, 0]], "x", [[0]],
                                   [[len(_nodes(doc)) - 1, 0, 0]] * 3, None])
    return doc


def _j_duplicate_node(rng, doc):
    nodes = _nodes(doc)
    if nodes:
        i = rng.randrange(len(nodes))
        nodes.insert(rng.randrange(len(nodes) + 1), json.loads(json.dumps(nodes[i])))
    return doc


def _j_tables(rng, doc):
    if isinstance(doc, dict):
        key = rng.choice(["arg_nodes", "node_row_ptr", "attrs"])
        doc[key] = rng.choice([[], [10 ** 9], [-1], "x", {"mxnet_version": ["int", rng.choice([0, 10600, -1, 10 ** 20])]},
                               {"mxnet_version": "x"}, [0] * 3])
    return doc


_DEEP = "__hybridlab_fuzz_deep__"


def _j_deep(rng, doc):
    """A value replaced by deep nesting (recursion bombs); ``mutate_json`` spells it out in the text
    (json.dumps itself cannot write what is too deep for Python's recursion)."""
    places = _walk(doc)
    if places:
        c, k = rng.choice(places)
        c[k] = _DEEP
    return doc


JSON_MUTATORS = [_j_replace_value, _j_delete_key, _j_hostile_name, _j_bad_attr, _j_var_attr, _j_input_index,
                 _j_cycle, _j_unknown_op, _j_heads, _j_duplicate_node, _j_tables, _j_deep]


def _text_deep(rng, text):
    depth = rng.choice([1000, 10000, 100000])
    return rng.choice(['{"nodes": ' + "[" * depth, "[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])


def _text_control(rng, text):
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(["\x00", "\x01", "\n", "\u2028", "\ud800", "\\u0000", '\\"', "\\"]) + text[i:]


def mutate_json(rng, text):
    """A mutated symbol/model JSON text: mostly structure-aware, sometimes textual."""
    r = rng.random()
    if r < 0.08:
        return _text_deep(rng, text)
    if r < 0.16:
        return _text_control(rng, text)
    if r < 0.26:
        return _bit_flip(rng, text.encode("utf-8"))   # bytes: loaders must refuse bad UTF-8 too
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    for _ in range(rng.randint(1, 3)):
        doc = rng.choice(JSON_MUTATORS)(rng, doc)
    depth = rng.choice([100, 1000, 10000, 100000])
    return json.dumps(doc, allow_nan=True).replace(f'"{_DEEP}"', "[" * depth + "]" * depth, 1)


def mutate_params(rng, b):
    for _ in range(rng.randint(1, 3)):
        if not b:
            break
        b = rng.choice(PARAMS_MUTATORS)(rng, b)
    return b
