"""Op-checker cases for ops/np_einsum.py: ``_npi_einsum`` against NumPy's einsum, gradients by finite
differences (matrix product, implicit output, ellipsis broadcasting from size 1, a letter only one
operand has, three operands, a repeated letter: a diagonal), and its backward op."""
import numpy as np

from op_checker import Case


def _einsum(subscripts):
    return lambda *xs, **a: np.einsum(subscripts, *xs)


def _case(subscripts, shapes, name):
    return Case("_npi_einsum", list(shapes), attrs={"subscripts": subscripts, "num_args": len(shapes)},
                ref=_einsum(subscripts), name=name)


def _backward_ref(subscripts):
    """NumPy gradients of sum(out * og) by finite-free algebra: einsum with the other operands."""
    def ref(og, a, b, **attrs):
        lhs, out = subscripts.split("->")
        ta, tb = lhs.split(",")
        return np.einsum(f"{out},{tb}->{ta}", og, b), np.einsum(f"{out},{ta}->{tb}", og, a)
    return ref


CASES = [
    _case("ij,jk->ik", [(2, 3), (3, 4)], "matmul"),
    _case("ij,jk", [(2, 3), (3, 2)], "implicit_output"),
    _case("...ij,jk->...ik", [(1, 2, 3), (3, 2)], "ellipsis"),
    _case("bij,bjk->bik", [(2, 2, 3), (1, 3, 2)], "batch_broadcast_from_one"),
    _case("ij->j", [(3, 4)], "sum_rows"),
    _case("i,j->ij", [(3,), (2,)], "outer"),
    _case("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)], "three_operands"),
    _case("ii", [(3, 3)], "trace"),
    _case("iij,jk->ik", [(2, 2, 3), (3, 4)], "diagonal_of_one_operand"),
    _case("...,...", [(), (2, 3)], "scalar_operand"),
    Case("_backward_npi_einsum", [(2, 4), (2, 3), (3, 4)], attrs={"subscripts": "ij,jk->ik", "num_args": 3},
         ref=_backward_ref("ij,jk->ik"), grad=(), name="matmul"),
]
