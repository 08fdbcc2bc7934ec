"""Op-checker cases for the variable-length sequence ops (ops/sequence.py): SequenceMask,
SequenceLast, SequenceReverse (with and without ``use_sequence_length``, axis 0 and 1) and the
hidden ``_backward_SequenceLast``. References are plain per-sequence NumPy loops."""
import numpy as np

from op_checker import Case


def _lengths(data, length, use_sequence_length, axis):
    n, t = data.shape[1 - axis], data.shape[axis]
    return [int(v) for v in length] if use_sequence_length else [t] * n


def _step(data, axis, t, n):
    """Index of step ``t`` of sequence ``n``."""
    return (t, n) if axis == 0 else (n, t)


def ref_mask(data, length=None, use_sequence_length=False, value=0.0, axis=0):
    out = data.copy()
    lengths = _lengths(data, length, use_sequence_length, axis)
    for n, ln in enumerate(lengths):
        for t in range(ln, data.shape[axis]):
            out[_step(data, axis, t, n)] = value
    return out


def ref_last(data, length=None, use_sequence_length=False, axis=0):
    lengths = _lengths(data, length, use_sequence_length, axis)
    return np.stack([data[_step(data, axis, ln - 1, n)] for n, ln in enumerate(lengths)])


def ref_reverse(data, length=None, use_sequence_length=False, axis=0):
    out = data.copy()
    lengths = _lengths(data, length, use_sequence_length, axis)
    for n, ln in enumerate(lengths):
        for t in range(ln):
            out[ln - 1 - t, n] = data[t, n]
    return out


def ref_backward_last(og, data, length=None, use_sequence_length=False, axis=0):
    out = np.zeros_like(data, dtype=og.dtype)
    lengths = _lengths(data, length, use_sequence_length, axis)
    for n, ln in enumerate(lengths):
        out[_step(data, axis, ln - 1, n)] = og[n]
    return out


def _len(*values, dtype=np.int32):
    return np.array(values, dtype)


CASES = [
    Case("SequenceMask", [(4, 3, 2), _len(2, 4, 1)], attrs=dict(use_sequence_length=True), ref=ref_mask,
         name="axis0", grad=(0,)),
    Case("SequenceMask", [(3, 4, 2), _len(3, 0, 2)], attrs=dict(use_sequence_length=True, axis=1, value=-2.5),
         ref=ref_mask, name="axis1_value", grad=(0,)),
    Case("SequenceMask", [(5, 2), _len(1.0, 3.0, dtype=np.float32)], attrs=dict(use_sequence_length=True),
         ref=ref_mask, name="float_length_rank2", grad=(0,)),
    Case("SequenceMask", [(3, 2, 2)], attrs=dict(value=7.0), ref=ref_mask, name="no_length"),
    Case("SequenceLast", [(4, 3, 2), _len(2, 4, 1)], attrs=dict(use_sequence_length=True), ref=ref_last,
         name="axis0", grad=(0,)),
    Case("SequenceLast", [(3, 4, 2, 2), _len(3, 1, 4)], attrs=dict(use_sequence_length=True, axis=1),
         ref=ref_last, name="axis1", grad=(0,)),
    Case("SequenceLast", [(4, 3)], ref=ref_last, name="no_length"),
    Case("SequenceLast", [(2, 4, 3)], attrs=dict(axis=1), ref=ref_last, name="no_length_axis1"),
    Case("SequenceReverse", [(4, 3, 2), _len(2, 4, 1)], attrs=dict(use_sequence_length=True), ref=ref_reverse,
         name="length", grad=(0,)),
    Case("SequenceReverse", [(5, 2), _len(3.0, 5.0, dtype=np.float32)], attrs=dict(use_sequence_length=True),
         ref=ref_reverse, name="float_length_rank2", grad=(0,)),
    Case("SequenceReverse", [(3, 2, 2)], ref=ref_reverse, name="no_length"),
    Case("_backward_SequenceLast", [(3, 2), (4, 3, 2), _len(2, 4, 1)], attrs=dict(use_sequence_length=True),
         ref=ref_backward_last, name="axis0", grad=(0,)),
    Case("_backward_SequenceLast", [(3,), (3, 4)], attrs=dict(axis=1), ref=ref_backward_last,
         name="no_length_axis1", grad=(0,)),
]
