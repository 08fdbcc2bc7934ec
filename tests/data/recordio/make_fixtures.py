"""Writes the RecordIO fixtures of tests/test_recordio.py with REAL MXNet 1.9.1 and records what MXNet
reads from them (run it with an environment where `import mxnet` is MXNet 1.9.1; it needs neither
OpenCV's Python module nor Pillow: the PNG images are encoded here, with zlib).

    /work/main/.venv-mxnet/bin/python tests/data/recordio/make_fixtures.py

Files (in this folder):
  images.rec/.idx  7 colour PNG images of various sizes, scalar labels i + 0.5, ids 10 i + 3
  grey.rec/.idx    4 PNG images (2 grey, 2 colour), 2-float labels
  parts.rec        plain records: empty, odd lengths, the magic number inside the data (multi-part)
  expected.npz     what MXNet read: the records, decoded images and ImageRecordIter batches
"""
import json
import os
import struct
import zlib

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = struct.pack("<I", 0xCED7230A)


def png(arr):
    arr = np.asarray(arr, np.uint8)
    h, w = arr.shape[:2]
    c = 1 if arr.ndim == 2 else arr.shape[2]
    raw = b"".join(b"\0" + arr[i].tobytes() for i in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, {1: 0, 3: 2, 4: 6}[c], 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _text(s):
    return np.frombuffer(s.encode("utf-8"), np.uint8)   # JSON text as bytes: np.load needs no pickle


def path(name):
    return os.path.join(HERE, name)


# iterator cases: name -> (kwargs, epochs); batches of all epochs are recorded in order
CASES = {
    "plain": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=3), 3),
    "idx_norm": (dict(path_imgrec="images.rec", path_imgidx="images.idx", data_shape=(3, 5, 5), batch_size=2,
                      resize=6, mean_r=120, mean_g=110, mean_b=100, std_r=50, std_g=60, std_b=70, scale=0.5), 2),
    "part0": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=2, num_parts=3, part_index=0), 2),
    "part1": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=2, num_parts=3, part_index=1), 2),
    "part2": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=2, num_parts=3, part_index=2), 2),
    "part0_idx": (dict(path_imgrec="images.rec", path_imgidx="images.idx", data_shape=(3, 4, 4), batch_size=2,
                       num_parts=3, part_index=0), 2),
    "part2_idx": (dict(path_imgrec="images.rec", path_imgidx="images.idx", data_shape=(3, 4, 4), batch_size=2,
                       num_parts=3, part_index=2), 2),
    "grey": (dict(path_imgrec="grey.rec", data_shape=(1, 3, 3), batch_size=2, label_width=2), 1),
    "shuffle": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=3, shuffle=True, seed=3), 2),
    "shuffle_idx": (dict(path_imgrec="images.rec", path_imgidx="images.idx", data_shape=(3, 4, 4), batch_size=3,
                         shuffle=True, seed=5), 2),
    "uint8_mirror": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=7, dtype="uint8", mirror=True), 1),
    "int8": (dict(path_imgrec="images.rec", data_shape=(3, 4, 4), batch_size=7, dtype="int8", mean_r=128,
                  mean_g=100.4, mean_b=30), 1),
    "upscale": (dict(path_imgrec="images.rec", data_shape=(3, 9, 9), batch_size=7), 1),
    "resize": (dict(path_imgrec="images.rec", data_shape=(3, 5, 5), batch_size=7, resize=5), 1),
}


def main():
    rng = np.random.RandomState(0)
    out = {}
    sizes = [(6, 8), (8, 6), (5, 5), (10, 7), (7, 9), (8, 8), (6, 6)]
    w = mx.recordio.MXIndexedRecordIO(path("images.idx"), path("images.rec"), "w")
    for i, (h, ww) in enumerate(sizes):
        img = rng.randint(0, 256, (h, ww, 3)).astype(np.uint8)
        out[f"image{i}"] = img
        w.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, i + 0.5, 10 * i + 3, 0), png(img)))
    w.close()
    w = mx.recordio.MXIndexedRecordIO(path("grey.idx"), path("grey.rec"), "w")
    for i, shape in enumerate([(4, 5), (5, 4), (4, 4, 3), (6, 5, 3)]):
        img = rng.randint(0, 256, shape).astype(np.uint8)
        out[f"grey{i}"] = img
        w.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, [i, -i / 4], i, 7), png(img)))
    w.close()
    parts = [b"", b"a", b"abcde", MAGIC, MAGIC + b"xy", b"abcd" + MAGIC + MAGIC + b"tail", b"12" + MAGIC + b"34",
             b"abcdefgh" + MAGIC, b"z" * 13]
    w = mx.recordio.MXRecordIO(path("parts.rec"), "w")
    for p in parts:
        w.write(p)
    w.close()
    out["parts"] = _text(json.dumps([p.hex() for p in parts]))

    # what MXNet reads back
    r = mx.recordio.MXIndexedRecordIO(path("images.idx"), path("images.rec"), "r")
    out["images_keys"] = np.array(r.keys)
    out["images_offsets"] = np.array([r.idx[k] for k in r.keys])
    heads = []
    for k in r.keys:
        h, s = mx.recordio.unpack(r.read_idx(k))
        heads.append([h.flag, h.label, h.id, h.id2])
        assert (mx.image.imdecode(s).asnumpy() == out[f"image{k}"]).all()    # PNG is lossless
        out[f"image{k}_decoded_grey"] = mx.image.imdecode(s, flag=0).asnumpy()
    out["images_headers"] = np.array(heads, dtype=np.float64)
    r = mx.recordio.MXRecordIO(path("grey.rec"), "r")
    for i in range(4):
        h, s = mx.recordio.unpack(r.read())
        out[f"grey{i}_label"] = np.asarray(h.label)
        out[f"grey{i}_decoded_grey"] = mx.image.imdecode(s, flag=0).asnumpy()
    r = mx.recordio.MXRecordIO(path("parts.rec"), "r")
    got = []
    while True:
        s = r.read()
        if s is None:
            break
        got.append(s.hex())
    out["parts_read"] = _text(json.dumps(got))

    cwd = os.getcwd()
    os.chdir(HERE)
    try:
        for name, (kwargs, epochs) in CASES.items():
            it = mx.io.ImageRecordIter(verbose=False, preprocess_threads=1, **kwargs)
            data, label, pad = [], [], []
            for _ in range(epochs):
                for b in it:
                    data.append(b.data[0].asnumpy())
                    label.append(b.label[0].asnumpy())
                    pad.append(b.pad)
                it.reset()
            data = np.stack(data)
            if data.dtype == np.float32 and (data == np.clip(np.round(data), 0, 255)).all():
                data = data.astype(np.uint8)    # smaller file; the dtype is recorded in case_<name>_provide
            out[f"case_{name}_data"] = data
            out[f"case_{name}_label"] = np.stack(label)
            out[f"case_{name}_pad"] = np.array(pad)
            out[f"case_{name}_provide"] = _text(json.dumps(
                [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data + it.provide_label]))
        out["cases"] = _text(json.dumps({k: [v[0], v[1]] for k, v in CASES.items()}))
    finally:
        os.chdir(cwd)
    np.savez_compressed(path("expected.npz"), **out)


if __name__ == "__main__":
    main()
