"""mx.test_utils' dataset helpers (get_mnist_ubyte, get_cifar10, get_mnist, get_bz2_data, download)
fetch from a real HTTP server on loopback (HYBRIDLAB_DATA_URL points at it), unpack as MXNet lays
the files out, and refuse hostile archives."""
import bz2
import functools
import gzip
import http.server
import os
import struct
import threading
import zipfile

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A loopback HTTP server over tmp_path/'mirror'; the test runs in tmp_path/'work'."""
    mirror, work = tmp_path / "mirror", tmp_path / "work"
    mirror.mkdir()
    work.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("HYBRIDLAB_DATA_URL", f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.chdir(work)
    yield mirror
    httpd.shutdown()


def _idx(magic, items, rows=28):
    head = struct.pack(">II", magic, len(items)) + (struct.pack(">II", rows, rows) if magic == 2051 else b"")
    return head + b"".join(items)


IMAGES = [bytes([i]) * 784 for i in (10, 20, 30)]
LABELS = [bytes([i]) for i in (4, 1, 9)]


def test_get_mnist_ubyte_downloads_unpacks_and_feeds_mnist_iter(server):
    with zipfile.ZipFile(server / "mnist.zip", "w") as zf:
        for kind in ("train", "t10k"):
            zf.writestr(f"{kind}-images-idx3-ubyte", _idx(2051, IMAGES))
            zf.writestr(f"{kind}-labels-idx1-ubyte", _idx(2049, LABELS))
    mx.test_utils.get_mnist_ubyte()
    assert sorted(os.listdir("data")) == ["mnist.zip", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
                                          "train-images-idx3-ubyte", "train-labels-idx1-ubyte"]
    os.remove(server / "mnist.zip")          # present files: no second download
    mx.test_utils.get_mnist_ubyte()
    _, val = mx.test_utils.get_mnist_iterator(3, (784,))
    batch = val.next()
    assert batch.data[0].shape == (3, 784)
    assert batch.label[0].asnumpy().tolist() == [4.0, 1.0, 9.0]
    np.testing.assert_allclose(batch.data[0].asnumpy()[:, 0], np.array([10, 20, 30]) / 256, rtol=1e-6)


def test_get_cifar10_lays_out_data_cifar(server):
    with zipfile.ZipFile(server / "cifar10.zip", "w") as zf:
        for name in ("train.rec", "test.rec", "train.lst", "test.lst"):
            zf.writestr(f"cifar/{name}", b"x")
    mx.test_utils.get_cifar10()
    assert sorted(os.listdir("data/cifar")) == ["test.lst", "test.rec", "train.lst", "train.rec"]


def test_an_archive_missing_the_expected_files_names_them(server):
    with zipfile.ZipFile(server / "cifar10.zip", "w") as zf:
        zf.writestr("cifar/train.rec", b"x")
    with pytest.raises(MXNetError, match=r"data/cifar10.zip: expected .* missing \['cifar/test.rec'"):
        mx.test_utils.get_cifar10()


def test_a_member_escaping_the_folder_is_refused_and_nothing_is_written(server, tmp_path):
    with zipfile.ZipFile(server / "mnist.zip", "w") as zf:
        zf.writestr("train-images-idx3-ubyte", b"x")
        zf.writestr("../../escaped", b"x")
    with pytest.raises(MXNetError, match=r"mnist.zip: member '../../escaped' would be written outside"):
        mx.test_utils.get_mnist_ubyte()
    assert not (tmp_path / "escaped").exists() and not os.path.exists("data/train-images-idx3-ubyte")


def test_a_zip_bomb_is_refused_from_its_declared_size(server, monkeypatch):
    monkeypatch.setattr(mx.test_data, "MAX_EXTRACT_BYTES", 1000)
    with zipfile.ZipFile(server / "mnist.zip", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("train-images-idx3-ubyte", bytes(5000))
    with pytest.raises(MXNetError, match=r"mnist.zip: expected at most 1000 bytes unpacked, the archive declares 5000"):
        mx.test_utils.get_mnist_ubyte()


def test_get_mnist_returns_arrays_as_mxnet(server):
    for kind in ("train", "t10k"):
        (server / f"{kind}-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx(2051, IMAGES)))
        (server / f"{kind}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(_idx(2049, LABELS)))
    data = mx.test_utils.get_mnist()
    assert data["train_data"].shape == (3, 1, 28, 28) and data["train_data"].dtype == np.float32
    assert data["test_label"].dtype == np.int8 and data["test_label"].tolist() == [4, 1, 9]
    np.testing.assert_allclose(data["train_data"][:, 0, 0, 0], np.array([10, 20, 30]) / 255, rtol=1e-6)


def test_get_mnist_names_a_truncated_file(server):
    for kind in ("train", "t10k"):
        (server / f"{kind}-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx(2051, IMAGES)[:-5]))
        (server / f"{kind}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(_idx(2049, LABELS)))
    with pytest.raises(MXNetError, match=r"train-images-idx3-ubyte.gz: expected 2352 bytes of images .* got 2347"):
        mx.test_utils.get_mnist()


def test_get_bz2_data_decompresses_and_removes_the_archive(server):
    (server / "kdda.t.bz2").write_bytes(bz2.compress(b"1 1:0.5\n"))
    url = os.environ["HYBRIDLAB_DATA_URL"] + "/kdda.t.bz2"
    mx.test_utils.get_bz2_data("d", "kdda.t", url, "kdda.t.bz2")
    assert open("d/kdda.t", "rb").read() == b"1 1:0.5\n" and os.listdir("d") == ["kdda.t"]


def test_download_keeps_an_existing_file_unless_overwrite(server):
    (server / "a.txt").write_text("new")
    url = os.environ["HYBRIDLAB_DATA_URL"] + "/a.txt"
    os.makedirs("d")
    open("d/a.txt", "w").write("old")
    assert mx.test_utils.download(url, dirname="d") == os.path.join("d", "a.txt")
    assert open("d/a.txt").read() == "old"
    mx.test_utils.download(url, dirname="d", overwrite=True)
    assert open("d/a.txt").read() == "new"
