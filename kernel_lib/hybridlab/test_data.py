"""The datasets MXNet 1.x's tests and examples fetch through ``mx.test_utils``: ``download``,
``get_mnist`` (arrays), ``get_mnist_ubyte`` / ``get_cifar10`` (files under ``./data``, as MXNet puts
them), ``get_mnist_iterator``, ``get_zip_data`` and ``get_bz2_data``.

The archives come from MXNet's data host unless ``HYBRIDLAB_DATA_URL`` names another base URL (a
mirror, or a ``file://`` folder on a machine without internet) holding ``mnist.zip``,
``cifar10.zip`` and the four MNIST ``*-ubyte.gz`` files. Downloads are atomic (``gluon.utils.download``)
and archives are untrusted: a member that would land outside the target folder, or archives that
unpack to more than ``MAX_EXTRACT_BYTES``, are refused with an MXNetError naming the archive.

Example (a local "mirror" holding an MNIST-format zip)::

    >>> import os, pathlib, struct, tempfile, zipfile
    >>> import hybridlab as mx
    >>> mirror, work = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> with zipfile.ZipFile(os.path.join(mirror, 'mnist.zip'), 'w') as zf:
    ...     for kind in ('train', 't10k'):
    ...         zf.writestr(f'{kind}-images-idx3-ubyte', struct.pack('>IIII', 2051, 2, 28, 28) + bytes(2 * 784))
    ...         zf.writestr(f'{kind}-labels-idx1-ubyte', struct.pack('>II', 2049, 2) + bytes([3, 7]))
    >>> os.environ['HYBRIDLAB_DATA_URL'] = pathlib.Path(mirror).as_uri()
    >>> cwd = os.getcwd(); os.chdir(work)
    >>> mx.test_utils.get_mnist_ubyte()       # doctest: +ELLIPSIS
    Downloading data/mnist.zip from file://...
    >>> sorted(os.listdir('data'))[:2]
    ['mnist.zip', 't10k-images-idx3-ubyte']
    >>> train, val = mx.test_utils.get_mnist_iterator(2, (1, 28, 28))
    MNISTIter: load 2 images, shuffle=1, shape=(2,1,28,28)
    MNISTIter: load 2 images, shuffle=0, shape=(2,1,28,28)
    >>> val.next().label[0].asnumpy().tolist()
    [3.0, 7.0]
    >>> os.chdir(cwd); del os.environ['HYBRIDLAB_DATA_URL']
"""
import bz2
import gzip
import os
import struct
import zipfile

import numpy as np

from .base import MXNetError

__all__ = ["download", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte", "get_cifar10", "get_mnist_iterator",
           "get_zip_data", "get_bz2_data", "MAX_EXTRACT_BYTES"]

MAX_EXTRACT_BYTES = 4 << 30      # an archive unpacking to more than this is refused (CIFAR-10 is ~180 MB)
_MXNET_DATA = "http://data.mxnet.io/mxnet/data"
_MXNET_MNIST = "http://data.mxnet.io/data/mnist"
_MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                "t10k-labels-idx1-ubyte")
_CIFAR_FILES = ("cifar/train.rec", "cifar/test.rec", "cifar/train.lst", "cifar/test.lst")


def _data_url(default):
    return os.environ.get("HYBRIDLAB_DATA_URL", default).rstrip("/")


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Download ``url`` to ``fname`` (default: the URL's last part) in ``dirname`` (default: the
    folder of ``fname``); an existing file is kept unless ``overwrite``. Returns the file name.
    (MXNet's ``test_utils.download``; the transfer itself is ``gluon.utils.download``'s.)"""
    from .gluon.utils import download as _download
    if retries < 0:
        raise ValueError(f"download: retries: expected >= 0, got {retries}")
    fname = fname if fname is not None else url.split("/")[-1]
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    if not overwrite and os.path.exists(fname):
        return fname
    return _download(url, path=fname, overwrite=True, retries=retries)


def _extract_zip(archive, dest):
    """Unpack ``archive`` into ``dest``, refusing members outside it and oversized contents."""
    root = os.path.realpath(dest)
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            total = sum(m.file_size for m in members)
            if total > MAX_EXTRACT_BYTES:
                raise MXNetError(f"{archive}: expected at most {MAX_EXTRACT_BYTES} bytes unpacked, the archive "
                                 f"declares {total}")
            for m in members:
                target = os.path.realpath(os.path.join(root, m.filename))
                if os.path.commonpath([root, target]) != root:
                    raise MXNetError(f"{archive}: member {m.filename!r} would be written outside {dest}")
            zf.extractall(root)
    except zipfile.BadZipFile as e:
        raise MXNetError(f"{archive}: not a zip archive ({e})") from e


def _fetch_and_extract(zip_name, base, expected):
    os.makedirs("data", exist_ok=True)
    if all(os.path.exists(os.path.join("data", f)) for f in expected):
        return
    _extract_zip(download(f"{_data_url(base)}/{zip_name}", dirname="data"), "data")
    missing = [f for f in expected if not os.path.exists(os.path.join("data", f))]
    if missing:
        raise MXNetError(f"data/{zip_name}: expected it to hold {list(expected)}, missing {missing}")


def get_mnist_ubyte():
    """Download ``mnist.zip`` into ``./data`` and unpack the four ``*-ubyte`` files there (skipped
    when they exist), as MXNet's ``get_mnist_ubyte``."""
    _fetch_and_extract("mnist.zip", _MXNET_DATA, _MNIST_FILES)


