"""Printing a graph: ``Symbol.debug_str()`` in MXNet's format (nnvm ``Symbol::Print``) and
``Symbol.graph_str()``, a readable listing with one line per node (inputs, attributes, inferred
shapes and dtypes when known, and the user's source line).

Example::

    >>> import hybridlab as mx
    >>> fc = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=4, name='fc1')
    >>> print(fc.debug_str())
    Symbol Outputs:
    	output[0]=fc1(0)
    Variable:x
    Variable:fc1_weight
    Variable:fc1_bias
    --------------------
    Op:FullyConnected, Name=fc1
    Inputs:
    	arg[0]=x(0) version=0
    	arg[1]=fc1_weight(0) version=0
    	arg[2]=fc1_bias(0) version=0
    Attrs:
    	num_hidden=4
    <BLANKLINE>
    >>> _ = fc.infer_shape(x=(2, 3)); _ = fc.infer_type(x='float32')
    >>> print(fc.graph_str())
    graph fc1 (3 inputs, 1 op):
      %x = var                         # (2, 3) float32
      %fc1_weight = var  num_hidden=4  # (4, 3) float32
      %fc1_bias = var  num_hidden=4    # (4,) float32
      %fc1 = FullyConnected(%x, %fc1_weight, %fc1_bias)  num_hidden=4  # (2, 4) float32, ...
      return %fc1
"""
from .graph import topo_order

__all__ = ["debug_str", "graph_str"]


def debug_str(symbol):
    """MXNet's ``Symbol.debug_str()`` text: outputs, then each variable and op in graph order."""
    outputs = symbol._outputs
    if len(outputs) == 1 and not outputs[0][0].inputs:
        node = outputs[0][0]
        return f"Variable:{node.name}\n" if node.is_variable else f"AtomicFunctor  Op:{node.op_name}\n"
    lines = ["Symbol Outputs:"]
    lines += [f"\toutput[{i}]={n.name}({idx})" for i, (n, idx) in enumerate(outputs)]
    for node in topo_order(outputs):
        if node.is_variable:
            lines.append(f"Variable:{node.name}")
            continue
        lines += ["--------------------", f"Op:{node.meta.get('saved_op_name', node.op_name)}, Name={node.name}",
                  "Inputs:"]
        versions = node.meta.get("input_versions") or ()
        for i, (src, idx) in enumerate(node.inputs):
            line = f"\targ[{i}]={src.name}({idx})"
            if src.is_variable:
                line += f" version={versions[i] if i < len(versions) else 0}"
            lines.append(line)
        if node.attrs:
            lines.append("Attrs:")
            lines += [f"\t{k}={node.attrs[k]}" for k in sorted(node.attrs)]
    return "\n".join(lines) + "\n"


def _ref(node, idx):
    return f"%{node.name}" + (f"[{idx}]" if idx or node.num_visible() > 1 else "")


def _meta_text(node):
    shapes, dtypes = node.meta.get("shapes"), node.meta.get("dtypes")
    parts = []
    for i in range(node.num_visible()):
        s = shapes[i] if shapes and i < len(shapes) else None
        d = dtypes[i] if dtypes and i < len(dtypes) else None
        if s is not None or d is not None:
            parts.append(" ".join(x for x in (str(s) if s is not None else "?", d.name if d is not None else "")
                                  if x))
    src = node.meta.get("source")
    if src:
        parts.append(f"{src['file'].rsplit('/', 1)[-1]}:{src['line']}")
    return "  # " + ", ".join(parts) if parts else ""


def graph_str(symbol):
    """A readable listing of the graph: ``%name = Op(%inputs)  attrs  # shape dtype, file:line``."""
    nodes = topo_order(symbol._outputs)
    n_vars = sum(n.is_variable for n in nodes)
    n_ops = len(nodes) - n_vars
    title = symbol.name or "group"
    lines = [f"graph {title} ({n_vars} input{'s' * (n_vars != 1)}, {n_ops} op{'s' * (n_ops != 1)}):"]
    body = []
    for node in nodes:
        attrs = "  ".join(f"{k}={v}" for k, v in sorted(node.attrs.items()) if not k.startswith("__"))
        if node.is_variable:
            left = f"%{node.name} = var" + (f"  {attrs}" if attrs else "")
        else:
            args = ", ".join(_ref(src, idx) for src, idx in node.inputs)
            op_name = node.meta.get("saved_op_name", node.op_name)
            left = f"%{node.name} = {op_name}({args})" + (f"  {attrs}" if attrs else "")
        body.append((left, _meta_text(node)))
    width = max([len(left) for left, right in body if right and len(left) < 44] or [0])
    for left, right in body:
        lines.append("  " + (left.ljust(width) + right if right else left))
    lines.append("  return " + ", ".join(_ref(n, i) for n, i in symbol._outputs))
    return "\n".join(lines)
