"""AMP op lists for float16 (``mxnet.contrib.amp.lists.symbol_fp16``): every operator hybridlab registers
(names and aliases) in one list, following MXNet 1.9.1's classification of the same operators.

* ``FP16_FUNCS``: run in float16 (matrix products with weights: FullyConnected, Convolution, RNN, ...),
  their float32 inputs get ``amp_cast`` to float16,
* ``FP16_FP32_FUNCS``: run in whatever precision their inputs have (shape ops, max, relu, BatchNorm, ...),
* ``FP32_FUNCS``: need float32 (reductions, softmax, norms, exp/log, losses), float16 inputs are cast back,
* ``CONDITIONAL_FP32_FUNCS``: ``(op, attribute, values)``: float32 when the attribute has one of the values,
* ``WIDEST_TYPE_CASTS``: take several inputs that must share a dtype (elementwise arithmetic, dot, concat):
  ``amp_multicast`` casts them to the widest one,
* ``LOSS_OUTPUT_FUNCTIONS``: the loss output layers.

Example::

    >>> from hybridlab.contrib.amp.lists import symbol_fp16
    >>> 'FullyConnected' in symbol_fp16.FP16_FUNCS, 'softmax' in symbol_fp16.FP32_FUNCS
    (True, True)
    >>> 'elemwise_add' in symbol_fp16.WIDEST_TYPE_CASTS
    True
"""

FP16_FUNCS = [
    'Convolution', 'Deconvolution', 'FullyConnected', 'RNN', '_Convolution_columns',
    '_backward_Convolution_weight', '_backward_Convolution_weight_columns', '_backward_RNN',
    '_npx_convolution', '_npx_deconvolution',
]

FP16_FP32_FUNCS = [
    'BatchNorm', 'BilinearSampler', 'BlockGrad', 'Cast', 'Dropout', 'Embedding', 'Flatten',
    'GridGenerator', 'Pad', 'Pooling', 'ROIPooling', 'Reshape', 'SequenceLast', 'SequenceMask',
    'SequenceReverse', 'SliceChannel', 'SpatialTransformer', 'SwapAxis', 'UpSampling',
    '_DivScalar', '_EqualScalar', '_GreaterEqualScalar', '_GreaterScalar', '_LesserEqualScalar',
    '_LesserScalar', '_LogicalAndScalar', '_LogicalOrScalar', '_LogicalXorScalar',
    '_MaximumScalar', '_MinimumScalar', '_MinusScalar', '_ModScalar', '_MulScalar',
    '_NotEqualScalar', '_PlusScalar', '_Pooling_first_max', '_RMinusScalar', '_RModScalar',
    '_add', '_arange', '_backward_BilinearSampler', '_backward_Embedding',
    '_backward_GridGenerator', '_backward_Pad', '_backward_Pooling',
    '_backward_Pooling_first_max', '_backward_Pooling_gather', '_backward_ROIPooling',
    '_backward_SequenceLast', '_backward_boolean_mask',
    '_backward_contrib_AdaptiveAvgPooling2D', '_backward_contrib_BilinearResize2D',
    '_backward_gather_nd', '_backward_pick', '_backward_take', '_constant',
    '_contrib_AdaptiveAvgPooling2D', '_contrib_BilinearResize2D', '_contrib_arange_like',
    '_contrib_bipartite_matching', '_contrib_boolean_mask', '_contrib_div_sqrt_dim', '_copy',
    '_copyto', '_crop_assign', '_crop_assign_scalar', '_diag_scatter', '_div_scalar',
    '_equal_scalar', '_eye', '_full', '_greater_equal_scalar', '_greater_scalar', '_histogram',
    '_length_mask', '_lesser_equal_scalar', '_lesser_scalar', '_linspace',
    '_logical_and_scalar', '_logical_or_scalar', '_logical_xor_scalar', '_maximum_scalar',
    '_minimum_scalar', '_minus_scalar', '_mod_scalar', '_mul_scalar', '_not_equal_scalar',
    '_np_argmax', '_np_argmin', '_np_diag', '_np_diagonal', '_np_flip', '_np_max', '_np_min',
    '_np_reshape', '_np_roll', '_np_squeeze', '_npi_around', '_npi_bitwise_not',
    '_npi_histogram', '_npi_logical_not', '_npi_reshape', '_npi_searchsorted', '_npi_tril',
    '_npi_unique', '_npx_nonzero', '_npx_pooling', '_npx_reshape', '_ones', '_plus_scalar',
    '_random_exponential', '_random_exponential_like', '_random_gamma', '_random_gamma_like',
    '_random_generalized_negative_binomial', '_random_generalized_negative_binomial_like',
    '_random_negative_binomial', '_random_negative_binomial_like', '_random_normal',
    '_random_normal_like', '_random_poisson', '_random_poisson_like', '_random_randint',
    '_random_uniform', '_random_uniform_like', '_ravel_multi_index', '_rminus_scalar',
    '_rmod_scalar', '_rnn_param_concat', '_sample_exponential', '_sample_gamma',
    '_sample_generalized_negative_binomial', '_sample_multinomial', '_sample_negative_binomial',
    '_sample_normal', '_sample_poisson', '_sample_uniform', '_sample_unique_zipfian',
    '_shuffle', '_slice_assign', '_slice_assign_scalar', '_split_v2', '_take_along_axis',
    '_unravel_index', '_zeros', 'abs', 'adam_update', 'amp_cast', 'amp_multicast', 'arccosh',
    'arcsinh', 'arctan', 'argmax', 'argmax_channel', 'argmin', 'batch_take', 'boolean_mask',
    'broadcast_axes', 'broadcast_axis', 'broadcast_like', 'broadcast_to', 'cast', 'cbrt',
    'ceil', 'choose_element_0index', 'clip', 'col2im', 'cos', 'crop', 'degrees',
    'depth_to_space', 'diag', 'erf', 'expand_dims', 'fill_element_0index', 'fix', 'flatten',
    'flip', 'floor', 'ftml_update', 'ftrl_update', 'gather_nd', 'hard_sigmoid', 'identity',
    'im2col', 'logical_not', 'max', 'max_axis', 'min', 'min_axis', 'mp_sgd_mom_update',
    'mp_sgd_update', 'multi_mp_sgd_mom_update', 'multi_mp_sgd_update', 'multi_sgd_mom_update',
    'multi_sgd_update', 'negative', 'nonzero', 'normal', 'one_hot', 'ones_like', 'pad', 'pick',
    'radians', 'random_exponential', 'random_gamma', 'random_generalized_negative_binomial',
    'random_negative_binomial', 'random_normal', 'random_poisson', 'random_randint',
    'random_uniform', 'ravel_multi_index', 'relu', 'repeat', 'reshape', 'reshape_like',
    'reverse', 'rint', 'rmsprop_update', 'rmspropalex_update', 'round', 'sample_exponential',
    'sample_gamma', 'sample_generalized_negative_binomial', 'sample_multinomial',
    'sample_negative_binomial', 'sample_normal', 'sample_poisson', 'sample_uniform',
    'scatter_nd', 'sgd_mom_update', 'sgd_update', 'shape_array', 'shuffle', 'sigmoid', 'sign',
    'signsgd_update', 'signum_update', 'sin', 'size_array', 'slice', 'slice_axis', 'slice_like',
    'softsign', 'sort', 'space_to_depth', 'split', 'sqrt', 'squeeze', 'stop_gradient',
    'swapaxes', 'take', 'tanh', 'tile', 'transpose', 'trunc', 'uniform', 'unique',
    'unravel_index', 'zeros_like',
]

