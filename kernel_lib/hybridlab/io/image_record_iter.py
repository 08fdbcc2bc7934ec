"""``ImageRecordIter``: batches of images from a RecordIO file (``.rec``, as ``tools/im2rec.py`` and
``mx.recordio`` write it), as MXNet 1.9.1's C++ iterator makes them.

Each record (``recordio.unpack``: header + encoded image) is decoded (grey for ``data_shape[0] == 1``,
colour for 3, with alpha for 4), its shorter edge resized to ``resize`` (when given), cropped to
``data_shape`` (centre, or random with ``rand_crop``; smaller images are first enlarged, keeping
their aspect), mirrored (``mirror``, or at random with ``rand_mirror``), put in RGB order and, for
float32 output, normalized ``(pixel - mean_c) * scale / std_c``; ``dtype='uint8'`` keeps the pixels,
``'int8'`` stores ``pixel - round(mean_c)`` saturated. Labels are float32, shape ``(batch,)`` (or
``(batch, label_width)`` for records packed with label arrays).

Which records, in which order, as MXNet:

* ``num_parts`` / ``part_index`` (each distributed worker reads its part): without an index file the
  file's bytes are cut in ``num_parts`` equal, 4-byte aligned spans and a part holds the records that
  start in its span; with ``path_imgidx`` the records (sorted by offset) are cut in parts of
  ``ceil(n / num_parts)``.
* ``round_batch=True`` (the default): the last, incomplete batch is filled with records from the start
  of the next pass (``batch.pad`` counts them) and the next epoch continues after those, so no record
  is skipped over epochs. ``round_batch=False``: the last batch is zero-filled and ``batch.pad`` says
  how many rows are filler (MXNet 1.9.1 reports ``pad=0`` there and leaves stale rows: a bug).
* ``shuffle=True``: every pass over the records is a new permutation, drawn as MXNet does
  (libstdc++'s ``std::shuffle`` with ``std::mt19937(111 + seed)``), so ``seed`` gives MXNet's order
  (for files under MXNet's 64 MB chunk without an index file; with one, always).

Pixels equal MXNet's for lossless formats (PNG, BMP) with nearest or bilinear resizing; JPEG is decoded
by Pillow's libjpeg and may differ by a few levels. Random augmentation (``rand_crop``,
``rand_mirror``) draws from its own generator: the same kinds of crops and flips as MXNet, not the
same ones. ``batch.index`` holds the records' ids. Accepted and ignored: ``preprocess_threads``,
``prefetch_buffer``, ``verbose``, ``ctx``, ``device_id``. Other augmentations of MXNet's
(rotation, colour jitter, ...) are refused with an ``MXNetError`` naming them.

The files are untrusted: every malformed record or index line is an ``MXNetError`` naming the file and
the record (see ``mx.recordio``).

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import hybridlab as mx
    >>> d = tempfile.mkdtemp()
    >>> rec = mx.recordio.MXRecordIO(os.path.join(d, 'a.rec'), 'w')
    >>> for i in range(5):
    ...     img = np.full((6, 8, 3), 10 * i, dtype=np.uint8)
    ...     rec.write(mx.recordio.pack_img((0, float(i), i, 0), img, img_fmt='.png'))
    >>> rec.close()
    >>> it = mx.io.ImageRecordIter(path_imgrec=os.path.join(d, 'a.rec'), data_shape=(3, 4, 4), batch_size=2)
    >>> [(b.label[0].asnumpy().tolist(), b.pad) for b in it]
    [([0.0, 1.0], 0), ([2.0, 3.0], 0), ([4.0, 0.0], 1)]
    >>> it.reset(); [b.label[0].asnumpy().tolist() for b in it]     # continues after the padding
    [[1.0, 2.0], [3.0, 4.0]]
"""
import numpy as np

from .. import recordio
from ..base import MXNetError
from ..image.resize import resize_np
from .batch import DataBatch, DataDesc
from .mnist_iter import _mt19937_words
from .ndarray_iter import DataIter

__all__ = ["ImageRecordIter"]

