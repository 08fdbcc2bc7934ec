"""Atomic file writes: every file hybridlab writes (.params, -symbol.json, -model.json) goes through a
temporary file in the same folder and ``os.replace``, so readers see the old file or the complete new
one, never a half-written file."""
import os
import stat
import tempfile

from .base import MXNetError

__all__ = ["write_atomic"]


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path, pieces, what="file"):
    """Write ``pieces`` (bytes, str, or an iterable of bytes-like chunks) to ``path`` atomically,
    keeping an existing file's permissions. ``what`` names the file kind in errors.

    >>> import os, tempfile
    >>> from hybridlab.fileio import write_atomic
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> write_atomic(path, "hello"); open(path).read()
    'hello'
    """
    path = os.fspath(path)
    if isinstance(pieces, str):
        pieces = [pieces.encode("utf-8")]
    elif isinstance(pieces, (bytes, bytearray, memoryview)):
        pieces = [pieces]
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                   dir=os.path.dirname(os.path.abspath(path)))
    except OSError as err:
        raise MXNetError(f"cannot save {what} {path!r}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            for piece in pieces:
                f.write(piece)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise MXNetError(f"cannot save {what} {path!r}: {err.strerror or err}") from None
        raise
