"""MXNet NDArray list files (.params): the real MXNet 1.9.1 files in tests/data/mxnet load with the
right names, shapes, dtypes and values (cross-checked with an independent struct reader written
here), re-save byte for byte, and every form, dtype and record version round-trips; truncated or
corrupted files raise MXNetError naming the file and the record."""
import glob
import json
import os
import struct

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray import params_file

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
PARAMS = sorted(glob.glob(os.path.join(DATA, "*.params")))
_FLAGS = {0: "<f4", 1: "<f8", 2: "<f2", 3: "u1", 4: "<i4", 5: "i1", 6: "<i8", 7: "?", 8: "<i2", 9: "<u2",
          10: "<u4", 11: "<u8"}


def independent_read(path):
    """A minimal reader for dense V2 files, written from FORMATS.md section 2 (not from hybridlab)."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from(fmt, buf, pos)
        pos += struct.calcsize(fmt)
        return vals

    magic, _, n = take("<QQQ")
    assert magic == 0x112
    arrays = []
    for _ in range(n):
        rec_magic, stype, ndim = take("<Iii")
        assert rec_magic == 0xF993FAC9 and stype == 0
        shape = take(f"<{ndim}q")
        _dev_type, _dev_id, flag = take("<iii")
        dt = np.dtype(_FLAGS[flag])
        count = int(np.prod(shape))
        arrays.append(np.frombuffer(buf, dt, count, pos).reshape(shape))
        pos += count * dt.itemsize
    (k,) = take("<Q")
    names = []
    for _ in range(k):
        (length,) = take("<Q")
        names.append(buf[pos:pos + length].decode())
        pos += length
    assert pos == len(buf)
    return names, arrays


def test_fixture_files_are_present():
    assert len(PARAMS) == 11, PARAMS


@pytest.mark.parametrize("path", PARAMS, ids=[os.path.basename(p) for p in PARAMS])
def test_real_mxnet_files_load_and_resave_identically(path, tmp_path):
    loaded = mx.nd.load(path)
    names, arrays = independent_read(path)
    assert isinstance(loaded, dict) and list(loaded) == names
    for name, ref in zip(names, arrays):
        got = loaded[name]
        assert isinstance(got, mx.nd.NDArray) and not got._np and got.device == mx.cpu()
        assert got.shape == ref.shape and got.dtype == ref.dtype, name
        np.testing.assert_array_equal(got.asnumpy(), ref, err_msg=name)
        assert name.startswith(("arg:", "aux:"))
    out = tmp_path / "resaved.params"
    mx.nd.save(str(out), loaded)
    with open(path, "rb") as f:
        assert out.read_bytes() == f.read()


@pytest.mark.parametrize("meta", sorted(glob.glob(os.path.join(DATA, "*-meta.json"))),
                         ids=lambda p: os.path.basename(p))
def test_names_and_shapes_match_the_export_metadata(meta):
    with open(meta) as f:
        info = json.load(f)
    loaded = mx.nd.load(os.path.join(DATA, info["params_file"]))
    assert {k: v.shape for k, v in loaded.items()} == {k: tuple(v["shape"]) for k, v in info["params"].items()}
    assert all(v.dtype == np.float32 for v in loaded.values())


def test_module_checkpoints_and_bn_values():
    expected = {"arg:fc1_weight": (256, 512), "arg:fc1_bias": (256,), "arg:fc2_weight": (128, 256),
                "arg:fc2_bias": (128,), "arg:fc3_weight": (2, 128), "arg:fc3_bias": (2,)}
    for name in ("mlp_module-0000", "mlp_fit-0000", "mlp_fit-0001", "mlp_fit-0002"):
        loaded = mx.nd.load(os.path.join(DATA, name + ".params"))
        assert {k: v.shape for k, v in loaded.items()} == expected
    # epochs differ: training changed the weights
    w0 = mx.nd.load(os.path.join(DATA, "mlp_fit-0000.params"))["arg:fc1_weight"].asnumpy()
    w2 = mx.nd.load(os.path.join(DATA, "mlp_fit-0002.params"))["arg:fc1_weight"].asnumpy()
    assert not np.array_equal(w0, w2)
    # bn_trainmode was exported after the update recorded in bn_trainmode_ref.npz
    ref = np.load(os.path.join(DATA, "bn_trainmode_ref.npz"))
    loaded = mx.nd.load(os.path.join(DATA, "bn_trainmode-0000.params"))
    for key, value in loaded.items():
        np.testing.assert_array_equal(value.asnumpy(), ref["after/" + key[4:]], err_msg=key)
    assert any(k.startswith("aux:") and k.endswith("running_var") for k in loaded)


# ---- forms, dtypes, keys ------------------------------------------------------------------------
ALL_DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool", "int16",
              "uint16", "uint32", "uint64"]


def test_list_dict_single_and_empty_forms(tmp_path):
    p = str(tmp_path / "f.params")
    a, b = mx.nd.array([[1, 2], [3, 4]]), mx.nd.arange(3)
    mx.nd.save(p, [a, b])
    out = mx.nd.load(p)
    assert isinstance(out, list) and [x.shape for x in out] == [(2, 2), (3,)]
    mx.nd.save(p, a)
    (single,) = mx.nd.load(p)
    assert single.asnumpy().tolist() == [[1, 2], [3, 4]]
    mx.nd.save(p, {"x": a, "y": b})
    assert list(mx.nd.load(p)) == ["x", "y"]
    mx.nd.save(p, [])
    empty_list = open(p, "rb").read()
    assert empty_list == struct.pack("<QQQQ", 0x112, 0, 0, 0) and mx.nd.load(p) == []
    mx.nd.save(p, {})
    assert open(p, "rb").read() == empty_list and mx.nd.load(p) == []  # as MXNet: an empty dict is a list
    mx.nd.save(p, (a,))
    assert len(mx.nd.load(p)) == 1


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_round_trips_bit_exactly(dtype, tmp_path):
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((3, 4)) * 100).astype(dtype)
    p = str(tmp_path / "d.params")
    mx.nd.save(p, {"w": mx.nd.array(data, dtype=dtype)})
    got = mx.nd.load(p)["w"]
    assert got.dtype == np.dtype(dtype)
    assert got.asnumpy().tobytes() == data.tobytes()
    names, arrays = independent_read(p)
    assert names == ["w"] and arrays[0].dtype == np.dtype(dtype)


def test_high_rank_unicode_keys_and_byte_identity(tmp_path):
    p = str(tmp_path / "u.params")
    data = {"arg:ünï_cødé_权重": mx.nd.array(np.arange(2 ** 7, dtype=np.float32).reshape((2,) * 7)),
            "aux:😀": mx.nd.ones((1,), dtype="int64"), "": mx.nd.zeros((2, 1))}
    mx.nd.save(p, data)
    first = open(p, "rb").read()
    loaded = mx.nd.load(p)
    assert list(loaded) == list(data) and loaded["arg:ünï_cødé_权重"].shape == (2,) * 7
    mx.nd.save(p, loaded)
    assert open(p, "rb").read() == first


def test_save_rejects_bad_data_with_type_error(tmp_path):
    p = str(tmp_path / "bad.params")
    for bad in ([np.ones(2)], {"a": np.ones(2)}, {1: mx.nd.ones(2)}, "text", 3):
        with pytest.raises(TypeError):
            mx.nd.save(p, bad)
        with pytest.raises(mx.MXNetError):
            mx.nd.save(p, bad)
    assert not os.path.exists(p)


# ---- V3 (npx.save), legacy, sparse, none --------------------------------------------------------
def test_v3_for_numpy_arrays_scalars_and_zero_size(tmp_path):
    p = str(tmp_path / "v3.params")
    scalar = mx.np.array(3.5)
    mx.npx.save(p, {"s": scalar, "z": mx.np.zeros((2, 0)), "m": mx.np.ones((2,))})
    raw = open(p, "rb").read()
    # first record: V3 magic, dense, ndim 0, cpu(0), float32, 4 data bytes
    assert struct.unpack_from("<Iii", raw, 24) == (0xF993FACA, 0, 0)
    assert struct.unpack_from("<iiif", raw, 36) == (1, 0, 0, 3.5)
    out = mx.npx.load(p)
    assert out["s"].shape == () and float(out["s"]) == 3.5 and out["s"]._np
    assert out["z"].shape == (2, 0) and out["m"].asnumpy().tolist() == [1, 1]
    assert mx.nd.load(p)["s"]._np  # V3 records load as mx.np arrays
    mx.npx.save(p, out)
    assert open(p, "rb").read() == raw
    # nd.save picks V3 by itself when V2 cannot hold the arrays (0-d, zero-size, mx.np arrays)
    mx.nd.save(p, [mx.np.ones((2,))])
    assert struct.unpack_from("<I", open(p, "rb").read(), 24)[0] == 0xF993FACA
    mx.nd.save(p, [mx.nd.ones((2,))])
    assert struct.unpack_from("<I", open(p, "rb").read(), 24)[0] == 0xF993FAC9


def _file(records, names=()):
    out = struct.pack("<QQQ", 0x112, 0, len(records)) + b"".join(records)
    out += struct.pack("<Q", len(names))
    for n in names:
        out += struct.pack("<Q", len(n.encode())) + n.encode()
    return out


def _v2(arr, dev=(1, 0), magic=0xF993FAC9):
    flag = {np.dtype(v): k for k, v in _FLAGS.items()}[arr.dtype.newbyteorder("<") if arr.dtype.itemsize > 1
                                                       else arr.dtype]
    return (struct.pack(f"<Iii{arr.ndim}q", magic, 0, arr.ndim, *arr.shape) + struct.pack("<iii", *dev, flag)
            + arr.astype(arr.dtype.newbyteorder("<")).tobytes())


def test_legacy_v1_and_pre_v1_records(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    v1 = struct.pack("<Ii2q", 0xF993FAC8, 2, 2, 3) + struct.pack("<ii", 1, 0) + struct.pack("<i", 0) + a.tobytes()
    pre = struct.pack("<I2I", 2, 2, 3) + struct.pack("<iii", 1, 0, 0) + a.tobytes()
    p = tmp_path / "legacy.params"
    p.write_bytes(_file([v1, pre], ["a", "b"]))
    out = mx.nd.load(str(p))
    np.testing.assert_array_equal(out["a"].asnumpy(), a)
    np.testing.assert_array_equal(out["b"].asnumpy(), a)
    mx.nd.save(str(p), out)  # re-saved as V2
    assert independent_read(str(p))[0] == ["a", "b"]


def test_sparse_records_load_densified(tmp_path):
    # row_sparse (4, 2) with rows 1 and 3 stored
    vals = np.array([[1, 2], [3, 4]], dtype=np.float32)
    rsp = (struct.pack("<Ii", 0xF993FAC9, 1) + struct.pack("<i2q", 2, 2, 2) + struct.pack("<i2q", 2, 4, 2)
           + struct.pack("<iii", 1, 0, 0) + struct.pack("<i", 6) + struct.pack("<iq", 1, 2)
           + vals.tobytes() + np.array([1, 3], np.int64).tobytes())
    # csr (2, 3): [[0, 5, 0], [7, 0, 8]]
    cvals = np.array([5, 7, 8], dtype=np.float64)
    csr = (struct.pack("<Ii", 0xF993FAC9, 2) + struct.pack("<iq", 1, 3) + struct.pack("<i2q", 2, 2, 3)
           + struct.pack("<iii", 1, 0, 1) + struct.pack("<iiq", 6, 1, 3) + struct.pack("<iiq", 6, 1, 3)
           + cvals.tobytes() + np.array([0, 1, 3], np.int64).tobytes() + np.array([1, 0, 2], np.int64).tobytes())
    p = tmp_path / "sparse.params"
    p.write_bytes(_file([rsp, csr]))
    r, c = mx.nd.load(str(p))
    assert r.asnumpy().tolist() == [[0, 0], [1, 2], [0, 0], [3, 4]] and r.dtype == np.float32
    assert c.asnumpy().tolist() == [[0, 5, 0], [7, 0, 8]] and c.dtype == np.float64
    bad = csr[:-8] + np.array([5], np.int64).tobytes()   # a column index out of range
    p.write_bytes(_file([bad]))
    with pytest.raises(mx.MXNetError, match="column indices"):
        mx.nd.load(str(p))


def test_gpu_tag_none_records_and_device_tags(tmp_path):
    a = np.ones((2,), np.float32)
    none_v2 = struct.pack("<Iii", 0xF993FAC9, 0, 0)
    p = tmp_path / "tags.params"
    raw = _file([_v2(a, dev=(2, 0)), none_v2, _v2(a, dev=(1, 0))])
    p.write_bytes(raw)
    g, none, c = mx.nd.load(str(p))
    assert none is None and c.device == mx.cpu(0)
    assert g.device == (mx.gpu(0) if mx.num_gpus() > 0 else mx.cpu(0))
    out = tmp_path / "again.params"
    mx.nd.save(str(out), [g, None, c])
    if mx.num_gpus() > 0:
        assert out.read_bytes() == raw
    else:  # the GPU tag becomes cpu(0), as a CPU build of MXNet does
        assert out.read_bytes() == _file([_v2(a), none_v2, _v2(a)])


# ---- corruption ---------------------------------------------------------------------------------
def _small_file(tmp_path):
    p = tmp_path / "small.params"
    mx.nd.save(str(p), {"arg:w": mx.nd.array([[1, 2, 3]]), "aux:m": mx.nd.array([4], dtype="int64")})
    return p, p.read_bytes()


def test_every_truncation_raises_mxnet_error(tmp_path):
    p, raw = _small_file(tmp_path)
    cut = tmp_path / "cut.params"
    for n in range(len(raw)):
        cut.write_bytes(raw[:n])
        with pytest.raises(mx.MXNetError, match="cut.params") as info:
            mx.nd.load(str(cut))
        assert "expected" in str(info.value) and "got" in str(info.value)
    second = raw.index(struct.pack("<I", 0xF993FAC9), 30)
    cut.write_bytes(raw[:second + 36])   # inside the second record's data
    with pytest.raises(mx.MXNetError, match=r"record 1 of 2: truncated data"):
        mx.nd.load(str(cut))


def test_real_file_truncated_at_several_points(tmp_path):
    raw = open(os.path.join(DATA, "lenet-0000.params"), "rb").read()
    cut = tmp_path / "lenet-cut.params"
    for n in (0, 7, 24, 30, 100, len(raw) // 3, len(raw) // 2, len(raw) - 9, len(raw) - 1):
        cut.write_bytes(raw[:n])
        with pytest.raises(mx.MXNetError, match="lenet-cut.params"):
            mx.nd.load(str(cut))


def test_flipped_magics_and_bad_fields(tmp_path):
    p, raw = _small_file(tmp_path)
    bad = tmp_path / "bad.params"

    def expect(data, pattern):
        bad.write_bytes(bytes(data))
        with pytest.raises(mx.MXNetError, match=pattern):
            mx.nd.load(str(bad))

    flipped = bytearray(raw)
    flipped[0] ^= 0xFF
    expect(flipped, "list magic 0x112")
    flipped = bytearray(raw)
    flipped[27] ^= 0x40    # the first record's magic
    expect(flipped, r"record 0 of 2: expected an NDArray record magic")
    second = raw.index(struct.pack("<I", 0xF993FAC9), 30)
    flipped = bytearray(raw)
    flipped[second + 3] ^= 0x01
    expect(flipped, r"record 1 of 2")
    flag_at = 24 + 4 + 4 + 4 + 16 + 8   # magic, stype, ndim, 2 dims, device tag
    flipped = bytearray(raw)
    flipped[flag_at:flag_at + 4] = struct.pack("<i", 13)   # past bfloat16 (12), the last mshadow flag
    expect(flipped, "type flag 13")
    flipped = bytearray(raw)
    flipped[28:32] = struct.pack("<i", 7)
    expect(flipped, "storage type")
    flipped = bytearray(raw)
    flipped[52:56] = struct.pack("<i", 9)   # device type
    expect(flipped, "device type")
    keys_at = len(raw) - (8 + 2 * (8 + 5))   # names count, then two 5-byte names
    flipped = bytearray(raw)
    flipped[keys_at:keys_at + 8] = struct.pack("<Q", 1)
    expect(flipped, "0 names")
    expect(raw[:-1] + b"\xff", "UTF-8")
    expect(b"not a params file at all, just text", "list magic")


def test_missing_file():
    with pytest.raises(mx.MXNetError, match="no such file"):
        mx.nd.load("/nonexistent/dir/x.params")
    with pytest.raises(FileNotFoundError):
        mx.nd.load("/nonexistent/dir/x.params")


# ---- atomic writes ------------------------------------------------------------------------------
def test_writes_are_atomic(tmp_path, monkeypatch):
    p, raw = _small_file(tmp_path)
    monkeypatch.setattr(params_file.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space")))
    with pytest.raises(mx.MXNetError, match="No space"):
        mx.nd.save(str(p), [mx.nd.ones((1000,))])
    monkeypatch.undo()
    assert p.read_bytes() == raw and os.listdir(tmp_path) == ["small.params"]   # old file intact, no temp
    with pytest.raises(mx.MXNetError):
        mx.nd.save(str(p), [mx.nd.ones((2,), dtype="complex64")])   # fails before writing
    assert p.read_bytes() == raw and os.listdir(tmp_path) == ["small.params"]
    os.chmod(p, 0o640)
    mx.nd.save(str(p), [mx.nd.ones((2,))])
    assert os.stat(p).st_mode & 0o777 == 0o640 and len(mx.nd.load(str(p))) == 1
    with pytest.raises(mx.MXNetError, match="cannot save"):
        mx.nd.save(str(tmp_path / "no" / "dir.params"), [mx.nd.ones((2,))])


def test_pathlike_and_frombuffer(tmp_path):
    p = tmp_path / "pl.params"
    mx.nd.save(p, {"a": mx.nd.ones((2,))})
    assert mx.nd.load(p)["a"].shape == (2,)
    assert params_file.load_frombuffer(p.read_bytes())["a"].shape == (2,)


def test_no_pickle_anywhere():
    with open(params_file.__file__) as f:
        src = f.read()
    assert "pickle" not in src.replace("No pickle", "")
