"""What an error raised inside a generated program becomes: the graph node whose line raised is
named (with the user's line that created it), and a check only an op's compute makes or an
allocation a model file asks for but cannot get becomes an ``MXNetError`` naming the op."""
from ..base import MXNetError
from ..ndarray.dispatch import OutOfMemory, shape_error
from ..ops.infer import InferError
from ..symbol.provenance import where
from .codegen import program_named

__all__ = ["program_error"]


def program_error(err):
    """The error to raise for ``err`` from a generated program: a check only an op's compute makes
    (``InferError``) or an allocation that cannot be met (shapes from a model file) becomes an
    ``MXNetError`` naming the op; any error gets a note naming the graph node whose line raised
    (and the user line that created it): the innermost frame of a live program
    (``codegen.program_named``) says which."""
    tb, prog, line = err.__traceback__, None, None
    while tb is not None:
        found = program_named(tb.tb_frame.f_code.co_filename)
        if found is not None:
            prog, line = found, tb.tb_lineno
        tb = tb.tb_next
    node = prog.node_at(line) if prog is not None else None
    if node is not None:
        if isinstance(err, InferError):
            err = shape_error(node.op, node.parsed_attrs(), err)
        elif isinstance(err, MemoryError) and not isinstance(err, MXNetError):
            err = OutOfMemory(f"{node.op.name}: cannot allocate its result ({err})")
        err.add_note(f"While running node '{node.name}' ({node.op.name}) of the cached op program "
                     f"{prog.filename}, line {line} (print the CachedOp to see its source){where(node)}")
    return err
