"""``CSVIter``: batches read from CSV files, as MXNet 1.9.1's ``mx.io.CSVIter``.

Each non-blank line of ``data_csv`` is one sample: comma-separated numbers, ``prod(data_shape)`` of
them, reshaped to ``data_shape``. ``label_csv`` (default: none, labels are zeros) is read in lockstep,
``prod(label_shape)`` numbers a line. ``data_csv`` may name a folder: its files are read in name
order. Values are parsed as ``dtype`` (``float32`` by default, or ``int32`` / ``int64``, exactly).

The files are streamed (one line in memory at a time, a line at most a bounded length), and they are
untrusted input: any problem is an ``MXNetError`` naming the file, the line and what was wrong.

``round_batch=True`` (the default): the last batch of a pass is completed with samples from the start
(``batch.pad`` says how many) and the next pass, after ``reset()``, goes on after them, as in MXNet.
``round_batch=False``: the rows past the end of the last batch keep what the previous batch held
(MXNet's reused buffer) and ``batch.pad`` counts them.

Example::

    >>> import os, tempfile
    >>> import hybridlab as mx
    >>> path = os.path.join(tempfile.mkdtemp(), 'data.csv')
    >>> with open(path, 'w') as f:
    ...     _ = f.write('1,2\\n3,4\\n5,6\\n')
    >>> it = mx.io.CSVIter(data_csv=path, data_shape=(2,), batch_size=2)
    >>> it.provide_data
    [DataDesc[data,(2, 2),<class 'numpy.float32'>,NCHW]]
    >>> [(b.data[0].asnumpy().tolist(), b.pad) for b in it]
    [([[1.0, 2.0], [3.0, 4.0]], 0), ([[5.0, 6.0], [1.0, 2.0]], 1)]
    >>> it.reset()
    >>> [(b.data[0].asnumpy().tolist(), b.pad) for b in it]
    [([[3.0, 4.0], [5.0, 6.0]], 0)]
"""
import os

import numpy as np

from ..base import MXNetError
from .batch import DataBatch, DataDesc
from .ndarray_iter import DataIter

__all__ = ["CSVIter"]

_DTYPES = {"float32": np.float32, "int32": np.int32, "int64": np.int64}
_MAX_FIELD_CHARS = 64           # a number's text, generously; bounds the length of a line read


def _csv_files(path, what):
    if not isinstance(path, str) or not path:
        raise MXNetError(f"CSVIter: {what}: expected a file or folder path, got {path!r}")
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if os.path.isfile(os.path.join(path, f)))
        if not files:
            raise MXNetError(f"CSVIter: {what}: the folder {path!r} holds no files")
        return files
    if not os.path.isfile(path):
        raise MXNetError(f"CSVIter: {what}: {path!r} does not exist")
    return [path]


class _Rows:
    """The rows of one or more CSV files, each parsed into ``size`` numbers of ``dtype``."""

    def __init__(self, files, size, dtype, shape, what):
        self.files, self.size, self.dtype, self.shape, self.what = files, size, dtype, shape, what
        self.max_line = size * _MAX_FIELD_CHARS + 1024

    def __iter__(self):
        for path in self.files:
            try:
                f = open(path, "r", encoding="utf-8", errors="strict", newline=None)
            except OSError as e:
                raise MXNetError(f"CSVIter: {self.what}: cannot open {path!r}: {e.strerror}") from None
            with f:
                lineno = 0
                while True:
                    try:
                        line = f.readline(self.max_line)
                    except (OSError, UnicodeDecodeError) as e:
                        raise MXNetError(f"CSVIter: {self.what} {path!r} line {lineno + 1}: cannot read it as "
                                         f"UTF-8 text ({e})") from None
                    if not line:
                        break
                    lineno += 1
                    if len(line) >= self.max_line and not line.endswith("\n"):
                        raise MXNetError(f"CSVIter: {self.what} {path!r} line {lineno}: expected at most "
                                         f"{self.max_line} characters for {self.size} values, got a longer line")
                    if line.strip():
                        yield self._parse(line, path, lineno)

    def _parse(self, line, path, lineno):
        fields = [t.strip() for t in line.split(",")]
        if fields and fields[-1] == "":
            fields.pop()                    # a trailing comma, as MXNet's parser allows
        if len(fields) != self.size:
            raise MXNetError(f"CSVIter: {self.what} {path!r} line {lineno}: expected {self.size} values "
                             f"(shape {self.shape}), got {len(fields)}")
        convert = float if self.dtype == np.float32 else int
        try:
            values = [convert(t) for t in fields]
            return np.array(values, dtype=self.dtype)
        except (ValueError, OverflowError):
            bad = next((t for t in fields if not _parses(t, convert, self.dtype)), fields[0])
            raise MXNetError(f"CSVIter: {self.what} {path!r} line {lineno}: expected {self.size} "
                             f"{np.dtype(self.dtype).name} numbers, got {bad[:40]!r}") from None


def _parses(text, convert, dtype):
    try:
        np.array([convert(text)], dtype=dtype)
        return True
    except (ValueError, OverflowError):
        return False


def _shape(value, what):
    try:
        shape = tuple(int(d) for d in value)
    except (TypeError, ValueError):
        raise MXNetError(f"CSVIter: {what}: expected a tuple of positive ints, got {value!r}") from None
    if not shape or any(d <= 0 for d in shape):
        raise MXNetError(f"CSVIter: {what}: expected a tuple of positive ints, got {value!r}")
    return shape


