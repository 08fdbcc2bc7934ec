"""AMP op lists for bfloat16 (``mxnet.contrib.amp.lists.symbol_bf16``), following MXNet 1.9.1's
classification of the operators hybridlab registers: only Convolution and FullyConnected run in bfloat16,
a few ops take either precision, most others need float32 (see ``symbol_fp16`` for the meaning of each
list). ``BF16_USE_FP32_PARAMS``: ops whose listed inputs stay float32 (``''`` is the data input).

``amp.init(target_dtype='bfloat16')`` and ``amp.convert_*(..., target_dtype='bfloat16')`` use them.

Example::

    >>> from hybridlab.contrib.amp.lists import symbol_bf16
    >>> sorted(symbol_bf16.BF16_FUNCS)
    ['Convolution', 'FullyConnected', '_Convolution_columns', '_backward_Convolution_weight', '_backward_Convolution_weight_columns', '_npx_convolution']
"""

BF16_FUNCS = [
    'Convolution', 'FullyConnected', '_Convolution_columns', '_backward_Convolution_weight',
    '_backward_Convolution_weight_columns', '_npx_convolution',
]

BF16_FP32_FUNCS = [
    'BatchNorm', 'Concat', 'LRN', 'Pooling', '_Pooling_first_max', '_add', '_backward_Pooling',
    '_backward_Pooling_first_max', '_backward_Pooling_gather', '_npx_pooling', '_shuffle',
    'abs', 'amp_cast', 'amp_multicast', 'clip', 'concat', 'relu', 'shuffle', 'sqrt', 'square',
    'tanh',
]

