"""Fixtures for the site tests: one small matrix run (reference adapter, a mutant, the
mutant with its failure waived), with its reports and site, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_helpers import build_site


@pytest.fixture(scope="session")
def matrix_run(tmp_path_factory) -> tuple[int, Path, Path]:
    """(exit code, the JSON reports' directory, the site's directory)."""
    return build_site(tmp_path_factory.mktemp("matrix"))


@pytest.fixture(scope="session")
def site(matrix_run) -> Path:
    return matrix_run[2]


@pytest.fixture(scope="session")
def report_paths(matrix_run) -> dict[str, Path]:
    """Report file name (without .json) -> path."""
    return {path.stem: path for path in sorted(matrix_run[1].glob("*.json"))}