def get_cifar10():
    """Download ``cifar10.zip`` into ``./data`` and unpack it (``data/cifar/train.rec``, ``test.rec``,
    ``train.lst``, ``test.lst``; skipped when they exist), as MXNet's ``get_cifar10``."""
    _fetch_and_extract("cifar10.zip", _MXNET_DATA, _CIFAR_FILES)


def get_mnist_pkl():
    """Download ``mnist.pkl.gz`` into ``./data`` (MXNet's helper; hybridlab never unpickles it)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download(f"{_data_url('http://deeplearning.net/data/mnist')}/mnist.pkl.gz", dirname="data")


def _read_idx_gz(path, magic, what):
    with gzip.open(path, "rb") as f:
        head = f.read(16 if magic == 2051 else 8)
        if len(head) < 8 or struct.unpack(">I", head[:4])[0] != magic:
            raise MXNetError(f"{path}: expected an MNIST {what} file (magic {magic}), got {head[:4]!r}")
        count = struct.unpack(">I", head[4:8])[0]
        size = count * (784 if magic == 2051 else 1)
        body = f.read(size + 1)
    if len(body) != size:
        raise MXNetError(f"{path}: expected {size} bytes of {what}s after the header, got {len(body)}")
    return count, np.frombuffer(body, dtype=np.uint8)


def get_mnist():
    """MNIST as arrays: ``{'train_data', 'train_label', 'test_data', 'test_label'}``, images float32
    in [0, 1] of shape (N, 1, 28, 28), labels int8 (MXNet's ``get_mnist``)."""
    base = _data_url(_MXNET_MNIST)
    out = {}
    for part, prefix in (("train", "train"), ("test", "t10k")):
        n, label = _read_idx_gz(download(f"{base}/{prefix}-labels-idx1-ubyte.gz"), 2049, "label")
        m, image = _read_idx_gz(download(f"{base}/{prefix}-images-idx3-ubyte.gz"), 2051, "image")
        if n != m:
            raise MXNetError(f"MNIST {part}: expected one label per image, got {n} labels for {m} images")
        out[f"{part}_data"] = image.reshape(m, 1, 28, 28).astype(np.float32) / 255
        out[f"{part}_label"] = label.view(np.int8)
    return out


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, val) ``MNISTIter`` over ``./data`` (downloaded by ``get_mnist_ubyte``); flat images
    unless ``input_shape`` has three dimensions; the training iterator shuffles."""
    from .io import MNISTIter
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                  part_index=part_index)
    return (MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte", shuffle=True,
                      **common),
            MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte", shuffle=False,
                      **common))


def get_zip_data(data_dir, url, data_origin_name):
    """Download ``url`` as ``data_dir/data_origin_name`` and unpack it into ``data_dir`` (skipped
    when the archive is already there)."""
    archive = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(archive):
        download(url, dirname=data_dir)
        _extract_zip(archive, data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Download ``url`` as ``data_dir/data_origin_name`` and decompress it to ``data_dir/data_name``
    (skipped when that exists); the archive is removed afterwards, as MXNet does."""
    from .fileio import write_atomic
    target = os.path.join(data_dir, data_name)
    archive = os.path.join(data_dir, data_origin_name)
    if os.path.exists(target):
        return
    download(url, dirname=data_dir)
    written = [0]

    def chunks(f):
        for chunk in iter(lambda: f.read(1 << 20), b""):
            written[0] += len(chunk)
            if written[0] > MAX_EXTRACT_BYTES:
                raise MXNetError(f"{archive}: expected at most {MAX_EXTRACT_BYTES} bytes decompressed, got more")
            yield chunk
    try:
        with bz2.open(archive, "rb") as f:
            write_atomic(target, chunks(f), what="decompressed file")
    except OSError as e:
        raise MXNetError(f"{archive}: not a bz2 archive ({e})") from e
    os.remove(archive)
