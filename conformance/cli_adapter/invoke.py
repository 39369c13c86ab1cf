"""One protocol request as one command run: arguments in, the protocol's answer out.

`perform()` spells the request's arguments as placeholder values (texts
that a command line cannot carry well also go into files), renders the
template into an argv list (or a quoted `/bin/sh` line), runs it with its
own working directory, environment, stdin and timeout, and reads the
answer the way the template says: JSON on stdout (at a JSON Pointer), a
file the command wrote, or the exit code alone. An exit code the template
maps to `invalid_input` or `unsupported` becomes that protocol error; any
other failure becomes `internal`, with the command's stderr; so does a
usage error (an exit code in `usage_error`, or stderr matching
`usage_error_stderr`, by default a `usage:` line), which a template with a
typo causes and which must never pass for a refusal of the input.

Every command it runs is logged on stderr, so that the runner shows the
exact command line next to a failing vector.
"""

from __future__ import annotations

import ctypes
import importlib.resources
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, TextIO

from conformance.cli_adapter.config import Invocation
from conformance.cli_adapter.ops import OP_ARGS
from conformance.cli_adapter.templates import entries, render_argv, render_shell
from conformance.protocol.server import OpError

SHELL = "/bin/sh"
SHOWN_STDERR_CHARS = 600
SHOWN_STDOUT_CHARS = 200
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


@dataclass(frozen=True)
class Finished:
    """How one command ended."""

    program: str                 # the program run, for messages
    shown: str                   # the command line, for messages and the log
    exit_code: int | None        # None: stopped when its timeout ran out
    stdout: bytes
    stderr: bytes
    seconds: float


