"""MXNet's optimizer update operators (ops/optimizer_update*.py) against values recorded from real
MXNet 1.9.1 (numbers below; no MXNet needed): the new weight written to ``out=`` and returned, the
states updated in place over two steps, the call without ``out=`` or with another ``out=`` array,
multi-precision dtypes, the multi-tensor ops, graph use (auxiliary states) and MXNet's errors."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ops.registry import get_op

W = [0.5, -1.0, 2.0, -0.25]
G = [0.3, -0.8, 1.5, 0.05]
S = [0.1, -0.2, 0.3, 0.0]
P = [0.2, 0.5, 1.0, 0.05]
N = [1.0, 1.5, 2.0, 1.2]
M = [0.05, -0.1, 0.02, 0.0]
F, H = "float32", "float16"
CL = dict(rescale_grad=0.5, clip_gradient=0.6)
LRS = dict(lrs=(0.1, 0.2), wds=(0.05, 0.0), num_weights=2, **CL)

# op: (inputs as (values, dtype), attributes). Recorded: two calls with out=weight (out=[weights] for the
# multi-tensor ops; lamb_update_phase1 writes g to a separate array), then (the out array(s), every input).
SPECS = {
    "sgd_update": ([(W, F), (G, F)], dict(lr=0.1, wd=0.05, **CL)),
    "sgd_mom_update": ([(W, F), (G, F), (S, F)], dict(lr=0.1, momentum=0.9, wd=0.05, **CL)),
    "mp_sgd_update": ([(W, H), (G, H), (W, F)], dict(lr=0.1, wd=0.05, **CL)),
    "mp_sgd_mom_update": ([(W, H), (G, H), (S, F), (W, F)], dict(lr=0.1, momentum=0.9, wd=0.05, **CL)),
    "nag_mom_update": ([(W, F), (G, F), (S, F)], dict(lr=0.1, momentum=0.9, wd=0.05, **CL)),
    "mp_nag_mom_update": ([(W, H), (G, H), (S, F), (W, F)], dict(lr=0.1, momentum=0.9, wd=0.05, **CL)),
    "signsgd_update": ([(W, F), (G, F)], dict(lr=0.1, wd=0.05, **CL)),
    "signum_update": ([(W, F), (G, F), (S, F)], dict(lr=0.1, momentum=0.9, wd=0.05, wd_lh=0.01, **CL)),
    "adam_update": ([(W, F), (G, F), (S, F), (P, F)],
                    dict(lr=0.1, beta1=0.8, beta2=0.9, epsilon=1e-3, wd=0.05, **CL)),
    "rmsprop_update": ([(W, F), (G, F), (P, F)],
                       dict(lr=0.1, gamma1=0.8, epsilon=1e-3, wd=0.05, clip_weights=1.5, **CL)),
    "rmspropalex_update": ([(W, F), (G, F), (N, F), (M, F), (S, F)],
                           dict(lr=0.1, gamma1=0.8, gamma2=0.7, epsilon=1e-3, wd=0.05, clip_weights=1.5, **CL)),
    "ftml_update": ([(W, F), (G, F), (P, F), (P, F), (S, F)],
                    dict(lr=0.1, beta1=0.6, beta2=0.9, epsilon=1e-3, t=2, wd=0.05, rescale_grad=0.5, clip_grad=0.6)),
    "ftrl_update": ([(W, F), (G, F), (S, F), (P, F)], dict(lr=0.1, lamda1=0.05, beta=1.5, wd=0.05, **CL)),
    "lamb_update_phase1": ([(W, F), (G, F), (S, F), (P, F)],
                           dict(beta1=0.8, beta2=0.9, epsilon=1e-3, t=2, wd=0.05, **CL)),
    "lamb_update_phase2": ([(W, F), (G, F), ([2.0], F), ([4.0], F)], dict(lr=0.1, lower_bound=0.5, upper_bound=3.0)),
    "multi_sgd_update": ([(W, F), (G, F), (G, F), (W, F)], LRS),
    "multi_sgd_mom_update": ([(W, F), (G, F), (S, F), (G, F), (W, F), (P, F)], dict(momentum=0.9, **LRS)),
    "multi_mp_sgd_update": ([(W, H), (G, H), (W, F), (G, H), (W, H), (G, F)], LRS),
    "multi_mp_sgd_mom_update": ([(W, H), (G, H), (S, F), (W, F), (G, H), (W, H), (P, F), (G, F)],
                                dict(momentum=0.9, **LRS)),
}

RECORDED = {'adam_update': ([0.4423195, -0.9201609, 1.9193419, -0.2533912],
                            [[0.4423195, -0.9201609, 1.9193419, -0.2533912], [0.3, -0.8, 1.5, 0.05],
                             [0.1267319, -0.289636, 0.408, 0.0044883],
                             [0.167772, 0.4433115, 0.8784, 0.0405295]]),
            'ftml_update': ([0.458259, -0.9221655, 1.8685744, -0.2508924],
                            [[0.458259, -0.9221655, 1.8685744, -0.2508924], [0.3, -0.8, 1.5, 0.05],
                             [6.0202856, 9.781177, 13.767376, 2.9623034],
                             [0.1677661, 0.4432079, 0.8784, 0.0405298],
                             [-2.75885, 9.019863, -25.725367, 0.7432194]]),
            'ftrl_update': ([-0.0114244, -0.0007951, 0.0675639, -0.0002012],
                            [[-0.0114244, -0.0007951, 0.0675639, -0.0002012], [0.3, -0.8, 1.5, 0.05],
                             [0.2784861, 0.069166, -1.9529293, 0.053483], [0.245, 0.8200001, 1.72, 0.05125]]),
            'lamb_update_phase1': ([0.3750088, -0.5487838, 0.6268495, 0.041453],
                                   [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                    [0.118, -0.272, 0.408, 0.009], [0.166275, 0.4354, 0.8784, 0.0406187]]),
            'lamb_update_phase2': ([0.47, -0.92, 1.8499999, -0.255],
                                   [[0.47, -0.92, 1.8499999, -0.255], [0.3, -0.8, 1.5, 0.05], [2.0], [4.0]]),
            'mp_nag_mom_update': ([0.5727539, -1.0996094, 2.1367188, -0.2556152],
                                  [[0.5727539, -1.0996094, 2.1367188, -0.2556152],
                                   [0.3000488, -0.7998047, 1.5, 0.0499878],
                                   [0.0471677, -0.0756774, 0.1088175, -0.0023345],
                                   [0.5725667, -1.0993582, 2.1375096, -0.2557275]]),
            'mp_sgd_mom_update': ([0.6201172, -1.2109375, 2.3085938, -0.2536621],
                                  [[0.6201172, -1.2109375, 2.3085938, -0.2536621],
                                   [0.3000488, -0.7998047, 1.5, 0.0499878],
                                   [0.0473829, -0.0758435, 0.109, -0.0023676],
                                   [0.6198804, -1.2108532, 2.309, -0.253617]]),
            'mp_sgd_update': ([0.4650879, -0.9101562, 1.8603516, -0.2524414],
                              [[0.4650879, -0.9101562, 1.8603516, -0.2524414],
                               [0.3000488, -0.7998047, 1.5, 0.0499878],
                               [0.4650826, -0.9102445, 1.8603501, -0.2524925]]),
            'multi_mp_sgd_mom_update': ([[0.6201172, -1.2109375, 2.3085938, -0.2536621],
                                         [0.4970703, 0.3449707, 2.8613281, 0.2080078]],
                                        [[0.6201172, -1.2109375, 2.3085938, -0.2536621],
                                         [0.3000488, -0.7998047, 1.5, 0.0499878],
                                         [0.0473829, -0.0758435, 0.109, -0.0023676],
                                         [0.6198804, -1.2108532, 2.309, -0.253617],
                                         [0.4970703, 0.3449707, 2.8613281, 0.2080078], [0.5, -1.0, 2.0, -0.25],
                                         [0.067, 0.595, 0.582, 0.088], [0.497, 0.345, 2.862, 0.208]]),
            'multi_mp_sgd_update': ([[0.4650879, -0.9101562, 1.8603516, -0.2524414],
                                     [0.1999512, -0.6000977, 1.2597656, 0.0999756]],
                                    [[0.4650879, -0.9101562, 1.8603516, -0.2524414],
                                     [0.3000488, -0.7998047, 1.5, 0.0499878],
                                     [0.4650826, -0.9102445, 1.8603499, -0.2524925],
                                     [0.1999512, -0.6000977, 1.2597656, 0.0999756], [0.5, -1.0, 2.0, -0.25],
                                     [0.2, -0.6, 1.26, 0.1]]),
            'multi_sgd_mom_update': ([[0.6198875, -1.210825, 2.309, -0.2536187], [0.497, 0.345, 2.862, 0.208]],
                                     [[0.6198875, -1.210825, 2.309, -0.2536187], [0.3, -0.8, 1.5, 0.05],
                                      [0.0473875, -0.075825, 0.109, -0.0023688], [0.497, 0.345, 2.862, 0.208],
                                      [0.5, -1.0, 2.0, -0.25], [0.067, 0.595, 0.582, 0.088]]),
            'multi_sgd_update': ([[0.4650875, -0.910225, 1.8603499, -0.2524937], [0.2, -0.6, 1.26, 0.1]],
                                 [[0.4650875, -0.910225, 1.8603499, -0.2524937], [0.3, -0.8, 1.5, 0.05],
                                  [0.2, -0.6, 1.26, 0.1], [0.5, -1.0, 2.0, -0.25]]),
            'nag_mom_update': ([0.572578, -1.0993134, 2.1375096, -0.2557303],
                               [[0.572578, -1.0993134, 2.1375096, -0.2557303], [0.3, -0.8, 1.5, 0.05],
                                [0.0471722, -0.0756592, 0.1088175, -0.0023357]]),
            'rmsprop_update': ([0.4109736, -0.8610598, 1.4316503, -0.2628766],
                               [[0.4109736, -0.8610598, 1.4316503, -0.2628766], [0.3, -0.8, 1.5, 0.05],
                                [0.1388761, 0.3922928, 0.7696, 0.0320547]]),
            'rmspropalex_update': ([0.5636325, -1.1226481, 1.5, -0.2535858],
                                   [[0.5636325, -1.1226481, 1.5, -0.2535858], [0.3, -0.8, 1.5, 0.05],
                                    [0.6512029, 1.0337973, 1.4096001, 0.768056],
                                    [0.0955045, -0.2269914, 0.2288, 0.0044872],
                                    [0.0131798, -0.0235133, 0.0628649, -0.0023107]]),
            'sgd_mom_update': ([0.6198875, -1.210825, 2.309, -0.2536187],
                               [[0.6198875, -1.210825, 2.309, -0.2536187], [0.3, -0.8, 1.5, 0.05],
                                [0.0473875, -0.075825, 0.109, -0.0023688]]),
            'sgd_update': ([0.4650875, -0.910225, 1.8603501, -0.2524938],
                           [[0.4650875, -0.910225, 1.8603501, -0.2524938], [0.3, -0.8, 1.5, 0.05]]),
            'signsgd_update': ([0.2955125, -0.790525, 1.78055, -0.4470063],
                               [[0.2955125, -0.790525, 1.78055, -0.4470063], [0.3, -0.8, 1.5, 0.05]]),
            'signum_update': ([0.6989005, -1.197901, 2.1959019, -0.4494002],
                              [[0.6989005, -1.197901, 2.1959019, -0.4494002], [0.3, -0.8, 1.5, 0.05],
                               [0.0472525, -0.076005, 0.10951, -0.0018763]])}

# one call: (the result, every input after it)
OTHER = {'adam_update fresh out': ([0.4726017, -0.9625317, 1.9570335, -0.2516779],
                                   [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                    [0.1225, -0.265, 0.4300001, 0.00375],
                                    [0.1999056, 0.5002225, 1.00156, 0.0499514]]),
         'adam_update no out': ([0.4726017, -0.9625317, 1.9570335, -0.2516779],
                                [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                 [0.1225, -0.265, 0.4300001, 0.00375],
                                 [0.1999056, 0.5002225, 1.00156, 0.0499514]]),
         'nag_mom_update fresh out': ([0.524, -1.01, 1.9580001, -0.2595],
                                      [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                       [0.06, -0.1, 0.12, -0.005]]),
         'nag_mom_update no out': ([0.524, -1.01, 1.9580001, -0.2595],
                                   [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                    [0.06, -0.1, 0.12, -0.005]]),
         'sgd_mom_update fresh out': ([0.5575, -1.095, 2.1100001, -0.25375],
                                      [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                       [0.0575, -0.095, 0.11, -0.00375]]),
         'sgd_mom_update no out': ([0.5575, -1.095, 2.1100001, -0.25375],
                                   [[0.5, -1.0, 2.0, -0.25], [0.3, -0.8, 1.5, 0.05],
                                    [0.0575, -0.095, 0.11, -0.00375]])}


def _arrays(inputs):
    return [mx.nd.array(v, dtype=d) for v, d in inputs]


def _close(got, want, what):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    np.testing.assert_allclose(got.astype(np.float64).ravel(), want, rtol=1e-5, atol=2e-6, err_msg=what)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_two_steps_match_mxnet_with_states_updated_in_place(name):
    inputs, attrs = SPECS[name]
    arrays = _arrays(inputs)
    n = attrs.get("num_weights", 1)
    size = len(arrays) // n
    weights = [arrays[i * size] for i in range(n)]
    multi = name.startswith("multi")
    out = weights if multi else (mx.nd.zeros((4,)) if name == "lamb_update_phase1" else weights[0])
    for _ in range(2):
        result = getattr(mx.nd, name)(*arrays, out=out, **attrs)
        assert result is out                      # the call returns its out= (list for multi-tensor ops)
    want_out, want_inputs = RECORDED[name]
    outs, want_out = (out, want_out) if multi else ([out], [want_out])
    for i, (o, w) in enumerate(zip(outs, want_out)):
        _close(o, w, f"{name}: output {i}")
        assert o.dtype == weights[i].dtype         # in the weight's dtype (float16 for mp_ ops)
    for i, (a, w) in enumerate(zip(arrays, want_inputs)):
        _close(a, w, f"{name}: input {i} ({get_op(name).input_names(get_op(name).parse_attrs(attrs))[i]})")
        assert a.dtype == np.dtype(inputs[i][1])   # states keep their dtype (weight32, mom: float32)


@pytest.mark.parametrize("name", ["sgd_mom_update", "adam_update", "nag_mom_update"])
def test_without_out_or_with_another_out_the_weight_is_kept_and_the_states_change(name):
    ins = {"sgd_mom_update": [W, G, S], "adam_update": [W, G, S, P], "nag_mom_update": [W, G, S]}[name]
    attrs = {"sgd_mom_update": dict(lr=0.1, momentum=0.9, wd=0.05), "adam_update": dict(lr=0.1, wd=0.05),
             "nag_mom_update": dict(lr=0.1, momentum=0.9)}[name]   # NAG without wd: see the next test
    for how in ("no out", "fresh out"):
        arrays = [mx.nd.array(v) for v in ins]
        fresh = mx.nd.zeros((4,))
        kwargs = dict(attrs, out=fresh) if how == "fresh out" else attrs
        result = getattr(mx.nd, name)(*arrays, **kwargs)
        assert (result is fresh) == (how == "fresh out") and result is not arrays[0]
        want_out, want_inputs = OTHER[f"{name} {how}"]
        _close(result, want_out, f"{name} {how}: result")
        for i, (a, w) in enumerate(zip(arrays, want_inputs)):
            _close(a, w, f"{name} {how}: input {i}")


def test_nag_momentum_reads_the_new_weight_as_mxnet_does_with_out_weight():
    """MXNet's NAG kernel updates mom with wd * (the weight it has just written): with out=weight (what
    its optimizer passes) that is the new weight; hybridlab always uses the new weight."""
    w, g, mom = mx.nd.array(W), mx.nd.array(G), mx.nd.array(S)
    mx.nd.nag_mom_update(w, g, mom, lr=0.1, momentum=0.9, wd=0.05, out=w)
    new_w = w.asnumpy().astype(np.float64)
    m1 = 0.9 * np.array(S)
    np.testing.assert_allclose(mom.asnumpy(), m1 - 0.1 * (np.array(G) + 0.05 * new_w), rtol=1e-6)


def test_positional_attributes_and_keyword_inputs_bind_as_in_mxnet():
    w, g, mom = mx.nd.array(W), mx.nd.array(G), mx.nd.zeros((4,))
    a = mx.nd.sgd_mom_update(w, g, mom, 0.1, 0.9)              # lr, momentum positionally
    b = mx.nd.sgd_mom_update(weight=w, grad=g, mom=mx.nd.zeros((4,)), lr=0.1, momentum=0.9)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    np.testing.assert_allclose(a.asnumpy(), np.array(W) - 0.1 * np.array(G), rtol=1e-6)


def test_multi_tensor_ops_take_every_leading_array_and_keyword_attributes():
    import inspect
    assert str(inspect.signature(mx.nd.multi_sgd_update)).startswith("(*data, lrs=None, wds=None")
    ws = [mx.nd.array(W), mx.nd.array([1.0, 2.0])]
    gs = [mx.nd.array(G), mx.nd.array([1.0, 1.0])]
    res = mx.nd.multi_sgd_update(ws[0], gs[0], ws[1], gs[1], lrs=(0.1, 0.5), wds=(0.0, 0.0), num_weights=2)
    assert isinstance(res, list) and len(res) == 2
    np.testing.assert_allclose(res[1].asnumpy(), [0.5, 1.5])
    np.testing.assert_array_equal(ws[1].asnumpy(), [1.0, 2.0])      # without out= the weights are kept
    with pytest.raises(mx.MXNetError, match=r"multi_sgd_update: expected 2 inputs \(weight_0, grad_0\), got 4"):
        mx.nd.multi_sgd_update(ws[0], gs[0], ws[1], gs[1], lrs=(0.1, 0.5), wds=(0.0, 0.0))   # num_weights=1
    with pytest.raises(mx.MXNetError, match="attribute 'lrs' expected 2 value"):
        mx.nd.multi_sgd_update(ws[0], gs[0], ws[1], gs[1], lrs=(0.1,), wds=(0.0, 0.0), num_weights=2)
    with pytest.raises(mx.MXNetError, match="num_weights"):
        mx.nd.multi_sgd_update(lrs=(), wds=(), num_weights=0)


def test_mxnets_type_shape_and_attribute_errors():
    f32, f16 = mx.nd.ones((3,)), mx.nd.ones((3,), dtype="float16")
    with pytest.raises(mx.MXNetError, match="argument 'grad' expected float32, got float16"):
        mx.nd.sgd_update(f32, f16, lr=0.1)
    with pytest.raises(mx.MXNetError, match="argument 'weight32' expected float32, got float16"):
        mx.nd.mp_sgd_update(f16, f16, f16, lr=0.1)
    with pytest.raises(mx.MXNetError, match="argument 'mom' expected float32, got float16"):
        mx.nd.mp_sgd_mom_update(f16, f16, f16, f32, lr=0.1)
    assert mx.nd.mp_sgd_update(f32, f32, f32.copy(), lr=0.1).dtype == np.float32   # float32 weights: allowed
    with pytest.raises(mx.MXNetError, match=r"argument 'grad' expected shape \(3,\), got \(4,\)"):
        mx.nd.sgd_update(f32, mx.nd.ones((4,)), lr=0.1)
    with pytest.raises(mx.MXNetError, match="required attribute 'lr'"):
        mx.nd.sgd_update(f32, f32)
    with pytest.raises(mx.MXNetError, match="argument 'r1' expected shape"):
        mx.nd.lamb_update_phase2(f32, f32, mx.nd.ones((2,)), mx.nd.ones((1,)), lr=0.1)
    with pytest.raises(mx.MXNetError, match="unknown attribute 'clip_gradient'"):
        mx.nd.ftml_update(f32, f32, f32, f32, f32, lr=0.1, t=1, clip_gradient=1.0)   # FTML's is clip_grad


def test_clip_gradient_zero_clips_everything_and_signsgd_ignores_rescale_and_clip():
    w, g = mx.nd.array(W), mx.nd.array(G)
    np.testing.assert_allclose(mx.nd.sgd_update(w, g, lr=0.1, clip_gradient=0.0).asnumpy(), W)
    got = mx.nd.signsgd_update(w, g, lr=0.1, rescale_grad=-1.0, clip_gradient=0.0).asnumpy()
    np.testing.assert_allclose(got, np.array(W) - 0.1 * np.sign(G), rtol=1e-6)


def test_no_gradient_and_states_are_auxiliary_in_graphs():
    for name in SPECS:
        op = get_op(name)
        assert not op.differentiable and op.no_grad_reason
    w, g, m = mx.sym.var("w"), mx.sym.var("g"), mx.sym.var("m")
    s = mx.sym.sgd_mom_update(w, g, m, lr=0.1, momentum=0.9, wd=0.05, rescale_grad=0.5, clip_gradient=0.6)
    assert s.list_arguments() == ["w", "g"] and s.list_auxiliary_states() == ["m"]
    mp = mx.sym.multi_mp_sgd_mom_update(num_weights=2, lrs=(0.1, 0.2), wds=(0.0, 0.0), name="u")
    assert mp.list_arguments() == ["u_weight_0", "u_grad_0", "u_weight_1", "u_grad_1"]   # MXNet's names
    assert mp.list_auxiliary_states() == ["u_mom_0", "u_weight32_0", "u_mom_1", "u_weight32_1"]
    assert mp.list_outputs() == ["u_output0", "u_output1"]
    # a bound graph updates the auxiliary state it was given, as MXNet's executor does (the weight
    # argument is not written: the graph's output is a new array)
    mom = mx.nd.array(S)
    exe = s.bind(mx.cpu(), args={"w": mx.nd.array(W), "g": mx.nd.array(G)}, aux_states={"m": mom})
    step = -0.1 * 0.05 * np.array(W) - 0.1 * np.clip(0.5 * np.array(G), -0.6, 0.6)
    want = np.array(S)
    for _ in range(2):
        out = exe.forward()[0]
        want = 0.9 * want + step
        _close(mom, want, "graph: mom")
        _close(out, np.array(W) + want, "graph: output")
