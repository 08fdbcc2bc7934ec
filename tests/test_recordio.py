"""mx.recordio, gluon.data.RecordFileDataset / vision.ImageRecordDataset and mx.io.ImageRecordIter:
files written by real MXNet 1.9.1 are read as MXNet reads them, hybridlab writes MXNet's bytes, and
every malformed file is an MXNetError naming the file and the record.

The fixtures in tests/data/recordio were written by MXNet 1.9.1, and expected.npz holds what MXNet
read from them (tests/data/recordio/make_fixtures.py made both)."""
import json
import os
import shutil
import struct
import tracemalloc

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError
from hybridlab.fileio import stale_temp_files

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "recordio")
MAGIC = struct.pack("<I", 0xCED7230A)


@pytest.fixture(scope="module")
def expected():
    return dict(np.load(os.path.join(DATA, "expected.npz")))


def _text(arr):
    return json.loads(bytes(arr).decode("utf-8"))


def _copy(tmp_path, *names):
    for n in names:
        shutil.copy(os.path.join(DATA, n), tmp_path / n)
    return [str(tmp_path / n) for n in names]


def _read_all(path):
    r = mx.recordio.MXRecordIO(path, "r")
    out = []
    while True:
        s = r.read()
        if s is None:
            return out
        out.append(s)


# ---- RecordIO bytes --------------------------------------------------------------------------------
def test_reads_the_records_mxnet_wrote_and_writes_the_same_bytes(tmp_path, expected):
    parts = [bytes.fromhex(h) for h in _text(expected["parts"])]
    assert [bytes.fromhex(h) for h in _text(expected["parts_read"])] == parts
    assert _read_all(os.path.join(DATA, "parts.rec")) == parts       # empty, odd lengths, the magic inside
    out = str(tmp_path / "parts.rec")
    with mx.recordio.MXRecordIO(out, "w") as w:
        for p in parts:
            w.write(p)
    with open(out, "rb") as a, open(os.path.join(DATA, "parts.rec"), "rb") as b:
        assert a.read() == b.read()


def test_indexed_records_of_mxnet_and_identical_rewrite(tmp_path, expected):
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "images.idx"), os.path.join(DATA, "images.rec"), "r")
    assert r.keys == expected["images_keys"].tolist()
    assert [r.idx[k] for k in r.keys] == expected["images_offsets"].tolist()
    idx, rec = str(tmp_path / "x.idx"), str(tmp_path / "x.rec")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for k in reversed(r.keys):
        header, payload = mx.recordio.unpack(r.read_idx(k))
        assert [header.flag, header.label, header.id, header.id2] == expected["images_headers"][k].tolist()
    for k in r.keys:
        w.write_idx(k, r.read_idx(k))
    w.close()
    for mine, theirs in [(idx, "images.idx"), (rec, "images.rec")]:
        with open(mine, "rb") as a, open(os.path.join(DATA, theirs), "rb") as b:
            assert a.read() == b.read()


def test_write_read_tell_reset_and_keys(tmp_path):
    idx, rec = str(tmp_path / "a.idx"), str(tmp_path / "a.rec")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w", key_type=str)
    assert w.tell() == 0
    records = {"b": b"x" * 5, "a": MAGIC * 3, "c": b""}
    for k, v in records.items():
        w.write_idx(k, v)
    w.close()
    r = mx.recordio.MXIndexedRecordIO(idx, rec, "r", key_type=str)
    assert r.keys == ["b", "a", "c"] and r.idx == {"b": 0, "a": 16, "c": 48}
    assert {k: r.read_idx(k) for k in ["c", "a", "b"]} == records
    assert [r.read(), r.read(), r.read()] == [MAGIC * 3, b"", None]     # reading on after the last seek
    r.reset()
    assert r.read() == b"x" * 5
    with pytest.raises(KeyError):
        r.read_idx("zz")
    with pytest.raises(ValueError, match="Invalid flag"):
        mx.recordio.MXRecordIO(rec, "a")
    with pytest.raises(MXNetError, match="open for reading"):
        r.write(b"x")
    with pytest.raises(TypeError, match="expected bytes"):
        mx.recordio.MXRecordIO(str(tmp_path / "b.rec"), "w").write("text")


