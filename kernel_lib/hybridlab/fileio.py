"""Atomic file writes: every file hybridlab writes (.params, -symbol.json, -model.json, optimizer
states, traces) goes through ``write_atomic``, so a reader sees the old file or the complete new
one, never a half-written file, even when the saving process is killed. Reading goes through
``read_file`` (the bytes, or an ``MXNetError`` naming the file) and, for JSON, ``parse_json`` (nesting
bounded before parsing): files are untrusted.

How a save goes:

1. Stale temporary files of earlier, killed saves of the *same* target are removed (see below).
2. The bytes go to a new temporary file ``.<NAME>.<16 hex digits>.tmp`` in the target's folder
   (same filesystem, so the rename is atomic), created ``O_EXCL`` and held under an exclusive
   advisory lock (``fcntl.flock``) from creation until after the rename.
3. The file is flushed and ``fsync``-ed, gets the existing target's permissions (or the umask's),
   and ``os.replace``-s the target; then the folder is ``fsync``-ed so the rename itself survives
   a power cut (filesystems that cannot sync a folder, EINVAL and the like, are tolerated).
4. On any failure (an exception from the pieces, ``KeyboardInterrupt``, disk full, chmod, replace)
   the temporary file is removed and the target is untouched.

Why a lock: a SIGKILL-ed save cannot clean up, so the *next* save of that target does it. A
temporary file of a concurrent save by another live process looks the same on disk; the kernel
drops a flock when its holder dies, so "the lock can be taken" is exactly "nobody is writing it".
The cleaner only considers names matching the exact pattern for this target that are regular files
with one link, owned by the current user; it locks one, checks the name still refers to the file it
locked, and unlinks it. A writer whose fresh file was taken in the instant between ``O_EXCL``
creation and its own lock notices (lock busy, or the name no longer refers to its file) and starts
over with a new name. Without ``fcntl`` (Windows) nothing is locked: there, an open file cannot be
deleted, so the cleaner's failing ``unlink`` of a live save's file is the protection (except in the
instant between closing and renaming, when the concurrent save then fails with an error, never
with a partial file); on other platforms without ``fcntl`` stale files are left alone.
"""
import errno
import hashlib
import json
import os
import re
import secrets
import stat

from .base import MXNetError, MXNetTypeError

try:
    import fcntl as _fcntl
except ImportError:          # Windows
    _fcntl = None

__all__ = ["write_atomic", "AtomicFile", "stale_temp_files", "read_file", "FileNotFound", "parse_json"]

_WINDOWS = os.name == "nt"
_TOKEN_HEX = 16
#: folder fsync errors that mean "this filesystem / platform cannot sync a folder", not "data lost"
_DIR_SYNC_UNSUPPORTED = {errno.EINVAL, errno.EBADF, errno.EACCES, errno.EPERM, errno.EISDIR, errno.EROFS,
                         getattr(errno, "ENOTSUP", errno.EINVAL), getattr(errno, "EOPNOTSUPP", errno.EINVAL)}


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_stem(base):
    # Keep the temporary name under NAME_MAX (255 bytes) for long target names; the stem stays a
    # function of the target name only, so the cleaner's pattern is still exact.
    if len(os.fsencode(base)) <= 200:
        return base
    return base[:64] + "~" + hashlib.sha256(os.fsencode(base)).hexdigest()[:16]


def _temp_regex(base):
    return re.compile(r"\." + re.escape(_temp_stem(base)) + r"\.[0-9a-f]{%d}\.tmp" % _TOKEN_HEX)


def stale_temp_files(path):
    """Names (full paths) in ``path``'s folder that match the temporary-file pattern of saves of
    ``path``: the leftovers of killed saves, or a save in progress right now.

    >>> import os, tempfile
    >>> from hybridlab.fileio import write_atomic, stale_temp_files
    >>> path = os.path.join(tempfile.mkdtemp(), "w.params")
    >>> write_atomic(path, b"data"); stale_temp_files(path)
    []
    """
    path = os.path.abspath(os.fspath(path))
    folder, base = os.path.split(path)
    pattern = _temp_regex(base)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if pattern.fullmatch(n))


def _same_file(a, b):
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _remove_if_stale(name):
    """Unlink ``name`` if no live process holds its lock (see the module docstring)."""
    try:
        st = os.lstat(name)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        return
    if _fcntl is None:
        if _WINDOWS:
            try:
                os.unlink(name)     # refused while the file is open in a live save
            except OSError:
                pass
        return
    if st.st_uid != os.geteuid():
        return
    try:
        # O_NONBLOCK: never hang on a FIFO put in its place; O_NOFOLLOW: never follow a link.
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if not _same_file(os.fstat(fd), st):
            return
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        except OSError:
            return                  # a live save is writing it
        try:
            if _same_file(os.lstat(name), st):
                os.unlink(name)
        except OSError:
            pass
    finally:
        os.close(fd)


