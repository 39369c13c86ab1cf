"""Shared fixtures for the adapter protocol tests: the fake adapter and a toy server."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from conformance.resources import runners_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_ADAPTER = runners_dir() / "fake" / "adapter.py"


@pytest.fixture
def fake_command() -> list[str]:
    """The fake adapter as an argv; choose faults with monkeypatch.setenv."""
    return [sys.executable, str(FAKE_ADAPTER)]


@pytest.fixture
def fake_env(monkeypatch):
    """Set the fake adapter's environment knobs (FAKE_ADAPTER_*) for this test."""
    for name in ("FAKE_ADAPTER_FAULT", "FAKE_ADAPTER_FAULT_AFTER", "FAKE_ADAPTER_PROTOCOLS"):
        monkeypatch.delenv(name, raising=False)

    def setter(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"FAKE_ADAPTER_{name.upper()}", value)

    return setter


TOY_ADAPTER = textwrap.dedent(
    '''
    """A toy adapter built on conformance.protocol.server.serve."""
    import os
    import sys
    from pathlib import Path

    sys.path.insert(0, sys.argv[1])
    from conformance.protocol.server import OpError, serve

    def describe():
        return {"name": "toy", "version": "0", "protocols": [1], "spec": "0.1.2",
                "claims": [], "ops": ["whoami", "count", "refuse", "explode"], "caps": {}}

    def handle(op, args, context):
        if op == "whoami":
            return {"cwd": os.getcwd(), "home": os.environ.get("HOME"),
                    "protocol_env": os.environ.get("MEMOIR_CONFORM_PROTOCOL"),
                    "unbuffered": os.environ.get("PYTHONUNBUFFERED"),
                    "xdg_config": os.environ.get("XDG_CONFIG_HOME"),
                    "memoir_store": os.environ.get("MEMOIR_STORE"),
                    "negotiated": context.protocol}
        if op == "count":
            context.state["n"] = context.state.get("n", 0) + 1
            print("a stray print from the model")
            return {"n": context.state["n"]}
        if op == "refuse":
            raise OpError("invalid_input", "no thanks")
        raise RuntimeError("boom")

    sys.exit(serve(handle, describe))
    '''
)


@pytest.fixture
def toy_command(tmp_path) -> list[str]:
    """A real subprocess adapter running `serve` around a toy handler."""
    script = tmp_path / "toy_adapter.py"
    script.write_text(TOY_ADAPTER, encoding="utf-8")
    return [sys.executable, str(script), str(REPO_ROOT)]
