"""Ops know themselves: the compiler asks each op (``OpDef.inline``, ``out_kernel``, ``train_side_effect``,
``lowering``, ``train_variant``, ``epilogue``, ``predict_affine``, ``elementwise_activation``) and holds no
table of op names.

The first test reads the compiler's source with ``ast``: no string constant equal to a registered op
name may be compared with, be a dict key, or subscript something. The others define NEW ops (not
registered, so no other test sees them), put them in a graph and check that the compiler uses what
each op declares, with no compiler change.
"""
import ast
import os

import numpy as np

import hybridlab as mx
from hybridlab.compiler import CachedOp
from hybridlab.compiler.backward import BackwardPlan
from hybridlab.compiler.codegen import compile_program
from hybridlab.compiler.memory import plan
from hybridlab.compiler.passes import fusion
from hybridlab.compiler.signature import Signature
from hybridlab.ops.infer import unary_shape
from hybridlab.ops.registry import InlineRule, Lowering, OpDef, OutKernel, SideEffect, all_names, get_op
from hybridlab.symbol.graph import Node
from hybridlab.symbol.symbol import Symbol

COMPILER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib", "hybridlab", "compiler")


def _op_name_uses(tree, names):
    """(line, name) of string constants in ``tree`` equal to an op name and used as a comparison
    operand (``op == "relu"``, ``name in ("a", "b")``), a dict key or a subscript."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            consts = [c for operand in [node.left, *node.comparators] for c in ast.walk(operand)]
        elif isinstance(node, ast.Dict):
            consts = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Subscript):
            consts = [node.slice]
        else:
            continue
        found += [(c.lineno, c.value) for c in consts
                  if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in names]
    return found


def test_the_compiler_holds_no_op_name_tables():
    names = set(all_names())
    bad = {}
    for folder, _, files in os.walk(COMPILER):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                with open(path, encoding="utf-8") as fh:
                    uses = _op_name_uses(ast.parse(fh.read()), names)
                if uses:
                    bad[os.path.relpath(path, COMPILER)] = uses
    assert not bad, f"the compiler tests op names (make it an OpDef field instead): {bad}"


def test_the_check_finds_an_op_name_table():
    tree = ast.parse('K = {"relu": 1}\nif op.name == "FullyConnected" or n in ("dot",):\n    pass\nv = T["sum"]')
    assert sorted(_op_name_uses(tree, {"relu", "FullyConnected", "dot", "sum"})) == [
        (1, "relu"), (2, "FullyConnected"), (2, "dot"), (4, "sum")]


def _graph(op, attrs=None, n_inputs=1):
    xs = [Node(None, f"x{k}") for k in range(n_inputs)]
    node = Node(op, "y", attrs, [(x, 0) for x in xs])
    return Symbol([(node, 0)]), xs


def _cube_op(**fields):
    return OpDef("_test_cube", compute=lambda ctx, a, x: x * x * x, infer_shape=unary_shape,
                 grad=lambda F, a, ins, outs, og: [F._mul_scalar(F.elemwise_mul(og[0], F.square(ins[0])), scalar=3.0)],
                 **fields)


def test_an_inline_rule_of_a_new_op_is_written_into_the_program():
    rule = InlineRule(lambda a, site: f"power({site.args[0]}, {site.literal(3)}{site.out_arg})",
                      functions=(np.power,))
    sym, xs = _graph(_cube_op(inline=rule))
    sig = Signature(["x0"], [(3,)], [np.dtype("float32")], mx.cpu(), False)
    shapes, dtypes = sig.infer(sym._outputs, xs)
    prog = compile_program(sym._outputs, xs, sig, shapes, dtypes)
    assert "    y = power(x0, 3)" in prog.source
    assert "inlined as NumPy calls: power" in prog.source and "_test_cube(ctx" not in prog.source
    assert prog.fn(np.array([1.0, 2.0, -1.0], np.float32)).tolist() == [1.0, 8.0, -1.0]
    # integer inputs: rules are not asked, the kernel is called
    sig = Signature(["x0"], [(3,)], [np.dtype("int32")], mx.cpu(), False)
    shapes, dtypes = sig.infer(sym._outputs, xs)
    assert "_test_cube(ctx" in compile_program(sym._outputs, xs, sig, shapes, dtypes).source


def test_an_inline_rule_gets_no_way_to_break_the_line():
    sym, xs = _graph(_cube_op(inline=InlineRule(lambda a, site: "x0\nimport os")))
    sig = Signature(["x0"], [(3,)], [np.dtype("float32")], mx.cpu(), False)
    shapes, dtypes = sig.infer(sym._outputs, xs)
    try:
        compile_program(sym._outputs, xs, sig, shapes, dtypes)
    except mx.MXNetError as err:
        assert "inline rule expected one line of source text" in str(err)
    else:
        raise AssertionError("a multi-line inline expression was accepted")


def test_an_out_kernel_of_a_new_op_is_planned_and_called():
    calls = []

    def cube_into(ctx, a, out, x):
        calls.append(out)
        return ctx.xp.multiply(x * x, x, out=out)

    op = _cube_op(out_kernel=OutKernel(cube_into, applies=lambda a: True, inplace=True))
    x = Node(None, "x")
    inner = Node(op, "c1", {}, [(x, 0)])
    outer = Node(op, "c2", {}, [(inner, 0)])
    sym = Symbol([(Node(get_op("negative"), "out", {}, [(outer, 0)]), 0)])
    p = plan(sym, {"x": (4,)})
    assert [v.storage for v in p.values] == ["buffer", "buffer", "output"]
    assert p.values[1].inplace_of is p.values[0]          # inplace=True: c2 writes over c1
    cached = CachedOp(sym, flags=[("static_alloc", True)])
    got = cached(mx.nd.array([1.0, 2.0, 3.0, -1.0])).asnumpy()
    assert got.tolist() == [-1.0, -512.0, -19683.0, 1.0] and len(calls) == 2
    assert "c1 = _test_cube_out(ctx, attrs0, " in cached.source()
    # a kernel that does not cover the attributes is not used
    op2 = _cube_op(out_kernel=OutKernel(cube_into, applies=lambda a: False))
    sym2 = Symbol([(Node(get_op("negative"), "o", {}, [(Node(op2, "c", {}, [(x, 0)]), 0)]), 0)])
    assert [v.storage for v in plan(sym2, {"x": (4,)}).values] == ["kernel", "output"]


def test_a_train_side_effect_of_a_new_op_is_a_statement_of_the_backward_program():
    def count(a, counter):
        counter += 1.0

    op = OpDef("_test_counted_double", inputs=("data", "counter"), aux=("counter",),
               compute=lambda ctx, a, x, c: x * 2, infer_shape=lambda a, s: [s[0]],
               grad=lambda F, a, ins, outs, og: [F._mul_scalar(og[0], scalar=2.0), None],
               train_side_effect=SideEffect(reads=(("input", 1),), update=count,
                                            when=lambda a, training: training, doc="calls counted"))
    sym, xs = _graph(op, n_inputs=2)
    for training, counted in ((True, [1.0]), (False, [0.0])):
        sig = Signature(["x0", "x1"], [(2,), (1,)], [np.dtype("float32")] * 2, mx.cpu(), training)
        shapes, dtypes = sig.infer(sym._outputs, xs)
        bp = BackwardPlan(sym._outputs, xs, sig, shapes, dtypes, need=[True, False])
        assert ("calls counted" in bp.backward.source) is training
        data, counter = np.array([1.0, 2.0], np.float32), np.zeros(1, np.float32)
        out = bp.forward.fn(data, counter)
        _, saved = bp.split(out)
        grads = bp.run(saved, [data, counter], [np.ones(2, np.float32)])
        assert grads[0].tolist() == [2.0, 2.0] and grads[1] is None
        assert counter.tolist() == counted


def test_a_new_op_with_a_lowering_is_fused():
    op = OpDef("_test_negate", family="elemwise", compute=lambda ctx, a, x: -x, infer_shape=unary_shape,
               lowering=Lowering("negative", "x", "(-{0})"), grad=lambda F, a, ins, outs, og: [F.negative(og[0])])
    x = Node(None, "x")
    sym = Symbol([(Node(get_op("exp"), "e", {}, [(Node(op, "n", {}, [(x, 0)]), 0)]), 0)])
    fused = fusion.fuse_elementwise(sym)
    assert [n.op_name for n in fused._nodes() if not n.is_variable] == ["_fused_elemwise"]
    assert fused._nodes()[-1].meta["fused_from"] == ["n", "e"]


def test_the_inline_rules_keep_the_dense_layer_program():
    """The MLP program as the compiler wrote it before the rules moved onto the ops."""
    x = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=4, name="fc1"), act_type="relu", name="r")
    op = CachedOp(mx.sym.FullyConnected(h, num_hidden=2, no_bias=True, name="fc2"))
    args = [mx.nd.ones((3, 5)), mx.nd.ones((4, 5)), mx.nd.zeros((4,)), mx.nd.ones((2, 4))]
    assert op(*args).shape == (3, 2)
    src = op.source()
    # (a predict program: the weights' row-major transposes, kept until written: ops/kept_transpose.py)
    assert "    fc1 = add(fc1 := dot(data, transposed(fc1_weight)), fc1_bias, out=fc1)" in src    # (the bias added in place)
    assert "    r = maximum(fc1, 0, out=fc1)" in src and "    fc2 = dot(r, transposed(fc2_weight))" in src   # (fc1 dies there)
    assert "no kernels (every op inlined); inlined as NumPy calls: dot/add/transposed/maximum" in src


def test_new_ops_with_an_epilogue_a_channel_affine_and_an_activation_are_fused_in_predict_programs():
    """The inference passes ask ``Epilogue``, ``ChannelAffine`` and ``elementwise_activation``:
    a producer, its fused form, an affine op and an activation defined here are folded into one call
    of the fused op in predict programs, with no compiler change."""
    from hybridlab.ops.attrs import Attr
    from hybridlab.ops.registry import ChannelAffine, Epilogue

    def fused_compute(ctx, a, x, *rest):
        out = x * 2.0
        if a["affine"]:
            out = out * rest[0].reshape(1, -1) + rest[1].reshape(1, -1)
        return ctx.xp.maximum(out, 0) if a["act_type"] else out

    fused_attrs = {"affine": Attr("bool", False), "act_type": Attr("enum?", None, choices=("relu",)),
                   "gemm": Attr("bool", False)}
    axes = lambda a: (1, -1)   # noqa: E731
    fused = OpDef("_test_double_fused", inputs=lambda a: ("data", "scale", "shift") if a["affine"] else ("data",),
                  all_inputs=("data", "scale", "shift"), attrs=fused_attrs, compute=fused_compute,
                  infer_shape=lambda a, s: [s[0]], no_grad_reason="predict programs only")
    fused.epilogue = Epilogue(fused, channel_axes=axes, activations=("relu",))
    double = OpDef("_test_double", compute=lambda ctx, a, x: x * 2.0, infer_shape=unary_shape,
                   grad=lambda F, a, ins, outs, og: [F._mul_scalar(og[0], scalar=2.0)],
                   epilogue=Epilogue(fused, channel_axes=axes, activations=("relu",)))
    affine = OpDef("_test_affine", inputs=("data", "s", "t"), infer_shape=lambda a, s: [s[0]],
                   compute=lambda ctx, a, x, s, t: x * s.reshape(1, -1) + t.reshape(1, -1),
                   predict_affine=ChannelAffine(axis=lambda a: 1, scale_shift=lambda F, a, ins: (ins[1], ins[2])))
    x, s, t = Node(None, "x"), Node(None, "s"), Node(None, "t")
    d = Node(double, "d", {}, [(x, 0)])
    aff = Node(affine, "aff", {}, [(d, 0), (s, 0), (t, 0)])
    sym = Symbol([(Node(get_op("relu"), "r", {}, [(aff, 0)]), 0)])
    cached = CachedOp(sym)
    args = [mx.nd.array([[1.0, -2.0, 3.0]]), mx.nd.array([1.0, 2.0, -1.0]), mx.nd.array([0.5, 0.0, 0.0])]
    got = cached(*args).asnumpy()
    assert got.tolist() == [[2.5, 0.0, 0.0]]
    assert [s for s, _ in cached.pipeline][-3:] == ["fold_affine", "fuse_activation", "as_matmul"]
    ops = [n.op.name for n in cached._graph(False)[2]]
    assert ops == ["_test_double_fused"] and cached._graph(False)[2][0].meta["epilogue"] == ["d", "aff", "r"]
    assert [n.op.name for n in cached._graph(True)[2]] == ["_test_double", "_test_affine", "relu"]