FP32_FUNCS = [
    'BilinearSampler', 'BlockGrad', 'CTCLoss', 'Cast', 'Custom', 'Deconvolution', 'Dropout',
    'Embedding', 'Flatten', 'GridGenerator', 'GroupNorm', 'InstanceNorm', 'L2Normalization',
    'LayerNorm', 'LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput',
    'MakeLoss', 'Pad', 'RNN', 'ROIPooling', 'Reshape', 'SVMOutput', 'SequenceLast',
    'SequenceMask', 'SequenceReverse', 'SliceChannel', 'Softmax', 'SoftmaxActivation',
    'SoftmaxOutput', 'SpatialTransformer', 'SwapAxis', 'UpSampling', '_DivScalar',
    '_EqualScalar', '_GreaterEqualScalar', '_GreaterScalar', '_Hypot', '_HypotScalar',
    '_LesserEqualScalar', '_LesserScalar', '_LogicalAndScalar', '_LogicalOrScalar',
    '_LogicalXorScalar', '_MaximumScalar', '_MinimumScalar', '_MinusScalar', '_ModScalar',
    '_MulScalar', '_NotEqualScalar', '_PlusScalar', '_Power', '_PowerScalar', '_RDivScalar',
    '_RMinusScalar', '_RModScalar', '_RPowerScalar', '_arange', '_backward_BilinearSampler',
    '_backward_Custom', '_backward_Embedding', '_backward_GridGenerator', '_backward_Pad',
    '_backward_RNN', '_backward_ROIPooling', '_backward_SVMOutput', '_backward_SequenceLast',
    '_backward_SoftmaxOutput', '_backward_boolean_mask',
    '_backward_contrib_AdaptiveAvgPooling2D', '_backward_contrib_BilinearResize2D',
    '_backward_digamma', '_backward_gammaln', '_backward_gather_nd', '_backward_log_softmax',
    '_backward_mean', '_backward_npi_cholesky', '_backward_npi_eigh', '_backward_npi_qr',
    '_backward_npi_svd', '_backward_pick', '_backward_sum', '_backward_take', '_backward_topk',
    '_constant', '_contrib_AdaptiveAvgPooling2D', '_contrib_BilinearResize2D',
    '_contrib_CTCLoss', '_contrib_allclose', '_contrib_arange_like',
    '_contrib_bipartite_matching', '_contrib_boolean_mask', '_contrib_ctc_loss',
    '_contrib_div_sqrt_dim', '_contrib_interleaved_matmul_encdec_qk',
    '_contrib_interleaved_matmul_encdec_valatt', '_contrib_interleaved_matmul_selfatt_qk',
    '_contrib_interleaved_matmul_selfatt_valatt', '_copy', '_copyto', '_crop_assign',
    '_crop_assign_scalar', '_diag_scatter', '_div_scalar', '_equal_scalar', '_eye', '_full',
    '_greater_equal_scalar', '_greater_scalar', '_histogram', '_hypot', '_hypot_scalar',
    '_length_mask', '_lesser_equal_scalar', '_lesser_scalar', '_linalg_det',
    '_linalg_extractdiag', '_linalg_extracttrian', '_linalg_gelqf', '_linalg_gemm',
    '_linalg_gemm2', '_linalg_inverse', '_linalg_makediag', '_linalg_maketrian',
    '_linalg_potrf', '_linalg_potri', '_linalg_slogdet', '_linalg_sumlogdiag', '_linalg_syrk',
    '_linalg_trmm', '_linalg_trsm', '_linspace', '_logical_and_scalar', '_logical_or_scalar',
    '_logical_xor_scalar', '_lrn_channel_sum', '_maximum_scalar', '_minimum_scalar',
    '_minus_scalar', '_mod_scalar', '_mul_scalar', '_not_equal_scalar', '_np_argmax',
    '_np_argmin', '_np_cumsum', '_np_diag', '_np_diagonal', '_np_flip', '_np_max', '_np_mean',
    '_np_min', '_np_prod', '_np_reshape', '_np_roll', '_np_squeeze', '_np_sum', '_npi_arctan2',
    '_npi_around', '_npi_bitwise_not', '_npi_cholesky', '_npi_det', '_npi_eig', '_npi_eigh',
    '_npi_eigvals', '_npi_eigvalsh', '_npi_frexp', '_npi_histogram', '_npi_i0', '_npi_inv',
    '_npi_ldexp', '_npi_logical_not', '_npi_qr', '_npi_reshape', '_npi_searchsorted',
    '_npi_slogdet', '_npi_solve', '_npi_std', '_npi_svd', '_npi_tensorinv', '_npi_tril',
    '_npi_unique', '_npi_var', '_npx_deconvolution', '_npx_nonzero', '_npx_reshape', '_ones',
    '_plus_scalar', '_power', '_power_scalar', '_random_exponential',
    '_random_exponential_like', '_random_gamma', '_random_gamma_like',
    '_random_generalized_negative_binomial', '_random_generalized_negative_binomial_like',
    '_random_negative_binomial', '_random_negative_binomial_like', '_random_normal',
    '_random_normal_like', '_random_poisson', '_random_poisson_like', '_random_randint',
    '_random_uniform', '_random_uniform_like', '_ravel_multi_index', '_rdiv_scalar',
    '_reduce_sum_like', '_rminus_scalar', '_rmod_scalar', '_rnn_param_concat', '_rpower_scalar',
    '_sample_exponential', '_sample_gamma', '_sample_generalized_negative_binomial',
    '_sample_multinomial', '_sample_negative_binomial', '_sample_normal', '_sample_poisson',
    '_sample_uniform', '_sample_unique_zipfian', '_slice_assign', '_slice_assign_scalar',
    '_split_v2', '_take_along_axis', '_unravel_index', '_zeros', 'adam_update', 'arccos',
    'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctanh', 'argmax', 'argmax_channel', 'argmin',
    'argsort', 'batch_take', 'boolean_mask', 'broadcast_axes', 'broadcast_axis',
    'broadcast_hypot', 'broadcast_like', 'broadcast_mul', 'broadcast_power', 'broadcast_to',
    'cast', 'cbrt', 'ceil', 'choose_element_0index', 'col2im', 'cos', 'cosh', 'crop',
    'ctc_loss', 'cumsum', 'degrees', 'depth_to_space', 'diag', 'erf', 'erfinv', 'exp',
    'expand_dims', 'expm1', 'fill_element_0index', 'fix', 'flatten', 'flip', 'floor',
    'ftml_update', 'ftrl_update', 'gamma', 'gammaln', 'gather_nd', 'hard_sigmoid', 'identity',
    'im2col', 'lamb_update_phase1', 'lamb_update_phase2', 'linalg_det', 'linalg_extractdiag',
    'linalg_extracttrian', 'linalg_gelqf', 'linalg_gemm', 'linalg_gemm2', 'linalg_inverse',
    'linalg_makediag', 'linalg_maketrian', 'linalg_potrf', 'linalg_potri', 'linalg_slogdet',
    'linalg_sumlogdiag', 'linalg_syrk', 'linalg_trmm', 'linalg_trsm', 'log', 'log10', 'log1p',
    'log2', 'log_sigmoid', 'log_softmax', 'logical_not', 'make_loss', 'max', 'max_axis', 'mean',
    'min', 'min_axis', 'mish', 'moments', 'mp_nag_mom_update', 'mp_sgd_mom_update',
    'mp_sgd_update', 'multi_mp_sgd_mom_update', 'multi_mp_sgd_update', 'multi_sgd_mom_update',
    'multi_sgd_update', 'nag_mom_update', 'nanprod', 'nansum', 'negative', 'nonzero', 'norm',
    'normal', 'one_hot', 'ones_like', 'pad', 'pick', 'prod', 'radians', 'random_exponential',
    'random_gamma', 'random_generalized_negative_binomial', 'random_negative_binomial',
    'random_normal', 'random_poisson', 'random_randint', 'random_uniform', 'ravel_multi_index',
    'rcbrt', 'reciprocal', 'repeat', 'reshape', 'reshape_like', 'reverse', 'rint',
    'rmsprop_update', 'rmspropalex_update', 'round', 'rsqrt', 'sample_exponential',
    'sample_gamma', 'sample_generalized_negative_binomial', 'sample_multinomial',
    'sample_negative_binomial', 'sample_normal', 'sample_poisson', 'sample_uniform',
    'scatter_nd', 'sgd_mom_update', 'sgd_update', 'shape_array', 'sigmoid', 'sign',
    'signsgd_update', 'signum_update', 'sin', 'sinh', 'size_array', 'slice', 'slice_axis',
    'slice_like', 'smooth_l1', 'softmax', 'softmax_cross_entropy', 'softmin', 'softsign',
    'sort', 'space_to_depth', 'split', 'squeeze', 'stop_gradient', 'sum', 'sum_axis',
    'swapaxes', 'take', 'tan', 'tile', 'topk', 'transpose', 'trunc', 'uniform', 'unique',
    'unravel_index', 'zeros_like',
]

