"""An S4-style layer: a HiPPO state matrix, time-invariant, discretised by the bilinear rule
(Wang & Xue 2023, Fig. 6, "a manually constructed S4"; its construction is not in the text).

S4 (Gu, Goel & Ré, ICLR 2022, eqs. (1)-(3)) runs the continuous system ``x' = A x + B u``,
``y = C x`` with the HiPPO matrix ``A = -A_HiPPO`` at a *fixed* step ``dt``, discretised by the
bilinear (Tustin) rule

    Abar = (I - dt/2 A)^{-1} (I + dt/2 A),    Bbar = (I - dt/2 A)^{-1} dt B,
    x_k = Abar x_{k-1} + Bbar u_k,            y_k = C x_k.

(The time-varying LegS recurrence of HiPPO, whose ``1/t`` factor gives polynomial memory, is not
what S4 runs.) The eigenvalues of ``Abar`` are ``(1 + dt mu/2) / (1 - dt mu/2)`` for the
eigenvalues ``mu`` of ``A``, inside the unit disk when ``Re mu < 0``. NumPy float64.
"""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import as_float64, check_finite, check_shape, positive_number

__all__ = ["bilinear", "lti_outputs"]


def bilinear(
    A: Float[ArrayLike, "N N"], B: Float[ArrayLike, " N"], dt: float
) -> tuple[Float[np.ndarray, "N N"], Float[np.ndarray, " N"]]:
    """``(Abar, Bbar)`` of the bilinear rule with step ``dt`` (S4, Gu et al. 2022, eq. (3))."""
    A, B = as_float64("A", A), as_float64("B", B)
    check_shape("A", A, (None, None))
    N = A.shape[0]
    check_shape("A", A, (N, N))
    check_shape("B", B, (N,))
    check_finite("A", A)
    check_finite("B", B)
    dt = positive_number("dt", dt)
    left = np.eye(N) - dt / 2 * A
    return np.linalg.solve(left, np.eye(N) + dt / 2 * A), np.linalg.solve(left, dt * B)


def lti_outputs(
    Abar: Float[ArrayLike, "N N"],
    Bbar: Float[ArrayLike, " N"],
    C: Float[ArrayLike, " N"],
    u: Float[ArrayLike, " L"],
) -> Float[np.ndarray, " L"]:
    """``y_k = C x_k``, ``x_k = Abar x_{k-1} + Bbar u_k``, ``x_{-1} = 0``, for a scalar input
    ``u`` (L,): a loop over time (a dense ``Abar`` has no diagonal scan)."""
    Abar, Bbar, C, u = (as_float64(n, v) for n, v in zip("ABCu", (Abar, Bbar, C, u), strict=True))
    N = Bbar.shape[0] if Bbar.ndim == 1 else -1
    check_shape("Bbar", Bbar, (None,))
    check_shape("Abar", Abar, (N, N))
    check_shape("C", C, (N,))
    check_shape("u", u, (None,))
    for name, v in (("Abar", Abar), ("Bbar", Bbar), ("C", C), ("u", u)):
        check_finite(name, v)
    x = np.zeros(N)
    y = np.empty(len(u))
    for k, u_k in enumerate(u):
        x = Abar @ x + Bbar * u_k
        y[k] = C @ x
    return y
