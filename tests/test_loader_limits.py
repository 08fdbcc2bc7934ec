"""Limits of the loaders of untrusted bytes: attribute strings parse in linear time (no regex
backtracking), .params records allocate only what the file holds (sparse records are densified
within a documented bound), and every malformed record is an MXNetError naming the file and the
record, never an IndexError, TypeError or MemoryError from inside."""
import glob
import json
import os
import struct
import time

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray import params_file
from hybridlab.ops.attrs import MAX_ATTR_CHARS, Attr

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA


# ---- attribute strings ----------------------------------------------------------------------------
HOSTILE_ATTRS = [
    "(" + "1" * 9998 + "x",           # the exponential case of the old shape regex
    "(" + "1 " * 4999 + "x",
    "[" + "1," * 4999 + "x",
    "(" * 10000,
    "-" * 10000,
    "(" + "-1" * 4998 + "1]x",
    " " * 9999 + "x",
    "9" * 10000,
    "1e" + "9" * 9998,
    "(" + ", " * 4999 + ")",
]


def test_hostile_attribute_strings_fail_fast():
    assert all(len(h) == 10000 for h in HOSTILE_ATTRS)
    kinds = ["shape", "shape?", "int", "int?", "float", "float?", "floats", "bool", "dtype", "device"]
    start = time.perf_counter()
    for text in HOSTILE_ATTRS:
        for kind in kinds:
            with pytest.raises(mx.MXNetError, match=f"Pooling: attribute 'kernel' expected .*{MAX_ATTR_CHARS}"):
                Attr(kind).parse(text, "Pooling", "kernel")
    # below the length bound the parsers are linear too: each of these is one pass
    for text in HOSTILE_ATTRS:
        for kind in kinds:
            try:
                Attr(kind).parse(text[:MAX_ATTR_CHARS], "Pooling", "kernel")
            except mx.MXNetError as err:
                assert len(str(err)) < 400      # the message quotes a bounded excerpt
    assert time.perf_counter() - start < 10.0   # a hang bound, not a speed test: the old regex took 40 s for 28 characters


def test_shape_syntax_is_unchanged():
    shape = Attr("shape")
    assert shape.parse("(3, 3)") == (3, 3) and shape.parse("[3,3]") == (3, 3)
    assert shape.parse("3") == (3,) and shape.parse("(3,)") == (3,) and shape.parse("()") == ()
    assert shape.parse(" ( 1 , -1 ) ") == (1, -1) and shape.parse("(2, 3, 4, 5)") == (2, 3, 4, 5)
    assert Attr("shape?", None).parse("None") is None
    for bad in ("(3, x)", "(,)", "(3.5, 2)", "((1))", "(-)", "None", "(3)(4)", "(99999999999999999999,)"):
        with pytest.raises(mx.MXNetError, match="expected Shape"):
            shape.parse(bad, "Pooling", "kernel")
    assert Attr("int").parse(str(2 ** 63 - 1)) == 2 ** 63 - 1
    with pytest.raises(mx.MXNetError, match="expected int"):
        Attr("int").parse(str(2 ** 63))
    assert Attr("float").parse("1e-05") == 1e-05 and Attr("bool").parse("True") is True
    assert Attr("dtype").parse("float16") == np.float16
    for bad in ("f4,i4", "(2,)f4", "object", "U8"):
        with pytest.raises(mx.MXNetError, match="expected dtype"):
            Attr("dtype").parse(bad, "Cast", "dtype")


def test_symbol_json_with_hostile_pooling_kernel_is_refused_at_once():
    sym = mx.sym.Pooling(mx.sym.var("data"), kernel=(2, 2), pool_type="max", name="pool")
    graph = json.loads(sym.tojson())
    pool = next(n for n in graph["nodes"] if n["op"] == "Pooling")
    start = time.perf_counter()
    for kernel in ("(" + "1" * 28 + "x", "(" + "1" * 9999 + "x"):
        pool["attrs"]["kernel"] = kernel
        with pytest.raises(mx.MXNetError, match="kernel"):
            mx.sym.fromjson(json.dumps(graph)).infer_shape(data=(1, 1, 4, 4))
    assert time.perf_counter() - start < 10.0   # a hang bound, not a speed test: the old regex took 40 s for 28 characters


