"""Code exercises a student checks alone: :func:`check` runs the student's function and the
library's reference on the same inputs, a few random ones and a few edge cases (a length-1
sequence, an eigenvalue on the unit circle, float32 inputs), and prints one line: ``passed``,
``not attempted`` (the stub still raises ``NotImplementedError``; the notebook goes on), or the
first input on which the two differ, by how much, with a hint.

Each exercise is an :class:`Exercise` in :data:`EXERCISES`, keyed by the label of its
``{exercise}`` directive in the chapter: a function of a random generator that lists the inputs,
registered with :func:`exercise`, names the reference, and its docstring is the hint. The
references are imported when an exercise is checked, so a chapter's ``check`` loads only the part
it needs.

``LRNN_EXERCISES`` says what a run expects: ``solved`` (the chapters, whose solutions are filled in:
anything but ``passed`` raises) or ``student`` (the student notebooks: anything but
``not attempted`` raises); unset, nothing raises.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jax
import numpy as np

Cases = Callable[[np.random.Generator], list[tuple[str, tuple]]]
EXPECTED = {"solved": "passed", "student": "not attempted"}
WORDS_PER_MINUTE = 200  # the reading time of "Teaching with this book"


@dataclass(frozen=True)
class Exercise:
    """An exercise: the reference, the inputs it is checked on (``cases(rng)`` lists
    ``(what the input is, arguments)``), the hint printed with a wrong answer, the largest
    difference allowed (relative to the largest entry of the reference's output) and its
    difficulty (1: one equation in a few lines; 2: an idea of the chapter; 3: several ideas)."""

    reference: Callable
    cases: Cases
    hint: str
    rtol: float = 1e-5
    difficulty: int = 1


def library(path: str) -> Callable:
    """The library function ``"module:name"`` (under ``lrnn_core``), imported when called and
    run in float64 (JAX's default float32 would differ from a NumPy answer by ~1e-7)."""
    module, name = path.split(":")

    def reference(*args):
        with jax.enable_x64(True):
            return getattr(importlib.import_module(f"lrnn_core.{module}"), name)(*args)

    return reference


def difference(got, want, rtol: float) -> str | None:
    """Why ``got`` is not ``want`` (an array, or a tuple of arrays), or None if it is."""
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    want = tuple(np.asarray(w) for w in want)  # NumPy arithmetic: a JAX array would round to f32
    shapes = [np.shape(g) for g in got] if isinstance(got, tuple | list) else [np.shape(got)]
    expected = [w.shape for w in want]
    if shapes != expected:
        return f"output shapes {shapes}, expected {expected}"
    scale = max(max(np.max(np.abs(w), initial=0.0) for w in want), 1e-30)
    pairs = zip(got, want, strict=True)
    error = np.max([np.max(np.abs(np.asarray(g) - w), initial=0.0) for g, w in pairs]) / scale
    if not error <= rtol:  # also catches inf and nan
        return f"differs by {error:.2g} relative to its largest entry (allowed {rtol:g})"
    return None


def outcome(exercise: Exercise, fn: Callable) -> str:
    """The line :func:`check` prints, after the exercise's label."""
    cases = exercise.cases(np.random.default_rng(0))
    for what, args in cases:
        try:
            problem = difference(fn(*args), exercise.reference(*args), exercise.rtol)
        except NotImplementedError:
            return "not attempted"
        except Exception as error:  # noqa: BLE001 - a student's error is reported, not raised
            problem = "raised " + repr(error)
        if problem:
            return f"wrong on {what}: {problem}. Hint: {exercise.hint}"
    return f"passed ({len(cases)} inputs)"


def check(label: str, fn: Callable) -> None:
    """Check ``fn`` against exercise ``label``'s reference and print the outcome (returned by
    :func:`outcome`; a chapter's check cell shows the printed line only)."""
    mode = os.environ.get("LRNN_EXERCISES") or None
    if label not in EXERCISES or mode not in (None, *EXPECTED):
        raise ValueError(f"no exercise {label!r} or LRNN_EXERCISES={mode!r} not in {EXPECTED}")
    if not callable(fn):
        raise TypeError("check needs the function to check as its second argument")
    result = outcome(EXERCISES[label], fn)
    print(f"{label}: {result}")
    if mode and not result.startswith(EXPECTED[mode]):
        raise AssertionError(f"LRNN_EXERCISES={mode} expects {EXPECTED[mode]!r}: {label}: {result}")


def exercise_titles(text: str) -> list[tuple[str, str]]:
    """``(title, label)`` of every ``{exercise}`` directive in a chapter's MyST text; the title's
    ``$...$`` math as plain text (a table printed by a cell shows no TeX)."""
    found = re.findall(r"^`{3,}\{exercise\} (.+)\n:label: (\S+)", text, re.M)
    return [(re.sub(r"\$([^$]*)\$", r"\1", title), label) for title, label in found]


def teaching_rows(start: Path | None = None) -> tuple[list[dict], dict]:
    """The table of "Teaching with this book": one row per chapter with exercises, in the order of
    ``_toc.yml``: its reading time (words of prose and code at :data:`WORDS_PER_MINUTE`), the run
    time of its student notebook in the Colab check (``results/colab/run_times.json``, written by
    ``scripts/colab_check.py``; None where it was not measured) and its exercises, the code ones
    with their difficulty. Also returns the run times' provenance. ``start``: a folder of the
    book (default: the working directory); the book's root is the first folder up with a toc."""
    here = Path.cwd() if start is None else Path(start).resolve()
    root = next(p for p in (here, *here.parents) if (p / "_toc.yml").exists())
    stored = root / "results" / "colab" / "run_times.json"
    record = json.loads(stored.read_text()) if stored.exists() else {"notebooks": {}}
    rows, words = [], lambda text: len(re.findall(r"\w+", text.split("\n---\n", 1)[-1]))
    for page in re.findall(r"file: (book/[\w/-]+)", (root / "_toc.yml").read_text()):
        text = (root / page).with_suffix(".md").read_text(encoding="utf-8")
        found = exercise_titles(text)
        if not found:
            continue
        code = [
            (title, EXERCISES[label].difficulty) for title, label in found if label in EXERCISES
        ]
        rows.append({
            "chapter": re.search(r"^# (.+)$", text, re.M).group(1),
            "reading (min)": round(words(text) / WORDS_PER_MINUTE),
            "Colab run at ci (s)": record["notebooks"].get("student/" + page, {}).get("seconds"),
            "code exercises (difficulty)": "; ".join(t + " (" + str(d) + ")" for t, d in code),
            "other exercises": len(found) - len(code),
        })  # fmt: skip
    return rows, record.get("provenance", {})


EXERCISES: dict[str, Exercise] = {}


def exercise(label: str, reference: str | Callable, difficulty: int = 1, rtol: float = 1e-5):
    """Register the decorated ``cases`` function as exercise ``label`` of :data:`EXERCISES`;
    ``reference`` is a library function or its ``"module:name"``; its docstring is the hint."""

    def register(cases: Cases) -> Cases:
        ref = library(reference) if isinstance(reference, str) else reference
        EXERCISES[label] = Exercise(ref, cases, " ".join(cases.__doc__.split()), rtol, difficulty)
        return cases

    return register


def _complex(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


# foundations/linear-recurrences
@exercise("ex-found-scan-loop", "core.scan:linear_scan")
def _scan_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """x_0 = u_0: the state before the first input is zero, and lambda multiplies the state, not
    the input"""
    ring = 0.9 * np.exp(2j * np.pi * rng.random(4))
    return [
        ("random complex eigenvalues in the disk, L = 32, N = 4", (ring, _complex(rng, 32, 4))),
        ("a length-1 sequence", (ring, _complex(rng, 1, 4))),
        ("an eigenvalue on the unit circle, lambda = 1j", (np.array([1j]), _complex(rng, 9, 1))),
        ("float32 real inputs", (np.float32([0.5, -0.5]), rng.normal(size=(6, 2)).astype("f4"))),
    ]


@exercise("ex-found-combine", "core.scan:combine")
def _pair_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """x acts first: apply h -> a1 h + b1, then h -> a2 h + b2, and read off the slope and the
    intercept"""
    pair = lambda n: (_complex(rng, n), _complex(rng, n))  # noqa: E731
    return [("random complex pairs, N = 5", (pair(5), pair(5))), ("N = 1", (pair(1), pair(1)))]


# orvieto/memorisation
@exercise("ex-mem-decode", "core.vandermonde:reconstruct")
def _decode_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """V_k is N x k with row i = (lambda_i^(k-1), ..., lambda_i, 1); return V_k^+ x_k"""
    return [
        ("N = 12 random complex eigenvalues, k = 6", (_complex(rng, 12), _complex(rng, 12), 6)),
        ("k = 1: V_1 is a column of ones", (_complex(rng, 3), _complex(rng, 3), 1)),
        ("the N = 4 roots of unity, k = 10 > N", (1j ** np.arange(4), _complex(rng, 4), 10)),
        ("float32, lambda = (0, 0.5), k = 2", (np.float32([0, 0.5]), np.float32([1, -2]), 2)),
    ]


@exercise("ex-mem-blocks", "orvieto.memorisation:block_system", difficulty=2)
def _blocks_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """B is N x M: column j holds ones on the rows of block j and zeros elsewhere"""
    return [
        ("M = 3 random blocks of 3, 5 and 1 eigenvalues", ([_complex(rng, n) for n in (3, 5, 1)],)),
        ("M = 1: one block", ([_complex(rng, 4)],)),
    ]


# orvieto/conditioning
@exercise("ex-cond-number", "core.vandermonde:condition_number")
def _condition_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """s_max / s_min of V_L itself (not of V_L^H V_L); row i is (lambda_i^(L-1), ..., 1)"""
    return [
        ("N = 6 random complex eigenvalues, L = 10 (V_L wide)", (_complex(rng, 6), 10)),
        ("N = L = 8 real nodes equispaced in [0, 1]", (np.linspace(0.0, 1.0, 8), 8)),
        ("the N = L = 16 roots of unity", (np.exp(2j * np.pi * np.arange(16) / 16), 16)),
    ]


@exercise("ex-cond-aliased", "orvieto.conditioning:aliased_average", difficulty=2)
def _aliased_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """tokens j, j' share a class iff N divides j - j'; a class need not hold L / N tokens"""
    return [
        ("random u, L = 20, N = 6: classes of 4 and 3 tokens", (rng.normal(size=(3, 20)), 6)),
        ("N = 8 > L = 5: every token its own class", (rng.normal(size=(1, 5)), 8)),
    ]


# orvieto/sparse-inputs
@exercise("ex-sparse-legs", "core.hippo:legs_matrices")
def _legs_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """lower triangular; n from 0: A_00 = 1"""
    return [("a random N", (int(rng.integers(5, 17)),)), ("N = 1", (1,)), ("N = 2", (2,))]


@exercise("ex-sparse-decode", "orvieto.sparse:reconstruct_sparse", difficulty=2)
def _sparse_decode_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """x_L = V_L u, row i of V_L is (lambda_i^(L-1), ..., 1); solve the real-stacked system"""
    Psi = library("orvieto.wavelets:wavelet_basis")(64, 8, "haar")
    lam = np.sqrt(rng.uniform(0.81, 1.0, 8)) * np.exp(2j * np.pi * rng.random(8))
    return [
        ("N = 8 on T(0.9, 1), u in the span of Psi", (lam, Psi, Psi @ rng.normal(size=8))),
        ("an input u outside the span of Psi", (lam, Psi, rng.normal(size=64))),
        ("N = P/2 = 4, |lambda_1| = 1", (np.r_[np.exp(1j), lam[:3]], Psi, Psi[:, 2])),
    ]


# orvieto-universality/learned-reconstruction
@exercise("ex-lr-mean-image", "orvieto.reconstruction:mean_image_mse")
def _mean_image_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """u_bar is the mean over the training images (axis 0), not over the held-out ones"""
    return [
        ("n = 20 training, m = 7 held-out, L = 49", (rng.random((20, 49)), rng.random((7, 49)))),
        ("one training image (n = 1)", (rng.random((1, 49)), rng.random((3, 49)))),
        ("float32 images, one pixel (L = 1)", (rng.random((5, 1), "f4"), rng.random((4, 1), "f4"))),
    ]


@exercise("ex-lr-pca-bound", "orvieto.reconstruction:pca_projection_mse", difficulty=2)
def _pca_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """centre by the mean image; keep the squares of singular values past rank; divide by n L"""
    return [
        ("n = 40 images of L = 16 pixels, rank 2N = 4", (rng.random((40, 16)), 4)),
        ("fewer images than pixels (n = 6, L = 20), rank 3", (rng.random((6, 20)), 3)),
        ("float32 images, rank 1", (rng.random((30, 8), "f4"), 1)),
    ]


# orvieto-universality/ode-flows
def _lorenz_field(z, v):
    with jax.enable_x64(True):
        return importlib.import_module("lrnn_core.orvieto.odes").ode("LZ").field(z, v)


@exercise("ex-ode-lorenz-field", _lorenz_field)
def _lz_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """r = 26 (not 28), b = 8/3; v is in dz_2"""
    f4 = lambda *shape: rng.normal(size=shape).astype("f4")  # noqa: E731
    return [
        ("a random state, a random input", (10 * rng.normal(size=3), rng.normal())),
        ("z = 0 and v = 1: the input alone", (np.zeros(3), 1.0)),
        ("a float32 batch of 5 states along the last axis", (10 * f4(3, 5), f4(5))),
    ]


@exercise("ex-ode-readout-row", "orvieto.width:readout_row", difficulty=2)
def _row_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """the newest token u_L carries lam^0, so omega_j is row L-1-j of the pseudo-inverse"""
    ring = lambda N, r: r * np.exp(2j * np.pi * np.arange(N) / N)  # noqa: E731
    return [
        ("the chapter's 0.7 times the 8th roots of unity, L = 8, lag 3", (ring(8, 0.7), 8, 3)),
        ("random moduli, N = 6 > L = 4, lag 0", (ring(6, rng.uniform(0.5, 0.9, 6)), 4, 0)),
        ("roots of unity on the unit circle, L = 5, lag L - 1 = 4", (ring(5, 1.0), 5, 4)),
    ]


# wang-li-li/memory-functions
@exercise("ex-mf-riesz-sum", "core.targets:linear_functional")
def _riesz_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """y_k = dt sum_{j<=k} rho_j u_{k-j}: a causal sum (rho is not reversed), times dt"""
    pol, exp = (1 + 0.01 * np.arange(50)) ** -1.1, np.exp(-0.5 * np.arange(20))
    return [
        ("rho_pol at dt = 0.1, three random inputs, L = 50", (pol, rng.normal(size=(3, 50)), 0.1)),
        ("rho = exp(-t), dt = 0.5, the Heaviside input u = 1 (1-D)", (exp, np.ones(20), 0.5)),
        ("a length-1 sequence", (np.array([2.0]), rng.normal(size=(2, 1)), 0.3)),
    ]


@exercise("ex-mf-heaviside-probe", "core.memory:heaviside_memory", difficulty=2)
def _probe_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """z = y(1) - y(0) removes the free response; m_0 = |z_0|, then |z_k - z_(k-1)|"""
    from lrnn_core.core.targets import TanhRNN

    p = TanhRNN(*(rng.uniform(-0.5, 0.5, s) for s in [(8, 8), 8, 8, 8, ()]))
    rnn, rho = library("core.targets:tanh_rnn_outputs"), 0.9 ** np.arange(30)
    return [
        ("a random tanh RNN with biases, L = 30", (lambda u: rnn(p, u), 30)),
        ("the linear map y = convolve(0.9^k, u)", (lambda u: np.convolve(rho, u)[:30], 30)),
        ("L = 1, y = tanh(1 + 2u)", (lambda u: np.tanh(1.0 + 2.0 * np.asarray(u)), 1)),
    ]


# wang-li-li/stable-approximation
@exercise("ex-stab-kernel-loss", "wang_li_li.fitting:kernel_loss")
def _kernel_loss_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """rho_hat(t_k) = sum_i C_i B_i exp(lambda_i t_k) with lambda = raw; the mean, not the sum"""
    from lrnn_core.wang_li_li import ctrnn, fitting

    t, B, C = np.linspace(0, 100, 201), rng.normal(size=(5, 1)), rng.normal(size=(1, 5))
    rand, pol = ctrnn.CTRNN(-rng.uniform(0.1, 1, 5), B, B[:, 0], C), (1 + 0.1 * t) ** -1.1
    one = ctrnn.CTRNN(np.array([-1.1]), B[:1], B[0], C[:, :1])
    return [
        ("the width-4 least-squares fit of rho_pol", (fitting.fit_linear_rnn(pol, t, 4), pol, t)),
        ("random lambda in [-1, -0.1], random B and C, N = 5", (rand, pol, t)),
        ("N = 1, lambda = -1.1, against exp(-t)", (one, np.exp(-t), t)),
    ]


def _decay_rate(memory: np.ndarray, t: np.ndarray) -> float:
    from lrnn_core.core.memory import fit_decay

    return fit_decay(memory, t, tail=(8.0, 40.0)).rate


@exercise("ex-stab-decay-rate", _decay_rate, difficulty=2)
def _decay_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """fit log m (not m) against t on 8 <= t <= 40, both ends included; the rate is -slope"""
    t, a = 0.5 * np.arange(100), rng.uniform(0.1, 0.5, (2, 1))
    return [
        ("a random sum of two exponentials", (np.exp(-a * t).sum(0), t)),
        ("exp(-0.3 t): the rate is 0.3", (np.exp(-0.3 * t), t)),
        ("(1 + 0.1 t)^-1.1; t = 8 and t = 40 are grid points", ((1 + 0.1 * t) ** -1.1, t)),
        ("an oscillating memory |cos t| exp(-0.2 t)", (np.abs(np.cos(t)) * np.exp(-0.2 * t), t)),
    ]


# wang-li-li/reparameterisation
@exercise("ex-rep-raw", "wang_li_li.ctrnn:raw_from_weight", difficulty=2)
def _raw_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """r = -lambda: exp log r, softplus log(expm1(r)), inverse sqrt(1/r - 0.01) (m >= 0)"""
    slow, fast = -np.logspace(-15, 1.9, 9), -np.logspace(-2, 1.995, 9)
    return [
        ("exp, random float32 lambda in (-5, 0)", (-5 * rng.random(6).astype("f4"), "exp")),
        ("softplus, lambda from -1e-15 (exp(r) - 1 loses its digits) to -80", (slow, "softplus")),
        ("inverse, lambda from -0.01 to -99, near -1/eps = -100", (fast, "inverse")),
    ]


@exercise("ex-rep-lru-inverse", "core.eigenvalues:lru_params")
def _lru_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """nu = log(-log|lambda|); theta = arg lambda in (0, 2 pi]: add 2 pi to a negative angle"""
    ring = rng.uniform(0.5, 0.99, 8) * np.exp(1j * rng.uniform(-np.pi, np.pi, 8))
    return [
        ("random lambda, 0.5 < |lambda| < 0.99, phases of both signs", (ring,)),
        ("|lambda| = 0.9999 (near the unit circle), lambda = -0.5", (np.array([0.9999j, -0.5]),)),
    ]


# wang-xue/universality
@exercise("ex-wx-kernel-fit", "wang_xue.universality:exp_sum_error", difficulty=2)
def _fit_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """the rates are step * (1, ..., n); the error is the largest |fit - rho| over all t"""
    t, times = np.linspace(0.0, 100.0, 201), np.sort(rng.uniform(0.0, 10.0, 30))
    return [
        ("the power law (1 + 0.1 t)^-1.1, n = 4, step 0.1", ((1 + 0.1 * t) ** -1.1, t, 4, 0.1)),
        ("a random kernel at random times, n = 3, step 0.5", (rng.normal(size=30), times, 3, 0.5)),
        ("n = 1: one exponential for t exp(-t/3)", (t * np.exp(-t / 3), t, 1, 0.1)),
    ]


def _volterra_reference(lam, c1, c2, u):
    from lrnn_core.wang_xue.volterra import Volterra2

    return library("wang_xue.volterra:volterra_outputs")(Volterra2(lam, c1, c2), u)


@exercise("ex-wx-kernel-volterra", _volterra_reference, difficulty=2)
def _volterra_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """Re of each convolution before products"""
    w = lambda M, L: (rng.normal(size=M), rng.normal(size=(M, M)), rng.normal(size=L))  # noqa: E731
    return [
        ("the chapter's lam = (0.9, 0.6), L = 40", (np.array([0.9, 0.6]), *w(2, 40))),
        ("an oscillating lam = 0.7 exp(0.5i)", (np.array([0.9, 0.7 * np.exp(0.5j)]), *w(2, 30))),
        ("M = 1, a length-1 sequence", (np.array([0.5]), *w(1, 1))),
    ]


# wang-xue/exponential-memory
@exercise("ex-wx-decay-two-layer", "wang_xue.memory:two_layer_memory", difficulty=2)
def _two_layer_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """exp(-a t) - exp(-b t) is -exp(-a t) expm1((a - b) t); at b = a the limit t exp(-a t)"""
    (a, b), t = rng.uniform(0.1, 2.0, 2), np.linspace(0.0, 20.0, 41)
    return [
        ("random rates a != b", (a, b, t)),
        ("b = a: the limit t exp(-a t)", (a, a, t)),
        ("b - a = 1e-12, where exp(-a t) - exp(-b t) cancels", (0.5, 0.5 + 1e-12, t)),
    ]


@exercise("ex-wx-decay-impulse", "core.memory:impulse_memory", difficulty=2)
def _impulse_cases(rng: np.random.Generator) -> list[tuple[str, tuple]]:
    """u_0 = 1, then 0; subtract the output under the zero input and take |.|"""
    from lrnn_core.wang_xue import baselines as bl

    rho = rng.normal(size=4) @ rng.uniform(-0.95, 0.95, 4)[:, None] ** np.arange(50)
    tcn, attention = bl.random_tcn(rng), bl.random_attention(rng, d=4)
    return [
        ("a linear SSM, rho_k = c . lambda^k, L = 50", (lambda u: np.convolve(rho, u)[:50], 50)),
        ("a dilated TCN with biases (y(0) != 0), L = 24", (lambda u: bl.tcn_outputs(tcn, u), 24)),
        ("causal attention (y(0) != 0), L = 1", (lambda u: bl.attention_outputs(attention, u), 1)),
    ]
