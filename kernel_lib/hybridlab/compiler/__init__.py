"""The compiler: a Symbol graph becomes generated Python code, run by ``CachedOp``.

``CachedOp(symbol, flags)`` compiles the graph once per input signature into one straight-line
Python function (``codegen``), after checking the inputs with the graph's shape/type inference
(``signature``). ``op.source()`` / ``print(op)`` show the generated code. MXNet 1.x's
``Executor`` (``executor``) runs a bound Symbol through a ``CachedOp``; loading this package adds
``bind`` / ``simple_bind`` / ``eval`` to ``Symbol``.

**Generated code is a security boundary.** The compiler ``exec``s the programs it writes, and graphs
come from untrusted model files. The one rule: no string from a model, a user or a file reaches
generated source except through ``compiler.source_text`` -- identifiers are generated (derived from
node names for readability, but only ``[A-Za-z0-9_]``, never a keyword or builtin, unique),
comment text is one line with every line break and control character removed and its length
bounded, and literals are validated numbers (``float('nan')``, ``float('inf')`` spelled safely;
anything else is an ``MXNetError``). This holds for every generator: the forward and backward
programs and their instrumented variants (``codegen``, ``backward``), static_alloc buffer names
(``memory``), the cached op entry (``codegen.make_entry``) and the fused elementwise CPU program and
GPU kernel (``ops/fused``). Generators never edit their output as text afterwards.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> op = CachedOp(mx.sym.var('a') + mx.sym.var('b'))
    >>> op(mx.nd.array([1, 2]), mx.nd.array([10, 20])).asnumpy().tolist()
    [11.0, 22.0]
"""
from .cached_op import CachedOp  # noqa: F401
from .flags import FLAG_DEFAULTS, parse_flags  # noqa: F401
from .codegen import Program, compile_program, generate  # noqa: F401
from .signature import Signature  # noqa: F401
from .executor import Executor, attach as _attach_executor  # noqa: F401
from . import tape_backward as _tape_backward  # noqa: F401 - registers the compiled imperative backward
from .warning_origin import install as _install_warning_origin
from ..symbol.symbol import Symbol as _Symbol
from .. import ndarray as _ndarray

_attach_executor(_Symbol)   # Symbol.bind / simple_bind / eval: the symbol layer cannot import us
_ndarray.CachedOp = CachedOp   # MXNet's mx.nd.CachedOp(sym, flags): the ndarray layer cannot import us
_install_warning_origin()   # NumPy's warnings inside ops shown at the user's line (compiler.warning_origin)

__all__ = ["CachedOp", "Executor", "Program", "Signature", "compile_program", "generate",
           "parse_flags", "FLAG_DEFAULTS"]
