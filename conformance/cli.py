"""The `memoir-conform` command line: one subcommand per job.

Each subcommand lives in the module `COMMANDS` names, which exposes
``register(subparsers)``; registering adds an argparse sub-parser whose
``handler`` default is a function ``(args) -> int`` returning the exit code.
Exit codes across the kit: 0 success, 1 the check failed, 2 usage or
start-up error (141 when stdout was closed early, as by `| head`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from conformance import SPEC_VERSION, __version__

# Which module registers each subcommand. Only the module of the subcommand
# asked for is imported, so that `validate` does not pay for hypothesis and
# `run` does not pay for the validator; `--help` imports them all.
COMMANDS = {
    "run": "conformance.runner.command",
    "doctor": "conformance.doctor.command",
    "validate": "conformance.validator.command",
    "rules": "conformance.validator.command",
    "vectors": "conformance.corpus.command",
    "coverage": "conformance.corpus.command",
    "mutants": "conformance.mutants.command",
    "model-mutation": "conformance.model_mutation.command",
    "fuzz": "conformance.fuzz.command",
    "init": "conformance.cli_adapter.command",
    "report": "conformance.site.command",
    "merge-reports": "conformance.report.merge_reports",
}
EXIT_OUTPUT_CLOSED = 141   # 128 + SIGPIPE, as a shell reports a process that a closed pipe ended


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memoir-conform",
        description=(
            f"Conformance suite and validator for the memoir format (spec v{SPEC_VERSION}). "
            "Exit codes: 0 success, 1 check failed, 2 usage or start-up error."
        ),
    )
    parser.add_argument("--version", action="version", version=f"memoir-conform {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    asked = next((arg for arg in (argv or []) if not arg.startswith("-")), None)
    modules = [COMMANDS[asked]] if asked in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module_name in modules:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        return _output_closed()


def _output_closed() -> int:
    """The reader of stdout went away (`memoir-conform run --list | head`): stop
    quietly, with the exit code of a process that SIGPIPE ended."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit must not fail again
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file (an embedding program's stream)
        pass
    return EXIT_OUTPUT_CLOSED


def _main(argv: list[str] | None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    restore = _exit_on_sigterm()
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        restore()


def _exit_on_sigterm():
    """SIGTERM (what a CI cancel sends) unwinds like Ctrl-C, so that every command cleans up.

    Returns what puts the previous handler back.
    """
    def terminated(signum, frame):
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, terminated)
    return lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


if __name__ == "__main__":
    raise SystemExit(main())
