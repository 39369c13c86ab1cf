"""Argument types and defaults shared by the commands that drive an adapter."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance import resources


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def default_adapter() -> list[str]:
    """The bundled reference adapter, run by this Python."""
    return [sys.executable, str(resources.runners_dir() / "reference" / "adapter.py")]


def add_cli_option(group) -> None:
    """`--cli FILE`: the implementation is a command-line tool driven by the generic CLI adapter."""
    group.add_argument("--cli", metavar="FILE", type=Path,
                       help="test a command-line tool through the generic CLI adapter that FILE configures "
                            "(docs/cli-adapter.md; `memoir-conform init cli` writes one)")


@dataclass(frozen=True)
class ChosenAdapter:
    command: str | list[str]
    timeout: float                     # how long the runner waits for each answer


def chosen_adapter(args, prog: str) -> ChosenAdapter | None:
    """The adapter the options name: `--cli FILE`, `--adapter CMD`, or the bundled reference adapter.

    A `--cli` configuration is checked here, before anything runs; its
    problems (each naming the file and the key) and notes go to stderr
    after `prog`, and None means it cannot be used.
    """
    if getattr(args, "cli", None) is None:
        return ChosenAdapter(args.adapter or default_adapter(), args.timeout)
    from conformance.cli_adapter import adapter_command, runner_timeout
    from conformance.cli_adapter.config import load

    config = load(args.cli)
    if isinstance(config, list):
        print("\n".join([f"{prog}: the --cli configuration cannot be used; nothing was run", *config]), file=sys.stderr)
        return None
    longest = config.longest_timeout()
    timeout = runner_timeout(args.timeout, longest)
    notes = list(config.notes)
    if timeout != args.timeout:
        notes.append(f"waiting up to {timeout:g} s for each answer, as {args.cli} sets a timeout of {longest:g} s")
    for note in notes:
        print(f"{prog}: note: {note}", file=sys.stderr)
    return ChosenAdapter(adapter_command(args.cli, timeout), timeout)