def test_writing_is_atomic(tmp_path):
    path = str(tmp_path / "a.rec")
    with mx.recordio.MXRecordIO(path, "w") as w:
        w.write(b"old")
    w = mx.recordio.MXRecordIO(path, "w")
    w.write(b"new")
    assert _read_all(path) == [b"old"] and len(stale_temp_files(path)) == 1     # not yet in place
    w.close()
    assert _read_all(path) == [b"new"] and stale_temp_files(path) == []
    with pytest.raises(RuntimeError, match="boom"):
        with mx.recordio.MXRecordIO(path, "w") as w:
            w.write(b"half")
            raise RuntimeError("boom")
    assert _read_all(path) == [b"new"] and stale_temp_files(path) == []
    w = mx.recordio.MXRecordIO(path, "w")
    w.write(b"gone")
    del w                                   # as MXNet: an unreferenced writer closes (and commits)
    assert _read_all(path) == [b"gone"]


# ---- image records ---------------------------------------------------------------------------------
def test_pack_unpack_labels():
    s = mx.recordio.pack(mx.recordio.IRHeader(9, 2.5, 7, 1), b"payload")
    assert len(s) == 24 + 7 and mx.recordio.unpack(s) == (mx.recordio.IRHeader(0, 2.5, 7, 1), b"payload")
    h, rest = mx.recordio.unpack(mx.recordio.pack((0, [1, -2.5, 3], 4, 0), b"z"))
    assert h.flag == 3 and h.label.tolist() == [1, -2.5, 3] and h.label.dtype == np.float32 and rest == b"z"
    with pytest.raises(MXNetError, match="at least 24 bytes.*got 5"):
        mx.recordio.unpack(b"short")
    with pytest.raises(MXNetError, match="announces 1000 float32 labels"):
        mx.recordio.unpack(struct.pack("<IfQQ", 1000, 0, 0, 0) + b"abcd")


def test_pack_img_png_is_lossless_and_jpeg_is_close():
    rng = np.random.RandomState(1)
    bgr = rng.randint(0, 256, (7, 9, 3)).astype(np.uint8)
    header = mx.recordio.IRHeader(0, 1.0, 3, 0)
    h, out = mx.recordio.unpack_img(mx.recordio.pack_img(header, bgr, quality=3, img_fmt=".png"))
    assert h == header and out.dtype == np.uint8 and (out == bgr).all()
    grey = rng.randint(0, 256, (5, 4)).astype(np.uint8)
    s = mx.recordio.pack_img(header, grey, img_fmt=".PNG")
    assert (mx.recordio.unpack_img(s)[1] == grey).all()                  # -1: as stored, (H, W)
    assert (mx.recordio.unpack_img(s, 1)[1] == grey[:, :, None]).all()   # 1: three equal channels
    bgra = rng.randint(0, 256, (3, 4, 4)).astype(np.uint8)
    assert (mx.recordio.unpack_img(mx.recordio.pack_img(header, bgra, img_fmt=".png"))[1] == bgra).all()
    smooth = np.broadcast_to(np.linspace(0, 240, 16)[None, :, None], (16, 16, 3)).astype(np.uint8)
    smooth = np.ascontiguousarray(smooth) + np.array([0, 3, 6], np.uint8)
    _, jpg = mx.recordio.unpack_img(mx.recordio.pack_img(header, smooth, quality=95))
    assert jpg.shape == smooth.shape and np.abs(jpg.astype(int) - smooth).mean() < 3
    with pytest.raises(MXNetError, match="img_fmt"):
        mx.recordio.pack_img(header, bgr, img_fmt=".gif")
    with pytest.raises(MXNetError, match="decoding failed"):
        mx.recordio.unpack_img(mx.recordio.pack(header, b"not an image"))


def test_grey_decoding_matches_opencv(expected):
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "images.idx"), os.path.join(DATA, "images.rec"), "r")
    for k in r.keys:
        _, bgr = mx.recordio.unpack_img(r.read_idx(k), 1)
        assert (bgr[:, :, ::-1] == expected[f"image{k}"]).all()               # MXNet decoded these pixels
        _, grey = mx.recordio.unpack_img(r.read_idx(k), 0)
        assert (grey == expected[f"image{k}_decoded_grey"][:, :, 0]).all()    # MXNet's (libpng's) rounding


def test_record_datasets(expected):
    ds = mx.gluon.data.RecordFileDataset(os.path.join(DATA, "images.rec"))
    assert len(ds) == 7 and mx.recordio.unpack(ds[3])[0].id == 33
    ds = mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "images.rec"))
    for i in range(7):
        img, label = ds[i]
        assert img.dtype == np.uint8 and (img.asnumpy() == expected[f"image{i}"]).all() and label == i + 0.5
    grey = mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "grey.rec"), flag=0,
                                                   transform=lambda x, y: (x.asnumpy(), y))
    for i in range(4):
        img, label = grey[i]
        assert (img == expected[f"grey{i}_decoded_grey"]).all() and (label == expected[f"grey{i}_label"]).all()
    ds = mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "images.rec"),
                                                 transform=lambda x, y: (mx.image.imresize(x, 4, 4), y))
    for workers in (0, 2):      # fork workers reopen the file (MXNet's pid check)
        labels = [y.asnumpy().tolist() for _, y in mx.gluon.data.DataLoader(ds, batch_size=3, num_workers=workers)]
        assert labels == [[0.5, 1.5, 2.5], [3.5, 4.5, 5.5], [6.5]]