_RAND_MAGIC = 111
# MXNet's parameters accepted and ignored (threads, prefetching, logging, device placement)
_IGNORED = {"preprocess_threads", "prefetch_buffer", "verbose", "ctx", "device_id", "aug_seq", "shuffle_chunk_seed"}
# MXNet's augmentation parameters that hybridlab does not implement: name -> MXNet's default (accepted
# when given with that value)
_UNSUPPORTED = {"random_resized_crop": False, "max_rotate_angle": 0, "max_aspect_ratio": 0.0, "min_aspect_ratio": None,
                "max_shear_ratio": 0.0, "max_crop_size": -1, "min_crop_size": -1, "max_random_scale": 1.0,
                "min_random_scale": 1.0, "max_random_area": 1.0, "min_random_area": 1.0, "max_img_size": 1e10,
                "min_img_size": 0.0, "brightness": 0.0, "contrast": 0.0, "saturation": 0.0, "pca_noise": 0.0,
                "random_h": 0, "random_s": 0, "random_l": 0, "rotate": -1, "fill_value": 255, "pad": 0,
                "max_random_contrast": 0.0, "max_random_illumination": 0.0, "mean_img": "", "path_imglist": "",
                "shuffle_chunk_size": 0, "seed_aug": None}
_DTYPES = {None: np.float32, "float32": np.float32, "uint8": np.uint8, "int8": np.int8}


def _std_shuffle(n, words):
    """libstdc++'s ``std::shuffle`` of ``range(n)`` with the mt19937 output stream ``words``
    (Fisher-Yates, each index by ``uniform_int_distribution``: rejection, then division)."""
    order = list(range(n))
    for i in range(1, n):
        scaling = 0xFFFFFFFF // (i + 1)
        past = (i + 1) * scaling
        w = next(words)
        while w >= past:
            w = next(words)
        j = w // scaling
        order[i], order[j] = order[j], order[i]
    return order


