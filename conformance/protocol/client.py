"""The runner's side of the adapter protocol (docs/adapter-protocol.md).

`AdapterClient` starts the adapter, negotiates the protocol version with a
`describe` handshake, and sends requests. `request()` always returns a
value: an `OkResponse`, an `ErrorResponse` (the adapter answered with an
error), or an `AdapterFault` (the adapter broke the protocol). After a fault
the adapter is restarted transparently on the next request, so one bad
vector never spoils the rest of a run.

A second answer to a request that was already answered is charged to that
request, not to the one being waited for: it is recorded in `late_faults`
with the `owner` that was set when the first answer came (the runner sets
the vector id), and the client goes on waiting for the answer it needs.
Any other line the adapter writes after its last answer (read at `close()`,
and in one-shot mode after each process's one answer) is a late fault too,
charged to the owner of that answer; the first MAX_TRAILING_LINES are kept,
and the last of their faults counts the lines dropped after them. An answer
to `describe` has no owner: the handshake is no vector's doing, even when a
vector's request started it (a one-shot client's, a restart's), so what
follows it is a late fault of the describe step (owner None).
"""

from __future__ import annotations

import json
import shlex
import signal
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from conformance.nesting import MAX_DEPTH, nesting_depth
from conformance.protocol.messages import (
    HANDSHAKE_PROTOCOL,
    SUPPORTED_PROTOCOLS,
    AdapterFault,
    Describe,
    ErrorResponse,
    InvalidMessage,
    OkResponse,
    Outcome,
    Request,
    check,
    negotiate,
    parse_response,
    result_definition,
)
from conformance.protocol.process import (
    STDERR_TAIL_BYTES,
    AdapterLimits,
    AdapterProcess,
    LineTooLong,
    StartError,
    adapter_environment,
    resolve_command,
)
from conformance.safe_text import printable

__all__ = ["AdapterClient", "ClientStats", "LateFault", "SUPPORTED_PROTOCOLS", "interpret_line"]

DEFAULT_TIMEOUT = 10.0
# How long a finished adapter gets to exit on its own (end of input, one-shot).
EXIT_GRACE = 2.0
# How long to wait for a dead adapter's last stderr output.
STDERR_SETTLE = 0.5
SHOWN_LINE_CHARS = 200
# How many lines written after the last answer are kept (each one a late fault); later ones are read and dropped.
MAX_TRAILING_LINES = 8


@dataclass
class ClientStats:
    """What happened to the adapter during a run, for the report."""

    starts: int = 0        # processes started (one per request in one-shot mode)
    restarts: int = 0      # persistent-mode restarts after a fault
    requests: int = 0      # request() calls, the describe handshakes not counted
    faults: int = 0
    faults_by_kind: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LateFault:
    """A fault found after its request was done: charged to `owner` (a vector id, for the runner;
    None when it followed the describe handshake, or no answer at all: a fault of the run)."""

    owner: str | None
    fault: AdapterFault