# ---- ImageRecordIter --------------------------------------------------------------------------------
CASES = ["plain", "idx_norm", "part0", "part1", "part2", "part0_idx", "part2_idx", "grey", "shuffle", "shuffle_idx",
         "uint8_mirror", "int8", "upscale", "resize"]


@pytest.mark.parametrize("name", CASES)
def test_image_record_iter_matches_mxnet(name, expected, monkeypatch):
    kwargs, epochs = _text(expected["cases"])[name]
    monkeypatch.chdir(DATA)
    it = mx.io.ImageRecordIter(**kwargs)
    got = []
    for _ in range(epochs):
        got += [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in it]
        it.reset()
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data + it.provide_label] == \
        _text(expected[f"case_{name}_provide"])
    assert len(got) == len(expected[f"case_{name}_data"])
    assert [p for _, _, p in got] == expected[f"case_{name}_pad"].tolist()
    np.testing.assert_array_equal(np.stack([lab for _, lab, _ in got]), expected[f"case_{name}_label"])
    data = np.stack([d for d, _, _ in got])
    np.testing.assert_allclose(data.astype(np.float64), expected[f"case_{name}_data"].astype(np.float64),
                               rtol=0, atol=1e-6)


def test_image_record_iter_without_round_batch_and_random_augmentation(expected):
    it = mx.io.ImageRecordIter(path_imgrec=os.path.join(DATA, "images.rec"), data_shape=(3, 4, 4), batch_size=3,
                               round_batch=False, data_name="img", label_name="lbl")
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2] and batches[2].label[0].asnumpy().tolist() == [6.5, 0, 0]
    assert (batches[2].data[0].asnumpy()[1:] == 0).all()         # filler rows (MXNet: stale rows, pad 0)
    assert [d.name for d in it.provide_data + it.provide_label] == ["img", "lbl"]
    assert batches[0].index.tolist() == [3, 13, 23]               # the records' ids
    it = mx.io.ImageRecordIter(path_imgrec=os.path.join(DATA, "images.rec"), data_shape=(3, 4, 4), batch_size=7,
                               rand_crop=True, rand_mirror=True, dtype="uint8")
    for _ in range(3):
        batch = next(iter(it)).data[0].asnumpy()
        it.reset()
        for i in range(7):
            img = expected[f"image{i}"].transpose(2, 0, 1)
            windows = [img[:, y:y + 4, x:x + 4] for y in range(img.shape[1] - 3) for x in range(img.shape[2] - 3)]
            assert any((batch[i] == w).all() or (batch[i] == w[:, :, ::-1]).all() for w in windows)


def test_image_record_iter_argument_errors():
    rec = os.path.join(DATA, "images.rec")
    with pytest.raises(MXNetError, match="max_rotate_angle=10 is not supported"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=2, max_rotate_angle=10)
    with pytest.raises(MXNetError, match="unknown argument 'bogus'"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=2, bogus=1)
    mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=2, preprocess_threads=8, verbose=False)
    with pytest.raises(MXNetError, match="part_index < num_parts"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=2, num_parts=2, part_index=2)
    with pytest.raises(MXNetError, match="must be bigger than the batch size"):
        list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=20))
    with pytest.raises(MXNetError, match="record 0 at byte 0: the record provides a 2-dimensional label but "
                                         "label_width is set to 1"):
        next(iter(mx.io.ImageRecordIter(path_imgrec=os.path.join(DATA, "grey.rec"), path_imgidx=os.path.join(
            DATA, "grey.idx"), data_shape=(1, 3, 3), batch_size=2)))


# ---- malformed files -----------------------------------------------------------------------------------
def _record(data, cflag=0, length=None):
    n = len(data) if length is None else length
    return MAGIC + struct.pack("<I", (cflag << 29) | n) + data + b"\0" * (-len(data) % 4)


