"""``mx.mod.BucketingModule``, ``SequentialModule``, ``PythonLossModule`` and ``mx.mon.Monitor``
against values recorded from real MXNet 1.9.1.

``lstm_bucketing(mx)`` is MXNet's classic LSTM bucketing example made tiny and deterministic: the
same sentences, the same batch order (``BucketSentenceIter`` shuffles with Python's and NumPy's
generators, seeded alike) and the same initial weights (NumPy arrays set through ``init_params``),
so hybridlab and MXNet train the same model; the per-batch losses and the epochs' perplexities
were recorded by running this very function with ``mx`` = real MXNet 1.9.1 (``RECORDED``)."""
import logging
import os
import random

import numpy as np
import pytest

import hybridlab as mx

VOCAB, EMBED, HIDDEN, BATCH = 11, 5, 6, 3
BUCKETS = [4, 6, 8]


def sentences():
    rs = np.random.RandomState(7)
    return [[int(w) for w in rs.randint(1, VOCAB, size=rs.randint(2, 9))] for _ in range(30)]


def make_sym_gen(mx):
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix=f"lstm_l{i}_"))

    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        label = mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=VOCAB, output_dim=EMBED, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, HIDDEN))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=VOCAB, name="pred")
        label = mx.sym.Reshape(label, shape=(-1,))
        out = mx.sym.SoftmaxOutput(data=pred, label=label, name="softmax", use_ignore=True, ignore_label=-1)
        return out, ("data",), ("softmax_label",)
    return sym_gen


def initial_params(shapes):
    """The same starting weights for both: uniform(-0.3, 0.3) in sorted-name order."""
    rs = np.random.RandomState(3)
    return {name: rs.uniform(-0.3, 0.3, size=shapes[name]).astype(np.float32) for name in sorted(shapes)}


def lstm_bucketing(mx, epochs=2):
    """Train the bucketed LSTM; returns ``{'batches': [(bucket, loss)], 'perplexity': [per epoch]}``."""
    random.seed(0)
    np.random.seed(0)
    it = mx.rnn.BucketSentenceIter(sentences(), BATCH, buckets=BUCKETS, invalid_label=-1)
    mod = mx.mod.BucketingModule(make_sym_gen(mx), default_bucket_key=it.default_bucket_key, context=mx.cpu())
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.Zero())
    shapes = {k: v.shape for k, v in mod.get_params()[0].items()}
    mod.set_params({k: mx.nd.array(v) for k, v in initial_params(shapes).items()}, {})
    mod.init_optimizer(kvstore="local", optimizer="sgd",
                       optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-4})
    metric = mx.metric.Perplexity(-1)
    out = {"batches": [], "perplexity": []}
    for _ in range(epochs):
        it.reset()
        metric.reset()
        for batch in it:
            mod.forward(batch, is_train=True)
            prob = mod.get_outputs()[0].asnumpy()
            label = batch.label[0].asnumpy().reshape(-1).astype(int)
            keep = label >= 0
            loss = -np.log(prob[np.arange(len(label))[keep], label[keep]]).mean()
            out["batches"].append((int(batch.bucket_key), round(float(loss), 5)))
            mod.backward()
            mod.update()
            mod.update_metric(metric, batch.label)
        out["perplexity"].append(round(float(metric.get()[1]), 4))
    out["buckets"] = sorted(int(k) for k in mod._buckets)
    return out


# lstm_bucketing(mxnet) in real MXNet 1.9.1
RECORDED = {
    "batches": [(4, 2.37755), (8, 2.35161), (6, 2.58322), (8, 2.34882), (4, 2.3946), (8, 2.45021), (6, 2.46283),
                (6, 2.30774), (8, 2.26229), (6, 2.57164), (4, 2.17594), (8, 2.59047), (8, 2.56351), (6, 2.39448),
                (8, 2.26949), (6, 2.73697), (4, 2.42115), (8, 2.47795)],
    "perplexity": [10.8634, 12.0858],
    "buckets": [4, 6, 8],
}


