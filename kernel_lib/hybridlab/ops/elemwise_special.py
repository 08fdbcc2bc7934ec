"""Special functions as elementwise ops: erf, erfinv, gamma, gammaln, and the internal gradient ops
``_backward_gammaln`` (og * digamma(x)) and ``_backward_digamma`` (og * trigamma(x)).

Everything is xp-generic (NumPy or CuPy, no SciPy) and evaluated in float64, then cast back:
erf by Cephes' rational approximations (Moshier, public domain), erfinv by an initial
approximation refined with Newton steps on erf, gamma/gammaln as CPython's ``math.gamma`` /
``math.lgamma`` (a 13-term Lanczos rational function with an error correction, exact table values at
small positive integers, reflection for x < 0: as accurate as C's tgamma/lgamma, which MXNet calls),
digamma/trigamma by recurrence and asymptotic series.

Example::

    >>> import hybridlab as mx
    >>> [round(v, 6) for v in mx.nd.erf(mx.nd.array([0.0, 0.5, -1.5])).asnumpy().tolist()]
    [0.0, 0.5205, -0.966105]
    >>> [round(v, 5) for v in mx.nd.gamma(mx.nd.array([1.0, 4.0, 0.5])).asnumpy().tolist()]
    [1.0, 6.0, 1.77245]
"""
import math

import numpy as _np

from .elemwise import unary
from .registry import OpDef, register
from .infer import same_shape

_F64 = _np.dtype(_np.float64)

# Cephes ndtr.c coefficients: erf for |x| <= 1 (T/U), erfc for 1 < |x| < 8 (P/Q) and beyond (R/S).
_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
      7.00332514112805075473E3, 5.55923013010394962768E4)
_U = (3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
      2.26290000613890934246E4, 4.92673942608635921086E4)
_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
      4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
      9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_Q = (1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
      9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
      1.65666309194161350182E3, 5.57535340817727675546E2)
_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
      6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_S = (2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
      1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)
# CPython's Modules/mathmodule.c: Lanczos sum as num(x)/den(x), g = 6.024680040776729583740234375
_LANCZOS_G = 6.024680040776729583740234375
_LANCZOS_G_MINUS_HALF = 5.524680040776729583740234375
_LANCZOS_NUM = (23531376880.410759688572007674451636754734846804940,
                42919803642.649098768957899047001988850926355848959,
                35711959237.355668049440185451547166705960488635843,
                17921034426.037209699919755754458931112671403265390,
                6039542586.3520280050642916443072979210699388420708,
                1439720407.3117216736632230727949123939715485786772,
                248874557.86205415651146038641322942321632125127801,
                31426415.585400194380614231628318205362874684987640,
                2876370.6289353724412254090516208496135991145378768,
                186056.26539522349504029498971604569928220784236328,
                8071.6720023658162106380029022722506138218516325024,
                210.82427775157934587250973392071336271166969580291,
                2.5066282746310002701649081771338373386264310793408)
_LANCZOS_DEN = (0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0, 13339535.0,
                2637558.0, 357423.0, 32670.0, 1925.0, 66.0, 1.0)   # x (x+1) ... (x+11)
_FACTORIALS = tuple(float(math.factorial(k)) for k in range(23))  # gamma(1..23), exact in float64


def _polevl(x, coefs):
    out = x * 0.0 + coefs[0]
    for c in coefs[1:]:
        out = out * x + c
    return out


def _p1evl(x, coefs):
    """Polynomial with an implicit leading coefficient 1."""
    return _polevl(x, (1.0,) + tuple(coefs))


def erf64(xp, x):
    x = x.astype(_F64)
    ax = xp.abs(x)
    small = ax <= 1.0
    z = x * x
    y_small = x * _polevl(z, _T) / _p1evl(z, _U)
    big = xp.minimum(xp.where(small, xp.full_like(ax, 2.0), ax), 30.0)  # finite, > 1
    ratio = xp.where(big < 8.0, _polevl(big, _P) / _p1evl(big, _Q), _polevl(big, _R) / _p1evl(big, _S))
    erfc = xp.exp(-big * big) * ratio
    y_big = xp.where(x < 0, erfc - 1.0, 1.0 - erfc)
    return xp.where(small, y_small, xp.where(xp.isnan(x), x, y_big))


def erfinv64(xp, y):
    """Inverse error function: an initial approximation, then Newton steps on erf."""
    y = y.astype(_F64)
    inside = xp.abs(y) < 1.0
    yc = xp.where(inside, y, xp.zeros_like(y))
    w = -xp.log((1.0 - yc) * (1.0 + yc))
    # initial guess (single-precision quality): central and tail polynomials in w
    wc = w - 2.5
    pc = _polevl(wc, (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                      -0.00125372503, -0.00417768164, 0.246640727, 1.50140941))
    wt = xp.sqrt(w) - 3.0
    pt = _polevl(wt, (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                      -0.0076224613, 0.00943887047, 1.00167406, 2.83297682))
    x = xp.where(w < 5.0, pc, pt) * yc
    for _ in range(3):
        x = x - (erf64(xp, x) - yc) / (2.0 / math.sqrt(math.pi) * xp.exp(-x * x))
    edge = xp.where(y > 0, xp.full_like(y, _np.inf), xp.full_like(y, -_np.inf))
    out = xp.where(xp.abs(y) == 1.0, edge, xp.full_like(y, _np.nan))
    return xp.where(inside, x, out)


