"""MXNet's binary NDArray list files (``.params``): ``mx.nd.save`` / ``mx.nd.load`` and
``mx.npx.save`` / ``mx.npx.load``. No pickle: the format is read and written field by field.

Layout (little-endian; FORMATS.md section 2)::

    uint64 0x112 | uint64 0 | uint64 N | N records | uint64 K (0: a list, N: a dict) | K (uint64 len, UTF-8)

* Records are written as V2 (``0xF993FAC9``, MXNet 1.x ``nd.save``), or V3 (``0xF993FACA``,
  ``npx.save``: NumPy shape semantics, 0-d and zero-size arrays) when any array is an ``mx.np``
  array, 0-d or zero-size. A record holds storage type, shape (int32 ndim + int64 dims), device
  tag, dtype flag and the raw C-order data.
* Reading also accepts V1 (``0xF993FAC8``) and pre-V1 records (the first uint32 is the ndim, the
  dims are uint32), and sparse records (row_sparse, csr), which are **densified** on load (a re-save
  writes them dense). Arrays load onto the device their tag names: GPU-tagged arrays go to that GPU
  when it exists, else to cpu(0). Empty ("none") records load as ``None``.
* Loading a V2/V3 file and saving it again reproduces the file byte for byte.
* Writes are atomic (a temporary file in the same directory, then ``os.replace``); a truncated or
  corrupted file raises ``MXNetError`` naming the file, the record and what was expected vs got,
  and nothing is returned.
* Files are untrusted: nothing is allocated for data the file does not hold. Shapes have at most
  ``MAX_NDIM`` dims and byte sizes within int64; a sparse record's dense form is bounded by
  ``SPARSE_DENSE_FACTOR`` x its bytes (at least ``SPARSE_DENSE_FLOOR``); names must be distinct.

Example::

    >>> import os, tempfile, hybridlab as mx
    >>> path = os.path.join(tempfile.mkdtemp(), "w.params")
    >>> mx.nd.save(path, {"arg:w": mx.nd.ones((2, 3)), "aux:m": mx.nd.zeros((3,))})
    >>> {k: v.shape for k, v in mx.nd.load(path).items()}
    {'arg:w': (2, 3), 'aux:m': (3,)}
"""
import os
import struct

import numpy as np

from ..fileio import read_file, write_atomic
from ..base import MXNetError, dtype_flag, dtype_from_flag
from ..device import Device, cpu, num_gpus
from .ndarray import NDArray

__all__ = ["save", "load", "load_frombuffer", "npx_save", "npx_load", "dumps", "loads", "record_bytes",
           "record_from_bytes"]

LIST_MAGIC = 0x112
V1_MAGIC, V2_MAGIC, V3_MAGIC = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
_STYPES = {0: ("default", 0), 1: ("row_sparse", 1), 2: ("csr", 2)}   # stype -> (name, number of aux arrays)
_DEV_NAMES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
#: Most dimensions a record's shape may have (NumPy 1.x holds 32; real MXNet files use a handful).
MAX_NDIM = 32
_MAX_BYTES = (1 << 63) - 1      # sizes must fit in int64 (MXNet's dim_t, NumPy's npy_intp)
#: Sparse records are densified on load, so a few bytes could ask for gigabytes of zeros. The dense
#: array of a sparse record may take at most ``max(SPARSE_DENSE_FLOOR, SPARSE_DENSE_FACTOR * the
#: record's bytes in the file)`` bytes; a larger one is refused before anything is allocated.
#: To load a trusted, very sparse file, raise these module attributes
#: (``hybridlab.ndarray.params_file.SPARSE_DENSE_FLOOR = 1 << 30``).
SPARSE_DENSE_FACTOR = 32
SPARSE_DENSE_FLOOR = 4 << 20


class _SaveTypeError(MXNetError, TypeError):
    """Bad ``data`` argument to save (a TypeError in MXNet, an MXNetError here: both catch it)."""


class _LoadTypeError(MXNetError, TypeError):
    """Bad argument to load / load_frombuffer (not a path, not bytes)."""


