"""The generic CLI adapter: test a command-line implementation with no adapter to write.

A small TOML file (docs/cli-adapter.md) maps each protocol op to a command
template and says how its result is read. `memoir-conform run --cli FILE`
(and `doctor`, `fuzz`) starts `adapter_command(FILE)`, a real adapter
process that speaks the protocol through `conformance.protocol.server` and
runs one command per request, so the runner treats it like any adapter.

- `config`: loading and checking the file (every problem named by its key);
- `templates`: placeholder strings and `if` tables, rendered without a shell;
- `invoke`: one request as one command run, and its answer;
- `adapter`: the adapter process; `command`: `memoir-conform init cli`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def adapter_command(config: Path, timeout: float) -> list[str]:
    """The adapter command line for the configuration `config`, for a runner waiting `timeout` s per answer.

    The adapter runs as a file rather than `-m`, so that it finds this
    package from the scratch directory it runs in, installed or not.
    """
    main = Path(__file__).resolve().with_name("__main__.py")
    # `--timeout=S` in one token: the runner makes an argument that names an
    # existing file absolute, and a bare `10` could.
    return [sys.executable, str(main), str(Path(config).resolve()), f"--timeout={timeout:g}"]


def command_timeout(runner_timeout: float) -> float:
    """The timeout of a template that sets none: room left to stop it and answer in time."""
    return max(runner_timeout - 1.0, runner_timeout / 2)


def runner_timeout(requested: float, longest_template: float | None) -> float:
    """How long the runner must wait for an answer, so that a template's own timeout fires first."""
    return max(requested, longest_template + 2.0) if longest_template else requested
