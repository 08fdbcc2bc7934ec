"""Vision datasets (MXNet 1.9.1's ``gluon.data.vision``): ``MNIST``, ``FashionMNIST``, ``CIFAR10``,
``CIFAR100``, ``ImageRecordDataset`` (the images of a RecordIO file) and ``ImageFolderDataset``. A
sample is ``(image, label)``: the image a uint8 NDArray (H, W, C) (28x28x1 for MNIST, 32x32x3 for
CIFAR), the label a ``numpy.int32``.

The files are MXNet's: ``root`` (default ``$MXNET_HOME/datasets/<name>``, ``~/.mxnet`` when unset)
holds them; missing ones, or ones whose SHA-1 differs from MXNet's, are downloaded from MXNet's
repository (``$MXNET_GLUON_REPO``, default ``https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/``)
with ``gluon.utils.download``. Offline, the error names the URLs and the folder to put the files in.

Example (an ImageFolderDataset over two class folders)::

    >>> import os, tempfile
    >>> from PIL import Image
    >>> import hybridlab as mx
    >>> root = tempfile.mkdtemp()
    >>> for cls in ('cat', 'dog'):
    ...     os.makedirs(os.path.join(root, cls))
    ...     Image.new('RGB', (4, 3)).save(os.path.join(root, cls, '0.png'))
    >>> ds = mx.gluon.data.vision.ImageFolderDataset(root)
    >>> ds.synsets, len(ds), ds[1][0].shape, ds[1][1]
    (['cat', 'dog'], 2, (3, 4, 3), 1)
"""
import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from .... import image
from .... import recordio
from .... import ndarray as nd
from ....base import MXNetError
from ...utils import check_sha1, download
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset"]


