"""``mx.recordio`` (MXNet 1.9.1): read and write RecordIO (``.rec``) files, the binary record format
of dmlc-core that MXNet's ``tools/im2rec.py`` and ``ImageRecordIter`` use, byte for byte.

The format: each record is ``magic (0xced7230a) | lrec | data | zero padding to 4 bytes``, all
little-endian ``uint32``; ``lrec`` holds the data length (low 29 bits) and a continuation flag
``cflag`` (high 3 bits): 0 a whole record, 1/2/3 the first/middle/last part of a record whose data
held the magic number at a 4-byte-aligned position (the writer splits it there and drops those 4
bytes; the reader puts them back). An index file (``.idx``) has one ``key<TAB>byte offset`` line per
record. ``pack``/``unpack`` add MXNet's 24-byte image-record header ``IRHeader(flag, label, id, id2)``
(``flag > 0``: that many float32 labels follow the header).

* Writing is atomic: records go to a temporary file that replaces ``uri`` on ``close()`` (see
  ``fileio.AtomicFile``); the ``.idx`` file likewise.
* Reading is for untrusted files: a wrong magic number, a length past the end of the file, a
  truncated or inconsistent multi-part record, a malformed ``.idx`` line or an index offset outside
  the ``.rec`` file is an ``MXNetError`` naming the file, the record and what was wrong; a record
  is never read past what the file holds.
* ``pack_img``/``unpack_img`` encode and decode with Pillow where MXNet uses OpenCV, with OpenCV's
  conventions (BGR channel order, ``iscolor`` -1/0/1). PNG is lossless, so PNG records round-trip
  and decode to MXNet's pixels; JPEG bytes differ from OpenCV's encoder (and decoding may differ by
  a few levels), so a JPEG record decodes to a close image, not an identical one.

Example::

    >>> import os, tempfile
    >>> import hybridlab as mx
    >>> d = tempfile.mkdtemp()
    >>> rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'w')
    >>> for i in range(3):
    ...     rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, i * 1.5, i, 0), b'item%d' % i))
    >>> rec.close()
    >>> rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'r')
    >>> rec.keys, mx.recordio.unpack(rec.read_idx(2))
    ([0, 1, 2], (HEADER(flag=0, label=3.0, id=2, id2=0), b'item2'))
"""
import io
import numbers
import os
import re
import struct
from collections import namedtuple

import numpy as np

from .base import MXNetError, MXNetTypeError
from .fileio import AtomicFile, FileNotFound, read_file

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]

MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", MAGIC)
_MAX_LEN = (1 << 29) - 1


def _pid():
    return os.getpid()


def _align(n):
    return (n + 3) & ~3


