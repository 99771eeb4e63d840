"""The ODE run plans of Orvieto et al. (ICML 2024, §4.2, App. E.3): the paper's and the stored
run's sizes, and run_plan on given data."""

import pytest

from lrnn_core.orvieto.ode_data import make_dataset
from lrnn_core.orvieto.ode_plans import (
    CI_PLAN,
    CPU_PLAN,
    EXPERIMENTS,
    PAPER_PLAN,
    Plan,
    SystemSizes,
    run_plan,
)


@pytest.fixture(scope="module")
def lv():
    return make_dataset("LV", 16, 8, seed=0, L=64)


def test_run_plan_runs_the_named_experiments_on_given_data(lv):
    plan = Plan(
        *[SystemSizes(L=64, n_train=16, n_test=8, N=4, D=8, epochs=2, batch_size=8)] * 3,
        seeds=(3,),
        lrs=(0.01,),
    )
    done = []
    data, sweeps = run_plan(
        plan,
        data_seed=0,
        experiments=["LV linear"],
        data={"LV": lv},
        on_done=lambda key, sw: done.append((key, sw.test_mse.shape)),
    )
    assert list(data) == ["LV"] and data["LV"] is lv
    assert done == [("LV linear", (1, 1, 2))] and list(sweeps) == ["LV linear"]
    with pytest.raises(ValueError, match="experiment must be one of"):
        run_plan(plan, data_seed=0, experiments=["VdP MLP"])


def test_plans_hold_the_stated_sizes():
    assert PAPER_PLAN.LZ == SystemSizes(
        L=512, n_train=10_000, n_test=1_000, N=256, D=1024, epochs=1000, batch_size=32
    )
    assert PAPER_PLAN.seeds == (1, 2, 3, 4, 5, 6) and PAPER_PLAN.lrs == (0.001, 0.003, 0.01)
    assert CPU_PLAN.LZ.n_train == 4096 and CPU_PLAN.PT.epochs == 100
    assert CPU_PLAN.rates("LZ") == (1e-2,) and CPU_PLAN.rates("LV") == CPU_PLAN.lrs == (3e-3,)
    with pytest.raises(ValueError, match="system must be one of"):
        CPU_PLAN.rates("VdP")
    assert CPU_PLAN.seeds == (1, 2, 3) and CPU_PLAN.scan_method == "inplace"
    ci = SystemSizes(L=256, n_train=128, n_test=32, N=16, D=32, epochs=60, batch_size=16)
    assert CI_PLAN.PT == CI_PLAN.LV == CI_PLAN.LZ == ci
    assert CI_PLAN.seeds == (1,) and CI_PLAN.lrs == (3e-3,)
    # 2 * 6 experiments minus PT's single mode (PT MLP, PT linear: Lambda trained only)
    assert sum(len(e[3]) for e in EXPERIMENTS.values()) == 10