def _lanczos_sum(xp, x):
    """num(x) / den(x) for x > 0; from x = 5 on in powers of 1/x, which cannot overflow."""
    small = x < 5.0
    xs, xl = xp.where(small, x, 1.0), xp.where(small, 5.0, x)
    num_s = den_s = num_l = den_l = xp.zeros_like(x)
    for c_num, c_den in zip(reversed(_LANCZOS_NUM), reversed(_LANCZOS_DEN)):
        num_s, den_s = num_s * xs + c_num, den_s * xs + c_den
    for c_num, c_den in zip(_LANCZOS_NUM, _LANCZOS_DEN):
        num_l, den_l = num_l / xl + c_num, den_l / xl + c_den
    return xp.where(small, num_s / den_s, num_l / den_l)


def _sinpi(xp, x):
    """sin(pi x) with the argument reduced to [0, 2) first, so it is exactly 0 at integers."""
    y = xp.fmod(xp.abs(x), 2.0)
    n = xp.floor(2.0 * y + 0.5)
    r = xp.where(n == 0, xp.sin(math.pi * y), xp.where(n == 1, xp.cos(math.pi * (y - 0.5)), xp.where(
        n == 2, xp.sin(math.pi * (1.0 - y)), xp.where(n == 3, -xp.cos(math.pi * (y - 1.5)),
                                                      xp.sin(math.pi * (y - 2.0))))))
    return xp.copysign(1.0, x) * r


def _is_int(xp, x):
    return x == xp.floor(x)


def _nonpositive_int(xp, x):
    return (x <= 0) & _is_int(xp, x)


def gamma64(xp, x):
    """C's tgamma, vectorised from CPython's math.gamma: exact at 1..23, +-inf at +-0, NaN at negative
    integers and -inf, inf past 171.6."""
    x = x.astype(_F64)
    absx = xp.abs(x)
    z = xp.where(xp.isfinite(x) & (absx <= 200.0) & (absx >= 1e-20), absx, 1.0)  # the Lanczos range
    with _np.errstate(all="ignore"):   # overflow to inf, 1/+-0 and the branches where discards are expected
        y = z + _LANCZOS_G_MINUS_HALF
        # the rounding error of y, fed back as a first-order correction
        err = xp.where(z > _LANCZOS_G_MINUS_HALF, (y - z) - _LANCZOS_G_MINUS_HALF,
                       (y - _LANCZOS_G_MINUS_HALF) - z) * _LANCZOS_G / y
        half_pow = y ** (z / 2.0 - 0.25)   # y^(z-0.5) as a square, which cannot overflow on the way
        lanczos = _lanczos_sum(xp, z)
        pos = lanczos / xp.exp(y)
        pos = (pos + err * pos) * half_pow * half_pow
        neg = -math.pi / _sinpi(xp, z) / z * xp.exp(y) / lanczos   # reflection
        neg = (neg - err * neg) / half_pow / half_pow
        out = xp.where(x < 0, neg, pos)
        out = xp.where(absx > 200.0, xp.where(x < 0, 0.0 / _sinpi(xp, xp.where(xp.isfinite(x), x, 0.5)),
                                              _np.inf), out)
        out = xp.where(absx < 1e-20, 1.0 / x, out)   # gamma(x) ~ 1/x; +-inf at +-0
    table = xp.asarray(_FACTORIALS)[xp.clip(xp.where(xp.isfinite(x), x, 1.0), 1, 23).astype(_np.int64) - 1]
    out = xp.where(_is_int(xp, x) & (x >= 1) & (x <= 23), table, out)
    return xp.where(xp.isnan(x) | (_is_int(xp, x) & (x < 0)), _np.nan, out)


def gammaln64(xp, x):
    """log |gamma(x)|, C's lgamma vectorised from CPython's math.lgamma: 0 at 1 and 2, +inf at
    non-positive integers and +-inf."""
    x = x.astype(_F64)
    absx = xp.abs(x)
    z = xp.where(xp.isfinite(x) & (absx >= 1e-20), absx, 1.0)
    with _np.errstate(all="ignore"):
        r = xp.log(_lanczos_sum(xp, z)) - _LANCZOS_G
        r = r + (z - 0.5) * (xp.log(z + _LANCZOS_G_MINUS_HALF) - 1.0)
        refl = math.log(math.pi) - xp.log(xp.abs(_sinpi(xp, z))) - xp.log(z) - r
        out = xp.where(x < 0, refl, r)
        out = xp.where(absx < 1e-20, -xp.log(absx), out)
    out = xp.where(_is_int(xp, x) & (x > 0) & (x <= 2), 0.0, out)
    out = xp.where(xp.isinf(x) | _nonpositive_int(xp, x), _np.inf, out)
    return xp.where(xp.isnan(x), _np.nan, out)


