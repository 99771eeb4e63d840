"""Unit tests never write claim records into the book's ``_build/claims`` (``ClaimTable.add``
saves on every row): each test gets its own records folder.

The unit tests' JAX programs are compiled without LLVM's optimisation passes
(``--xla_backend_optimization_level=0``). They are small and most are compiled once, so compiling
is most of their time: the unit tests took 423 s instead of 544 s on two workers (cold compilation
cache). The flag is set for this process only: XLA reads ``XLA_FLAGS`` once, when it compiles its
first program, and the variable is restored at once, so the chapters' kernels, the book builds and
the subprocesses that tests start compile as the book does. Optimisation does not change what a
program computes, only its rounding where LLVM fuses a multiply and an add: no unit test's bound is
that tight (a rounding-dominated probe was moved inside float64 resolution for this).
"""

import os

import pytest


def _compile_unit_tests_unoptimised() -> None:
    flag, before = "--xla_backend_optimization_level=0", os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = f"{before} {flag}" if before else flag
    try:
        import jax

        jax.jit(lambda x: x + 1.0)(1.0).block_until_ready()
    finally:
        if before is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = before


_compile_unit_tests_unoptimised()


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_RECORDS_DIR", str(tmp_path / "claims"))
