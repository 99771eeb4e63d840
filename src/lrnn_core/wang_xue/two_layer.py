"""Memory of a two-layer linear scalar SSM (Wang & Xue 2023, App. A, eq. (38); formula lost in the
text version, rebuilt from its words).

Continuous time: ``dh1/dt = -a h1 + u``, ``dh2/dt = -b h2 + h1``, ``y = h2``. The impulse response
(= the memory function of Def. eq. (9) for this linear map) is the convolution of ``e^{-at}`` and
``e^{-bt}``,

    rho(t) = (e^{-a t} - e^{-b t}) / (b - a)  ->  t e^{-a t}   as b -> a,

the "t e^{-at}" that one layer cannot produce. Discrete time, ``h1_k = p h1_{k-1} + u_k``,
``h2_k = q h2_{k-1} + h1_k``: ``rho_k = sum_{j=0}^k p^j q^{k-j} = (p^{k+1} - q^{k+1}) / (p - q)``
(``(k+1) p^k`` when ``p = q``).
"""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import as_float64, check_finite, positive_number, real_number

__all__ = ["two_layer_discrete_memory", "two_layer_memory"]


def two_layer_memory(a: float, b: float, t: Float[ArrayLike, "*T"]) -> Float[np.ndarray, "*T"]:
    """``(e^{-a t} - e^{-b t}) / (b - a)``, and ``t e^{-a t}`` at ``b = a`` (App. A).

    Written as ``-e^{-a t} expm1(-(b - a) t) / (b - a)``, accurate for ``b`` near ``a``.
    """
    a, b = positive_number("a", a), positive_number("b", b)
    t = as_float64("t", t)
    check_finite("t", t)
    if a == b:
        return t * np.exp(-a * t)
    return -np.exp(-a * t) * np.expm1(-(b - a) * t) / (b - a)


def two_layer_discrete_memory(
    p: float, q: float, k: Float[ArrayLike, "*K"]
) -> Float[np.ndarray, "*K"]:
    """``sum_{j=0}^k p^j q^{k-j}``: the impulse response of two cascaded scalar recurrences with
    eigenvalues ``p`` and ``q`` in ``[0, 1)`` (App. A, discrete)."""
    p, q = real_number("p", p, low=0.0, high=1.0), real_number("q", q, low=0.0, high=1.0)
    k = as_float64("k", k)
    check_finite("k", k)
    if p == q:
        return (k + 1) * p**k
    return (p ** (k + 1) - q ** (k + 1)) / (p - q)
