"""Op-checker cases for ops/npx_reshape.py (_npx_reshape): every special code, forward and reverse.
The reference is NumPy's reshape to the shape MXNet 1.9.1 gives for the same call (hard-coded)."""
from op_checker import Case


def to(shape):
    return lambda a, **attrs: a.reshape(shape)


CASES = [Case("_npx_reshape", [src], attrs={"newshape": new, "reverse": rev}, ref=to(out), name=name)
         for name, src, new, rev, out in [
             ("copy_infer", (2, 3, 8), (-2, -2, 2, -1), False, (2, 3, 2, 4)),
             ("split_rest", (4, 3, 2), (-6, 2, -1, -4), False, (2, 2, 3, 2)),
             ("merge_rest", (2, 3, 2, 2), (-5, -4), False, (6, 2, 2)),
             ("skip_ones", (2, 1, 1, 3), (-2, -3, -3, -2), False, (2, 3)),
             ("positive", (2, 3, 4), (4, 6), False, (4, 6)),
             ("infer_consumes", (2, 3, 4), (-1, -4), False, (2, 3, 4)),
             ("reverse_merge", (2, 3, 2, 4), (-4, -5), True, (2, 3, 8)),
             ("reverse_split", (2, 3, 4), (-4, -1, 2, -6), True, (2, 3, 2, 2)),
             ("reverse_infer", (2, 3, 4), (-2, -1), True, (3, 8)),
             ("reverse_infer_rest", (2, 3, 4), (-1, -4), True, (1, 2, 3, 4)),
             ("zero_copies_extension", (2, 3, 4), (0, -1), False, (2, 12)),
         ]]