GOOD = _record(b"abcdefgh")
BAD_RECORDS = {
    "bad magic": (GOOD + b"\xde\xad\xbe\xef" + GOOD[4:], "record 1 \\(at byte 16\\): expected the RecordIO magic "
                                                          "number 0xced7230a at byte 16, got 0xefbeadde"),
    "length past the end": (GOOD + _record(b"abcd", length=1 << 28), "record 1 \\(at byte 16\\): truncated: the "
                                                                     "header at byte 16 announces 268435456 bytes"),
    "truncated header": (GOOD + MAGIC + b"\x01", "record 1 \\(at byte 16\\): truncated: expected an 8-byte record "
                                                 "header at byte 16, got 5 bytes"),
    "truncated padding": (GOOD + MAGIC + struct.pack("<I", 5) + b"abcde", "record 1 \\(at byte 16\\): truncated: the "
                                                                           "header at byte 16 announces 5 bytes"),
    "unfinished multi-part": (GOOD + _record(b"abcd", cflag=1), "record 1 \\(at byte 16\\): truncated: expected the "
                                                                "next part of a multi-part record at byte 28"),
    "starts with a middle part": (_record(b"abcd", cflag=2), "record 0 \\(at byte 0\\): expected a part flag "
                                                             "\\(cflag\\) in \\(0, 1\\) at byte 0, got 2"),
    "whole record inside a multi-part": (_record(b"ab", cflag=1) + GOOD, "record 0 \\(at byte 0\\): expected a part "
                                                                         "flag \\(cflag\\) in \\(2, 3\\) at byte 12"),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_malformed_record_files_name_the_file_and_record(tmp_path, case):
    blob, message = BAD_RECORDS[case]
    path = tmp_path / "bad.rec"
    path.write_bytes(blob)
    tracemalloc.start()
    with pytest.raises(MXNetError, match=f"RecordIO file '{path}': {message}"):
        _read_all(str(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20       # never allocates what a header claims
    with pytest.raises(MXNetError, match="bad.rec.*record"):
        list(mx.io.ImageRecordIter(path_imgrec=str(path), data_shape=(3, 4, 4), batch_size=1))


BAD_INDEXES = {
    "no tab": (b"0\t0\n1 16\n", "line 2: expected 'key<TAB>byte offset', got '1 16'"),
    "offset not a number": (b"0\t0\n1\tx\n", "line 2: expected 'key<TAB>byte offset', got '1\\\\tx'"),
    "key not an int": (b"k\t0\n", "line 1: the key 'k' is not a valid int"),
    "offset outside the file": (b"0\t0\n1\t4096\n", "line 2: record 1 at byte offset 4096 is outside the RecordIO "
                                                   "file '.*x.rec' \\(32 bytes\\)"),
    "offset not aligned": (b"0\t0\n1\t6\n", "line 2: record 1 at byte offset 6: expected a multiple of 4"),
    "not UTF-8": (b"0\t0\n\xff\t16\n", "line 2: expected UTF-8 text, got byte 0xff"),
}


@pytest.mark.parametrize("case", sorted(BAD_INDEXES))
def test_malformed_index_files_name_the_file_and_line(tmp_path, case):
    blob, message = BAD_INDEXES[case]
    (tmp_path / "x.rec").write_bytes(GOOD + GOOD)
    (tmp_path / "x.idx").write_bytes(blob)
    with pytest.raises(MXNetError, match=f"RecordIO index file '{tmp_path / 'x.idx'}': {message}"):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), str(tmp_path / "x.rec"), "r")
    with pytest.raises(MXNetError, match="x.idx"):
        mx.gluon.data.vision.ImageRecordDataset(str(tmp_path / "x.rec"))


def test_index_pointing_into_a_record_and_bad_images_name_the_record(tmp_path):
    (tmp_path / "x.rec").write_bytes(GOOD + GOOD)
    (tmp_path / "x.idx").write_bytes(b"0\t0\n7\t8\n")
    r = mx.recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), str(tmp_path / "x.rec"), "r")
    with pytest.raises(MXNetError, match="x.rec': record 7 \\(at byte 8\\): expected the RecordIO magic number"):
        r.read_idx(7)
    rec, idx = _copy(tmp_path, "images.rec", "images.idx")
    with open(rec, "r+b") as f:          # corrupt the PNG signature of record 2 (offset 504 + 8 + 24)
        f.seek(504 + 8 + 24)
        f.write(b"XXXX")
    with pytest.raises(MXNetError, match="ImageRecordDataset '.*images.rec', record 2: decoding failed"):
        mx.gluon.data.vision.ImageRecordDataset(rec)[2]
    it = mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=idx, data_shape=(3, 4, 4), batch_size=7)
    with pytest.raises(MXNetError, match="images.rec', record 2 at byte 504: decoding failed"):
        next(iter(it))