def test_lstm_bucketing_matches_mxnet():
    got = lstm_bucketing(mx)
    assert got["buckets"] == RECORDED["buckets"]
    assert [b for b, _ in got["batches"]] == [b for b, _ in RECORDED["batches"]]
    np.testing.assert_allclose([v for _, v in got["batches"]], [v for _, v in RECORDED["batches"]],
                               rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(got["perplexity"], RECORDED["perplexity"], rtol=2e-4)


def monitor_lines(mx, pattern=".*", monitor_all=False):
    """The lines ``Monitor.toc_print`` logs for one training batch of bucket 4 (sorted by name)."""
    random.seed(0)
    np.random.seed(0)
    it = mx.rnn.BucketSentenceIter(sentences(), BATCH, buckets=[4], invalid_label=-1)
    mod = mx.mod.BucketingModule(make_sym_gen(mx), default_bucket_key=4, context=mx.cpu())
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.Zero())
    shapes = {k: v.shape for k, v in mod.get_params()[0].items()}
    mod.set_params({k: mx.nd.array(v) for k, v in initial_params(shapes).items()}, {})
    mon = mx.mon.Monitor(1, pattern=pattern, sort=True, monitor_all=monitor_all)
    mod.install_monitor(mon)
    lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())
    handler = Keep()
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        mon.tic()
        mod.forward_backward(next(iter(it)))
        mon.toc_print()
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    return lines


# monitor_lines(mxnet, MONITOR_PATTERN) in real MXNet 1.9.1 (MXNET_SUBGRAPH_BACKEND=NONE)
MONITOR_PATTERN = r"(pred|softmax|embed_output|lstm_l1_t0_)"
RECORDED_LINES = [
    'Batch:       1 embed_output                   0.1528627\t',
    'Batch:       1 lstm_l1_t0_c_backward_output   0.047042035\t',
    'Batch:       1 lstm_l1_t0_c_output            0.1527144\t',
    'Batch:       1 lstm_l1_t0_f_backward_output   0.0\t',
    'Batch:       1 lstm_l1_t0_f_output            0.5163686\t',
    'Batch:       1 lstm_l1_t0_h2h_backward_output0 0.26167998\t',
    'Batch:       1 lstm_l1_t0_h2h_backward_output1 0.0\t',
    'Batch:       1 lstm_l1_t0_h2h_backward_output2 0.032542273\t',
    'Batch:       1 lstm_l1_t0_h2h_output          0.16625907\t',
    'Batch:       1 lstm_l1_t0_i2h_backward_output0 0.018067844\t',
    'Batch:       1 lstm_l1_t0_i2h_backward_output1 0.0021626248\t',
    'Batch:       1 lstm_l1_t0_i2h_backward_output2 0.032542273\t',
    'Batch:       1 lstm_l1_t0_i2h_output          0.19403362\t',
    'Batch:       1 lstm_l1_t0_i_backward_output   0.0035258897\t',
    'Batch:       1 lstm_l1_t0_i_output            0.5182102\t',
    'Batch:       1 lstm_l1_t0_o_backward_output   0.0032867459\t',
    'Batch:       1 lstm_l1_t0_o_output            0.51552296\t',
    'Batch:       1 lstm_l1_t0_out_backward_output0 0.0133703025\t',
    'Batch:       1 lstm_l1_t0_out_backward_output1 0.08624061\t',
    'Batch:       1 lstm_l1_t0_out_output          0.03712088\t',
    'Batch:       1 lstm_l1_t0_slice_backward_data 0.02364417\t',
    'Batch:       1 lstm_l1_t0_slice_output0       0.20940492\t',
    'Batch:       1 lstm_l1_t0_slice_output1       0.115237504\t',
    'Batch:       1 lstm_l1_t0_slice_output2       0.1563236\t',
    'Batch:       1 lstm_l1_t0_slice_output3       0.30165637\t',
    'Batch:       1 lstm_l1_t0_state_output        0.0719625\t',
    'Batch:       1 pred_backward_output0          0.094994515\t',
    'Batch:       1 pred_backward_output1          0.022499349\t',
    'Batch:       1 pred_backward_output2          0.5205185\t',
    'Batch:       1 pred_bias                      0.21286312\t',
    'Batch:       1 pred_output                    0.2236239\t',
    'Batch:       1 pred_weight                    0.16099785\t',
    'Batch:       1 softmax_backward_output0       0.16844277\t',
    'Batch:       1 softmax_backward_output1       9.23447e+16\t',
    'Batch:       1 softmax_label                  3.851407\t',
    'Batch:       1 softmax_output                 0.093213335\t',
]
# gradients MXNet does not compute (the begin state's, the label's): it reports whatever its buffer holds
UNDEFINED_IN_MXNET = {"lstm_l1_t0_h2h_backward_output0", "softmax_backward_output1"}


