"""Transitional: the names other packages still import from here, now defined in
:mod:`~lrnn_core.orvieto.ode_model`, :mod:`~lrnn_core.orvieto.ode_plans` and
:mod:`~lrnn_core.orvieto.ode_results`. Delete once ``bookkit/train_timing.py``,
``orvieto/reconstruction_experiments.py``, ``tests/bookkit/test_train_timing.py`` and
``book/appendices/performance.md`` import from those modules."""

from lrnn_core.orvieto.ode_model import ModelConfig, make_model, model_mse, with_constant
from lrnn_core.orvieto.ode_plans import CPU_PLAN
from lrnn_core.orvieto.ode_results import load_paper_results

__all__ = [
    "CPU_PLAN",
    "ModelConfig",
    "load_paper_results",
    "make_model",
    "model_mse",
    "with_constant",
]
