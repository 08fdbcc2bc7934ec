"""mx.io: DataBatch's text, NDArrayIter's padding when the batch is longer than the data, and
CSVIter (values, pads, indices and passes recorded from MXNet 1.9.1; malformed files)."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError


def test_databatch_str_says_none_without_labels():
    # MXNet 1.9.1: 'label shapes: None' when there are no labels
    assert str(mx.io.DataBatch(data=[mx.nd.ones((2, 3))])) == "DataBatch: data shapes: [(2, 3)] label shapes: None"
    batch = mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((7, 8))], label=[mx.nd.ones((4, 5))])
    assert str(batch) == "DataBatch: data shapes: [(2, 3), (7, 8)] label shapes: [(4, 5)]"


def test_ndarrayiter_pads_by_cycling_when_batch_exceeds_data():
    # MXNet 1.9.1 (test_io._test_corner_case): batch 205 over 10 samples = the data 20 times, then 0..4
    it = mx.io.NDArrayIter(data=np.arange(10), batch_size=205, shuffle=False, last_batch_handle="pad")
    batch = it.next()
    np.testing.assert_array_equal(batch.data[0].asnumpy(), np.concatenate((np.tile(np.arange(10), 20), np.arange(5))))
    assert batch.pad == 195


@pytest.fixture
def csv_files(tmp_path):
    data, label = tmp_path / "d.csv", tmp_path / "l.csv"
    data.write_text("1,2\n3,4\n5,6\n7,8\n9,10\n")
    label.write_text("0\n1\n2\n3\n4\n")
    return str(data), str(label)


def _passes(it, n=3):
    out = []
    for p in range(n):
        out += [(p, b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(), b.pad, b.index.tolist())
                for b in it]
        it.reset()
    return out


def test_csviter_round_batch_continues_after_the_wrapped_samples(csv_files):
    data, label = csv_files
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), label_csv=label, batch_size=3)
    assert it.provide_data == [mx.io.DataDesc("data", (3, 2))]
    assert it.provide_label[0].shape == (3,)
    assert _passes(it) == [           # MXNet 1.9.1
        (0, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [0.0, 1.0, 2.0], 0, [0, 1, 2]),
        (0, [[7.0, 8.0], [9.0, 10.0], [1.0, 2.0]], [3.0, 4.0, 0.0], 1, [3, 4, 0]),
        (1, [[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], [1.0, 2.0, 3.0], 0, [1, 2, 3]),
        (1, [[9.0, 10.0], [1.0, 2.0], [3.0, 4.0]], [4.0, 0.0, 1.0], 2, [4, 0, 1]),
        (2, [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0]], [2.0, 3.0, 4.0], 0, [2, 3, 4])]


def test_csviter_without_round_batch_keeps_the_previous_rows(csv_files):
    data, _ = csv_files
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=3, round_batch=False, dtype="int64")
    assert it.provide_data[0].dtype == np.int64 and it.provide_label[0].dtype == np.int64
    assert _passes(it, 2) == [        # MXNet 1.9.1: the last batch's third row is the previous batch's
        (0, [[1, 2], [3, 4], [5, 6]], [0, 0, 0], 0, [0, 1, 2]),
        (0, [[7, 8], [9, 10], [5, 6]], [0, 0, 0], 1, [3, 4, 2]),
        (1, [[1, 2], [3, 4], [5, 6]], [0, 0, 0], 0, [0, 1, 2]),
        (1, [[7, 8], [9, 10], [5, 6]], [0, 0, 0], 1, [3, 4, 2])]


def test_csviter_shapes_dtypes_and_getdata(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("2147483648,1\n\n 3 , 4 ,\n")       # blank lines skipped, spaces and a trailing comma allowed
    it = mx.io.CSVIter(data_csv=str(path), data_shape=(1, 2), label_csv=str(path), label_shape=(2,),
                       batch_size=2, dtype="int64")
    batch = it.next()
    assert batch.data[0].shape == (2, 1, 2) and batch.label[0].shape == (2, 2)
    assert it.getdata().asnumpy().tolist() == [[[2147483648, 1]], [[3, 4]]]
    assert it.getdata().dtype == np.int64 and it.getlabel().asnumpy()[0, 0] == 2147483648
    with pytest.raises(StopIteration):
        it.next()


@pytest.mark.parametrize("text, message", [
    ("1,2\n3,4,5\n", r"line 2: expected 2 values \(shape \(2,\)\), got 3"),
    ("1,2\nx,4\n", r"line 2: expected 2 float32 numbers, got 'x'"),
    ("1," * 2000 + "\n", r"line 1: expected at most \d+ characters"),
])
def test_csviter_malformed_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    it = mx.io.CSVIter(data_csv=str(path), data_shape=(2,), batch_size=1)
    with pytest.raises(MXNetError, match=message) as err:
        list(it)
    assert "bad.csv" in str(err.value)


def test_csviter_argument_errors(tmp_path, csv_files):
    data, _ = csv_files
    with pytest.raises(MXNetError, match="does not exist"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(2,), batch_size=1)
    with pytest.raises(MXNetError, match="dtype: expected one of"):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=1, dtype="float16")
    with pytest.raises(MXNetError, match="batch_size: expected a positive int, got 0"):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=0)
    short = tmp_path / "short.csv"
    short.write_text("0\n")
    with pytest.raises(MXNetError, match="fewer label lines than data lines"):
        list(mx.io.CSVIter(data_csv=data, data_shape=(2,), label_csv=str(short), batch_size=2))