CONDITIONAL_FP32_FUNCS = [
    ('Activation', 'act_type', ['softrelu']),
    ('LeakyReLU', 'act_type', ['elu', 'selu']),
]

WIDEST_TYPE_CASTS = [
    'ElementWiseSum', '_Div', '_Equal', '_Greater', '_Greater_Equal', '_Lesser',
    '_Lesser_Equal', '_Logical_And', '_Logical_Or', '_Logical_Xor', '_Maximum', '_Minimum',
    '_Minus', '_Mod', '_Mul', '_Not_Equal', '_Plus', '_backward_contrib_PSROIPooling',
    '_backward_contrib_box_nms', '_backward_npi_einsum', '_contrib_PSROIPooling',
    '_contrib_box_iou', '_contrib_box_nms', '_contrib_box_non_maximum_suppression', '_div',
    '_equal', '_fused_elemwise', '_greater', '_greater_equal', '_lesser', '_lesser_equal',
    '_logical_and', '_logical_or', '_logical_xor', '_maximum', '_minimum', '_minus', '_mod',
    '_mul', '_not_equal', '_np_dot', '_np_matmul', '_npi_bitwise_and', '_npi_bitwise_or',
    '_npi_bitwise_xor', '_npi_copysign', '_npi_einsum', '_npi_equal', '_npi_gcd',
    '_npi_greater', '_npi_greater_equal', '_npi_lcm', '_npi_less', '_npi_less_equal',
    '_npi_logical_and', '_npi_logical_or', '_npi_logical_xor', '_npi_not_equal',
    '_npi_tensordot', '_npi_tensordot_int_axes', '_npi_true_divide', '_npi_where', '_plus',
    '_random_pdf_dirichlet', '_random_pdf_exponential', '_random_pdf_gamma',
    '_random_pdf_generalized_negative_binomial', '_random_pdf_negative_binomial',
    '_random_pdf_normal', '_random_pdf_poisson', '_random_pdf_uniform', '_sub', 'add_n',
    'batch_dot', 'broadcast_add', 'broadcast_div', 'broadcast_equal', 'broadcast_greater',
    'broadcast_greater_equal', 'broadcast_lesser', 'broadcast_lesser_equal',
    'broadcast_logical_and', 'broadcast_logical_or', 'broadcast_logical_xor',
    'broadcast_maximum', 'broadcast_minimum', 'broadcast_minus', 'broadcast_mod',
    'broadcast_not_equal', 'broadcast_plus', 'broadcast_sub', 'dot', 'elemwise_add',
    'elemwise_div', 'elemwise_mul', 'elemwise_sub', 'random_pdf_dirichlet',
    'random_pdf_exponential', 'random_pdf_gamma', 'random_pdf_generalized_negative_binomial',
    'random_pdf_negative_binomial', 'random_pdf_normal', 'random_pdf_poisson',
    'random_pdf_uniform', 'stack', 'where',
]

LOSS_OUTPUT_FUNCTIONS = [
    'LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput', 'SoftmaxOutput',
]

BF16_USE_FP32_PARAMS = {
    'BatchNorm': ['', 'gamma', 'beta', 'moving_mean', 'moving_var'],
}