class AdapterClient:
    """Talks to one adapter command, persistent (default) or one-shot."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        oneshot: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        workdir: Path,
        limits: AdapterLimits = AdapterLimits(),
    ):
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.argv = resolve_command(command)
        self.oneshot = oneshot
        self.timeout = timeout
        self.limits = limits
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        # One scratch directory per client, kept across restarts: a restart
        # is a recovery, and an implementation that keeps a machine id under
        # HOME should keep being the same machine.
        self.scratch_dir = Path(tempfile.mkdtemp(prefix="adapter-", dir=workdir))
        self.home_dir = self.scratch_dir / "home"
        self.home_dir.mkdir()
        self.tmp_dir = self.scratch_dir / "tmp"
        self.tmp_dir.mkdir()
        self.env = adapter_environment(self.home_dir, tmp=self.tmp_dir)
        self.stats = ClientStats()
        self.owner: str | None = None   # who is charged for what this client's requests cause
        self.late_faults: list[LateFault] = []
        self._answered: dict[int, tuple[str, str | None]] = {}  # by the current process: id -> (op, owner)
        self._repeated: set[int] = set()                          # ids of those answered more than once
        self.described: Describe | None = None
        self.protocol: int | None = None
        self.last_exit_code: int | None = None
        self._next_id = 1
        self._process: AdapterProcess | None = None
        self._last_stderr = ""
        self._capture: _StderrCapture | None = None

    # -- public API ---------------------------------------------------------

    def describe(self) -> Describe | AdapterFault:
        """Handshake: ask the adapter who it is and negotiate the protocol version.

        In persistent mode this (re)starts the adapter if it is not running.
        """
        request = Request(HANDSHAKE_PROTOCOL, self._take_id(), "describe", {})
        if self.oneshot:
            outcome = self._oneshot_exchange(request, self.timeout)
        else:
            started = self._ensure_process()
            if isinstance(started, AdapterFault):
                return self._record(started)
            outcome = self._send_and_read(self._process, request, self.timeout)
        described = self._negotiate(outcome)
        if isinstance(described, AdapterFault):
            self._discard_process()
            return self._record(described)
        self.described = described
        self.protocol = negotiate(described.protocols)
        return described

    def request(self, op: str, args: Mapping[str, Any] | None = None, timeout: float | None = None) -> Outcome:
        """Send one request; never raises for adapter misbehaviour."""
        self.stats.requests += 1
        timeout = self.timeout if timeout is None else timeout
        process_gone = self._process is None or self._process.returncode is not None
        if self.described is None or (not self.oneshot and process_gone):
            handshake = self.describe()
            if isinstance(handshake, AdapterFault):
                return handshake
        request = Request(self.protocol, self._take_id(), op, dict(args or {}))
        if self.oneshot:
            outcome = self._oneshot_exchange(request, timeout)
        else:
            outcome = self._send_and_read(self._process, request, timeout)
            if isinstance(outcome, AdapterFault):
                self._discard_process()
        if isinstance(outcome, AdapterFault):
            self._record(outcome)
        return outcome

    def stderr_tail(self) -> str:
        """The last few KiB the adapter wrote to stderr (current or last process)."""
        if self._process is not None:
            return self._process.stderr_tail()
        return self._last_stderr

    def start_stderr_capture(self) -> None:
        """From now on, keep what the adapter writes to stderr, across restarts and one-shot processes."""
        self._capture = _StderrCapture(self._process)

    def take_stderr_capture(self) -> str:
        """What the adapter wrote to stderr since `start_stderr_capture` (its last few KiB); stops capturing."""
        capture, self._capture = self._capture, None
        if capture is None:
            return ""
        if self._process is not None:
            capture.ended(self._process)
        return capture.text()

    def close(self) -> None:
        """End of input: give the adapter EXIT_GRACE seconds to exit, then stop it and all it started.

        Every line it wrote after its last awaited answer is a late fault:
        a repeated answer, or a line nobody asked for.
        """
        process, self._process = self._process, None
        if process is not None:
            self._finish(process)

    def __enter__(self) -> AdapterClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- internals ------------------------------------------------------------

    def _take_id(self) -> int:
        request_id, self._next_id = self._next_id, self._next_id + 1
        return request_id

    def _record(self, fault: AdapterFault) -> AdapterFault:
        self.stats.faults += 1
        self.stats.faults_by_kind[fault.kind] = self.stats.faults_by_kind.get(fault.kind, 0) + 1
        return fault

    def _spawn(self) -> AdapterProcess | AdapterFault:
        try:
            process = AdapterProcess(self.argv, cwd=self.scratch_dir, env=self.env, limits=self.limits)
        except StartError as error:
            return AdapterFault("start_failed", str(error))
        self.stats.starts += 1
        self._answered, self._repeated = {}, set()
        return process

    def _ensure_process(self) -> None | AdapterFault:
        if self._process is not None and self._process.returncode is None:
            return None
        if self._process is not None:
            self._discard_process()
        if self.stats.starts:
            self.stats.restarts += 1
        process = self._spawn()
        if isinstance(process, AdapterFault):
            return process
        self._process = process
        return None

    def _discard_process(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            self._discard(process)

    def _discard(self, process: AdapterProcess) -> None:
        """Stop `process` and all it started, release it, and keep its last stderr."""
        process.kill()
        self._last_stderr = process.stderr_tail(settle=STDERR_SETTLE)
        self._captured(process)

    def _captured(self, process: AdapterProcess) -> None:
        """A process is gone: keep what it wrote while capturing."""
        if self._capture is not None:
            self._capture.ended(process)

    def _negotiate(self, outcome: Outcome) -> Describe | AdapterFault:
        if isinstance(outcome, AdapterFault):
            return outcome
        if isinstance(outcome, ErrorResponse):
            return AdapterFault(
                "start_failed",
                f"describe was answered with an error ({outcome.kind}: {outcome.message}); "
                "every adapter must answer describe",
                self.stderr_tail(),
            )
        try:
            described = Describe.from_json(outcome.result, at="/result")
        except InvalidMessage as error:
            return AdapterFault(
                "bad_message", printable(f"the describe result breaks the protocol schema at {error}"),
                self.stderr_tail(),
            )
        if negotiate(described.protocols) is None:
            return AdapterFault(
                "start_failed",
                f"no shared protocol version: the adapter speaks {list(described.protocols)}, "
                f"this runner speaks {list(SUPPORTED_PROTOCOLS)}; "
                "update memoir-conform or make the adapter also offer protocol 1",
                self.stderr_tail(),
            )
        return described

    def _oneshot_exchange(self, request: Request, timeout: float) -> Outcome:
        """One-shot mode: a fresh process, one request, end of input, one answer."""
        process = self._spawn()
        if isinstance(process, AdapterFault):
            return process
        try:
            outcome = self._send_and_read(process, request, timeout, close_input=True)
        except BaseException:
            self._discard(process)
            raise
        if isinstance(outcome, AdapterFault):
            self._discard(process)   # stopped for the fault it is charged with: what follows is not read
        else:
            self._finish(process)    # what it writes after its one answer is charged as in persistent mode
        return outcome

    def _finish(self, process: AdapterProcess) -> None:
        """End of input for a process that answered: EXIT_GRACE for it to exit, reading what it still writes
        meanwhile (bounded as every answer is, at most MAX_TRAILING_LINES of it kept, the rest counted), then
        stop it and all it started. Each line after its last answer is a late fault of that answer's owner."""
        deadline = time.monotonic() + EXIT_GRACE
        process.close_stdin()
        # Read while waiting: an adapter that writes more than a pipe holds would block and never exit,
        # and a line over the limit is only seen as such while it is being written.
        trailing, dropped = process.drain(EXIT_GRACE, MAX_TRAILING_LINES)
        self.last_exit_code = process.wait(max(deadline - time.monotonic(), 0.0))
        process.stop()
        more, more_dropped = process.drain(STDERR_SETTLE, MAX_TRAILING_LINES - len(trailing))  # written as it was stopped
        trailing, dropped = trailing + more, dropped + more_dropped
        stderr_tail = process.stderr_tail(settle=STDERR_SETTLE)
        noted = len(self.late_faults)
        for line in trailing:
            if isinstance(line, LineTooLong):
                self._note_trailing(b"", line, stderr_tail)
                continue
            document = decode_line(line)
            if not self._note_repeat(line, document, stderr_tail=stderr_tail):   # the process is no longer current
                self._note_trailing(line, document, stderr_tail)
        if dropped:
            self._note_dropped(dropped, noted, stderr_tail)
        self._discard(process)

    def _note_dropped(self, dropped: int, noted: int, stderr_tail: str) -> None:
        """Say how many trailing lines were read and dropped after the kept ones: in the last of their faults
        (a count, not a fault each: a flood costs a few faults however long it is)."""
        lines = f"{dropped} more line{'s' if dropped != 1 else ''}"
        if len(self.late_faults) > noted:
            last = self.late_faults[-1]
            detail = f"{last.fault.detail}; … and {lines} after it (read and dropped)"
            self.late_faults[-1] = LateFault(last.owner, replace(last.fault, detail=detail))
        else:   # every kept line repeated an answer already charged: the count still needs saying
            self._note_trailing(b"", _Dropped(f"{lines} after the kept ones (read and dropped)"), stderr_tail)

    def _send_and_read(
        self, process: AdapterProcess, request: Request, timeout: float, close_input: bool = False
    ) -> Outcome:
        """One request line out, one response line back, both within `timeout`."""
        # A request that breaks the schema is a bug in the runner, not in the
        # adapter: let it raise.
        check("request", request.to_json())
        deadline = time.monotonic() + timeout
        where = f"request {request.id} ({request.op})"
        try:
            process.send(request.to_line(), timeout)  # a broken pipe shows up as end of output below
        except TimeoutError:
            process.kill()
            return AdapterFault(
                "timeout",
                f"could not write {where} within {timeout:g} s: the adapter stopped reading its input; "
                "it was stopped",
                process.stderr_tail(settle=STDERR_SETTLE),
            )
        if close_input:
            process.close_stdin()
        while True:
            try:
                line = process.read_line(deadline - time.monotonic())
            except TimeoutError:
                process.kill()
                return AdapterFault(
                    "timeout",
                    f"no answer to {where} within {timeout:g} s; the adapter was stopped",
                    process.stderr_tail(settle=STDERR_SETTLE),
                )
            except LineTooLong as error:
                process.kill()
                return AdapterFault(
                    "too_long",
                    f"the answer to {where} is {error}; the adapter was stopped",
                    process.stderr_tail(settle=STDERR_SETTLE),
                )
            if line is None:
                return self._crashed(process, where)
            document = decode_line(line)
            if not self._note_repeat(line, document, request):
                break
        outcome = interpret_document(line, document, request, process.stderr_tail())
        if not isinstance(outcome, AdapterFault):
            # The handshake belongs to no vector, whichever vector's request made it happen.
            self._answered[request.id] = (request.op, None if request.op == "describe" else self.owner)
        return outcome

    def _note_repeat(self, line: bytes, document: object, waiting: Request | None = None,
                     stderr_tail: str | None = None) -> bool:
        """True if `line` answers a request this process already answered (recorded once as a late fault)."""
        answered = document.get("id") if isinstance(document, dict) else None
        if type(answered) is not int or answered not in self._answered:
            return False
        if answered in self._repeated:
            return True  # one fault per request, however often it is answered again
        self._repeated.add(answered)
        op, owner = self._answered[answered]
        waited = f" while request {waiting.id} ({waiting.op}) waited for its own" if waiting else " after its last request"
        shown = printable(line.decode("utf-8", errors="replace").rstrip("\r\n")[:SHOWN_LINE_CHARS])
        fault = AdapterFault("repeated_answer",
                             f"request {answered} ({op}) was answered a second time{waited}: {shown!r}; "
                             "write exactly one response line per request",
                             self.stderr_tail() if stderr_tail is None else stderr_tail)
        self.late_faults.append(LateFault(owner, self._record(fault)))
        return True

    def _note_trailing(self, line: bytes, document: object, stderr_tail: str) -> None:
        """Charge a line written after the last answer, one that answers nothing, to that answer's owner."""
        if self._answered:
            answered, (op, owner) = next(reversed(self._answered.items()))
            after = f"after its answer to request {answered} ({op}), its last,"
        else:
            owner, after = self.owner, "before any answer, at end of input,"
        if isinstance(document, LineTooLong):
            kind, what = "too_long", f"{document} (not shown)"
        elif isinstance(document, _Dropped):
            kind, what = "bad_message", f"answering no request: {document}"
        elif isinstance(document, TooDeep):
            kind, what = "bad_message", f"of {document.msg}"
        elif isinstance(document, ValueError):   # UnicodeDecodeError included
            kind, what = "not_json", "that is not JSON"
        else:
            kind, what = "bad_message", "that answers no request"
        shown = printable(line.decode("utf-8", errors="replace").rstrip("\r\n")[:SHOWN_LINE_CHARS])
        fault = AdapterFault(kind, f"{after} the adapter wrote a line {what}" + (f": {shown!r}" if line else "") + "; "
                             "stdout must carry exactly one response line per request (send logs to stderr)",
                             stderr_tail)
        self.late_faults.append(LateFault(owner, self._record(fault)))

    def _crashed(self, process: AdapterProcess, where: str) -> AdapterFault:
        code = process.wait(1.0)
        if code is None:
            process.kill()
            what = "closed its stdout"
        elif code < 0:
            what = f"was killed by {_signal_name(-code)}"
        else:
            what = f"exited with code {code}"
        return AdapterFault(
            "crashed",
            f"the adapter {what} before answering {where}",
            process.stderr_tail(settle=STDERR_SETTLE),
        )


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    limits = {"SIGXCPU": " (its CPU time limit)", "SIGKILL": " (perhaps out of memory or stopped)"}
    return name + limits.get(name, "")


