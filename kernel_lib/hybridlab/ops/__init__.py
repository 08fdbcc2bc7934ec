"""The operator registry and every operator family. Importing this package registers all ops."""
from . import registry  # noqa: F401
from . import elemwise, binary, binary_compare, binary_scalar, where, add_n, reduce, shape, transpose, concat_split, tile_repeat, shape_slice, index, index_sort, linalg, nn, activation, loss_outputs, norm, conv, deconv, conv_columns, pool, pool_first_max, creation, random, fused, rnn, sequence, dynamic, upsampling, l2_lrn, diag_cumsum, moments, npx_reshape, arange_like, random_multinomial, ctc, roi_pooling, np_linalg, np_elemwise, np_einsum, custom, linalg_blas  # noqa: F401
from .registry import OpDef, NsName, all_ops, find_op, get_op, register  # noqa: F401
