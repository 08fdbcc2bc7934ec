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
]