class CSVIter(DataIter):
    """Batches of ``batch_size`` samples from ``data_csv`` (and ``label_csv``); see the module
    docstring. ``getdata()`` / ``getlabel()`` return one NDArray each, as MXNet's native iterators.
    Accepted and unused (threading knobs of MXNet's C++ iterator): ``prefetch_buffer``, ``ctx``,
    ``preprocess_threads``, and ``num_parts`` / ``part_index``, which MXNet 1.9.1's CSVIter also
    ignores (every part reads every row there too: shard a CSV per worker by its files)."""

    def __init__(self, data_csv, data_shape, batch_size, label_csv="NULL", label_shape=(1,), round_batch=True,
                 dtype=None, data_name="data", label_name="softmax_label", **kwargs):
        unknown = set(kwargs) - {"prefetch_buffer", "ctx", "preprocess_threads", "num_parts", "part_index"}
        if unknown:
            raise MXNetError(f"CSVIter: unknown arguments {sorted(unknown)}; expected data_csv, data_shape, "
                             "label_csv, label_shape, batch_size, round_batch, dtype")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise MXNetError(f"CSVIter: batch_size: expected a positive int, got {batch_size!r}")
        dtype = "float32" if dtype is None else np.dtype(dtype).name if not isinstance(dtype, str) else dtype
        if dtype not in _DTYPES:
            raise MXNetError(f"CSVIter: dtype: expected one of None, 'float32', 'int32', 'int64', got {dtype!r}")
        super().__init__(int(batch_size))
        self.dtype = _DTYPES[dtype]
        self.data_shape = _shape(data_shape, "data_shape")
        self.label_shape = _shape(label_shape, "label_shape")
        self.round_batch = bool(round_batch)
        self._data = _Rows(_csv_files(data_csv, "data_csv"), int(np.prod(self.data_shape)), self.dtype,
                           self.data_shape, "data_csv")
        self._label = None if label_csv in (None, "NULL") else \
            _Rows(_csv_files(label_csv, "label_csv"), int(np.prod(self.label_shape)), self.dtype,
                  self.label_shape, "label_csv")
        label_tail = () if self.label_shape == (1,) else self.label_shape
        self._desc = (DataDesc(data_name, (self.batch_size,) + self.data_shape, self.dtype),
                      DataDesc(label_name, (self.batch_size,) + label_tail, self.dtype))
        self._data_buf = np.zeros((self.batch_size,) + self.data_shape, self.dtype)
        self._label_buf = np.zeros((self.batch_size,) + label_tail, self.dtype)
        self._index_buf = np.zeros(self.batch_size, np.uint64)
        self._reader = None
        self._wrapped = False           # the last pass ended inside a batch completed from the start
        self._ended = False
        self._pad = 0
        self._start()

    @property
    def provide_data(self):
        return [self._desc[0]]

    @property
    def provide_label(self):
        return [self._desc[1]]

    def _start(self):
        self._reader = self._samples()
        self._row = 0

    def _samples(self):
        labels = iter(self._label) if self._label is not None else None
        for data in self._data:
            if labels is None:
                yield data, None
                continue
            label = next(labels, None)
            if label is None:
                raise MXNetError(f"CSVIter: label_csv: expected a label line for every data line, got fewer "
                                 f"label lines than data lines ({self._label.files})")
            yield data, label

    def _next_sample(self):
        sample = next(self._reader, None)
        if sample is None:
            return None
        index, self._row = self._row, self._row + 1
        return index, sample

    def reset(self):
        """Begin the next pass: after a pass whose last batch was completed from the start, it goes on
        after those samples (``round_batch``); otherwise it starts from the first line."""
        if not self._wrapped:
            self._start()
        self._wrapped = self._ended = False

    def iter_next(self):
        if self._ended:
            return False
        n = first_pass = 0
        while n < self.batch_size:
            got = self._next_sample()
            if got is None:
                if n == 0 or not self.round_batch:
                    break
                self._start()               # complete the batch from the start of the data
                got = self._next_sample()
                if got is None:
                    break
                if not self._wrapped:
                    self._wrapped, first_pass = True, n
            self._put(n, got)
            n += 1
        if n == 0:
            self._ended = True
            return False
        if self._wrapped:
            self._pad = self.batch_size - first_pass
            self._ended = True
        else:
            self._pad = self.batch_size - n
            if self._pad:
                self._ended = True
        return True

    def _put(self, n, got):
        index, (data, label) = got
        self._data_buf[n] = data.reshape(self.data_shape)
        if label is not None:
            self._label_buf[n] = label.reshape(self._label_buf.shape[1:])
        self._index_buf[n] = index

    def getdata(self):
        from ..ndarray.ndarray import array
        return array(self._data_buf, dtype=self.dtype)

    def getlabel(self):
        from ..ndarray.ndarray import array
        return array(self._label_buf, dtype=self.dtype)

    def getindex(self):
        return self._index_buf.copy()

    def getpad(self):
        return self._pad

    def next(self):
        if self.iter_next():
            return DataBatch([self.getdata()], [self.getlabel()], self.getpad(), self.getindex(),
                             provide_data=self.provide_data, provide_label=self.provide_label)
        raise StopIteration