# ---------------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------------
class _Reader:
    """A cursor over the file bytes; every read checks the bytes are there first, so nothing is
    allocated for data the file does not hold."""

    def __init__(self, buf, fname):
        self.buf = buf
        self.pos = 0
        self.fname = fname
        self.where = "file header"

    def error(self, msg):
        return MXNetError(f"cannot load NDArray file {self.fname!r}: {self.where}: {msg}")

    def left(self):
        return len(self.buf) - self.pos

    def need(self, n, what):
        if n < 0:
            raise self.error(f"{what}: expected a size >= 0, got {n}")
        if n > self.left():
            raise self.error(f"truncated {what}: expected {n} bytes at offset {self.pos}, got {self.left()} "
                             f"(the file ends at byte {len(self.buf)})")

    def unpack(self, fmt, what):
        size = struct.calcsize(fmt)
        self.need(size, what)
        out = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return out if len(out) > 1 else out[0]

    def array(self, dtype, shape, what):
        """The next ``shape`` array of ``dtype`` (a native-order copy, not a view of the file)."""
        count = _size(shape)
        self.need(dtype.itemsize * count, what)
        if count == 0:
            return np.zeros(shape, dtype)
        out = np.frombuffer(self.buf, dtype=dtype.newbyteorder("<"), count=count, offset=self.pos)
        self.pos += dtype.itemsize * count
        return out.astype(dtype).reshape(shape)

    def shape(self, magic, what):
        """A shape: int32 ndim + int64 dims (V1-V3), or the legacy ndim (the magic) + uint32 dims;
        ``None`` for an unknown shape (ndim -1)."""
        if magic in (V1_MAGIC, V2_MAGIC, V3_MAGIC):
            ndim = self.unpack("<i", f"{what} ndim")
            if ndim == -1:
                return None
            fmt, size = "q", 8
        else:
            ndim, fmt, size = magic, "I", 4
        if not 0 <= ndim <= MAX_NDIM:
            raise self.error(f"{what}: expected ndim in [0, {MAX_NDIM}] (or -1: unknown), got {ndim}")
        self.need(size * ndim, f"{what} ({ndim} dims)")
        dims = struct.unpack_from(f"<{ndim}{fmt}", self.buf, self.pos)
        self.pos += size * ndim
        if any(d < -1 for d in dims):
            raise self.error(f"{what}: expected dimensions >= -1, got {dims}")
        return tuple(dims)

    def type_flag(self, what):
        flag = self.unpack("<i", what)
        try:
            return dtype_from_flag(flag)
        except MXNetError as err:
            raise self.error(f"{what}: {err}") from None

    def check_size(self, shape, itemsize, what):
        """Refuse a shape whose byte size (zero dims aside) overflows int64, before NumPy sees it."""
        n = itemsize
        for d in shape:
            n *= max(d, 1)
            if n > _MAX_BYTES:
                raise self.error(f"{what}: shape {shape} of {itemsize}-byte elements overflows int64 bytes")


def _placement(dev_type, dev_id, rd):
    if dev_type not in _DEV_NAMES:
        raise rd.error(f"device type: expected one of {sorted(_DEV_NAMES)} (cpu, gpu, cpu_pinned, "
                       f"cpu_shared), got {dev_type}")
    if dev_id < 0:
        raise rd.error(f"device id: expected >= 0, got {dev_id}")
    if dev_type == 2:
        return Device("gpu", dev_id) if dev_id < num_gpus() else cpu(0)
    return Device(_DEV_NAMES[dev_type], dev_id)


def _dense(rd, shape, dtype, what):
    rd.check_size(shape, dtype.itemsize, what)
    return rd.array(dtype, shape, what)


def _read_record(rd):
    """One NDArray record -> (numpy array or None, Device or None, magic)."""
    start = rd.pos
    magic = rd.unpack("<I", "record magic")
    if magic not in (V2_MAGIC, V3_MAGIC):
        if magic != V1_MAGIC and magic > MAX_NDIM:
            raise rd.error(f"expected an NDArray record magic (0x{V2_MAGIC:X} V2, 0x{V3_MAGIC:X} V3, "
                           f"0x{V1_MAGIC:X} V1, or a legacy ndim <= {MAX_NDIM}), got 0x{magic:X}")
        return _read_legacy(rd, magic)
    stype = rd.unpack("<i", "storage type")
    if stype not in _STYPES:
        raise rd.error(f"storage type: expected 0 (default), 1 (row_sparse) or 2 (csr), got {stype}")
    stype_name, n_aux = _STYPES[stype]
    sshape = rd.shape(magic, "storage shape") if n_aux else None
    shape = rd.shape(magic, "shape")
    if shape is None or (magic == V2_MAGIC and len(shape) == 0) or -1 in shape:
        return None, None, magic    # a "none" array: the record ends here
    dev_type, dev_id = rd.unpack("<ii", "device tag")
    device = _placement(dev_type, dev_id, rd)
    dtype = rd.type_flag("type flag")
    if not n_aux:
        return _dense(rd, shape, dtype, f"data of shape {shape} {dtype.name}"), device, magic
    aux = [(rd.type_flag(f"aux {i} type flag"), rd.shape(magic, f"aux {i} shape")) for i in range(n_aux)]
    _check_sparse(rd, stype_name, shape, sshape, dtype, aux, start)
    values = rd.array(dtype, sshape, f"{stype_name} values of shape {sshape}")
    aux_data = [_index_array(rd, a_dtype, a_shape, f"{stype_name} aux {i}") for i, (a_dtype, a_shape) in enumerate(aux)]
    return _densify(stype_name, shape, values, aux_data, rd), device, magic