FP32_FUNCS = [
    'CTCLoss', 'Custom', 'GroupNorm', 'InstanceNorm', 'L2Normalization', 'LRN', 'LayerNorm',
    'LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput', 'MakeLoss',
    'SVMOutput', 'Softmax', 'SoftmaxActivation', 'SoftmaxOutput', '_Hypot', '_HypotScalar',
    '_Power', '_PowerScalar', '_RDivScalar', '_RPowerScalar', '_backward_Custom',
    '_backward_SVMOutput', '_backward_SoftmaxOutput', '_backward_digamma', '_backward_gammaln',
    '_backward_log_softmax', '_backward_mean', '_backward_npi_cholesky', '_backward_npi_eigh',
    '_backward_npi_qr', '_backward_npi_svd', '_backward_sum', '_backward_topk',
    '_contrib_CTCLoss', '_contrib_allclose', '_contrib_ctc_loss', '_hypot', '_hypot_scalar',
    '_linalg_det', '_linalg_extractdiag', '_linalg_extracttrian', '_linalg_gelqf',
    '_linalg_gemm', '_linalg_gemm2', '_linalg_inverse', '_linalg_makediag', '_linalg_maketrian',
    '_linalg_potrf', '_linalg_potri', '_linalg_slogdet', '_linalg_sumlogdiag', '_linalg_syrk',
    '_linalg_trmm', '_linalg_trsm', '_lrn_channel_sum', '_np_cumsum', '_np_mean', '_np_prod',
    '_np_sum', '_npi_arctan2', '_npi_cholesky', '_npi_det', '_npi_eig', '_npi_eigh',
    '_npi_eigvals', '_npi_eigvalsh', '_npi_frexp', '_npi_i0', '_npi_inv', '_npi_ldexp',
    '_npi_qr', '_npi_slogdet', '_npi_solve', '_npi_std', '_npi_svd', '_npi_tensorinv',
    '_npi_var', '_power', '_power_scalar', '_rdiv_scalar', '_reduce_sum_like', '_rpower_scalar',
    'arccos', 'arcsin', 'arctanh', 'argsort', 'broadcast_hypot', 'broadcast_power', 'cosh',
    'ctc_loss', 'cumsum', 'erfinv', 'exp', 'expm1', 'gamma', 'gammaln', 'lamb_update_phase1',
    'lamb_update_phase2', 'linalg_det', 'linalg_extractdiag', 'linalg_extracttrian',
    'linalg_gelqf', 'linalg_gemm', 'linalg_gemm2', 'linalg_inverse', 'linalg_makediag',
    'linalg_maketrian', 'linalg_potrf', 'linalg_potri', 'linalg_slogdet', 'linalg_sumlogdiag',
    'linalg_syrk', 'linalg_trmm', 'linalg_trsm', 'log', 'log10', 'log1p', 'log2', 'log_sigmoid',
    'log_softmax', 'make_loss', 'mean', 'mish', 'moments', 'mp_nag_mom_update',
    'nag_mom_update', 'nanprod', 'nansum', 'norm', 'prod', 'rcbrt', 'reciprocal', 'rsqrt',
    'sinh', 'smooth_l1', 'softmax', 'softmax_cross_entropy', 'softmin', 'square', 'sum',
    'sum_axis', 'tan', 'topk',
]

