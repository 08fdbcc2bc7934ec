"""Special functions as elementwise ops: erf, erfinv, gamma, gammaln, and the internal gradient ops
``_backward_gammaln`` (og * digamma(x)) and ``_backward_digamma`` (og * trigamma(x)).

Everything is xp-generic (NumPy or CuPy, no SciPy) and evaluated in float64, then cast back:
erf by Cephes' rational approximations (Moshier, public domain), erfinv by an initial
approximation refined with Newton steps on erf, gamma/gammaln by the Lanczos approximation
(g = 7, 9 terms) with reflection for x < 0.5, digamma/trigamma by recurrence and asymptotic series.

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
# Lanczos approximation, g = 7
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


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


def _lanczos_parts(xp, z):
    """For z >= 0.5 (as z - 1 = zm): (t, log-free series a) with gamma(z) = sqrt(2 pi) t^(zm+.5) e^-t a."""
    zm = z - 1.0
    acc = zm * 0.0 + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        acc = acc + c / (zm + i)
    return zm, zm + 7.5, acc


def _nonpositive_int(xp, x):
    return (x <= 0) & (x == xp.floor(x))


def gamma64(xp, x):
    x = x.astype(_F64)
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x)
    zm, t, acc = _lanczos_parts(xp, z)
    half = t ** ((zm + 0.5) / 2.0)
    g = math.sqrt(2.0 * math.pi) * acc * (half * xp.exp(-t)) * half
    refl = math.pi / (xp.sin(math.pi * x) * g)
    out = xp.where(reflect, refl, g)
    out = xp.where(_nonpositive_int(xp, x), xp.full_like(x, _np.nan), out)
    return xp.where(x == 0, xp.copysign(xp.full_like(x, _np.inf), x), out)  # C's tgamma(+-0) = +-inf


def gammaln64(xp, x):
    """log |gamma(x)|."""
    x = x.astype(_F64)
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x)
    zm, t, acc = _lanczos_parts(xp, z)
    lg = _HALF_LOG_2PI + (zm + 0.5) * xp.log(t) - t + xp.log(acc)
    refl = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * x))) - lg
    out = xp.where(reflect, refl, lg)
    return xp.where(_nonpositive_int(xp, x), xp.full_like(x, _np.inf), out)


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
unary("gamma", lambda xp, x, a: gamma64(xp, x),
      lambda F, x, y, og, a: F._backward_gammaln(F.elemwise_mul(og, y), x),
      npx="gamma", doc="Gamma function, elementwise (+-inf at +-0, NaN at negative integers).")
unary("gammaln", lambda xp, x, a: gammaln64(xp, x), lambda F, x, y, og, a: F._backward_gammaln(og, x),
      npx="gammaln", doc="log |gamma(x)|, elementwise (+inf at non-positive integers).")


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
