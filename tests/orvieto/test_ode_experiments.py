"""The transitional re-exports of ``lrnn_core.orvieto.ode_experiments`` are the new modules'
objects themselves."""

from lrnn_core.orvieto import ode_experiments, ode_model, ode_plans, ode_results


def test_reexports_are_the_same_objects():
    assert ode_experiments.ModelConfig is ode_model.ModelConfig
    assert ode_experiments.make_model is ode_model.make_model
    assert ode_experiments.model_mse is ode_model.model_mse
    assert ode_experiments.with_constant is ode_model.with_constant
    assert ode_experiments.CPU_PLAN is ode_plans.CPU_PLAN
    assert ode_experiments.load_paper_results is ode_results.load_paper_results