def test_monitor_prints_mxnet_lines_for_the_lstm():
    got = monitor_lines(mx, MONITOR_PATTERN)
    assert [line.split()[2] for line in got] == [line.split()[2] for line in RECORDED_LINES]
    for line, want in zip(got, RECORDED_LINES):
        name = want.split()[2]
        assert line[:len("Batch:       1 ") + 31] == want[:len("Batch:       1 ") + 31]   # 'Batch: {:7d} {:30s} '
        assert line.endswith("\t")
        if name not in UNDEFINED_IN_MXNET:
            np.testing.assert_allclose(float(line.split()[3]), float(want.split()[3]), rtol=1e-4, atol=1e-6,
                                       err_msg=name)


def fc_net_monitor(monitor_all):
    """MXNet's test_monitor network: ``[(name, value)]`` that ``Monitor.toc`` gives after one
    forward_backward (not sorted)."""
    x = mx.sym.Variable("data")
    x = mx.sym.FullyConnected(name="fc_0", data=x, num_hidden=2)
    x = mx.sym.Activation(name="act_0", data=x, act_type="sigmoid")
    x = mx.sym.FullyConnected(name="fc_1", data=x, num_hidden=2)
    x = mx.sym.Activation(name="act_1", data=x, act_type="sigmoid")
    x = mx.sym.LinearRegressionOutput(data=x, name="softmax", grad_scale=2)

    def mean_abs(a):
        return mx.nd.sum(mx.nd.abs(a)) / a.size
    mon = mx.mon.Monitor(1, stat_func=mean_abs, monitor_all=monitor_all)
    it = mx.io.NDArrayIter(mx.nd.array([[0.05, .10]]), mx.nd.array([[.01, 0.99]]), batch_size=1)
    mod = mx.mod.Module(x, context=[mx.cpu()])
    mod.bind(it.provide_data, label_shapes=it.provide_label, for_training=True)
    mod.install_monitor(mon)
    mod.init_params(arg_params={"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
                                "fc_0_bias": mx.nd.array([.35, .35]),
                                "fc_1_weight": mx.nd.array([[.40, .45], [.50, .55]]),
                                "fc_1_bias": mx.nd.array([.60, .60])})
    mon.tic()
    mod.forward_backward(next(iter(it)))
    return [(name, float(value)) for _, name, value in mon.toc()]


# fc_net_monitor(True) in real MXNet 1.9.1; with monitor_all=False it gives the same without the inputs
MXNET_FC_MONITOR_ALL = [
    ('data', 0.075), ('fc_0_data', 0.075), ('fc_0_weight', 0.225), ('fc_0_weight', 0.225), ('fc_0_bias', 0.35),
    ('fc_0_bias', 0.35), ('fc_0_output', 0.385), ('act_0_input0', 0.385), ('act_0_output', 0.59507716),
    ('fc_1_data', 0.59507716), ('fc_1_weight', 0.475), ('fc_1_weight', 0.475), ('fc_1_bias', 0.6), ('fc_1_bias', 0.6),
    ('fc_1_output', 1.1654137), ('act_1_input0', 1.1654137), ('act_1_output', 0.7621468), ('softmax_data', 0.7621468),
    ('softmax_label', 0.5), ('softmax_label', 0.5), ('softmax_output', 0.7621468), ('softmax_label', 0.5),
    ('softmax_backward_input0', 0.5), ('softmax_backward_input1', 0.7621468), ('softmax_backward_output0', 0.4792183),
    ('softmax_backward_output1', 3.59e-43), ('act_1_backward_input0', 0.4792183), ('act_1_backward_input1', 0.7621468),
    ('act_1_backward_input2', 1.1654137), ('act_1_backward_output', 0.088298395), ('fc_1_backward_input0', 0.088298395),
    ('fc_1_backward_input1', 0.59507716), ('fc_1_weight', 0.475), ('fc_1_backward_input2', 0.475),
    ('fc_1_backward_output0', 0.038860314), ('fc_1_backward_output1', 0.05254436),
    ('fc_1_backward_output2', 0.088298395), ('act_0_backward_input0', 0.038860314),
    ('act_0_backward_input1', 0.59507716), ('act_0_backward_input2', 0.385), ('act_0_backward_output', 0.009362806),
    ('fc_0_backward_input0', 0.009362806), ('data', 0.075), ('fc_0_backward_input1', 0.075), ('fc_0_weight', 0.225),
    ('fc_0_backward_input2', 0.225), ('fc_0_backward_output0', 0.7621468), ('fc_0_backward_output1', 0.00070221035),
    ('fc_0_backward_output2', 0.009362806), ('data', 0.075), ('fc_0_weight', 0.225), ('fc_0_bias', 0.35),
    ('fc_1_weight', 0.475), ('fc_1_bias', 0.6), ('softmax_label', 0.5)]