# ---- .params records --------------------------------------------------------------------------------
def _file(records, names=()):
    out = struct.pack("<QQQ", 0x112, 0, len(records)) + b"".join(records)
    out += struct.pack("<Q", len(names))
    for n in names:
        out += struct.pack("<Q", len(n.encode())) + n.encode()
    return out


def _dense(shape, flag=0, magic=V2, data=b""):
    return struct.pack(f"<Iii{len(shape)}q", magic, 0, len(shape), *shape) + struct.pack("<iii", 1, 0, flag) + data


def _row_sparse(shape, rows=(), magic=V2, idx_flag=6):
    """A float32 row_sparse record storing ``rows`` (filled with 1)."""
    sshape = (len(rows),) + tuple(shape[1:])
    values = np.ones(sshape, np.float32)
    return (struct.pack("<Ii", magic, 1) + struct.pack(f"<i{len(sshape)}q", len(sshape), *sshape)
            + struct.pack(f"<i{len(shape)}q", len(shape), *shape) + struct.pack("<iii", 1, 0, 0)
            + struct.pack("<i", idx_flag) + struct.pack("<iq", 1, len(rows))
            + values.tobytes() + np.array(rows, np.int64).astype(np.dtype(params_file.dtype_from_flag(idx_flag))
                                                                  .newbyteorder("<")).tobytes())


def _csr(shape, indptr, cols, values, aux_flag=6):
    dt = np.dtype(params_file.dtype_from_flag(aux_flag)).newbyteorder("<")
    values = np.asarray(values, np.float32)
    return (struct.pack("<Ii", V2, 2) + struct.pack("<iq", 1, len(values))
            + struct.pack(f"<i{len(shape)}q", len(shape), *shape) + struct.pack("<iii", 1, 0, 0)
            + struct.pack("<iiq", aux_flag, 1, len(indptr)) + struct.pack("<iiq", aux_flag, 1, len(cols))
            + values.tobytes() + np.array(indptr).astype(dt).tobytes() + np.array(cols).astype(dt).tobytes())


def _refused(raw, *patterns, path=None):
    """Load ``raw`` through nd.load (from a file) and nd.load_frombuffer; both must refuse it."""
    with pytest.raises(mx.MXNetError) as info:
        mx.nd.load_frombuffer(raw)
    for pattern in patterns:
        assert pattern in str(info.value), str(info.value)
    if path is not None:
        path.write_bytes(raw)
        with pytest.raises(mx.MXNetError, match=path.name):
            mx.nd.load(str(path))
    return str(info.value)


def test_sparse_memory_bombs_are_refused_before_allocating(tmp_path):
    path = tmp_path / "bomb.params"
    msg = _refused(_file([_row_sparse((2 ** 40,))]), "record 0 of 1", "row_sparse record of",
                   "4398046511104 bytes", "SPARSE_DENSE_FLOOR", path=path)
    assert len(_file([_row_sparse((2 ** 40,))])) < 110 and "expected at most" in msg
    _refused(_file([_row_sparse((8192, 8192))]), "268435456 bytes", "SPARSE_DENSE_FACTOR", path=path)
    _refused(_file([_csr((2 ** 20, 2 ** 20), [0] * 3, [], [])]), "indptr", path=path)
    # within the bound a sparse record loads (densified), and the bound is a module setting
    small = _file([_row_sparse((1024, 1024), rows=(3,))])
    assert mx.nd.load_frombuffer(small)[0].asnumpy().sum() == 1024
    old = params_file.SPARSE_DENSE_FLOOR
    try:
        params_file.SPARSE_DENSE_FLOOR = 1 << 10
        _refused(small, "4194304 bytes")
    finally:
        params_file.SPARSE_DENSE_FLOOR = old