def _clean_stale(path):
    for name in stale_temp_files(path):
        _remove_if_stale(name)


def _create_temp(path, shown, what):
    """A new locked temporary file for ``path`` (spelled ``shown`` in errors): ``(fd, name)``."""
    folder, base = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        name = os.path.join(folder, f".{_temp_stem(base)}.{secrets.token_hex(_TOKEN_HEX // 2)}.tmp")
        try:
            fd = os.open(name, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as err:
            if err.errno == errno.ENOENT and not os.path.isdir(folder):
                raise MXNetError(f"cannot save {what} {shown!r}: the folder {folder!r} does not exist") from None
            raise MXNetError(f"cannot save {what} {shown!r}: {err.strerror or err}") from None
        if _fcntl is None:
            return fd, name
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
            if _same_file(os.lstat(name), os.fstat(fd)):
                return fd, name
        except OSError:
            pass
        # Another save's cleaner took this file in the instant before our lock: start over (and
        # remove it ourselves, should that cleaner not get to it).
        _unlink_own(fd, name)
        os.close(fd)
    raise MXNetError(f"cannot save {what} {shown!r}: could not create a temporary file in {folder!r}")


def _sync_folder(folder, path, what):
    if _WINDOWS:
        return                      # folders cannot be opened for fsync there; NTFS journals renames
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in _DIR_SYNC_UNSUPPORTED:
            raise MXNetError(f"saved {what} {path!r} but could not sync its folder {folder!r} "
                             f"(the new file may not survive a power cut): {err.strerror or err}") from None
    finally:
        os.close(fd)


def _unlink_own(fd, name):
    # Remove our temporary file, unless its name no longer refers to it (already renamed/removed).
    try:
        if fd is None or _same_file(os.lstat(name), os.fstat(fd)):
            os.unlink(name)
    except OSError:
        pass


class AtomicFile:
    """A file written piece by piece (``write``, ``tell``) and put in place atomically by
    ``commit()`` (the steps of the module docstring); ``abort()`` removes it and leaves the target
    untouched. As a context manager it commits when the block ends normally and aborts on an
    exception. Streaming writers (``recordio.MXRecordIO``) and ``write_atomic`` use it.

    >>> import os, tempfile
    >>> from hybridlab.fileio import AtomicFile
    >>> path = os.path.join(tempfile.mkdtemp(), "log.bin")
    >>> with AtomicFile(path, "log") as f:
    ...     _ = f.write(b"ab"); _ = f.write(b"c")
    ...     print(f.tell(), os.path.exists(path))
    3 False
    >>> open(path, "rb").read()
    b'abc'
    """

    def __init__(self, path, what="file"):
        shown = os.fspath(path)
        if isinstance(shown, bytes):
            shown = os.fsdecode(shown)
        self.shown, self.what = shown, what
        self.path = path = os.path.abspath(shown)
        if os.path.isdir(path):         # fail before writing what may be gigabytes
            raise MXNetError(f"cannot save {what} {shown!r}: it is a folder, expected a file name")
        try:
            self._mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            self._mode = 0o666 & ~_umask()
        _clean_stale(path)
        self._fd, self._tmp = _create_temp(path, shown, what)
        self._file = os.fdopen(self._fd, "wb", closefd=False)
        self.closed = False

    def _fail(self, err):
        self.abort()
        if isinstance(err, OSError):
            raise MXNetError(f"cannot save {self.what} {self.shown!r}: {err.strerror or err}") from None
        raise err

    def write(self, data):
        """Append ``data`` (bytes-like); returns the number of bytes written."""
        if self.closed:
            raise MXNetError(f"cannot write {self.what} {self.shown!r}: it is already closed")
        try:
            return self._file.write(data)
        except BaseException as err:
            self._fail(err)

    def tell(self):
        """Bytes written so far."""
        return self._file.tell()

    def commit(self):
        """Flush, sync and rename the file into place (then the folder is synced)."""
        if self.closed:
            return
        fd = self._fd
        try:
            self._file.close()
            os.fsync(fd)
            if _fcntl is None:          # Windows: a file cannot be renamed while open
                os.close(fd)
                self._fd = fd = None
                os.chmod(self._tmp, self._mode)
            else:
                os.fchmod(fd, self._mode)
            # The lock is held through the rename, so no cleaner can take the file before it is in place.
            os.replace(self._tmp, self.path)
        except BaseException as err:
            self._fail(err)
        self.closed = True
        if fd is not None:
            os.close(fd)
        _sync_folder(os.path.dirname(self.path), self.shown, self.what)

    def abort(self):
        """Remove the temporary file; the target stays as it was."""
        if self.closed:
            return
        self.closed = True
        try:
            self._file.close()
        except OSError:
            pass
        _unlink_own(self._fd, self._tmp)
        if self._fd is not None:
            os.close(self._fd)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.commit()
        else:
            self.abort()


def write_atomic(path, pieces, what="file"):
    """Write ``pieces`` (bytes, str, or an iterable of bytes-like chunks) to ``path`` atomically,
    keeping an existing file's permissions; ``what`` names the file kind in errors. Readers see the
    old file or the complete new one; leftovers of killed saves of ``path`` are removed.

    >>> import os, tempfile
    >>> from hybridlab.fileio import write_atomic
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> write_atomic(path, "hello"); open(path).read()
    'hello'
    >>> write_atomic(os.path.dirname(path), "x")
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetError: cannot save file '...': it is a folder, expected a file name
    """
    if isinstance(pieces, str):
        pieces = [pieces.encode("utf-8")]
    elif isinstance(pieces, (bytes, bytearray, memoryview)):
        pieces = [pieces]
    out = AtomicFile(path, what)
    try:
        for piece in pieces:
            out.write(piece)
    except BaseException as err:
        out.abort()
        close = getattr(pieces, "close", None)
        if close is not None:
            try:
                close()             # a generator of pieces: let it release what it holds
            except Exception:
                pass
        if isinstance(err, OSError):
            raise MXNetError(f"cannot save {what} {out.shown!r}: {err.strerror or err}") from None
        raise
    out.commit()


class FileNotFound(MXNetError, FileNotFoundError):
    """A file to load does not exist (``except FileNotFoundError`` catches it too)."""


def read_file(path, what="file", hint=""):
    """The bytes of the file ``path`` (str, bytes or os.PathLike). A missing or unreadable file is an
    ``MXNetError`` naming ``what`` and the path (``FileNotFound`` when it does not exist, with
    ``hint`` added); every loader of hybridlab reads through here.

    >>> import hybridlab as mx
    >>> from hybridlab.fileio import read_file
    >>> try:
    ...     read_file("/no/such/w.params", "NDArray file")
    ... except FileNotFoundError as err:
    ...     print(err)
    cannot load NDArray file '/no/such/w.params': no such file
    """
    try:
        path = os.fspath(path)
    except TypeError:
        raise MXNetError(f"cannot load {what} from {type(path).__name__}: expected a path (str or "
                         f"os.PathLike)") from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFound(f"cannot load {what} {path!r}: no such file{hint}") from None
    except OSError as err:
        raise MXNetError(f"cannot load {what} {path!r}: {err.strerror or err}") from None


# a string, or an unterminated one up to the end: every quote starts a match that succeeds, so the
# scan is linear whatever the text (possessive quantifiers: no backtracking either)
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\(?:.|\Z)[^"\\]*+)*+(?:"|\Z)', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def parse_json(text, source, max_depth, needs=""):
    """The JSON document of ``text`` (str or UTF-8 bytes) from a file, or an ``MXNetError`` naming
    ``source``: every JSON hybridlab reads from files (symbol and model files, optimizer states,
    initializer strings, hidden op attributes) is parsed here. Nesting is checked before parsing (at
    most ``max_depth`` levels; ``needs`` says what a real file has, for the message), so no recursion
    limit is met; control characters are allowed inside strings (MXNet writes them unescaped).

    >>> from hybridlab.fileio import parse_json
    >>> parse_json(b'{"a": ["x\\x01y"]}', "f.json", 4)
    {'a': ['x\\x01y']}
    >>> try:
    ...     parse_json("[" * 10, "f.json", 4, needs="2")
    ... except MXNetError as err:
    ...     print(err)
    f.json: expected JSON nested at most 4 levels deep (a real file needs 2), got one nested more than 4 levels deep
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise MXNetError(f"{source}: expected UTF-8 text, got byte 0x{err.object[err.start]:02x} at offset "
                             f"{err.start} ({err.reason})") from None
    if not isinstance(text, str):
        raise MXNetTypeError(f"{source}: expected JSON text (str or UTF-8 bytes), got {type(text).__name__}")
    if _json_depth(text) > max_depth:
        raise MXNetError(f"{source}: expected JSON nested at most {max_depth} levels deep"
                         f"{f' (a real file needs {needs})' if needs else ''}, got one nested more than "
                         f"{max_depth} levels deep")
    try:
        return json.loads(text, strict=False)
    except (ValueError, RecursionError) as err:
        reason = str(err)
        raise MXNetError(f"{source}: it is not valid JSON "
                         f"({reason if len(reason) <= 200 else reason[:200] + '...'})") from None


def _json_depth(text):
    """The deepest nesting of brackets outside strings (linear, no recursion)."""
    depth = deepest = 0
    for ch in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    return deepest
