"""The checks of the sequential-MNIST comparison (Wang, Li & Li, ICLR 2024, App. E, Fig. 9 and
Table 1): the two baselines of a trained classifier, the paired-seed verdict between two
parameterisations, and the status a trained row may carry.

**Baselines** (the same test set as the trained models, error = fraction misclassified):

* the best predictor that **ignores the input**: always the most frequent training class, error
  ``1 - #{n: y_n = c*} / n_test`` with ``c* = argmax_c #{train labels = c}``
  (:func:`class_prior_error`);
* the best **linear** classifier of the same input: multinomial logistic regression on the
  flattened pixel sequence ``u`` (every pixel the RNN sees), ``p(y=c|u) = softmax(A u + a)_c``,
  fitted by minimising the mean training cross-entropy plus ``(l2 / 2) |A|_F^2`` with L-BFGS
  (a convex problem: the fit does not depend on a seed), :func:`logistic_regression_error`.

**Paired verdict** (:func:`paired_verdict`): seed ``s`` starts both parameterisations from the
same network, so the per-seed differences ``d_s`` (signed so that ``d > 0`` means "better") are
paired; with mean ``dbar``, standard error ``se = std(d, ddof=1) / sqrt(n)`` and ``t*`` the
two-sided ``alpha`` quantile of Student's t with ``n - 1`` degrees of freedom, Bonferroni-corrected
for ``n_tests`` comparisons, the verdict is "better" if ``dbar > t* se``, "worse" if
``dbar < -t* se``, else "tie".

**Status of a trained row** (:func:`ordering_status`): "reproduced" needs the claim to hold *and*
``error * margin <= min(baselines)`` (:func:`lrnn_core.core.verdicts.beats`, the rule of
``lrnn_core.bookkit.tables.ClaimTable.add``); a claim that holds while the models do not beat the
baselines by the margin is "weaker"; a claim that does not hold is "not reproduced".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import numpy as np
import scipy.optimize
import scipy.special
import scipy.stats
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_finite,
    check_flag,
    check_shape,
    positive_int,
    real_number,
)
from lrnn_core.core.verdicts import beats, row_status
from lrnn_core.wang_li_li.classification import (
    ClassificationRun,
    SequenceData,
    evaluate,
    initial_classifiers,
)

__all__ = [
    "HIGHER",
    "VERDICTS",
    "MnistStatus",
    "MnistVerdicts",
    "class_prior_error",
    "mean_se",
    "mnist_status",
    "mnist_verdicts",
    "logistic_regression_error",
    "ordering_status",
    "paired_t_critical",
    "paired_verdict",
    "per_seed_measures",
    "untrained_scores",
]

#: The three outcomes of :func:`paired_verdict`.
VERDICTS = ("better", "tie", "worse")


def _labels(name: str, labels: ArrayLike, n_classes: int) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, got {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"{name} must be integers, got dtype {labels.dtype}")
    if labels.min() < 0 or labels.max() >= n_classes:
        raise ValueError(f"{name} must be integers in 0..{n_classes - 1}")
    return labels


def class_prior_error(
    train_labels: Int[ArrayLike, " n_train"],
    test_labels: Int[ArrayLike, " n_test"],
    *,
    n_classes: int = 10,
) -> float:
    """Test error of the input-ignoring classifier that always answers the most frequent training
    class (ties: the smallest label)."""
    n_classes = positive_int("n_classes", n_classes)
    train = _labels("train_labels", train_labels, n_classes)
    test = _labels("test_labels", test_labels, n_classes)
    best = int(np.argmax(np.bincount(train, minlength=n_classes)))
    return float(np.mean(test != best))


def _features(name: str, u: ArrayLike) -> np.ndarray:
    u = as_float64(name, u)
    if u.ndim < 2 or u.shape[0] == 0:
        raise ValueError(f"{name} must have shape (n_seqs, ...) with n_seqs >= 1, got {u.shape}")
    check_finite(name, u)
    return u.reshape(u.shape[0], -1)


def logistic_regression_error(
    u_train: Float[ArrayLike, "n_train ..."],
    train_labels: Int[ArrayLike, " n_train"],
    u_test: Float[ArrayLike, "n_test ..."],
    test_labels: Int[ArrayLike, " n_test"],
    *,
    n_classes: int = 10,
    l2: float = 1e-4,
    max_iter: int = 500,
) -> float:
    """Test error of multinomial logistic regression on the flattened inputs (module docstring):
    minimise ``mean_n CE(softmax(A u_n + a), y_n) + (l2 / 2) |A|_F^2`` by L-BFGS (float64,
    analytic gradient, at most ``max_iter`` iterations), then predict ``argmax(A u + a)``."""
    n_classes = positive_int("n_classes", n_classes)
    l2 = real_number("l2", l2, low=0.0)
    max_iter = positive_int("max_iter", max_iter)
    x, x_test = _features("u_train", u_train), _features("u_test", u_test)
    if x_test.shape[1] != x.shape[1]:
        raise ValueError(
            f"u_test must have the shape of u_train after the first axis, got {x_test.shape[1]} "
            f"features against {x.shape[1]}"
        )
    y = _labels("train_labels", train_labels, n_classes)
    y_test = _labels("test_labels", test_labels, n_classes)
    check_shape("train_labels", y, (x.shape[0],))
    check_shape("test_labels", y_test, (x_test.shape[0],))
    n, d = x.shape
    onehot = np.eye(n_classes)[y]

    def loss_and_grad(w: np.ndarray) -> tuple[float, np.ndarray]:
        A, a = w[: d * n_classes].reshape(d, n_classes), w[d * n_classes :]
        z = x @ A + a
        log_p = z - scipy.special.logsumexp(z, axis=1, keepdims=True)
        resid = (np.exp(log_p) - onehot) / n
        loss = -np.sum(onehot * log_p) / n + 0.5 * l2 * np.sum(A**2)
        grad = np.concatenate([(x.T @ resid + l2 * A).ravel(), resid.sum(axis=0)])
        return float(loss), grad

    w0 = np.zeros(d * n_classes + n_classes)
    fit = scipy.optimize.minimize(
        loss_and_grad, w0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter}
    )
    A, a = fit.x[: d * n_classes].reshape(d, n_classes), fit.x[d * n_classes :]
    return float(np.mean(np.argmax(x_test @ A + a, axis=1) != y_test))


def paired_t_critical(n_seeds: int, *, n_tests: int = 1, alpha: float = 0.05) -> float:
    """``t*``: the two-sided ``alpha`` quantile of Student's t with ``n_seeds - 1`` degrees of
    freedom, Bonferroni-corrected for ``n_tests`` comparisons:
    ``t.ppf(1 - alpha / (2 n_tests), n_seeds - 1)``."""
    n_seeds = positive_int("n_seeds", n_seeds)
    if n_seeds < 2:
        raise ValueError(f"n_seeds must be >= 2 for a standard error, got {n_seeds}")
    n_tests = positive_int("n_tests", n_tests)
    alpha = real_number("alpha", alpha, low=0.0, high=1.0)
    if alpha == 0.0 or alpha == 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha}")
    return float(scipy.stats.t.ppf(1 - alpha / (2 * n_tests), n_seeds - 1))


def paired_verdict(
    candidate: Float[ArrayLike, " n_seeds"],
    reference: Float[ArrayLike, " n_seeds"],
    *,
    higher_is_better: bool,
    n_tests: int = 1,
    alpha: float = 0.05,
) -> tuple[str, float, float]:
    """``(verdict, dbar, margin)`` of ``candidate`` against ``reference``, paired by seed (module
    docstring): ``d_s = candidate_s - reference_s`` (negated when ``higher_is_better`` is False),
    ``margin = t* se``; verdict "better" if ``dbar > margin``, "worse" if ``dbar < -margin``, else
    "tie"."""
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    cand, ref = as_float64("candidate", candidate), as_float64("reference", reference)
    if cand.ndim != 1:
        raise ValueError(f"candidate must be 1-D (one value per seed), got shape {cand.shape}")
    check_shape("reference", ref, cand.shape)
    check_finite("candidate", cand)
    check_finite("reference", ref)
    t_crit = paired_t_critical(cand.size, n_tests=n_tests, alpha=alpha)
    d = (cand - ref) * (1.0 if higher_is_better else -1.0)
    dbar, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
    margin = t_crit * se
    verdict = "better" if dbar > margin else "worse" if dbar < -margin else "tie"
    return verdict, dbar, margin


def ordering_status(
    verdicts: Mapping[object, str],
    *,
    error: float,
    baselines: Mapping[str, float],
    margin: float,
    control_passes: bool = False,
) -> tuple[bool, str]:
    """``(holds, status)`` of an ordering claim "every candidate at least as good as the
    reference" from the :func:`paired_verdict` of each comparison: ``holds`` when no verdict is
    "worse" (what a faithful run must not contradict); "reproduced" when every verdict is
    "better" and ``error * margin <= min(baselines)`` (:func:`lrnn_core.core.verdicts.beats`),
    "weaker" when the claim holds otherwise, "not reproduced" when some candidate is worse. With
    ``control_passes`` (the negative control passed the same check) the row is
    ``(False, "not reproduced")``: a check that cannot tell an untrained network from a trained
    one (too few seeds for the corrected paired test) is no evidence for the claim."""
    control_passes = check_flag("control_passes", control_passes)
    values = list(verdicts.values()) if isinstance(verdicts, Mapping) else None
    if not values:
        raise ValueError("verdicts must be a non-empty mapping of comparison -> verdict")
    for v in values:
        check_choice("verdicts", v, VERDICTS)
    beaten = beats(error, baselines, margin)  # checks the trained-row fields in every case
    if control_passes:
        return False, "not reproduced"
    holds = all(v != "worse" for v in values)
    return holds, row_status(holds, full=beaten and all(v == "better" for v in values))


#: The three measures of a trained classifier and the sign of "better": test accuracy (%),
#: test loss, mean training loss over the run (the area under WLL Fig. 9's curve).
HIGHER = {"acc": True, "loss": False, "area": False}


def untrained_scores(
    seeds: Sequence[int], N: int, test: SequenceData, *, dt: float
) -> Float[np.ndarray, "seeds 2"]:
    """``(test loss, test accuracy)`` of each seed's untrained starting network
    (:func:`lrnn_core.wang_li_li.classification.initial_classifiers`, the same for the four
    maps): the negative control of WLL Fig. 9 and Table 1."""
    start = initial_classifiers(seeds, N)
    return np.array(
        [
            evaluate(
                jax.tree.map(lambda a, j=j: a[j], start), test, parameterisation="direct", dt=dt
            )
            for j in range(len(seeds))
        ]
    )


def per_seed_measures(
    runs: Mapping[str, ClassificationRun], untrained: Float[ArrayLike, "seeds 2"]
) -> dict[str, dict[str, np.ndarray]]:
    """The :data:`HIGHER` measures of each seed, per parameterisation and for "untrained"
    (its loss never moves, so its test loss stands for its training loss)."""
    untrained = np.asarray(untrained)
    out = {
        p: dict(acc=100 * r.test_accuracy, loss=r.test_loss, area=r.train_loss.mean(axis=1))
        for p, r in runs.items()
    }
    out["untrained"] = dict(acc=100 * untrained[:, 1], loss=untrained[:, 0], area=untrained[:, 0])
    return out


def mean_se(values: Float[ArrayLike, " n"]) -> tuple[float, float]:
    """Mean and standard error ``std(ddof=1) / sqrt(n)``."""
    values = np.asarray(values, float)
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


Verdict = tuple[str, float, float]


class MnistVerdicts(NamedTuple):
    """The :func:`paired_verdict` of each (measure, stable map) against direct, and of the
    untrained networks against trained direct per measure (the negative control)."""

    verdict: dict[tuple[str, str], Verdict]
    control: dict[str, Verdict]

    def by_measure(self, k: str) -> dict[str, str]:
        """The verdict of each stable map for measure ``k``."""
        return {p: v[0] for (kk, p), v in self.verdict.items() if kk == k}


def mnist_verdicts(
    per_seed: Mapping[str, Mapping[str, np.ndarray]], stable: Sequence[str]
) -> MnistVerdicts:
    """Every paired verdict against direct, Bonferroni-corrected for the
    ``len(HIGHER) * len(stable)`` comparisons."""
    n_tests = len(HIGHER) * len(stable)

    def verdict_of(p: str, k: str) -> Verdict:
        return paired_verdict(
            per_seed[p][k], per_seed["direct"][k], higher_is_better=HIGHER[k], n_tests=n_tests
        )

    return MnistVerdicts(
        {(k, p): verdict_of(p, k) for k in HIGHER for p in stable},
        {k: verdict_of("untrained", k) for k in HIGHER},
    )


class MnistStatus(NamedTuple):
    """Fig. 9 (mean training loss) and Table 1 (accuracy and loss): whether no stable map is
    worse and the status (:func:`ordering_status`), whether the untrained control passes the
    same check, and the rows' ``(holds, status)`` given the control."""

    fig9_holds: bool
    fig9_status: str
    table1_holds: bool
    table1_status: str
    fig9_control: bool
    table1_control: bool
    fig9_row: tuple[bool, str]
    table1_row: tuple[bool, str]


def mnist_status(
    verdicts: MnistVerdicts, *, error: float, baselines: Mapping[str, float], margin: float
) -> MnistStatus:
    """:class:`MnistStatus` of the verdicts, with the trained rows' ``error``, ``baselines`` and
    ``margin``."""
    trained = dict(error=error, baselines=baselines, margin=margin)
    area = verdicts.by_measure("area")
    fig9_holds, fig9_status = ordering_status(area, **trained)
    t1 = {(k, p): v for k in ("acc", "loss") for p, v in verdicts.by_measure(k).items()}
    table1_holds, table1_status = ordering_status(t1, **trained)
    control = verdicts.control
    fig9_control = ordering_status({"untrained": control["area"][0]}, **trained)[0]
    t1_control = {k: control[k][0] for k in ("acc", "loss")}
    table1_control = ordering_status(t1_control, **trained)[0]
    return MnistStatus(
        fig9_holds, fig9_status, table1_holds, table1_status, fig9_control, table1_control,
        ordering_status(area, control_passes=fig9_control, **trained),
        ordering_status(t1, control_passes=table1_control, **trained),
    )  # fmt: skip