@pytest.mark.parametrize("record, pattern", [
    (_dense((1,) * 65, data=bytes(4)), "expected ndim in [0, 32]"),
    (_dense((1,) * 33, magic=V3, data=bytes(4)), "expected ndim in [0, 32]"),
    (_dense((2 ** 62, 2 ** 62)), "overflows int64"),
    (_dense((0, 2 ** 62, 2 ** 62), magic=V3), "overflows int64"),
    (_dense((2 ** 20, 2 ** 20)), "truncated data"),
    (_dense((-5, 2)), "expected dimensions >= -1"),
    (_dense((4,), flag=1, data=bytes(20)), "truncated data"),      # 20 (+ 8 of names) bytes for 4 float64
    (struct.pack("<Ii2q", V1, 2, -1, 3) + struct.pack("<iii", 1, 0, 0) + bytes(64), "legacy record shape"),
    (struct.pack("<I2I", 2, 2 ** 32 - 1, 2 ** 32 - 1) + struct.pack("<iii", 1, 0, 0), "overflows int64"),
    (struct.pack("<I2I", 2, 2 ** 20, 2 ** 20) + struct.pack("<iii", 1, 0, 0), "truncated data"),
    (struct.pack("<Ii", V3, 1) + struct.pack("<i", 0) + struct.pack("<i", 0) + struct.pack("<iii", 1, 0, 0)
     + struct.pack("<i", 6) + struct.pack("<i", 0), "row_sparse: expected a shape of >= 1 dims"),
    (_row_sparse((4, 2), rows=(1, 9)), "row indices in [0, 4)"),
    (_csr((2, 3), [0, 1, 1], [2 ** 64 - 1], [5.0], aux_flag=11), "expected indices below 2**63"),
    (_csr((2, 3), [0, 2, 1], [0, 1], [5.0, 6.0]), "indptr rising"),
    (_csr((2, 3, 1), [0, 0, 0], [], []), "csr: expected a 2-D shape"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_malformed_records_are_mxnet_errors(tmp_path, record, pattern):
    _refused(_file([record]), "record 0 of 1", pattern, path=tmp_path / "bad.params")


def test_uint64_and_int32_indices_load():
    out = mx.nd.load_frombuffer(_file([_csr((2, 3), [0, 1, 1], [2], [5.0], aux_flag=11),
                                       _row_sparse((3, 2), rows=(2,), idx_flag=4)]))
    assert out[0].asnumpy().tolist() == [[0, 0, 5], [0, 0, 0]]
    assert out[1].asnumpy().tolist() == [[0, 0], [0, 0], [1, 1]]


def test_counts_and_names_are_checked_against_the_file():
    _refused(struct.pack("<QQQ", 0x112, 0, 2 ** 63), "count of 9223372036854775808")
    one = _dense((1,), data=bytes(4))
    _refused(_file([one, one], ["a", "a"]), "distinct names", "'a'")
    _refused(_file([one])[:-8] + struct.pack("<Q", 1) + struct.pack("<Q", 2 ** 62), "name 0 of 1", "truncated name")


def test_load_frombuffer_is_exported_and_takes_bytes_like_objects():
    raw = params_file.dumps({"w": mx.nd.ones((2, 2))})
    for buf in (raw, bytearray(raw), memoryview(raw)):
        assert mx.nd.load_frombuffer(buf)["w"].shape == (2, 2)
    for bad in ("text", 3, None):
        with pytest.raises(mx.MXNetError, match="expected bytes"):
            mx.nd.load_frombuffer(bad)
        with pytest.raises(TypeError):
            mx.nd.load_frombuffer(bad)
    with pytest.raises(mx.MXNetError, match="expected a path"):
        mx.nd.load(3.5)


def test_checkpoint_params_with_empty_or_foreign_entries(tmp_path):
    p = tmp_path / "c-0000.params"
    p.write_bytes(_file([_dense((1,), data=bytes(4)), struct.pack("<Iii", V2, 0, 0)], ["arg:w", "aux:m"]))
    with pytest.raises(mx.MXNetError, match=r"c-0000.params.*'aux:m' is an empty \(none\) array"):
        mx.model.load_params(str(tmp_path / "c"), 0)
    p.write_bytes(_file([_dense((1,), data=bytes(4))], ["arg:"]))
    with pytest.raises(mx.MXNetError, match="expected 'arg:<name>'"):
        mx.model.load_params_file(str(p))


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(DATA, "*.params")))[:4],
                         ids=os.path.basename)
def test_real_files_truncated_or_inflated_fail_fast(path, tmp_path):
    raw = open(path, "rb").read()
    start = time.perf_counter()
    cases = [raw[:n] for n in (25, 40, 60, len(raw) // 2, len(raw) - 1)]
    for at in range(24, 120, 4):           # every 4-byte word of the first record set to hostile numbers
        for value in (2 ** 31 - 1, 2 ** 32 - 1, 65, 7):
            cases.append(raw[:at] + struct.pack("<I", value) + raw[at + 4:])
    for case in cases:
        try:
            mx.nd.load_frombuffer(case)
        except mx.MXNetError:
            pass
    assert time.perf_counter() - start < 5.0
