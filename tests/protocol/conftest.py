"""Fixtures for the adapter protocol tests: a toy server (the fake adapter's are in tests/conftest.py)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parents[2]


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
            return {"cwd": os.getcwd(), "home": os.environ.get("HOME"), "tmpdir": os.environ.get("TMPDIR"),
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