class MXRecordIO:
    """Sequential reader (``flag='r'``) or writer (``flag='w'``) of the RecordIO file ``uri``.

    ``write(buf)`` appends a record (bytes), ``read()`` returns the next one (``None`` at the end),
    ``tell()`` is the byte offset of the next record, ``reset()`` starts over (a writer starts an
    empty file), ``close()`` ends (a writer puts its file in place). A context manager too.

    Example::

        >>> import os, tempfile
        >>> import hybridlab as mx
        >>> path = os.path.join(tempfile.mkdtemp(), 'tmp.rec')
        >>> with mx.recordio.MXRecordIO(path, 'w') as w:
        ...     for i in range(3):
        ...         w.write(b'record_%d' % i)
        >>> r = mx.recordio.MXRecordIO(path, 'r')
        >>> r.read(), r.tell(), r.read(), r.read(), r.read()
        (b'record_0', 16, b'record_1', b'record_2', None)
        >>> r.reset(); r.read()
        b'record_0'
    """

    def __init__(self, uri, flag):
        self.uri = os.fsdecode(os.fspath(uri))
        self.flag = flag
        self.pid = None
        self.is_open = False
        self.writable = flag == "w"
        self._file = None
        self.open()

    # ---- life cycle ------------------------------------------------------------------------------
    def open(self):
        """Open the file (``reset`` and the constructor call it)."""
        if self.flag == "w":
            self._file = AtomicFile(self.uri, "RecordIO file")
            self.writable = True
        elif self.flag == "r":
            try:
                self._file = open(self.uri, "rb")   # noqa: SIM115 - held until close()
                self._size = os.fstat(self._file.fileno()).st_size
            except FileNotFoundError:
                raise FileNotFound(f"cannot open RecordIO file {self.uri!r}: no such file") from None
            except OSError as err:
                raise MXNetError(f"cannot open RecordIO file {self.uri!r}: {err.strerror or err}") from None
            self.writable = False
            self._record = 0            # number of the next record since open (None after a seek)
        else:
            raise ValueError(f"Invalid flag {self.flag}")
        self.pid = _pid()
        self.is_open = True

    def close(self):
        """Close the file; a writer's records are put in place now."""
        if not self.is_open:
            return
        self.is_open = False
        self.pid = None
        f, self._file = self._file, None
        if self.writable:
            f.commit()
        else:
            f.close()

    def reset(self):
        """Back to the first record (a writer: to an empty file)."""
        self.close()
        self.open()

    def __del__(self):
        try:
            self.close()
        except Exception:   # noqa: BLE001 - nothing can be reported from a finalizer
            pass

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and self.writable and self.is_open:
            self.is_open = False
            self._file.abort()
        self.close()

    def __getstate__(self):
        """Pickling (DataLoader workers): the state without the open file; reopened on load."""
        d = dict(self.__dict__)
        d["_file"] = None
        d["_reopen"] = self.is_open
        d["is_open"] = False
        return d

    def __setstate__(self, d):
        reopen = d.pop("_reopen", False)
        self.__dict__.update(d)
        if reopen:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != _pid():
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def _check_open(self, what):
        if not self.is_open:
            raise MXNetError(f"RecordIO file {self.uri!r}: cannot {what}, the file is closed")

    # ---- writing ---------------------------------------------------------------------------------
    def write(self, buf):
        """Append one record (bytes-like, under 2**29 bytes)."""
        if not self.writable:
            raise MXNetError(f"RecordIO file {self.uri!r}: cannot write, it is open for reading (flag 'r')")
        self._check_open("write")
        self._check_pid(allow_reset=False)
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise MXNetTypeError(f"MXRecordIO.write: expected bytes, got {type(buf).__name__}")
        buf = bytes(buf)
        n = len(buf)
        if n > _MAX_LEN:
            raise MXNetError(f"MXRecordIO.write {self.uri!r}: RecordIO only accepts records of less than 2**29 "
                             f"bytes, got {n}")
        words = np.frombuffer(buf, dtype="<u4", count=n // 4)
        cuts = (np.flatnonzero(words == MAGIC) * 4).tolist()   # the magic inside the data splits the record
        out, start = [], 0
        for i in cuts:
            out += [_MAGIC_BYTES, struct.pack("<I", ((1 if start == 0 else 2) << 29) | (i - start)), buf[start:i]]
            start = i + 4
        out += [_MAGIC_BYTES, struct.pack("<I", ((3 if cuts else 0) << 29) | (n - start)), buf[start:],
                b"\0" * (_align(n) - n)]
        self._file.write(b"".join(out))

    def tell(self):
        """Byte offset of the next record (written or read)."""
        self._check_open("tell")
        return self._file.tell()

    # ---- reading ---------------------------------------------------------------------------------
    def _where(self, offset, key=None):
        if key is not None:
            return f"record {key!r} (at byte {offset})"
        if self._record is not None:
            return f"record {self._record} (at byte {offset})"
        return f"the record at byte {offset}"

    def _bad(self, offset, why, key=None):
        return MXNetError(f"RecordIO file {self.uri!r}: {self._where(offset, key)}: {why}")

    def _read_record(self, key=None):
        f, start = self._file, self._file.tell()
        parts, first = [], True
        while True:
            pos = f.tell()
            head = f.read(8)
            if not head and first:
                return None
            if len(head) < 8:
                what = "the next part of a multi-part record" if not first else "an 8-byte record header"
                raise self._bad(start, f"truncated: expected {what} at byte {pos}, got {len(head)} bytes "
                                       f"(the file ends at byte {self._size})", key)
            magic, lrec = struct.unpack("<II", head)
            if magic != MAGIC:
                raise self._bad(start, f"expected the RecordIO magic number 0x{MAGIC:08x} at byte {pos}, got "
                                       f"0x{magic:08x} (not a RecordIO file, or not the start of a record)", key)
            cflag, length = lrec >> 29, lrec & _MAX_LEN
            want = (0, 1) if first else (2, 3)
            if cflag not in want:
                why = "a record starts with flag 0 or 1" if first else "a multi-part record goes on with 2 or 3"
                raise self._bad(start, f"expected a part flag (cflag) in {want} at byte {pos}, got {cflag} ({why})",
                                key)
            if pos + 8 + _align(length) > self._size:
                raise self._bad(start, f"truncated: the header at byte {pos} announces {length} bytes of data "
                                       f"(padded to {_align(length)}), but the file holds {self._size - pos - 8} "
                                       f"after it", key)
            data = f.read(_align(length))
            if len(data) != _align(length):
                raise self._bad(start, f"truncated: expected {_align(length)} bytes at byte {pos + 8}, got "
                                       f"{len(data)}", key)
            parts.append(data[:length])
            first = False
            if cflag in (0, 3):
                break
            parts.append(_MAGIC_BYTES)
        if self._record is not None:
            self._record += 1
        return b"".join(parts)

    def read(self):
        """The next record (bytes), or ``None`` after the last one."""
        if self.writable:
            raise MXNetError(f"RecordIO file {self.uri!r}: cannot read, it is open for writing (flag 'w')")
        self._check_open("read")
        self._check_pid(allow_reset=False)
        return self._read_record(getattr(self, "_key", None))


_IDX_OFFSET = re.compile(r"[0-9]{1,20}")


class MXIndexedRecordIO(MXRecordIO):
    """RecordIO with random access through an index file ``idx_path`` (``key<TAB>offset`` lines, as
    ``tools/im2rec.py`` writes them): ``write_idx(key, buf)``, ``read_idx(key)``, ``seek(key)``,
    ``keys`` (in file order) and ``idx`` (key -> byte offset). ``key_type`` converts the keys read.

    Example::

        >>> import os, tempfile
        >>> import hybridlab as mx
        >>> d = tempfile.mkdtemp()
        >>> idx, rec = os.path.join(d, 'tmp.idx'), os.path.join(d, 'tmp.rec')
        >>> w = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
        >>> for i in range(3):
        ...     w.write_idx(i, b'record_%d' % i)
        >>> w.close()
        >>> open(idx).read()
        '0\\t0\\n1\\t16\\n2\\t32\\n'
        >>> r = mx.recordio.MXIndexedRecordIO(idx, rec, 'r')
        >>> r.read_idx(1), r.keys
        (b'record_1', [0, 1, 2])
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fsdecode(os.fspath(idx_path))
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        if self.writable:
            try:
                self.fidx = AtomicFile(self.idx_path, "RecordIO index file")
            except BaseException:
                self._file.abort()
                self.is_open = False
                raise
        else:
            try:
                self._read_index()
            except BaseException:
                self._file.close()
                self.is_open = False
                raise

    def _read_index(self):
        raw = read_file(self.idx_path, "RecordIO index file")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            line = raw[:err.start].count(b"\n") + 1
            raise MXNetError(f"RecordIO index file {self.idx_path!r}: line {line}: expected UTF-8 text, got byte "
                             f"0x{raw[err.start]:02x}") from None
        for number, line in enumerate(text.split("\n"), 1):
            line = line.strip()
            if not line:
                continue
            fields = line.split("\t")
            shown = line if len(line) <= 60 else line[:60] + "..."
            if len(fields) < 2 or not _IDX_OFFSET.fullmatch(fields[1]):
                raise MXNetError(f"RecordIO index file {self.idx_path!r}: line {number}: expected 'key<TAB>byte "
                                 f"offset', got {shown!r}")
            try:
                key = self.key_type(fields[0])
            except Exception as err:   # noqa: BLE001 - key_type is the user's converter
                raise MXNetError(f"RecordIO index file {self.idx_path!r}: line {number}: the key {fields[0][:60]!r} "
                                 f"is not a valid {getattr(self.key_type, '__name__', self.key_type)} "
                                 f"({type(err).__name__}: {str(err)[:100]})") from None
            offset = int(fields[1])
            if offset + 8 > self._size:
                raise MXNetError(f"RecordIO index file {self.idx_path!r}: line {number}: record {key!r} at byte "
                                 f"offset {offset} is outside the RecordIO file {self.uri!r} ({self._size} bytes)")
            if offset % 4:
                raise MXNetError(f"RecordIO index file {self.idx_path!r}: line {number}: record {key!r} at byte "
                                 f"offset {offset}: expected a multiple of 4 (records are 4-byte aligned)")
            self.idx[key] = offset
            self.keys.append(key)

    def close(self):
        if not self.is_open:
            return
        writable = self.writable
        super().close()
        fidx, self.fidx = self.fidx, None
        if writable and fidx is not None:
            fidx.commit()

    def __exit__(self, kind, value, tb):
        if kind is not None and self.writable and self.is_open and self.fidx is not None:
            self.fidx.abort()
            self.fidx = None
        super().__exit__(kind, value, tb)

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx):
        """Move the read position to the record with key ``idx`` (a ``KeyError`` if there is none)."""
        if self.writable:
            raise MXNetError(f"RecordIO file {self.uri!r}: cannot seek, it is open for writing (flag 'w')")
        self._check_open("seek")
        self._check_pid(allow_reset=True)
        self._file.seek(self.idx[idx])
        self._record = None
        self._key = idx

    def read(self):
        try:
            return super().read()
        finally:
            self._key = None

    def read_idx(self, idx):
        """The record with key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Append the record ``buf`` under the key ``idx`` (one line of the index)."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n".encode("utf-8"))
        self.idx[key] = pos
        self.keys.append(key)