# the data's gradient (grad_req 'null') and the label's: MXNet reports an unwritten buffer
UNDEFINED_FC = {"fc_0_backward_output0", "softmax_backward_output1"}


def _compare(got, want):
    assert [n for n, _ in got] == [n for n, _ in want]
    for (name, value), (_, expected) in zip(got, want):
        if name not in UNDEFINED_FC:
            np.testing.assert_allclose(value, expected, rtol=1e-5, err_msg=name)


def test_monitor_names_and_values_of_forward_and_backward_as_mxnet():
    # the tensors of the forward, of each backward node, then the arguments (toc), in MXNet's order
    without_inputs = [(n, v) for i, (n, v) in enumerate(MXNET_FC_MONITOR_ALL)
                      if "output" in n or i >= len(MXNET_FC_MONITOR_ALL) - 6]
    _compare(fc_net_monitor(False), without_inputs)
    # monitor_all: the inputs of the forward nodes too, a variable's own name first (backward nodes'
    # inputs are not reported: their order in MXNet is the op's own)
    want = [(n, v) for n, v in MXNET_FC_MONITOR_ALL if "backward_input" not in n]
    forward_end = [n for n, _ in want].index("softmax_output") + 1
    want = want[:forward_end] + [(n, v) for n, v in want[forward_end:] if "backward" in n] + want[-6:]
    _compare(fc_net_monitor(True), want)


@pytest.mark.parametrize("make,names", [
    (lambda d: mx.sym.Activation(d, act_type="relu", name="act"), ["data", "act_input0", "act_output"]),
    (lambda d: mx.sym.concat(d, d, dim=0, name="cc"), ["data", "cc_arg0", "data", "cc_arg1", "cc_output"]),
    (lambda d: mx.sym.FullyConnected(d, num_hidden=2, name="fc"),
     ["data", "fc_data", "fc_weight", "fc_weight", "fc_bias", "fc_bias", "fc_output"]),
    (lambda d: mx.sym.sum(d, axis=1, name="s"), ["data", "s_input0", "s_output"]),
    (lambda d: mx.sym.broadcast_add(d, d, name="b"), ["data", "b_lhs", "data", "b_rhs", "b_output"]),
    (lambda d: mx.sym.softmax(d, name="sm"), ["data", "sm_data", "sm_output"]),
])
def test_monitor_all_input_names_as_mxnet_executor(make, names):
    # recorded from MXNet 1.9.1's executor (MXNET_SUBGRAPH_BACKEND=NONE)
    ex = make(mx.sym.Variable("data")).simple_bind(mx.cpu(), data=(2, 3), grad_req="null")
    seen = []
    ex.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    ex.forward()
    assert seen == names
    seen.clear()          # a reshaped executor keeps the callback (MXNet's Executor.reshape)
    ex.reshape(data=(1, 3)).forward()
    assert seen == names


def _scale_gen(_key):
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("a", shape=(1,), init=mx.init.One())
    return mx.sym.make_loss(mx.sym.broadcast_mul(data, weight)), ("data",), None


def _batch(key, n=2):
    return mx.io.DataBatch([mx.nd.ones((n,))], provide_data=[mx.io.DataDesc("data", (n,), layout="N")],
                           bucket_key=key)


