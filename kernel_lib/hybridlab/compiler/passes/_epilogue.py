"""What the inference passes (``fold_affine``, ``fuse_activation``, ``as_matmul``) share: a
producer's ``Epilogue`` (``ops/registry.py``), the fused op it names, the epilogue a node already
runs, and the rewrite itself. Nothing here knows an op by name: every answer comes from the
registry's ``Epilogue``, ``ChannelAffine`` and ``elementwise_activation`` fields."""
from ...ops.registry import get_op
from ._graph import retarget

__all__ = ["fused_op", "fused_attrs", "free_output", "absorb"]


def fused_op(node):
    """The ``OpDef`` that runs ``node``'s op with epilogues (its ``Epilogue.op``), or ``None``."""
    if node.is_variable or node.op.epilogue is None:
        return None
    op = node.op.epilogue.op
    return get_op(op) if isinstance(op, str) else op


def fused_attrs(node):
    """The epilogue ``node`` already runs (``affine``, ``act_type``, ``gemm``: parsed attributes of
    the fused op), ``{}`` when it is a call of the plain op."""
    return node.parsed_attrs() if node.op is fused_op(node) else {}


def free_output(node, i, uses, outs):
    """Whether output ``i`` of ``node`` is read once and is no graph output, and no other output of
    ``node`` is read: a later node may then be computed inside ``node``'s call."""
    if i != 0 or uses.get((id(node), 0)) != 1 or (id(node), 0) in outs:
        return False
    return not any(uses.get((id(node), k)) for k in range(1, node.num_outputs()))


def absorb(node, producer, attrs, inputs):
    """Turn ``node`` into a call of ``producer``'s fused op with ``attrs`` (added to the producer's)
    reading ``inputs``: ``node`` keeps its name (output names stay) and lists every node it now
    computes in ``meta["epilogue"]``."""
    absorbed = (producer.meta.get("epilogue") or [producer.name]) + ([node.name] if node is not producer else [])
    retarget(node, fused_op(producer), {**producer.attrs, **attrs}, inputs)
    node.meta.pop("inplace", None)
    node.meta["epilogue"] = absorbed
    return node
