"""The CLI adapter process: the protocol server loop around one command per request.

It loads the configuration (exit 2, with every problem on stderr, if it is
not usable), works out the `describe` answer (running the version command
once), and serves requests with `conformance.protocol.server.serve`, so
protocol hygiene (one flushed line per answer, `unsupported` for ops
without a template, exit 0 at end of input) is the kit's, not re-done here.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from conformance.cli_adapter import command_timeout
from conformance.cli_adapter.config import CliConfig, load
from conformance.cli_adapter.invoke import Workspace, perform, run
from conformance.protocol.client import DEFAULT_TIMEOUT
from conformance.protocol.server import OpError, RequestContext, serve

PROG = "memoir-conform cli adapter"


def version_of(config: CliConfig, timeout: float) -> str | OpError:
    """The implementation's version: the config's, or the first line its version command prints
    (without a leading "NAME ")."""
    if config.version_command is None:
        return config.version
    try:
        finished = run(config.version_command, {"config_dir": str(config.config_dir)}, lambda _name: False,
                       config.config_dir, config.version_command.timeout or timeout)
    except OpError as error:
        return error
    lines = finished.stdout.decode("utf-8", errors="replace").strip().splitlines()
    if finished.exit_code != 0 or not lines:
        ending = "was stopped (timeout)" if finished.exit_code is None else f"exited {finished.exit_code}"
        stderr = finished.stderr.decode("utf-8", errors="replace").strip()
        return OpError("internal", f"describe.version_command: {finished.shown} {ending}"
                                   + ("" if lines else " and printed nothing") + (f"; stderr: {stderr}" if stderr else ""))
    # "mytool 1.2.0" is the usual answer to --version: the name is in describe already.
    return lines[0].strip().removeprefix(f"{config.name} ").strip() or lines[0].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Serve the adapter protocol by running the commands "
                                                            "a CLI adapter configuration names (docs/cli-adapter.md).")
    parser.add_argument("config", type=Path)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="the runner's timeout per answer; templates without their own stay under it")
    args = parser.parse_args(argv)
    config = load(args.config, check_programs=False)
    if isinstance(config, list):
        print("\n".join([f"{PROG}: the configuration cannot be used:", *config]), file=sys.stderr)
        return 2
    default_timeout = command_timeout(args.timeout)
    version = version_of(config, default_timeout)
    if isinstance(version, OpError):
        print(f"{PROG}: {version.message}", file=sys.stderr)
        return 2
    workspace = Workspace(Path(os.getcwd()))

    def handle(op: str, op_args: dict, context: RequestContext) -> dict:
        return perform(config.ops[op], op, op_args, config_dir=config.config_dir, workspace=workspace,
                       default_timeout=default_timeout, log=context.stderr)

    try:
        return serve(handle, config.describe(version))
    finally:
        workspace.remove()
