"""HiPPO-LegS: a structured linear RNN whose state holds Legendre coefficients of the past input.

Gu, Dao, Ermon, Rudra & Ré (NeurIPS 2020), "HiPPO: Recurrent Memory with Optimal Polynomial
Projections", §3 and App. D.3 (LegS). Continuous time:

    d/dt c(t) = -(1/t) A c(t) + (1/t) B f(t),
    A[n, k] = sqrt(2n+1) sqrt(2k+1) if n > k,   n + 1 if n = k,   0 if n < k;     B[n] = sqrt(2n+1),

and ``c_n(t)`` is the coefficient of the input ``f`` on ``[0, t]`` (uniform measure ``1/t``) along
the orthonormal scaled Legendre polynomials ``g_n(s) = sqrt(2n+1) P_n(2 s / t - 1)``, so that
``f(s) ~ sum_n c_n(t) g_n(s)`` for ``0 <= s <= t``.

Discretisation (ours to choose; the text of Orvieto et al. has none, and HiPPO App. B.3 lists
forward/backward Euler and the bilinear GBT): the **trapezoidal** rule with step 1, taking the
time-varying factor ``1/t`` at both ends of each step,

    (I + A / (2k)) c_k = (I - A / (2(k-1))) c_{k-1} + B (u_k / k + u_{k-1} / (k-1)) / 2,

for ``k = 2, ..., L``,

started exactly at ``c_1 = (u_1, 0, ..., 0)`` (a constant input on ``[0, 1]`` has only a ``g_0``
coefficient). HiPPO's bilinear rule freezes ``1/t`` at ``1/k`` over the step and starts from
``c_0 = 0``; its ``O(1)`` error at ``t ~ 1`` then fades only like ``1/t`` (mode 0 of ``A`` decays as
``t^-1``), which leaves a ``~1/L`` floor (``3e-4`` on the coefficients at ``L = 2000`` against
``4e-7`` here). The matrix is lower triangular, so each step is one triangular solve.
NumPy/SciPy float64 throughout.
"""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Float
from scipy.linalg import solve_triangular
from scipy.special import eval_legendre

from lrnn_core.core.validate import positive_int, real_sequences


def legs_matrices(N: int) -> tuple[Float[np.ndarray, "N N"], Float[np.ndarray, " N"]]:
    """The LegS ``(A, B)`` of HiPPO (Gu et al., 2020, App. D.3): lower-triangular ``A``, ``B``."""
    N = positive_int("N", N)
    q = np.sqrt(2 * np.arange(N) + 1.0)
    A = np.tril(np.outer(q, q), -1) + np.diag(np.arange(1.0, N + 1))
    return A, q.copy()


def legs_states(u: Float[ArrayLike, "L ..."], N: int) -> Float[np.ndarray, "N ..."]:
    """Run the trapezoidal LegS recurrence (HiPPO, Gu et al. 2020, App. D.3); return ``c_L``.

    ``u`` has shape ``(L,)`` or ``(L, batch)``.

    ``c_L`` has shape ``(N,)`` or ``(N, batch)``: the Legendre coefficients of ``u`` on ``[0, L]``
    (sample ``u_k`` at time ``k``) up to the discretisation error of the rule (module docstring).
    """
    A, B = legs_matrices(N)
    u = real_sequences("u", u)
    eye = np.eye(N)
    c = np.zeros((N,) + u.shape[1:])
    c[0] = u[0]
    for k in range(2, u.shape[0] + 1):
        rhs = (
            c
            - (A @ c) / (2 * (k - 1))
            + np.multiply.outer(B, u[k - 1] / k + u[k - 2] / (k - 1)) / 2
        )
        c = solve_triangular(eye + A / (2 * k), rhs, lower=True)
    return c


def legs_reconstruct(c: Float[ArrayLike, "N ..."], L: int) -> Float[np.ndarray, "L ..."]:
    """Input on the sample times ``s = 1, ..., L`` from the coefficients ``c`` at ``t = L``.

    ``f(s) = sum_n c_n sqrt(2n+1) P_n(2 s / L - 1)`` with :func:`scipy.special.eval_legendre`;
    ``c`` has shape ``(N,)`` or ``(N, batch)``, the result ``(L,)`` or ``(L, batch)``.
    """
    c = real_sequences("c", c)
    L = positive_int("L", L)
    return legendre_basis(c.shape[0], L) @ c


def legendre_basis(N: int, L: int) -> Float[np.ndarray, "L N"]:
    """``G[s-1, n] = sqrt(2n+1) P_n(2 s / L - 1)``, ``s = 1..L``, ``n < N`` (LegS's ``g_n``)."""
    N, L = positive_int("N", N), positive_int("L", L)
    x = 2.0 * np.arange(1, L + 1) / L - 1.0
    n = np.arange(N)
    return np.sqrt(2 * n + 1.0) * eval_legendre(n[None, :], x[:, None])


def orthonormal_legendre_basis(N: int, L: int) -> Float[np.ndarray, "L N"]:
    """The first ``N`` Legendre polynomials on ``s = 1..L`` (:func:`legendre_basis`),
    orthonormalised by Gram-Schmidt (a reduced QR with the signs of the diagonal made positive):
    ``Q^T Q = I`` and column ``n`` spans the same polynomials of degree ``<= n``. The basis ``Psi``
    of Assumption A (Orvieto et al., ICML 2024, §3.1.2-3.1.3) for smooth inputs."""
    Q, R = np.linalg.qr(legendre_basis(N, L))
    return Q * np.sign(np.diag(R))
