"""Small helpers shared by the Gluon blocks: hook handles, nested-argument flattening (MXNet's
``_flatten``/``_regroup`` formats), printing helpers.

Example::

    >>> from hybridlab.gluon.utils import flatten, regroup
    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((1,)), mx.nd.zeros((1,))
    >>> flat, fmt = flatten([a, [b, None]], "input")
    >>> len(flat), fmt
    (3, [0, [0, -1]])
    >>> regroup(flat, fmt)[1][1] is None
    True
"""
import weakref

from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol

__all__ = ["HookHandle", "flatten", "regroup", "indent", "brief_print_list", "shape_is_known",
           "split_data", "split_and_load", "clip_global_norm"]


class HookHandle:
    """A handle that removes a registered hook again: ``handle.detach()`` (or use it as a context
    manager)."""

    _next_id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        if self._hooks_dict_ref is not None:
            raise RuntimeError("The same handle cannot be attached twice.")
        HookHandle._next_id += 1
        self._id = HookHandle._next_id
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
        return False


def flatten(args, inout_str):
    """``(flat list, format)``: nested lists of NDArrays/Symbols flattened; the format records the
    structure (0 one array, n a Symbol group of n, -1 None, a list for a list)."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError(f"When hybridized, the {inout_str} of HybridBlock must be (nested) list of Symbol "
                         f"or NDArray, but got {args!r} of type {type(args)}")
    flat, fmts = [], []
    for item in args:
        arg, fmt = flatten(item, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """Rebuild the nested structure ``fmt`` (from ``flatten``) from the flat list ``args``."""
    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError(f"Unsupported encoded format {fmt}.")
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError("We do not support passing types that are not None when the initial "
                                     "HybridBlock has received NoneType and has been hybridized. "
                                     f"Received arg = {args[0]}, fmt = {fmt}.")
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError(f"When hybridized, the output of HybridBlock must be (nested) list of Symbol "
                             f"or NDArray, but got {args} of type {type(args)}")
        ret = []
        for f in fmt:
            res, args = merge(args, f)
            ret.append(res)
        return ret, args
    return merge(args, fmt)[0]


def _check_all_np_ndarrays(out):
    """Raise ``TypeError`` unless every array in ``out`` (an array or nested lists/tuples) is an
    ``mx.np`` array: what a Block returns in np mode (MXNet's ``_check_all_np_ndarrays``).

    >>> import hybridlab as mx
    >>> _check_all_np_ndarrays((mx.np.ones((1,)), [mx.np.zeros((1,))]))
    >>> try:
    ...     _check_all_np_ndarrays((mx.np.ones((1,)), mx.nd.ones((1,))))
    ... except TypeError as err:
    ...     print(err)
    Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` or `mxnet.symbol.numpy._Symbol`, while got output type <class 'mxnet.ndarray.ndarray.NDArray'>
    """
    if isinstance(out, NDArray):
        if not out._np:
            raise TypeError("Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` or "
                            "`mxnet.symbol.numpy._Symbol`, while got output type "
                            "<class 'mxnet.ndarray.ndarray.NDArray'>")
    elif isinstance(out, (list, tuple)):
        for item in out:
            _check_all_np_ndarrays(item)


