"""Unit tests never write claim records into the book's ``_build/claims`` (``ClaimTable.add``
saves on every row): each test gets its own records folder."""

import pytest


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_RECORDS_DIR", str(tmp_path / "claims"))