def _read_legacy(rd, magic):
    """V1 and pre-V1 records: shape, device tag, type flag, data (no storage type)."""
    shape = rd.shape(magic, "shape")
    if not shape:
        return None, None, magic
    if -1 in shape:
        raise rd.error(f"legacy record shape: expected known dimensions, got {shape}")
    dev_type, dev_id = rd.unpack("<ii", "device tag")
    device = _placement(dev_type, dev_id, rd)
    dtype = rd.type_flag("type flag")
    return _dense(rd, shape, dtype, f"data of shape {shape} {dtype.name}"), device, magic


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _check_sparse(rd, stype, shape, sshape, dtype, aux, start):
    """Validate a sparse record's declared shapes against each other and against the file, and bound
    the dense array it expands to, all before reading or allocating anything."""
    if sshape is None or -1 in sshape:
        raise rd.error(f"{stype} storage shape: expected a known shape, got {sshape}")
    for i, (a_dtype, a_shape) in enumerate(aux):
        if a_shape is None or -1 in a_shape or a_dtype.kind not in "iu":
            raise rd.error(f"{stype} aux {i}: expected an integer index array of known shape, got "
                           f"{a_dtype.name} {a_shape}")
    if stype == "row_sparse":
        (_, idx_shape), = aux
        if len(shape) < 1 or len(sshape) != len(shape) or sshape[1:] != shape[1:] or idx_shape != sshape[:1]:
            raise rd.error(f"row_sparse: expected a shape of >= 1 dims, values of shape (nnr,) + {shape[1:]} "
                           f"and nnr row indices, got shape {shape}, values {sshape}, indices {idx_shape}")
    else:
        (_, ptr_shape), (_, idx_shape) = aux
        if len(shape) != 2 or ptr_shape != (shape[0] + 1,) or len(sshape) != 1 or idx_shape != sshape:
            raise rd.error(f"csr: expected a 2-D shape, indptr of rows + 1 entries and one column index "
                           f"per value, got shape {shape}, indptr {ptr_shape}, indices {idx_shape}, "
                           f"values {sshape}")
    rd.check_size(shape, dtype.itemsize, f"{stype} shape")
    data_bytes = _size(sshape) * dtype.itemsize + sum(_size(s) * d.itemsize for d, s in aux)
    rd.need(data_bytes, f"{stype} values and indices ({data_bytes} bytes)")
    record_bytes = rd.pos - start + data_bytes
    dense_bytes = _size(shape) * dtype.itemsize
    limit = max(SPARSE_DENSE_FLOOR, SPARSE_DENSE_FACTOR * record_bytes)
    if dense_bytes > limit:
        raise rd.error(f"{stype} record of {record_bytes} bytes expands to a dense {shape} {dtype.name} array "
                       f"of {dense_bytes} bytes; expected at most {limit} bytes (max(SPARSE_DENSE_FLOOR = "
                       f"{SPARSE_DENSE_FLOOR}, SPARSE_DENSE_FACTOR = {SPARSE_DENSE_FACTOR} x the record's bytes)). "
                       "For a trusted file raise hybridlab.ndarray.params_file.SPARSE_DENSE_FLOOR")


def _index_array(rd, dtype, shape, what):
    """An index array as int64 (uint64 indices above the int64 range are refused, not wrapped)."""
    idx = rd.array(dtype, shape, f"{what} data")
    if dtype == np.uint64 and idx.size and idx.max() > np.uint64(_MAX_BYTES):
        raise rd.error(f"{what}: expected indices below 2**63, got {int(idx.max())}")
    return idx.astype(np.int64)


