"""Fixtures for the CLI adapter tests: toymemo on PATH, and configurations that drive it."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from cli_helpers import TOYMEMO_DIR


@pytest.fixture
def toymemo(tmp_path_factory, monkeypatch) -> Path:
    """`toymemo` on PATH, the way a user's installed CLI is: a wrapper running toymemo.py with this Python."""
    if os.name != "posix":
        pytest.skip("toymemo is put on PATH as a POSIX shell script")
    bin_dir = tmp_path_factory.mktemp("bin")
    wrapper = bin_dir / "toymemo"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{TOYMEMO_DIR / "toymemo.py"}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("TOYMEMO_SLEEP", "TOYMEMO_NO_PURGE", "TOYMEMO_STORE"):
        monkeypatch.delenv(name, raising=False)
    return wrapper


@pytest.fixture
def write_config(tmp_path):
    """write_config(text, name="tool.toml") -> the path of a configuration file holding `text` (dedented)."""

    def write(text: str, name: str = "tool.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write