def _int_arg(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise MXNetError(f"ImageRecordIter: {name}: expected an int >= {low}, got {value!r}")
    return int(value)


class ImageRecordIter(DataIter):
    """Batches of the images of a RecordIO file; see the module docstring for what each argument does
    and how it matches MXNet."""

    def __init__(self, path_imgrec="", data_shape=None, batch_size=None, path_imgidx="", label_width=1,
                 shuffle=False, seed=0, round_batch=True, num_parts=1, part_index=0, mean_r=0.0, mean_g=0.0,
                 mean_b=0.0, mean_a=0.0, std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0, scale=1.0, rand_crop=False,
                 rand_mirror=False, mirror=False, resize=-1, inter_method=1, dtype=None, data_name="data",
                 label_name="softmax_label", **kwargs):
        self._check_kwargs(kwargs)
        if not path_imgrec:
            raise MXNetError("ImageRecordIter: must specify path_imgrec (the .rec file)")
        if data_shape is None or batch_size is None:
            raise MXNetError("ImageRecordIter: data_shape and batch_size are required")
        shape = tuple(int(d) for d in data_shape)
        if len(shape) != 3 or shape[0] not in (1, 3, 4) or min(shape) < 1:
            raise MXNetError(f"ImageRecordIter: data_shape: expected (channels, height, width) with 1, 3 or 4 "
                             f"channels, got {tuple(data_shape)}")
        super().__init__(_int_arg("batch_size", batch_size, 1))
        self._label_width = _int_arg("label_width", label_width, 1)
        num_parts, part_index = _int_arg("num_parts", num_parts, 1), _int_arg("part_index", part_index, 0)
        if part_index >= num_parts:
            raise MXNetError(f"ImageRecordIter: expected 0 <= part_index < num_parts, got part_index={part_index}, "
                             f"num_parts={num_parts}")
        dt = np.dtype(dtype).name if dtype is not None and not isinstance(dtype, str) else dtype
        if dt not in _DTYPES:
            raise MXNetError(f"ImageRecordIter: dtype: expected float32, uint8 or int8, got {dtype!r}")
        self._dtype = _DTYPES[dt]
        self._shape = shape
        self._resize, self._inter = int(resize), int(inter_method)
        self._rand_crop, self._rand_mirror, self._mirror = bool(rand_crop), bool(rand_mirror), bool(mirror)
        self._mean = np.array([mean_r, mean_g, mean_b, mean_a], np.float32)
        self._mult = np.float32(scale) / np.array([std_r, std_g, std_b, std_a], np.float32)
        self._round_batch = bool(round_batch)
        self._names = (data_name, label_name)
        self._path = str(path_imgrec)
        self._reader, self._records = self._part(path_imgrec, path_imgidx, num_parts, part_index)
        self._shuffle = bool(shuffle)
        self._words = _mt19937_words(_RAND_MAGIC + int(seed)) if self._shuffle else None
        self._aug_rng = np.random.RandomState(_RAND_MAGIC)
        self._order, self._pos, self._overflow = self._new_pass(), 0, False
        self._batch = None

    @staticmethod
    def _check_kwargs(kwargs):
        for name, value in kwargs.items():
            if name in _IGNORED:
                continue
            if name not in _UNSUPPORTED:
                raise MXNetError(f"ImageRecordIter: unknown argument {name!r}")
            default = _UNSUPPORTED[name]
            if value != default and not (value is None and default in ("", None)):
                raise MXNetError(f"ImageRecordIter: {name}={value!r} is not supported by hybridlab (only its "
                                 f"default {default!r}); supported augmentations: resize, rand_crop, rand_mirror, "
                                 f"mirror, mean_*/std_*/scale")

    # ---- the records of this part ----------------------------------------------------------------
    def _part(self, path_imgrec, path_imgidx, num_parts, part_index):
        """(reader, [(record offset, what to call it in errors)]) of this worker's part, in file order."""
        if path_imgidx:
            reader = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            keys = sorted(reader.keys, key=lambda k: reader.idx[k])
            step = -(-len(keys) // num_parts)
            return reader, [(reader.idx[k], k) for k in keys[part_index * step:(part_index + 1) * step]]
        reader = recordio.MXRecordIO(path_imgrec, "r")
        step = -(-reader._size // num_parts)
        step = (step + 3) // 4 * 4
        begin, end = min(step * part_index, reader._size), min(step * (part_index + 1), reader._size)
        out = []
        while True:
            offset = reader.tell()
            if reader.read() is None:
                break
            if begin <= offset < end:
                out.append((offset, None))
            if offset >= end:
                break
        reader._record = None
        return reader, out

    def _new_pass(self):
        if self._shuffle:
            return [self._records[i] for i in _std_shuffle(len(self._records), self._words)]
        return list(self._records)

    def _load(self, ref):
        offset, key = ref
        self._reader._check_pid(allow_reset=True)
        self._reader._file.seek(offset)
        self._reader._key = key
        try:
            raw = self._reader._read_record(key)
        finally:
            self._reader._key = None
        if raw is None:
            raise MXNetError(f"ImageRecordIter: RecordIO file {self._path!r}: no record at byte {offset} (the file "
                             f"ends there)")
        return raw

    # ---- one image -------------------------------------------------------------------------------
    def _where(self, ref):
        offset, key = ref
        return (f"ImageRecordIter: RecordIO file {self._path!r}, record "
                f"{repr(key) + ' ' if key is not None else ''}at byte {offset}")

    def _label(self, header, ref):
        if header.flag > 0:
            if header.flag != self._label_width:
                raise MXNetError(f"{self._where(ref)}: the record provides a {header.flag}-dimensional label but "
                                 f"label_width is set to {self._label_width}")
            return np.asarray(header.label, np.float32)
        if self._label_width != 1:
            raise MXNetError(f"{self._where(ref)}: label_width must be 1 unless the record is packed with a "
                             f"multi-dimensional label, got label_width={self._label_width} and a scalar label")
        return np.array([header.label], np.float32)

    def _augment(self, img):
        c, h, w = self._shape
        if self._resize != -1:
            rows, cols = img.shape[:2]
            if rows > cols:
                size = (self._resize, self._resize * rows // cols)
            else:
                size = (self._resize * cols // rows, self._resize)
            img = resize_np(img, size[0], size[1], self._inter)
        rows, cols = img.shape[:2]
        if rows < h:
            new_cols = int(np.float32(h) / np.float32(rows) * np.float32(cols))
            img = resize_np(img, new_cols, h, self._inter)
            rows, cols = img.shape[:2]
        if cols < w:
            new_rows = int(np.float32(w) / np.float32(cols) * np.float32(rows))
            img = resize_np(img, w, new_rows, self._inter)
            rows, cols = img.shape[:2]
        if rows < h or cols < w:
            raise MXNetError(f"ImageRecordIter: input image size {rows}x{cols} smaller than input shape {h}x{w}")
        y, x = rows - h, cols - w
        if self._rand_crop:
            y, x = self._aug_rng.randint(0, y + 1), self._aug_rng.randint(0, x + 1)
        else:
            y, x = y // 2, x // 2
        return img[y:y + h, x:x + w]

    def _image(self, raw, ref):
        try:
            header, payload = recordio.unpack(raw)
            c = self._shape[0]
            img = recordio.decode_cv(payload, {1: 0, 3: 1, 4: -1}[c], self._where(ref))
        except MXNetError as err:
            msg = str(err)
            raise MXNetError(msg if msg.startswith("ImageRecordIter") else f"{self._where(ref)}: {msg}") from None
        if img.ndim == 2:
            img = img[:, :, None]
        if img.shape[2] != c:
            raise MXNetError(f"{self._where(ref)}: expected an image with {c} channels, got {img.shape[2]}")
        label = self._label(header, ref)
        img = self._augment(img)
        if c >= 3:
            img = img[:, :, [2, 1, 0, 3][:c]]              # OpenCV's BGR(A) -> RGB(A)
        mirrored = (self._rand_mirror and self._aug_rng.randint(0, 2) == 1) or self._mirror
        if mirrored:
            img = img[:, ::-1]
        chw = np.ascontiguousarray(img.transpose(2, 0, 1))
        if self._dtype == np.float32:
            chw = (chw.astype(np.float32) - self._mean[:c, None, None]) * self._mult[:c, None, None]
        elif self._dtype == np.int8:
            mean = np.sign(self._mean[:c]) * np.floor(np.abs(self._mean[:c]) + np.float32(0.5))   # std::round
            chw = np.clip(chw.astype(np.int32) - mean.astype(np.int32)[:, None, None], -128, 127).astype(np.int8)
        return chw, label, header.id

    # ---- the DataIter protocol -------------------------------------------------------------------
    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self.batch_size,) + self._shape, self._dtype)]

    @property
    def provide_label(self):
        shape = (self.batch_size,) if self._label_width == 1 else (self.batch_size, self._label_width)
        return [DataDesc(self._names[1], shape, np.float32)]

    def reset(self):
        if self._round_batch and self._overflow:
            self._overflow = False        # the next epoch goes on after the records that padded the last one
        else:
            self._order, self._pos = self._new_pass(), 0

    def iter_next(self):
        if self._overflow:
            return False
        refs, pad, wrapped = [], 0, False
        while len(refs) < self.batch_size:
            if self._pos < len(self._order):
                take = min(self.batch_size - len(refs), len(self._order) - self._pos)
                refs += self._order[self._pos:self._pos + take]
                self._pos += take
                continue
            if not refs:
                return False
            if not self._round_batch:
                pad = self.batch_size - len(refs)
                break
            if wrapped:
                raise MXNetError(f"ImageRecordIter: {self._path!r}: the number of images ({len(self._records)} in "
                                 f"this part) must be bigger than the batch size ({self.batch_size})")
            wrapped, self._overflow = True, True
            pad = self.batch_size - len(refs)
            self._order, self._pos = self._new_pass(), 0
        c, h, w = self._shape
        data = np.zeros((self.batch_size, c, h, w), self._dtype)
        label = np.zeros((self.batch_size, self._label_width), np.float32)
        index = np.zeros(self.batch_size, np.uint64)
        for i, ref in enumerate(refs):
            data[i], label[i], index[i] = self._image(self._load(ref), ref)
        self._batch = (data, label if self._label_width > 1 else label[:, 0], pad, index)
        return True

    def getdata(self):
        from ..ndarray.ndarray import array
        return [array(self._batch[0], dtype=self._dtype)]

    def getlabel(self):
        from ..ndarray.ndarray import array
        return [array(self._batch[1], dtype=np.float32)]

    def getpad(self):
        return self._batch[2]

    def getindex(self):
        return self._batch[3]

    def next(self):
        if self.iter_next():
            return DataBatch(self.getdata(), self.getlabel(), self.getpad(), self.getindex(),
                             provide_data=self.provide_data, provide_label=self.provide_label)
        raise StopIteration