def _densify(stype, shape, values, aux, rd):
    if stype == "row_sparse":
        (idx,) = aux
        if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
            raise rd.error(f"row_sparse: expected row indices in [0, {shape[0]}), got {idx.min()}..{idx.max()}")
        dense = np.zeros(shape, dtype=values.dtype)
        dense[idx] = values
        return dense
    indptr, idx = aux
    counts = np.diff(indptr)
    if indptr[0] != 0 or indptr[-1] != values.size or (counts < 0).any():
        raise rd.error(f"csr: expected indptr rising from 0 to {values.size}, got {indptr.tolist()[:8]}...")
    if idx.size and (idx.min() < 0 or idx.max() >= shape[1]):
        raise rd.error(f"csr: expected column indices in [0, {shape[1]}), got {idx.min()}..{idx.max()}")
    dense = np.zeros(shape, dtype=values.dtype)
    dense[np.repeat(np.arange(shape[0]), counts), idx] = values
    return dense


def _as_bytes(buf, fname):
    """A flat byte view of ``buf`` (bytes, bytearray, memoryview or another buffer)."""
    if isinstance(buf, str):
        raise _LoadTypeError(f"cannot load NDArray buffer {fname!r}: expected bytes (the file's contents "
                             "read in binary mode), got str")
    try:
        view = memoryview(buf)
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view
    except (TypeError, ValueError) as err:
        raise _LoadTypeError(f"cannot load NDArray buffer {fname!r}: expected bytes, got "
                             f"{type(buf).__name__} ({err})") from None


def loads(buf, fname="<bytes>", np_style=None):
    """Parse the bytes of an NDArray list file: a list, or a dict when the file has names.

    >>> import hybridlab as mx
    >>> from hybridlab.ndarray.params_file import dumps, loads
    >>> loads(dumps({"w": mx.nd.ones((2,))}))["w"].shape
    (2,)
    """
    rd = _Reader(_as_bytes(buf, fname), fname)
    magic, _reserved, count = rd.unpack("<QQQ", "file header")
    if magic != LIST_MAGIC:
        raise rd.error(f"expected the NDArray list magic 0x{LIST_MAGIC:X}, got 0x{magic:X} "
                       "(not an MXNet NDArray file, or a corrupted one)")
    if count > rd.left() // 4:   # every record takes at least its 4-byte magic
        raise rd.error(f"expected at most {rd.left() // 4} records in the {rd.left()} bytes left, got a count "
                       f"of {count}")
    arrays = []
    for i in range(count):
        rd.where = f"record {i} of {count}"
        data, device, rec_magic = _read_record(rd)
        if data is None:
            arrays.append(None)
            continue
        style = (rec_magic == V3_MAGIC) if np_style is None else np_style
        arrays.append(NDArray._wrap(device.put(data), device, style))
    rd.where = "names"
    n_keys = rd.unpack("<Q", "number of names")
    if n_keys not in (0, count):
        raise rd.error(f"expected 0 names (a list) or {count} (one per array), got {n_keys}")
    keys = []
    for i in range(n_keys):
        rd.where = f"name {i} of {n_keys}"
        length = rd.unpack("<Q", "name length")
        rd.need(length, f"name ({length} bytes)")
        raw = bytes(rd.buf[rd.pos:rd.pos + length])
        rd.pos += length
        try:
            keys.append(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            raise rd.error(f"expected a UTF-8 name, got {raw[:40]!r} ({err.reason})") from None
    if n_keys == 0:
        return arrays
    out = dict(zip(keys, arrays))
    if len(out) != len(keys):
        seen = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        rd.where = "names"
        raise rd.error(f"expected distinct names, got {dup[:80]!r} more than once (which array is meant?)")
    return out


def _read_file(fname):
    if not isinstance(fname, (str, bytes, os.PathLike)):
        raise _LoadTypeError(f"cannot load an NDArray file from {type(fname).__name__}: expected a path "
                             "(str or os.PathLike)")
    path = os.fsdecode(os.fspath(fname))
    return read_file(path, "NDArray file"), path


def load(fname):
    """Load arrays saved by ``mx.nd.save`` / ``npx.save`` (or by MXNet): a list of NDArrays, or a
    dict name -> NDArray when the file stores names. V3 records load as ``mx.np`` arrays."""
    buf, path = _read_file(fname)
    return loads(buf, path)


def load_frombuffer(buf):
    """``load`` from the bytes of a file (MXNet's ``mx.nd.load_frombuffer(buf)``): a list of
    NDArrays, or a dict name -> NDArray when the bytes store names.

    >>> import hybridlab as mx
    >>> from hybridlab.ndarray.params_file import dumps
    >>> mx.nd.load_frombuffer(dumps([mx.nd.zeros((2, 2))]))[0].shape
    (2, 2)
    """
    return loads(buf, "<buffer>")


def npx_load(file):
    """``mx.npx.load``: like ``load`` but every array is an ``mx.np`` array."""
    buf, path = _read_file(file)
    return loads(buf, path, np_style=True)


# ---------------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------------
def _normalize(data, fn):
    if isinstance(data, NDArray):
        return [], [data]
    if isinstance(data, dict):
        for k, v in data.items():
            if not isinstance(k, str) or not (v is None or isinstance(v, NDArray)):
                raise _SaveTypeError(f"{fn}: expected a dict str -> NDArray, got a {type(k).__name__} key "
                                     f"with a {type(v).__name__} value")
        return list(data.keys()), list(data.values())
    if isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            if not (v is None or isinstance(v, NDArray)):
                raise _SaveTypeError(f"{fn}: expected a list of NDArrays, got a {type(v).__name__} at index {i}"
                                     + (" (convert it with mx.nd.array)" if isinstance(v, np.ndarray) else ""))
        return [], list(data)
    raise _SaveTypeError(f"{fn}: expected an NDArray, a list of NDArrays or a dict str -> NDArray, got "
                         f"{type(data).__name__}")


def _needs_v3(arr):
    return arr._np or arr.ndim == 0 or 0 in arr.shape


def _record_pieces(arr, v3):
    """One NDArray record (``arr`` may be None: a "none" record) as byte chunks."""
    magic = V3_MAGIC if v3 else V2_MAGIC
    if arr is None:
        yield struct.pack("<IIi", magic, 0, -1 if v3 else 0)
        return
    host = np.asarray(arr.asnumpy(), order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    flag = dtype_flag(host.dtype)
    shape = host.shape
    yield struct.pack(f"<Iii{len(shape)}q", magic, 0, len(shape), *shape)
    yield struct.pack("<iii", arr.device.device_typeid, arr.device.device_id, flag)
    if host.dtype.byteorder == ">":
        host = host.astype(host.dtype.newbyteorder("<"))
    yield host.reshape(-1).view(np.uint8)


def _pieces(keys, arrays, v3):
    """The file as a sequence of byte chunks (data chunks are uint8 views, not copies)."""
    yield struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))
    for arr in arrays:
        yield from _record_pieces(arr, v3)
    yield struct.pack("<Q", len(keys))
    for k in keys:
        raw = k.encode("utf-8")
        yield struct.pack("<Q", len(raw))
        yield raw


