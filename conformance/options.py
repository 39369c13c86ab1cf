"""Argument types and defaults shared by the commands that drive an adapter."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance import resources


def _whole_number(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1)


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0)


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


def bundled_adapters() -> dict[str, list[str]]:
    """The adapters the kit ships, by the short name `--adapter NAME` takes in every command."""
    runners = resources.runners_dir()
    return {"reference": default_adapter(), "node-example": ["node", str(runners / "node-example" / "adapter.js")]}


def adapter_by_name(command):
    """`command` itself, or the bundled adapter it names (`reference`, `node-example`)."""
    if isinstance(command, str) and command.strip() in bundled_adapters():
        return bundled_adapters()[command.strip()]
    return command


ADAPTER_HELP = ('the adapter command line, for example "node my-adapter.js", or the short name of a bundled '
                'adapter: reference, node-example')


def add_cli_option(group, **extra) -> None:
    """`--cli FILE`: the implementation is a command-line tool driven by the generic CLI adapter
    (`extra`: more add_argument keywords, such as the action of a repeatable option)."""
    group.add_argument("--cli", metavar="FILE", type=Path,
                       help="test a command-line tool through the generic CLI adapter that FILE configures "
                            "(docs/cli-adapter.md; `memoir-conform init cli` writes one)", **extra)


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
        return ChosenAdapter(adapter_by_name(args.adapter) or default_adapter(), args.timeout)
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


# Endings that make an argument a file the adapter command runs.
_SCRIPT_ENDINGS = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".bash", ".rb", ".pl", ".php", ".jar", ".exe", ".toml")


def missing_paths_hint(command: str | list[str]) -> str | None:
    """When an adapter did not start: the files its command names that do not
    exist, as the user typed them (the adapter runs in a scratch directory,
    so its own error would name a path the user never wrote)."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
    except ValueError:
        return None
    if not argv:
        return None
    missing = []
    program = argv[0]
    if ("/" in program or os.sep in program) and not os.path.exists(program):
        missing.append(program)
    elif "/" not in program and shutil.which(program) is None:
        return f"{program!r} is not a program on PATH"
    for token in argv[1:]:
        looks_like_file = "/" in token or os.sep in token or token.lower().endswith(_SCRIPT_ENDINGS)
        if looks_like_file and not token.startswith("-") and not os.path.exists(token):
            missing.append(token)
    if not missing:
        return None
    names = ", ".join(repr(path) for path in missing)
    verb = "does" if len(missing) == 1 else "do"
    return f"the adapter command names {names}, which {verb} not exist (relative to {os.getcwd()})"


def start_failure(message: str, command: str | list[str]) -> str:
    """`message` about an adapter that did not start, with the hint about missing files."""
    hint = missing_paths_hint(command)
    return f"{message}\nhint: {hint}" if hint else message
def add_adapter_limit_options(group) -> None:
    """--sandbox, --adapter-memory, --adapter-cpu and --max-line (docs/adapter-protocol.md, "Limits")."""
    from conformance.protocol import process

    group.add_argument("--sandbox", action="store_true",
                       help="run each adapter in a bubblewrap sandbox: file system read-only except its scratch "
                            "directories, no network (Linux, needs bwrap; `doctor` says whether it works here)")
    group.add_argument("--adapter-memory", metavar="MIB", type=non_negative_int,
                       default=process.DEFAULT_MEMORY_BYTES // process.MiB,
                       help="memory (data) limit of each adapter process in MiB; 0: none "
                            f"(default {process.DEFAULT_MEMORY_BYTES // process.MiB})")
    group.add_argument("--adapter-cpu", metavar="S", type=non_negative_int, default=process.DEFAULT_CPU_SECONDS,
                       help=f"CPU time limit of each adapter process in seconds; 0: none "
                            f"(default {process.DEFAULT_CPU_SECONDS})")
    group.add_argument("--max-line", metavar="MIB", type=positive_int,
                       default=process.DEFAULT_MAX_LINE_BYTES // process.MiB,
                       help="longest response line accepted, in MiB; a longer one is a fault "
                            f"(default {process.DEFAULT_MAX_LINE_BYTES // process.MiB})")


def adapter_limits(args, writable=()):
    """The AdapterLimits the options of `add_adapter_limit_options` ask for."""
    from conformance.protocol.process import MiB, AdapterLimits

    return AdapterLimits(
        max_line_bytes=args.max_line * MiB,
        memory_bytes=args.adapter_memory * MiB or None,
        cpu_seconds=args.adapter_cpu or None,
        sandbox=args.sandbox,
        writable=tuple(writable),
    )
