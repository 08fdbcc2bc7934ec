"""gluon.data.vision datasets over small synthetic files in MXNet's formats (never downloading from the
internet), and gluon.utils.download / check_sha1 over file:// and a local http.server."""
import gzip
import hashlib
import http.server
import io
import os
import struct
import tarfile
import threading

import numpy as np
import pytest
from PIL import Image

import hybridlab as mx
from hybridlab.gluon.data.vision import CIFAR10, CIFAR100, MNIST, FashionMNIST, ImageFolderDataset, ImageRecordDataset
from hybridlab.gluon.utils import check_sha1, download


def sha1(path):
    return hashlib.sha1(open(path, "rb").read()).hexdigest()


def write_idx(root, prefix, imgs, labels):
    with gzip.open(root / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, len(imgs), 28, 28) + imgs.tobytes())
    with gzip.open(root / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.tobytes())


@pytest.mark.parametrize("cls", [MNIST, FashionMNIST])
def test_mnist_items_as_mxnet(cls, tmp_path, monkeypatch):
    rs = np.random.RandomState(0)
    imgs, labels = rs.randint(0, 256, (3, 28, 28)).astype(np.uint8), np.array([5, 0, 9], np.uint8)
    write_idx(tmp_path, "t10k", imgs, labels)
    for attr, kind in (("_test_data", "images-idx3"), ("_test_label", "labels-idx1")):
        name = f"t10k-{kind}-ubyte.gz"
        monkeypatch.setattr(cls, attr, (name, sha1(tmp_path / name)))   # the files match: no download
    monkeypatch.setenv("MXNET_GLUON_REPO", "file:///nonexistent-repo/")
    ds = cls(root=str(tmp_path), train=False)
    x, y = ds[1]
    # MXNet 1.9.1 on the same files: NDArray (28, 28, 1) uint8, numpy.int32 label
    assert isinstance(x, mx.nd.NDArray) and x.shape == (28, 28, 1) and x.dtype == np.uint8
    assert type(y) is np.int32 and y == 0 and len(ds) == 3
    np.testing.assert_array_equal(x.asnumpy()[:, :, 0], imgs[1])
    t = cls(root=str(tmp_path), train=False, transform=lambda d, l: (d.astype("float32") / 255, l + 1))
    assert t[2][1] == 10 and t[2][0].dtype == np.float32


def test_mnist_offline_error_names_url_and_root(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "repo").as_uri())
    with pytest.raises(mx.MXNetError) as err:
        MNIST(root=str(tmp_path / "data"), train=True)
    msg = str(err.value)
    assert "train-images-idx3-ubyte.gz" in msg and "does not exist" in msg
    assert (tmp_path / "repo").as_uri() + "/gluon/dataset/mnist/train-images-idx3-ubyte.gz" in msg
    assert f"in the folder {tmp_path / 'data'}" in msg


def cifar_rows(n, label_bytes, seed):
    rs = np.random.RandomState(seed)
    labels = rs.randint(0, 20, (n, label_bytes)).astype(np.uint8)
    return np.concatenate([labels, rs.randint(0, 256, (n, 3072)).astype(np.uint8)], axis=1)


def test_cifar10_from_archive_via_file_repo(tmp_path, monkeypatch):
    repo = tmp_path / "repo" / "gluon" / "dataset" / "cifar10"
    repo.mkdir(parents=True)
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
    rows = {n: cifar_rows(2, 1, i) for i, n in enumerate(names)}
    with tarfile.open(repo / "cifar-10-binary.tar.gz", "w:gz") as tar:
        for n, r in rows.items():
            info = tarfile.TarInfo(n)
            info.size = r.nbytes
            tar.addfile(info, io.BytesIO(r.tobytes()))
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "repo").as_uri())
    monkeypatch.setattr(CIFAR10, "_archive_file", ("cifar-10-binary.tar.gz", sha1(repo / "cifar-10-binary.tar.gz")))
    digests = [(n, hashlib.sha1(r.tobytes()).hexdigest()) for n, r in rows.items()]
    monkeypatch.setattr(CIFAR10, "_train_data", digests[:5])
    monkeypatch.setattr(CIFAR10, "_test_data", digests[5:])
    root = tmp_path / "data"
    train = CIFAR10(root=str(root))
    assert len(train) == 10 and (root / "data_batch_3.bin").exists()
    x, y = train[2]
    assert x.shape == (32, 32, 3) and x.dtype == np.uint8 and type(y) is np.int32
    r = rows["data_batch_2.bin"][0]
    assert y == r[0]
    np.testing.assert_array_equal(x.asnumpy(), r[1:].reshape(3, 32, 32).transpose(1, 2, 0))
    assert len(CIFAR10(root=str(root), train=False)) == 2