def indent(s_, num_spaces):
    """Indent every line of ``s_`` but the first by ``num_spaces`` (MXNet's nested repr)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * num_spaces + line for line in lines)


def brief_print_list(lst, limit=7):
    """``'a', 'b', ..., 'z'``: a list shortened for error messages."""
    lst = list(lst)
    if len(lst) > limit:
        return brief_print_list(lst[:limit // 2], limit) + ", ..., " + brief_print_list(lst[-limit // 2:], limit)
    return ", ".join(f"'{str(i)}'" for i in lst)


def shape_is_known(shape):
    """True when ``shape`` is given and has no unknown (0 or -1) dimension."""
    if shape is None:
        return False
    return all(d > 0 for d in shape)


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis``. With ``even_split=False`` the
    first ``size % num_slice`` slices get one more row, as MXNet (4 rows in 3: sizes 2, 1, 1; fewer
    rows than slices leaves the last slices empty).

    Example::

        >>> import hybridlab as mx
        >>> parts = mx.gluon.utils.split_data(mx.nd.ones((4, 2)), 3, even_split=False)
        >>> [p.shape[0] for p in parts]
        [2, 1, 1]
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(f"data with shape {data.shape} cannot be evenly split into {num_slice} slices along "
                         f"axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
                         f"even_split=False to allow uneven partitioning of data.")
    n_each, extras = divmod(size, num_slice)
    bounds = [0]
    for i in range(num_slice):
        bounds.append(bounds[-1] + n_each + (1 if i < extras else 0))
    index = [slice(None)] * len(data.shape)
    slices = []
    for i in range(num_slice):
        index[batch_axis] = slice(bounds[i], bounds[i + 1])
        slices.append(data[tuple(index)])
    if getattr(data, "stype", "default") == "csr":     # MXNet slices a CSR batch into CSR parts
        slices = [s.tostype("csr") for s in slices]
    return slices


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` along ``batch_axis`` and load one slice onto each device of ``ctx_list``."""
    from ..ndarray.ndarray import array
    if not isinstance(data, NDArray):
        data = array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so that their joint L2 norm is at most ``max_norm``; returns the norm."""
    import numpy as np
    total = float(np.sqrt(sum(float((a.asnumpy().astype(np.float64) ** 2).sum()) for a in arrays)))
    if check_isfinite and not np.isfinite(total):
        import warnings
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a *= scale
    return total


def check_sha1(filename, sha1_hash):
    """True when the SHA-1 of the file's content (hex digits) equals ``sha1_hash``.

    Example::

        >>> import os, tempfile
        >>> from hybridlab.gluon.utils import check_sha1
        >>> path = os.path.join(tempfile.mkdtemp(), 'a.txt')
        >>> _ = open(path, 'wb').write(b'abc')
        >>> check_sha1(path, 'a9993e364706816aba3e25717850c26c9cd0d89d')
        True
    """
    import hashlib
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1048576), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Download ``url`` (http, https or file) to ``path`` (a folder, a file name, or the current
    folder) unless the file is already there (and matches ``sha1_hash`` when given); returns the
    file's path. As MXNet: up to ``retries`` attempts, a SHA-1 mismatch after downloading raises
    ``UserWarning``; the file is written atomically (a temporary file, then renamed).

    Example::

        >>> import os, pathlib, tempfile
        >>> from hybridlab.gluon.utils import download
        >>> src = os.path.join(tempfile.mkdtemp(), 'data.txt')
        >>> _ = open(src, 'w').write('hello')
        >>> dst = download(pathlib.Path(src).as_uri(), path=tempfile.mkdtemp())
        Downloading ...data.txt from file://...data.txt...
        >>> open(dst).read()
        'hello'
    """
    import os
    import ssl
    import urllib.request
    import warnings
    from ..base import MXNetError
    from ..fileio import write_atomic

    if path is None:
        fname = url.split("/")[-1]
        if not fname:
            raise ValueError(f"Can't construct file-name from this URL {url!r}. Please set the `path` option manually.")
    else:
        path = os.path.expanduser(os.fspath(path))
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    if retries < 0:
        raise ValueError(f"Number of retries should be at least 0, currently it's {retries}")
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). "
                      "Adding certificate verification is strongly advised.", stacklevel=2)
    if not (overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    context = None
    if not verify_ssl:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    attempts = 0
    while retries + 1 > 0:
        attempts += 1
        try:
            print(f"Downloading {fname} from {url}...")
            with urllib.request.urlopen(url, context=context, timeout=60) as r:
                status = getattr(r, "status", None)
                if status not in (None, 200) and url.lower().startswith("http"):
                    raise RuntimeError(f"Failed downloading url {url}: HTTP status {status}, expected 200")
                write_atomic(fname, iter(lambda: r.read(1 << 20), b""), what="downloaded file")
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning(f"File {fname} is downloaded but the content hash does not match (expected sha1 "
                                  f"{sha1_hash}). The repo may be outdated or download may be incomplete. If the "
                                  f"\"repo_url\" is overridden, consider switching to the default repo.")
            break
        except Exception as e:  # noqa: BLE001 - retried, then re-raised with the URL
            retries -= 1
            if retries <= 0:
                if isinstance(e, UserWarning):
                    raise
                raise MXNetError(f"Failed downloading {url} to {fname} ({attempts} attempt"
                                 f"{'s' if attempts > 1 else ''}): {e!r}") from e
            print(f"download failed due to {e!r}, retrying, {retries} attempt{'s' if retries > 1 else ''} left")
    return fname
