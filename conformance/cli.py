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
    "spec-feedback": "conformance.feedback.command",
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
    restore = _exit_on_signals()
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        restore()


def _exit_on_signals():
    """Ctrl-C and SIGTERM (what a CI cancel sends) unwind, so that every command cleans up.

    The first signal raises (KeyboardInterrupt, or SystemExit(143) for
    SIGTERM); a second one while the command cleans up (stops its adapters,
    removes its temporary directory) is noted and does not interrupt the
    cleanup, so the exit code stays 130 or 143 and nothing is left behind.
    Returns what puts the previous handlers back (after such a signal it
    ignores both instead: the program is ending, and a late Ctrl-C must not
    change its exit code).
    """
    stopping = []

    def cleaning_up(signum, frame):
        os.write(2, b"memoir-conform: still stopping (cleaning up)\n")

    def interrupted(signum, frame):
        if stopping:  # a second signal that arrived before this handler was replaced
            return cleaning_up(signum, frame)
        stopping.append(signum)
        signal.signal(signal.SIGINT, cleaning_up)
        signal.signal(signal.SIGTERM, cleaning_up)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {number: signal.signal(number, interrupted) for number in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        if stopping:
            # The program ends now: a signal arriving until it is gone must not end it with another
            # code. Ignored, not handled: Python resets its own handlers to the default while exiting.
            for number in previous:
                signal.signal(number, signal.SIG_IGN)
            return
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)

    return restore


if __name__ == "__main__":
    raise SystemExit(main())
