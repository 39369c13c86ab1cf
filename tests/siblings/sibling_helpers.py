"""Shared helpers for the sibling-format tests: fixture locations and manifest loading."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conformance.resources import vectors_dir

SIBLINGS = vectors_dir() / "siblings"
MEMORY_DIFF_FIXTURES = SIBLINGS / "memory-diff"
REME_FIXTURES = SIBLINGS / "reme-vault"
# The shared spec folder sits beside the repository; tests that need it skip without it.
SHARED_SPEC = Path(__file__).resolve().parents[2] / ".." / "shared" / "spec"


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def fixture_rule_id(name: str) -> str:
    """`MDIFF-E-READ.fail.yaml` and `REME-E-READ.pass/new` both name their rule first."""
    return name.split("/")[0].split(".")[0]


def materialise_vault(entry: dict, workdir: Path) -> tuple[str, str | None]:
    """Copy one REME fixture into `workdir` and do its `setup`; (vault, since) paths.

    The copy keeps the golden tree untouched and lets the test add what git
    fixtures should not hold (symbolic links).
    """
    top = entry["vault"].split("/")[0]
    shutil.copytree(REME_FIXTURES / top, workdir / top)
    vault = workdir / entry["vault"]
    since = workdir / entry["since"] if "since" in entry else None
    setup = entry.get("setup", {})
    if "symlink_outside" in setup:
        outside = workdir / "outside.md"
        outside.write_text("---\nlifecycle: evolving\n---\nnot part of the vault\n", encoding="utf-8")
        link = vault / setup["symlink_outside"]
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(outside, link)
    return str(vault), (str(since) if since else None)