def record_bytes(arr):
    """One array as a single NDArray record (MXNet's ``MXNDArraySaveRawBytes``, the bytes its
    ``NDArray.__getstate__`` holds): V2, or V3 for an ``mx.np``, 0-d or zero-size array.

    >>> import hybridlab as mx
    >>> record_from_bytes(record_bytes(mx.nd.arange(3)))[0].tolist()
    [0.0, 1.0, 2.0]
    """
    return b"".join(bytes(p) for p in _record_pieces(arr, _needs_v3(arr)))


def record_from_bytes(buf, what="NDArray bytes"):
    """``(numpy array, Device, is_v3)`` of one NDArray record (``MXNDArrayLoadFromRawBytes``); a GPU
    record loads onto the CPU when that GPU is absent."""
    rd = _Reader(_as_bytes(buf, what), what)
    rd.where = "record"
    data, device, magic = _read_record(rd)
    if data is None:
        raise rd.error("expected an array, got a 'none' record (an array without a shape)")
    if rd.left():
        raise rd.error(f"expected one record, got {rd.left()} bytes after it")
    return data, device, magic == V3_MAGIC


def dumps(data, v3=None):
    """The bytes ``save`` would write (``v3=None``: V3 only where V2 cannot hold the arrays)."""
    keys, arrays = _normalize(data, "dumps")
    if v3 is None:
        v3 = any(a is not None and _needs_v3(a) for a in arrays)
    return b"".join(bytes(p) for p in _pieces(keys, arrays, v3))


def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict str -> NDArray in MXNet's binary format
    (V2 records, as MXNet 1.x ``mx.nd.save``; V3 when an array is an ``mx.np`` array, 0-d or
    zero-size). The write is atomic: readers see the old file or the complete new one."""
    keys, arrays = _normalize(data, "save")
    v3 = any(a is not None and _needs_v3(a) for a in arrays)
    for a in arrays:
        if a is not None:
            dtype_flag(a.dtype)  # an unsupported dtype fails before anything is written
    write_atomic(fname, _pieces(keys, arrays, v3), "NDArray file")


def npx_save(file, arr):
    """``mx.npx.save``: V3 records (NumPy shape semantics: 0-d and zero-size arrays allowed)."""
    keys, arrays = _normalize(arr, "npx.save")
    for a in arrays:
        if a is not None:
            dtype_flag(a.dtype)
    write_atomic(file, _pieces(keys, arrays, True), "NDArray file")
