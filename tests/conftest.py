"""Fixtures shared by the test areas: the fault-injecting fake adapter, and a check for leftover processes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.resources import runners_dir

FAKE_ADAPTER = runners_dir() / "fake" / "adapter.py"
FAKE_VARIABLES = ("FAULT", "FAULT_AFTER", "FAULT_WHEN", "PROTOCOLS", "MODEL", "PID_FILE")


@pytest.fixture
def fake_command() -> list[str]:
    """The fake adapter as an argv; choose faults with the fake_env fixture."""
    return [sys.executable, str(FAKE_ADAPTER)]


@pytest.fixture
def fake_env(monkeypatch):
    """Set the fake adapter's environment knobs (FAKE_ADAPTER_*) for this test, all unset at first."""
    for name in FAKE_VARIABLES:
        monkeypatch.delenv(f"FAKE_ADAPTER_{name}", raising=False)

    def setter(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"FAKE_ADAPTER_{name.upper()}", str(value))

    return setter


def running(pid: int) -> bool:
    """Is `pid` a live process (a zombie, dead but not yet reaped, is not)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def pid_file(tmp_path, fake_env) -> Path:
    """Where the fake adapter lists the processes it leaves behind; read it with `pids(path)`."""
    path = tmp_path / "children.pids"
    fake_env(pid_file=path)
    return path


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def survivors():
    """`survivors(pid_file)`: the listed processes still running, after a short grace for SIGKILL to land.

    Whatever the test found still running is killed when it ends.
    """
    import os
    import signal
    import time

    seen: list[int] = []

    def check(path: Path) -> list[int]:
        listed = pids(path)
        assert listed, "the fake adapter started no child: the test proves nothing"
        seen.extend(listed)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and any(running(pid) for pid in listed):
            time.sleep(0.02)
        return [pid for pid in listed if running(pid)]

    yield check
    for pid in seen:
        if running(pid):
            os.kill(pid, signal.SIGKILL)