def spell(value: object) -> str:
    """An argument's value as placeholder text: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_given(value: object) -> bool:
    return value is not None and value is not False


def placeholder_values(op: str, args: Mapping, workspace: Path, config_dir: Path) -> dict[str, str]:
    """Every placeholder of `op` for this request; files are written into `workspace`."""
    values = {"config_dir": str(config_dir)}
    for arg in OP_ARGS[op]:
        value = args.get(arg.name)
        text = spell(value) if value is not None else ""
        if arg.kind == "session":
            # A replica goes to the command as a file named like the real one.
            path = workspace / arg.name / "session.json"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
            values[arg.name], values[f"{arg.name}_text"] = str(path), text
            continue
        values[arg.name] = text
        if arg.kind in ("text", "json"):
            path = workspace / f"{arg.name}.{'json' if arg.kind == 'json' else 'txt'}"
            if value is not None:
                path.write_bytes(text.encode("utf-8"))
            values[f"{arg.name}_file"] = str(path) if value is not None else ""
    values.setdefault("out", str(workspace / "out"))
    return values


# The folders of session replicas (`{local}`, `{remote}`): kept, emptied, between requests.
_SESSION_FOLDERS = frozenset(arg.name for args in OP_ARGS.values() for arg in args if arg.kind == "session")


class Workspace:
    """Where a request's files go (`_file` placeholders, session replicas, `{out}`): one folder per
    adapter process, empty when a request starts and emptied after it.

    Emptying the folder rather than making a new one and removing it spares a directory
    removal per request (two more for `merge_sessions`), which on some file systems costs
    more than the rest of the adapter's work for the request (3 ms each on ext4 here, see
    benchmarks/README.md); the commands see the same files either way.
    """

    def __init__(self, parent: Path):
        self.parent = parent
        self._path: Path | None = None

    def enter(self) -> Path:
        if self._path is None:
            self._path = Path(tempfile.mkdtemp(prefix="requests-", dir=self.parent))
        return self._path

    def empty(self) -> None:
        """Remove whatever the request or its command left (the session folders stay, emptied)."""
        if self._path is None:
            return
        try:
            for entry in os.scandir(self._path):
                if entry.name in _SESSION_FOLDERS and entry.is_dir(follow_symlinks=False):
                    for inner in os.scandir(entry.path):
                        _remove(inner)
                else:
                    _remove(entry)
        except OSError:
            # Something could not be removed (a command changed permissions, say): start afresh next time.
            self.remove()

    def remove(self) -> None:
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None


def _remove(entry: os.DirEntry) -> None:
    if entry.is_dir(follow_symlinks=False):
        shutil.rmtree(entry.path)
    else:
        os.unlink(entry.path)


def perform(
    invocation: Invocation,
    op: str,
    args: Mapping,
    *,
    config_dir: Path,
    workspace: Workspace,
    default_timeout: float,
    log: TextIO = sys.stderr,
) -> dict:
    """Run `invocation` for one `op` request; the result object, or OpError."""
    try:
        values = placeholder_values(op, args, workspace.enter(), config_dir)
        finished = run(invocation, values, lambda name: _is_given(args.get(name)), config_dir,
                       invocation.timeout or default_timeout, each=lambda name: entries(args.get(name), spell))
        _log(log, op, finished)
        return read_answer(invocation, op, finished, values, config_dir)
    finally:
        workspace.empty()


def run(invocation: Invocation, values: Mapping[str, str], given: Callable[[str], bool], config_dir: Path,
        timeout: float, each: Callable[[str], list[dict[str, str]]] = lambda name: []) -> Finished:
    """Render and run the command; a command that cannot start is an OpError."""
    if invocation.shell_command is not None:
        line = render_shell(invocation.shell_command, values)
        argv, shown = [SHELL, "-c", line], line
    else:
        argv = render_argv(invocation.argv, values, given, each)
        shown = shlex.join(argv)
    program = argv[0]
    cwd = config_dir / invocation.cwd.render(values) if invocation.cwd is not None else None
    env = {**os.environ, **{name: text.render(values) for name, text in invocation.env.items()}}
    stdin = invocation.stdin.render(values).encode("utf-8") if invocation.stdin is not None else None
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
            # Its own process group, so that a timeout stops whatever it started too.
            start_new_session=os.name == "posix",
            preexec_fn=_death_signal(),
        )
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        if "null byte" in reason:
            reason += " (a command line cannot carry a NUL character: pass such a value with a _file placeholder)"
        where = f" in {cwd}" if cwd is not None else ""
        raise OpError("internal", f"{invocation.key}: cannot run {shown}{where}: {reason}") from None
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        _stop(process)
        stdout, stderr = process.communicate()
        code = None
    return Finished(program, shown, code, stdout, stderr, time.monotonic() - started)


def _death_signal() -> Callable[[], None] | None:
    """What the child runs before exec so that it is killed if the adapter dies first (Linux), if anything.

    The command runs in its own process group, out of reach of a runner that
    stops a hung adapter by killing the adapter's group; without this a
    command running at that moment would be left behind. Below the kit's
    reaper (conformance/protocol/reaper.py, the parent of every adapter the
    kit's runner starts on Linux) nothing is needed: the reaper is the child
    subreaper, so the command of an adapter that died is handed to it, and it
    kills whatever the adapter left. Then no function runs in the child, so
    that Python starts the command with vfork, not fork (2 to 3 ms less per
    request here, benchmarks/README.md).
    """
    if sys.platform != "linux":
        return None
    global _REAPER_PID
    if _REAPER_PID is None:
        _REAPER_PID = os.getppid() if _is_the_kits_reaper(os.getppid()) else 0
    # The reaper still the parent: it is alive (an adapter whose parent died has another one).
    return None if _REAPER_PID and os.getppid() == _REAPER_PID else _die_with_parent


_REAPER_PID: int | None = None   # the parent, when it is the kit's reaper; 0 when it is not; None: not known yet


def _is_the_kits_reaper(pid: int) -> bool:
    """Whether process `pid` runs this kit's reaper.py (`python -I -S reaper.py FD -- ADAPTER...`)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = handle.read().split(b"\0")
        script = os.path.realpath(importlib.resources.files("conformance.protocol").joinpath("reaper.py"))
    except (OSError, TypeError):
        return False
    head = argv[:argv.index(b"--")] if b"--" in argv else []
    return any(os.path.realpath(os.fsdecode(arg)) == script for arg in head[1:])


def _die_with_parent() -> None:
    """In the child, before exec: be killed if the adapter dies first."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _resolve_prctl() -> Callable[..., int] | None:
    """prctl(2), looked up once here rather than in every child."""
    if sys.platform != "linux":
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _resolve_prctl()


def _stop(process: subprocess.Popen) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _stderr_text(finished: Finished) -> str:
    text = finished.stderr.decode("utf-8", errors="replace").strip()
    if len(text) > SHOWN_STDERR_CHARS:
        text = "..." + text[-SHOWN_STDERR_CHARS:]
    return f"; stderr: {text}" if text else ""


def read_answer(invocation: Invocation, op: str, finished: Finished, values: Mapping[str, str],
                config_dir: Path) -> dict:
    """The protocol result of a finished command, or the OpError its exit code means."""
    program = finished.program
    if finished.exit_code is None:
        raise OpError("internal", f"{program} did not finish within {finished.seconds:.3g} s and was stopped "
                                  f"(the timeout of {invocation.key}){_stderr_text(finished)}")
    code = finished.exit_code
    if code != 0:
        stderr = finished.stderr.decode("utf-8", errors="replace")
        if code in invocation.usage_error or any(p.search(stderr) for p in invocation.usage_error_stderr):
            # Not a refusal: the command line the template built is wrong (a typo, a missing option).
            raise OpError("internal", f"usage error: {program} rejected the command line {invocation.key} built "
                                      f"(exit code {code}): check the template (usage_error, usage_error_stderr)"
                                      f"{_stderr_text(finished)}")
        if code > 0 and code not in invocation.unsupported and any(p.search(stderr)
                                                                   for p in invocation.invalid_input_stderr):
            raise OpError("invalid_input", f"{program} refused the input (exit code {code}, stderr matches "
                                           f"invalid_input_stderr){_stderr_text(finished)}")
    if code in invocation.invalid_input:
        raise OpError("invalid_input", f"{program} refused the input (exit code {code}){_stderr_text(finished)}")
    if code in invocation.unsupported:
        raise OpError("unsupported", f"{program} does not support {op} (exit code {code}){_stderr_text(finished)}")
    if code < 0:
        raise OpError("internal", f"{program} was killed by signal {-code}{_stderr_text(finished)}")
    if code != 0:
        raise OpError("internal", f"{program} failed with exit code {code}{_stderr_text(finished)}")
    if invocation.result == "exit-code":
        return {}
    if invocation.result == "file":
        path = config_dir / invocation.file.render(values)
        try:
            data, source = path.read_bytes(), f"the file {path}"
        except OSError as error:
            raise OpError("internal", f"{program} exited 0 but its result file {path} cannot be read: "
                                      f"{error.strerror or error}") from None
    else:
        data, source = finished.stdout, "stdout"
    value = _at_pointer(_parse_json(data, program, source), invocation.pointer, program, source)
    if not isinstance(value, dict):
        where = f" at {invocation.pointer}" if invocation.pointer else ""
        raise OpError("internal", f"the JSON {program} wrote to {source}{where} is "
                                  f"{type(value).__name__}, not an object")
    return {"session": value} if op == "merge_sessions" else value


def _parse_json(data: bytes, program: str, source: str) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise OpError("internal", f"{program} wrote {source} that is not UTF-8 "
                                  f"({error.reason} at byte {error.start})") from None
    except ValueError as error:
        shown = data.decode("utf-8", errors="replace").strip()[:SHOWN_STDOUT_CHARS]
        raise OpError("internal", f"{program} wrote {source} that is not JSON ({error}): {shown!r}") from None


def _at_pointer(document: object, pointer: str, program: str, source: str) -> object:
    """RFC 6901: the value `pointer` names inside `document`."""
    if not pointer:
        return document
    value, walked = document, ""
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and (token == "0" or token[0] != "0") \
                and int(token) < len(value):
            value = value[int(token)]
        else:
            here = f"keys {', '.join(map(repr, list(value)[:10]))}" if isinstance(value, dict) else type(value).__name__
            raise OpError("internal", f"the JSON {program} wrote to {source} has nothing at {pointer}: "
                                      f"{walked or 'the top'} holds {here}")
        walked += "/" + token
    return value


def _log(log: TextIO, op: str, finished: Finished) -> None:
    ending = "stopped (timeout)" if finished.exit_code is None else f"exit {finished.exit_code}"
    print(f"[cli-adapter] {op}: {finished.shown} -> {ending} in {finished.seconds:.2f} s", file=log)
    text = finished.stderr.decode("utf-8", errors="replace").rstrip()
    if text:
        print("\n".join(f"  | {line}" for line in text.splitlines()[-20:]), file=log)
    log.flush()
