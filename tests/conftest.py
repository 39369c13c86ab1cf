"""Shared by every test: a run of the kit's own tests is never a GitHub Actions job of the kit's users.

Under GitHub Actions the commands write annotations and a job summary by
default (docs/ci.md); the kit's own tests must see what a terminal user
sees, wherever they run. The GitHub output has tests of its own that set
these variables themselves.
"""

from __future__ import annotations

import pytest

pytest_plugins = ("pytester",)


@pytest.fixture(autouse=True)
def _not_in_github_actions(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