CONDITIONAL_FP32_FUNCS = [
    ('Activation', 'act_type', ['softrelu']),
    ('LeakyReLU', 'act_type', ['elu', 'selu']),
]

WIDEST_TYPE_CASTS = [
    'Concat', 'ElementWiseSum', '_Div', '_Equal', '_Greater', '_Greater_Equal', '_Lesser',
    '_Lesser_Equal', '_Logical_And', '_Logical_Or', '_Logical_Xor', '_Maximum', '_Minimum',
    '_Minus', '_Mod', '_Mul', '_Not_Equal', '_Plus', '_backward_contrib_PSROIPooling',
    '_backward_contrib_box_nms', '_backward_npi_einsum', '_contrib_PSROIPooling',
    '_contrib_box_iou', '_contrib_box_nms', '_contrib_box_non_maximum_suppression',
    '_contrib_interleaved_matmul_encdec_qk', '_contrib_interleaved_matmul_encdec_valatt',
    '_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt',
    '_div', '_equal', '_fused_elemwise', '_greater', '_greater_equal', '_lesser',
    '_lesser_equal', '_logical_and', '_logical_or', '_logical_xor', '_maximum', '_minimum',
    '_minus', '_mod', '_mul', '_not_equal', '_np_dot', '_np_matmul', '_npi_bitwise_and',
    '_npi_bitwise_or', '_npi_bitwise_xor', '_npi_copysign', '_npi_einsum', '_npi_equal',
    '_npi_gcd', '_npi_greater', '_npi_greater_equal', '_npi_lcm', '_npi_less',
    '_npi_less_equal', '_npi_logical_and', '_npi_logical_or', '_npi_logical_xor',
    '_npi_not_equal', '_npi_tensordot', '_npi_tensordot_int_axes', '_npi_true_divide',
    '_npi_where', '_plus', '_random_pdf_dirichlet', '_random_pdf_exponential',
    '_random_pdf_gamma', '_random_pdf_generalized_negative_binomial',
    '_random_pdf_negative_binomial', '_random_pdf_normal', '_random_pdf_poisson',
    '_random_pdf_uniform', '_sub', 'add_n', 'batch_dot', 'broadcast_add', 'broadcast_div',
    'broadcast_equal', 'broadcast_greater', 'broadcast_greater_equal', 'broadcast_lesser',
    'broadcast_lesser_equal', 'broadcast_logical_and', 'broadcast_logical_or',
    'broadcast_logical_xor', 'broadcast_maximum', 'broadcast_minimum', 'broadcast_minus',
    'broadcast_mod', 'broadcast_mul', 'broadcast_not_equal', 'broadcast_plus', 'broadcast_sub',
    'concat', 'dot', 'elemwise_add', 'elemwise_div', 'elemwise_mul', 'elemwise_sub',
    'random_pdf_dirichlet', 'random_pdf_exponential', 'random_pdf_gamma',
    'random_pdf_generalized_negative_binomial', 'random_pdf_negative_binomial',
    'random_pdf_normal', 'random_pdf_poisson', 'random_pdf_uniform', 'stack', 'where',
]

LOSS_OUTPUT_FUNCTIONS = [
    'LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput', 'SoftmaxOutput',
]