class TooDeep(ValueError):
    """A line whose JSON nests arrays and objects deeper than MAX_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"JSON nested more than {MAX_DEPTH} levels deep")
        self.msg = str(self)


def decode_line(line: bytes) -> object:
    """The JSON document on one stdout line, or a `ValueError`/`UnicodeDecodeError` for what
    it is instead (`TooDeep` for nesting past MAX_DEPTH: never a RecursionError)."""
    try:
        document = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return error
    except RecursionError:
        return TooDeep()
    return TooDeep() if nesting_depth(document) > MAX_DEPTH else document


class _Dropped(str):
    """Trailing lines counted, not kept (`_note_dropped`): what `_note_trailing` says of them."""


class _StderrCapture:
    """The stderr of every adapter process from one moment on (a vector's run)."""

    def __init__(self, running: AdapterProcess | None):
        self.start = (running, running.stderr_mark()) if running is not None else None
        self.parts: list[str] = []

    def ended(self, process: AdapterProcess) -> None:
        mark = self.start[1] if self.start is not None and self.start[0] is process else 0
        self.parts.append(process.stderr_since(mark))

    def text(self) -> str:
        return "".join(self.parts)[-STDERR_TAIL_BYTES:]


def interpret_line(line: bytes, request: Request, stderr_tail: str = "") -> Outcome:
    """What one stdout line says in answer to `request`: a response or a fault."""
    return interpret_document(line, decode_line(line), request, stderr_tail)


def interpret_document(line: bytes, document: object, request: Request, stderr_tail: str = "") -> Outcome:
    """`interpret_line` for a line already decoded by `decode_line`."""

    def fault(kind: str, detail: str) -> AdapterFault:
        return AdapterFault(kind, printable(detail), stderr_tail)

    where = f"answer to request {request.id} ({request.op})"
    if isinstance(document, UnicodeDecodeError):
        return fault("not_json", f"{where} is not UTF-8 text ({document.reason} at byte {document.start})")
    shown = line.decode("utf-8").rstrip("\r\n")[:SHOWN_LINE_CHARS]
    if isinstance(document, TooDeep):
        return fault("bad_message", f"{where} is {document.msg}; the protocol's messages are shallow")
    if isinstance(document, ValueError):
        message = getattr(document, "msg", str(document))
        return fault(
            "not_json",
            f"{where} is not JSON ({message}): {shown!r}; "
            "stdout must carry only response lines (send logs to stderr)",
        )
    if isinstance(document, dict) and "id" in document:
        answered = document["id"]
        if answered is None or (type(answered) is int and answered != request.id):
            return fault("wrong_id", f"{where} carries id {json.dumps(answered)}, expected {request.id}: {shown!r}")
    try:
        response = parse_response(document)
        definition = result_definition(request.op)
        if isinstance(response, OkResponse) and definition is not None:
            check(definition, response.result, at="/result")
    except InvalidMessage as error:
        return fault("bad_message", f"{where} breaks the protocol schema at {error}")
    return response
