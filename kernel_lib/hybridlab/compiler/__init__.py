"""The compiler: a Symbol graph becomes generated Python code, run by ``CachedOp``.

``CachedOp(symbol, flags)`` compiles the graph once per input signature into one straight-line
Python function (``codegen``), after checking the inputs with the graph's shape/type inference
(``signature``). ``op.source()`` / ``print(op)`` show the generated code.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> op = CachedOp(mx.sym.var('a') + mx.sym.var('b'))
    >>> op(mx.nd.array([1, 2]), mx.nd.array([10, 20])).asnumpy().tolist()
    [11.0, 22.0]
"""
from .cached_op import CachedOp, FLAG_DEFAULTS, parse_flags  # noqa: F401
from .codegen import Program, compile_program, generate  # noqa: F401
from .signature import Signature, infer_graph  # noqa: F401

__all__ = ["CachedOp", "Program", "Signature", "compile_program", "generate", "infer_graph",
           "parse_flags", "FLAG_DEFAULTS"]