def _data_dir():
    return os.getenv("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


def _repo_file_url(namespace, filename):
    repo = os.environ.get("MXNET_GLUON_REPO", "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    if not repo.endswith("/"):
        repo += "/"
    return f"{repo}{namespace}/{filename}"


class _DownloadedDataset(Dataset):
    """Base of the downloaded datasets: ``_get_data`` fills ``_data`` (NDArray) and ``_label``."""

    _namespace = None

    def __init__(self, root, transform):
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        os.makedirs(self._root, exist_ok=True)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _fetch(self, name, sha1):
        """The path of ``name`` in the root, downloaded if missing or if its SHA-1 differs."""
        url = _repo_file_url("gluon/dataset/" + self._namespace, name)
        try:
            return download(url, path=self._root, sha1_hash=sha1)
        except Exception as err:
            path = os.path.join(self._root, name)
            have = (f"{path} exists but its sha1 is not the expected {sha1}" if os.path.exists(path)
                    else f"{path} does not exist")
            raise MXNetError(f"{type(self).__name__}: {have}, and downloading it from {url} failed ({err}). "
                             f"Download {name} from that URL (or set MXNET_GLUON_REPO to a mirror) and place it "
                             f"in the folder {self._root}.") from err

    def _get_data(self):
        raise NotImplementedError


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits (http://yann.lecun.com/exdb/mnist): 60000 train / 10000 test images
    28x28x1 uint8, labels 0-9 (``train-images-idx3-ubyte.gz`` & co. in ``root``).

    Example (tiny synthetic files standing in for MNIST's; MXNet checks their SHA-1)::

        >>> import gzip, os, struct, tempfile
        >>> import numpy as np
        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import MNIST
        >>> root = tempfile.mkdtemp()
        >>> def write(name, header, payload):
        ...     with gzip.open(os.path.join(root, name), 'wb') as f:
        ...         f.write(header + payload)
        >>> write('t10k-labels-idx1-ubyte.gz', struct.pack('>II', 2049, 2), bytes([3, 7]))
        >>> write('t10k-images-idx3-ubyte.gz', struct.pack('>IIII', 2051, 2, 28, 28), bytes(2 * 784))
        >>> class TinyMNIST(MNIST):   # no SHA-1 to check for the synthetic files
        ...     _test_data = ('t10k-images-idx3-ubyte.gz', None)
        ...     _test_label = ('t10k-labels-idx1-ubyte.gz', None)
        >>> ds = TinyMNIST(root=root, train=False)
        >>> len(ds), ds[1][0].shape, ds[1][0].dtype, int(ds[1][1]), type(ds[1][1]).__name__
        (2, (28, 28, 1), dtype('uint8'), 7, 'int32')
    """

    _train_data = ("train-images-idx3-ubyte.gz", "6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d")
    _train_label = ("train-labels-idx1-ubyte.gz", "2a80914081dc54586dbdf242f9805a6b8d2a15fc")
    _test_data = ("t10k-images-idx3-ubyte.gz", "c3a25af1f52dad7f726cce8cacb138654b760d48")
    _test_label = ("t10k-labels-idx1-ubyte.gz", "763e7fa3757d93b0cdec073cef058b2004252c17")
    _namespace = "mnist"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "mnist"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        data, label = (self._train_data, self._train_label) if self._train else (self._test_data, self._test_label)
        data_file = self._fetch(*data)
        label_file = self._fetch(*label)
        try:
            with gzip.open(label_file, "rb") as fin:
                _, n = struct.unpack(">II", fin.read(8))
                label = np.frombuffer(fin.read(), dtype=np.uint8).astype(np.int32)
            with gzip.open(data_file, "rb") as fin:
                _, n_img, rows, cols = struct.unpack(">IIII", fin.read(16))
                raw = np.frombuffer(fin.read(), dtype=np.uint8)
        except (OSError, struct.error, EOFError) as err:
            raise MXNetError(f"{type(self).__name__}: cannot read {data_file} / {label_file} as gzip'd idx-ubyte "
                             f"files: {err}") from None
        if raw.size != len(label) * 28 * 28:
            raise MXNetError(f"{type(self).__name__}: {data_file} expected {len(label)} images of 28x28 (the "
                             f"label count) = {len(label) * 784} bytes, got {raw.size} bytes")
        self._data = nd.array(raw.reshape(len(label), 28, 28, 1), dtype=np.uint8)
        self._label = label


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (https://github.com/zalandoresearch/fashion-mnist), a drop-in
    replacement of MNIST: 28x28x1 uint8 images, labels 0-9. See :class:`MNIST` for an example."""

    _train_data = ("train-images-idx3-ubyte.gz", "0cf37b0d40ed5169c6b3aba31069a9770ac9043d")
    _train_label = ("train-labels-idx1-ubyte.gz", "236021d52f1e40852b06a4c3008d8de8aef1e40b")
    _test_data = ("t10k-images-idx3-ubyte.gz", "626ed6a7c06dd17c0eec72fa3be1740f146a2863")
    _test_label = ("t10k-labels-idx1-ubyte.gz", "17f9ab60e7257a1620f4ad76bbbaf857c3920701")
    _namespace = "fashion-mnist"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "fashion-mnist"), train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10 (https://www.cs.toronto.edu/~kriz/cifar.html), binary version: 32x32x3 uint8 images,
    labels 0-9. ``root`` holds ``data_batch_1.bin`` .. ``data_batch_5.bin`` and ``test_batch.bin``
    (rows of 1 label byte + 3072 CHW pixel bytes), else ``cifar-10-binary.tar.gz`` is downloaded and
    unpacked there."""

    _archive_file = ("cifar-10-binary.tar.gz", "fab780a1e191a7eda0f345501ccd62d20f7ed891")
    _train_data = [("data_batch_1.bin", "aadd24acce27caa71bf4b10992e9e7b2d74c2540"),
                   ("data_batch_2.bin", "c0ba65cce70568cd57b4e03e9ac8d2a5367c1795"),
                   ("data_batch_3.bin", "1dd00a74ab1d17a6e7d73e185b69dbf31242f295"),
                   ("data_batch_4.bin", "aab85764eb3584312d3c7f65fd2fd016e36a258e"),
                   ("data_batch_5.bin", "26e2849e66a845b7f1e4614ae70f4889ae604628")]
    _test_data = [("test_batch.bin", "67eb016db431130d61cd03c7ad570b013799c88c")]
    _namespace = "cifar10"
    _label_bytes = 1

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar10"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        row = 3072 + self._label_bytes
        with open(filename, "rb") as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        if raw.size % row:
            raise MXNetError(f"{type(self).__name__}: {filename} expected rows of {row} bytes ({self._label_bytes} "
                             f"label byte(s) + 3072 pixels), got {raw.size} bytes")
        data = raw.reshape(-1, row)
        return (data[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                data[:, self._label_column()].astype(np.int32))

    def _get_data(self):
        files = self._train_data + self._test_data
        if any(not os.path.exists(p) or not check_sha1(p, s)
               for p, s in ((os.path.join(self._root, n), s) for n, s in files)):
            archive = self._fetch(*self._archive_file)
            with tarfile.open(archive) as tar:
                try:
                    tar.extractall(self._root, filter="data")
                except TypeError:      # Python without extraction filters
                    tar.extractall(self._root)
        names = self._train_data if self._train else self._test_data
        data, label = zip(*(self._read_batch(os.path.join(self._root, n)) for n, _ in names))
        data = np.concatenate(data)
        self._data = nd.array(np.ascontiguousarray(data), dtype=np.uint8)
        self._label = np.concatenate(label)


class CIFAR100(CIFAR10):
    """CIFAR-100, binary version: 32x32x3 uint8 images; ``fine_label=True`` gives the 100 fine
    classes, else the 20 coarse ones (``train.bin``/``test.bin``: coarse byte, fine byte, pixels)."""

    _archive_file = ("cifar-100-binary.tar.gz", "a0bb982c76b83111308126cc779a992fa506b90b")
    _train_data = [("train.bin", "e207cd2e05b73b1393c74c7f5e7bea451d63e08e")]
    _test_data = [("test.bin", "8fb6623e830365ff53cf14adec797474f5478006")]
    _namespace = "cifar100"
    _label_bytes = 2

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar100"), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self):
        return 0 + self._fine_label


class ImageRecordDataset(RecordFileDataset):
    """The images of a RecordIO file (``.rec`` with its ``.idx``, as ``tools/im2rec.py`` writes them):
    ``ds[i]`` is ``(image, label)``, the image a uint8 NDArray (H, W, 3) RGB (``flag=1``) or (H, W, 1)
    grey (``flag=0``), the label the record's (a float, or a float32 array for multi-label records);
    ``transform(image, label)`` is applied to each sample. Decoding follows OpenCV's conventions
    (MXNet's pixels for lossless formats, grey conversion included; JPEG within a few levels).

    Example::

        >>> import os, tempfile
        >>> import numpy as np
        >>> import hybridlab as mx
        >>> d = tempfile.mkdtemp()
        >>> w = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'w')
        >>> w.write_idx(0, mx.recordio.pack_img((0, 3.0, 0, 0), np.zeros((2, 5, 3), np.uint8), img_fmt='.png'))
        >>> w.close()
        >>> img, label = mx.gluon.data.vision.ImageRecordDataset(os.path.join(d, 'a.rec'))[0]
        >>> img.shape, img.dtype, label
        ((2, 5, 3), dtype('uint8'), 3.0)
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        if flag not in (0, 1, True, False):
            raise ValueError(f"ImageRecordDataset: flag expected 0 (grayscale) or 1 (color), got {flag!r}")
        self._flag = int(flag)
        self._transform = transform

    def __getitem__(self, idx):
        record = super().__getitem__(idx)
        where = f"ImageRecordDataset {self.filename!r}, record {self._record.keys[idx]!r}"
        try:
            header, payload = recordio.unpack(record)
        except MXNetError as err:
            raise MXNetError(f"{where}: {err}") from None
        img = recordio.decode_cv(payload, self._flag, where)
        img = img[:, :, None] if self._flag == 0 else img[:, :, ::-1]
        img = nd.array(np.ascontiguousarray(img), dtype=np.uint8)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images stored one folder per class (``root/car/0001.jpg``, ``root/bus/123.png``, ...):
    ``synsets`` lists the class names (label ``i`` is ``synsets[i]``, folders sorted), ``items``
    the ``(filename, label)`` pairs. ``flag`` 0 loads grayscale (H, W, 1), 1 colour (H, W, 3);
    ``transform(data, label)`` is applied to each sample. See the module example."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        if not os.path.isdir(self._root):
            raise MXNetError(f"ImageFolderDataset: root expected a folder with one sub-folder per class, got "
                             f"{self._root!r}, which is not a folder")
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support {', '.join(self._exts)}",
                                  stacklevel=3)
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