def _shift_up(xp, x, fn, steps=10):
    """Sum of fn(x + k) over the k that bring x to >= 10, and the shifted x."""
    acc = xp.zeros_like(x)
    for _ in range(steps):
        low = x < 10.0
        acc = acc + xp.where(low, fn(x), xp.zeros_like(x))
        x = xp.where(low, x + 1.0, x)
    return acc, x


def digamma64(xp, x):
    x = x.astype(_F64)
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x)
    acc, z = _shift_up(xp, z, lambda v: 1.0 / v)
    s = 1.0 / (z * z)
    series = s * (1 / 12 - s * (1 / 120 - s * (1 / 252 - s * (1 / 240 - s * (1 / 132)))))
    psi = xp.log(z) - 0.5 / z - series - acc
    out = xp.where(reflect, psi - math.pi / xp.tan(math.pi * x), psi)
    return xp.where(_nonpositive_int(xp, x), xp.full_like(x, _np.nan), out)


def trigamma64(xp, x):
    x = x.astype(_F64)
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x)
    acc, z = _shift_up(xp, z, lambda v: 1.0 / (v * v))
    s = 1.0 / (z * z)
    series = (1.0 / z) * (1.0 + 0.5 / z + s * (1 / 6 - s * (1 / 30 - s * (1 / 42 - s * (1 / 30 - s * (5 / 66))))))
    tri = series + acc
    out = xp.where(reflect, (math.pi / xp.sin(math.pi * x)) ** 2 - tri, tri)
    return xp.where(_nonpositive_int(xp, x), xp.full_like(x, _np.inf), out)


_SQRT_PI = math.sqrt(math.pi)

unary("erf", lambda xp, x, a: erf64(xp, x),
      lambda F, x, y, og, a: F.elemwise_mul(og, F._mul_scalar(F.exp(F.negative(F.square(x))), scalar=2.0 / _SQRT_PI)),
      npx="erf", doc="Gauss error function, elementwise.")
unary("erfinv", lambda xp, x, a: erfinv64(xp, x),
      lambda F, x, y, og, a: F.elemwise_mul(og, F._mul_scalar(F.exp(F.square(y)), scalar=_SQRT_PI / 2.0)),
      npx="erfinv", doc="Inverse error function, elementwise (+-inf at +-1, NaN outside [-1, 1]).")
def _in_dtype(out, dtype):
    """The float64 result in the input's dtype; overflow to inf (float16) or integer wrap-around (as
    MXNet's cast) is expected, so without warnings."""
    with _np.errstate(all="ignore"):
        return out.astype(dtype, copy=False)


unary("gamma", lambda xp, x, a: _in_dtype(gamma64(xp, x), x.dtype),
      lambda F, x, y, og, a: F._backward_gammaln(F.elemwise_mul(og, y), x),
      npx="gamma", doc="Gamma function, elementwise (exact at small positive integers; +-inf at +-0 and "
                       "+inf at +inf; NaN at negative integers and -inf). Integer inputs give integers, as in "
                       "MXNet.")
unary("gammaln", lambda xp, x, a: _in_dtype(gammaln64(xp, x), x.dtype),
      lambda F, x, y, og, a: F._backward_gammaln(og, x),
      npx="gammaln", doc="log |gamma(x)|, elementwise (+inf at non-positive integers and +-inf).")


def _special_backward(fn):
    def compute(ctx, a, og, x):
        return ctx.xp.asarray((og.astype(_F64) * fn(ctx.xp, x)).astype(og.dtype, copy=False))
    return compute


def _backward_gammaln_grad(F, a, inputs, outputs, ograds):
    og, x = inputs
    g = ograds[0]
    return [F._backward_gammaln(g, x), F._backward_digamma(F.elemwise_mul(g, og), x)]


register(OpDef("_backward_gammaln", inputs=("ograd", "data"), compute=_special_backward(digamma64),
               infer_shape=same_shape, grad=_backward_gammaln_grad, hidden=True,
               doc="ograd * digamma(data): the gradient of gammaln (and, with ograd * gamma, of gamma)."))
register(OpDef("_backward_digamma", inputs=("ograd", "data"), compute=_special_backward(trigamma64),
               infer_shape=same_shape, hidden=True,
               no_grad_reason="third derivative of gammaln (tetragamma) is not implemented",
               doc="ograd * trigamma(data): the gradient of digamma (second derivative of gammaln)."))
