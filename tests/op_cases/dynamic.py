"""Op-checker cases for the dynamic-shape ops (ops/dynamic.py): nonzero, unique."""
import numpy as np

from op_checker import Case

CASES = [
    Case("nonzero", [np.array([[0, 1.5, 0], [2, 0, -3]], np.float32)], grad=(),
         ref=lambda x: np.argwhere(x).astype(np.int64)),
    Case("nonzero", [np.array([[[1, 0], [0, 0]], [[0, 1], [1, 1]]], np.int32)], grad=(),
         ref=lambda x: np.transpose(np.nonzero(x)).astype(np.int64), name="int_3d"),
    Case("nonzero", [np.zeros((2, 3), np.float32)], grad=(), ref=lambda x: np.zeros((0, 2), np.int64),
         name="none"),
    Case("nonzero", [np.array([True, False, True])], grad=(), ref=lambda x: np.array([[0], [2]], np.int64),
         name="bool"),
    Case("unique", [np.array([[3, 1, 2], [1, 3, 0.5]], np.float32)], grad=(), ref=lambda x: np.unique(x)),
    Case("unique", [np.array([5, -1, 5, 5, 2], np.int64)], grad=(), ref=lambda x: np.unique(x), name="int"),
    Case("unique", [np.zeros((0,), np.float32)], grad=(), ref=lambda x: np.unique(x), name="empty"),
    Case("nonzero", [np.array(2.0, np.float32)], grad=(), ref=lambda x: np.zeros((1, 1), np.int64), name="0d"),
    Case("unique", [np.array([[3, 1], [1, 3], [0, 1]], np.float32)], grad=(), name="all_outputs",
         attrs={"return_index": True, "return_inverse": True, "return_counts": True},
         ref=lambda x, **a: tuple(r.reshape(-1) if i else r for i, r in enumerate(np.unique(x, True, True, True)))),
    Case("unique", [np.array([[1, 0, 1], [2, 2, 2]], np.int32)], grad=(), name="axis_counts",
         attrs={"return_counts": True, "axis": 1}, ref=lambda x, **a: np.unique(x, return_counts=True, axis=1)),
]