@pytest.mark.parametrize("grad_req,after_second", [("write", 2.0), ("add", 4.0)])
def test_buckets_share_parameters_and_gradients(grad_req, after_second):
    mod = mx.mod.BucketingModule(_scale_gen, default_bucket_key=10)
    mod.bind(data_shapes=[("data", (2,))], for_training=True, grad_req=grad_req)
    mod.init_params()
    mod.forward_backward(_batch(10))
    mod.forward_backward(_batch(5))
    assert sorted(mod._buckets) == [5, 10]
    a10, a5 = (mod._buckets[k]._exec_group.execs[0] for k in (10, 5))
    assert a10.arg_dict["a"] is a5.arg_dict["a"] and a10.grad_dict["a"] is a5.grad_dict["a"]
    assert a5.grad_dict["a"].asscalar() == after_second
    mod.init_optimizer(optimizer_params={"learning_rate": 0.5, "rescale_grad": 1.0})
    mod.update()          # on bucket 5, the shared parameter moves for bucket 10 too
    assert mod._buckets[10].get_params()[0]["a"].asscalar() == 1.0 - 0.5 * after_second


def test_unknown_bucket_key_input_names_are_checked():
    def bad_gen(_key):
        return mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=2), ("data",), None
    with pytest.raises(ValueError, match="data name 'data' is not an argument"):
        mx.mod.BucketingModule(bad_gen, default_bucket_key=3)
    with pytest.raises(mx.MXNetError, match="default_bucket_key"):
        mx.mod.BucketingModule(bad_gen)


def test_bucketing_checkpoint_round_trip(tmp_path):
    random.seed(0)
    np.random.seed(0)
    it = mx.rnn.BucketSentenceIter(sentences(), BATCH, buckets=BUCKETS, invalid_label=-1)
    mod = mx.mod.BucketingModule(make_sym_gen(mx), default_bucket_key=it.default_bucket_key)
    mod.fit(it, num_epoch=1, eval_metric=mx.metric.Perplexity(-1), initializer=mx.init.Xavier())
    prefix = str(tmp_path / "lstm")
    mod.save_checkpoint(prefix, 1)
    assert sorted(os.listdir(tmp_path)) == ["lstm-0001.params", "lstm-4-symbol.json", "lstm-6-symbol.json",
                                            "lstm-8-symbol.json", "lstm.buckets"]
    loaded = mx.mod.BucketingModule.load(prefix, 1, sym_gen=make_sym_gen(mx), default_bucket_key=8)
    loaded.bind(it.provide_data, it.provide_label, for_training=False)
    want = mod.get_params()[0]
    got = loaded.get_params()[0]
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(got[name].asnumpy(), want[name].asnumpy())
    it.reset()
    batch = next(iter(it))
    mod.forward(batch, is_train=False)
    loaded.forward(batch, is_train=False)
    np.testing.assert_array_equal(loaded.get_outputs()[0].asnumpy(), mod.get_outputs()[0].asnumpy())


def test_sequential_module_with_python_loss_trains_as_one_module():
    """FullyConnected + a Python squared loss chained, against the same net with
    LinearRegressionOutput as one Module (whose gradient is the same: (scores - labels) / the
    number of outputs per sample)."""
    rs = np.random.RandomState(0)
    X, Y = rs.rand(8, 3).astype(np.float32), rs.rand(8, 2).astype(np.float32)
    w0, b0 = rs.rand(2, 3).astype(np.float32), np.zeros(2, np.float32)
    it = mx.io.NDArrayIter(X, Y, batch_size=4, label_name="lro_label")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    loss = mx.mod.PythonLossModule(grad_func=lambda scores, labels: (scores - labels) / 2, label_names=("lro_label",))
    seq = mx.mod.SequentialModule().add(mx.mod.Module(fc, label_names=None)).add(loss, take_labels=True,
                                                                                 auto_wiring=True)
    ref = mx.mod.Module(mx.sym.LinearRegressionOutput(fc, name="lro"), label_names=("lro_label",))
    for mod in (seq, ref):
        mod.fit(it, num_epoch=3, eval_metric="mse", arg_params={"fc_weight": mx.nd.array(w0), "fc_bias": mx.nd.array(b0)},
                optimizer_params={"learning_rate": 0.3})
    for name in ("fc_weight", "fc_bias"):
        np.testing.assert_allclose(seq.get_params()[0][name].asnumpy(), ref.get_params()[0][name].asnumpy(),
                                   rtol=1e-6, atol=1e-7)
    assert seq.output_names == ["pyloss_output"] and seq.output_shapes == [("pyloss_output", (4, 2))]
    assert seq.score(it, "mse")[0][1] == pytest.approx(ref.score(it, "mse")[0][1], rel=1e-6)