# ---- image records -------------------------------------------------------------------------------
IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = ("The header of an image record: ``flag`` (the number of float32 labels that follow, "
                    "0 for one scalar ``label``), ``label`` (a float or an array of floats), ``id`` and ``id2`` "
                    "(uint64, the record's id; ``id2`` usually 0).")
_IR_FORMAT = "<IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Prefix the bytes ``s`` with the image-record header ``header`` (an ``IRHeader`` or a 4-tuple);
    a label array is stored as float32 values after the header (``flag`` = their number).

    Example::

        >>> import hybridlab as mx
        >>> s = mx.recordio.pack(mx.recordio.IRHeader(0, [1, 2], 7, 0), b'data')
        >>> len(s), mx.recordio.unpack(s)[0].flag
        (36, 2)
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.astype("<f4").tobytes() + s
    try:
        head = struct.pack(_IR_FORMAT, int(header.flag), float(header.label), int(header.id), int(header.id2))
    except (struct.error, TypeError, ValueError) as err:
        raise MXNetError(f"recordio.pack: expected a header (flag, label, id, id2) with id and id2 in [0, 2**64), "
                         f"got {tuple(header)} ({err})") from None
    return head + bytes(s)


def unpack(s):
    """``(IRHeader, payload bytes)`` of a record made by :func:`pack` (the label an array of
    ``flag`` float32 values when ``flag > 0``). See :func:`pack`."""
    s = bytes(s)
    if len(s) < _IR_SIZE:
        raise MXNetError(f"recordio.unpack: expected a record of at least {_IR_SIZE} bytes (its header), got "
                         f"{len(s)} bytes")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if header.flag * 4 > len(s):
            raise MXNetError(f"recordio.unpack: the header announces {header.flag} float32 labels "
                             f"({header.flag * 4} bytes), but the record holds {len(s)} bytes after the header")
        header = header._replace(label=np.frombuffer(s, "<f4", header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:   # pragma: no cover - pillow is a dependency
        raise MXNetError("recordio image records need Pillow: pip install 'pillow>=10'") from None
    return Image


def decode_cv(data, iscolor=-1, where="unpack_img"):
    """Decode an image file held in ``data`` as OpenCV's ``cv2.imdecode(buf, iscolor)`` does: a uint8
    NumPy array, BGR(A) channel order; ``iscolor`` 1: (H, W, 3); 0: grey (H, W); -1: as stored ((H, W)
    grey, (H, W, 3) colour, (H, W, 4) with alpha). Grey conversion of colour images uses OpenCV's
    rounding (libpng's for PNG)."""
    Image = _pil()
    try:
        img = Image.open(io.BytesIO(data))
        if iscolor == 0 and img.format == "JPEG":
            img.draft("L", img.size)      # libjpeg's own grey output, as OpenCV asks for it
        img.load()
    except Exception as err:   # noqa: BLE001 - whatever Pillow says about bad bytes
        raise MXNetError(f"{where}: decoding failed, expected an image file (JPEG, PNG, BMP, ...), got "
                         f"{len(data)} bytes starting with {bytes(data[:8])!r} ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    fmt = img.format
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):      # 16-bit: OpenCV scales to 8 bits
        img = Image.fromarray((np.asarray(img).astype(np.uint32) >> 8).astype(np.uint8), mode="L")
    grey = img.mode in ("1", "L", "LA") or (img.mode == "P" and _palette_is_grey(img))
    alpha = "A" in img.mode or "transparency" in img.info
    if iscolor == 0 and not grey:
        rgb = np.asarray(img.convert("RGB")).astype(np.uint32)
        if fmt == "PNG":      # libpng's rgb_to_gray(0.299, 0.587), as OpenCV's PNG decoder asks: truncated
            out = (rgb[..., 0] * 9797 + rgb[..., 1] * 19234 + rgb[..., 2] * 3737) >> 15
        else:                 # OpenCV's cvtColor BGR2GRAY fixed point
            out = (rgb[..., 0] * 4899 + rgb[..., 1] * 9617 + rgb[..., 2] * 1868 + (1 << 13)) >> 14
        return out.astype(np.uint8)
    if iscolor == 0 or (iscolor < 0 and grey and not alpha):
        return np.ascontiguousarray(np.asarray(img.convert("L")), dtype=np.uint8)
    if iscolor < 0 and alpha:
        return np.ascontiguousarray(np.asarray(img.convert("RGBA"))[..., [2, 1, 0, 3]])
    return np.ascontiguousarray(np.asarray(img.convert("RGB"))[..., ::-1])


def _palette_is_grey(img):
    if img.mode != "P":
        return False
    pal = np.frombuffer(img.palette.tobytes(), np.uint8)
    pal = pal[:len(pal) // 3 * 3].reshape(-1, 3)
    return bool((pal == pal[:, :1]).all())


def unpack_img(s, iscolor=-1):
    """``(IRHeader, image)`` of a record holding an encoded image: the image a uint8 NumPy array in
    OpenCV's layout, BGR channel order (``iscolor`` 1: (H, W, 3); 0: grey (H, W); -1: as stored).
    Decoded with Pillow (see the module notes); undecodable bytes are an ``MXNetError``.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> img = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
        >>> s = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 5, 0), img, img_fmt='.png')
        >>> header, out = mx.recordio.unpack_img(s)
        >>> header.id, bool((out == img).all()), mx.recordio.unpack_img(s, 0)[1].shape
        (5, True, (2, 4))
    """
    header, s = unpack(s)
    return header, decode_cv(s, int(iscolor), "recordio.unpack_img")


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Pack the uint8 image ``img`` (NumPy, OpenCV's layout: (H, W) grey, (H, W, 3) BGR or (H, W, 4)
    BGRA) encoded as ``img_fmt`` ('.jpg'/'.jpeg' with JPEG ``quality`` 1-100, or '.png' with
    ``quality`` the compression level 0-9) after the header (see :func:`pack`).

    Encoded with Pillow: PNG is lossless (the pixels come back exactly); JPEG bytes differ from
    OpenCV's and decode to a close image. See :func:`unpack_img` for an example."""
    Image = _pil()
    arr = np.asarray(img)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)) or 0 in arr.shape[:2]:
        raise MXNetError(f"recordio.pack_img: expected an image (H, W), (H, W, 3) or (H, W, 4), got shape "
                         f"{arr.shape}")
    arr = np.ascontiguousarray(np.clip(arr, 0, 255).astype(np.uint8) if arr.dtype != np.uint8 else arr)
    if arr.ndim == 3:
        arr = np.ascontiguousarray(arr[..., [2, 1, 0, 3][:arr.shape[2]]])     # BGR(A) -> RGB(A)
    fmt = str(img_fmt).upper()
    pil = Image.fromarray(arr)
    out = io.BytesIO()
    if fmt in (".JPG", ".JPEG"):
        if pil.mode == "RGBA":
            pil = pil.convert("RGB")
        pil.save(out, format="JPEG", quality=int(quality))
    elif fmt == ".PNG":
        pil.save(out, format="PNG", compress_level=min(max(int(quality), 0), 9))
    else:
        raise MXNetError(f"recordio.pack_img: expected img_fmt '.jpg', '.jpeg' or '.png', got {img_fmt!r}")
    return pack(header, out.getvalue())