@pytest.mark.parametrize("fine", [False, True])
def test_cifar100_fine_and_coarse_labels(fine, tmp_path, monkeypatch):
    rows = cifar_rows(3, 2, 0)
    for n in ("train.bin", "test.bin"):
        (tmp_path / n).write_bytes(rows.tobytes())
    digest = hashlib.sha1(rows.tobytes()).hexdigest()
    monkeypatch.setattr(CIFAR100, "_train_data", [("train.bin", digest)])
    monkeypatch.setattr(CIFAR100, "_test_data", [("test.bin", digest)])
    ds = CIFAR100(root=str(tmp_path), fine_label=fine)
    x, y = ds[1]
    assert y == rows[1, int(fine)] and type(y) is np.int32
    np.testing.assert_array_equal(x.asnumpy()[0, 1], rows[1, 2:].reshape(3, 32, 32)[:, 0, 1])


def test_image_folder_dataset(tmp_path):
    rs = np.random.RandomState(0)
    arrays = {}
    for cls in ("dog", "cat"):
        (tmp_path / cls).mkdir()
        for i in range(2):
            a = rs.randint(0, 256, (3, 4, 3)).astype(np.uint8)
            arrays[(cls, i)] = a
            Image.fromarray(a).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "cat" / "notes.txt").write_text("x")
    (tmp_path / "readme.md").write_text("x")
    with pytest.warns(UserWarning, match="Ignoring"):
        ds = ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 4
    x, y = ds[2]
    assert y == 1 and x.shape == (3, 4, 3) and x.dtype == np.uint8
    np.testing.assert_array_equal(x.asnumpy(), arrays[("dog", 0)])
    with pytest.warns(UserWarning, match="Ignoring"):
        gray = ImageFolderDataset(str(tmp_path), flag=0, transform=lambda d, l: (d.shape, l))
    assert gray[0] == ((3, 4, 1), 0)
    with pytest.raises(mx.MXNetError, match="not a folder"):
        ImageFolderDataset(str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="x.rec"):     # tests/test_recordio.py tests it with files
        ImageRecordDataset(str(tmp_path / "x.rec"))


def test_download_file_url_sha1_and_skip(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"payload")
    digest = hashlib.sha1(b"payload").hexdigest()
    dest = tmp_path / "out"
    dest.mkdir()
    path = download(src.as_uri(), path=str(dest), sha1_hash=digest)
    assert path == str(dest / "src.bin") and check_sha1(path, digest) and not check_sha1(path, "0" * 40)
    src.write_bytes(b"changed")
    assert open(download(src.as_uri(), path=str(dest), sha1_hash=digest), "rb").read() == b"payload"  # kept
    assert open(download(src.as_uri(), path=str(dest), overwrite=True), "rb").read() == b"changed"
    with pytest.raises(UserWarning, match="hash does not match"):
        download(src.as_uri(), path=str(dest / "x.bin"), sha1_hash=digest, retries=1)
    with pytest.raises(ValueError, match="at least 0"):
        download(src.as_uri(), path=str(dest), retries=-1)


class _Handler(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):  # noqa: N802
        _Handler.hits.append(self.path)
        if self.path == "/ok.bin":
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"served")
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


def test_download_local_http_server_and_retries(tmp_path):
    server = http.server.HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        path = download(base + "/ok.bin", path=str(tmp_path))
        assert open(path, "rb").read() == b"served"
        assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        _Handler.hits.clear()
        with pytest.raises(mx.MXNetError, match=r"Failed downloading .*/missing.bin .*\(3 attempts\).*404"):
            download(base + "/missing.bin", path=str(tmp_path), retries=3)
        assert _Handler.hits == ["/missing.bin"] * 3
    finally:
        server.shutdown()
        server.server_close()
