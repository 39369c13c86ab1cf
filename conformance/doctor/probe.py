"""One adapter process watched on its raw stdout, and what a doctor check says.

`Probe` sends requests to the adapter, persistent or one-shot, and reads
back the raw lines (an answer that came late, a line nobody asked for, an
exit); `Check` is one line of doctor's report; `_reply_problem` names the
stream problem of a reply. The hygiene checks (`conformance.doctor.command`)
and the smoke tests (`conformance.doctor.smoke`) both build on this module.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from conformance.protocol.client import EXIT_GRACE, decode_line, interpret_line
from conformance.protocol.messages import HANDSHAKE_PROTOCOL, AdapterFault, Request
from conformance.protocol.process import AdapterLimits, AdapterProcess, LineTooLong, adapter_environment

Status = Literal["PASS", "FAIL", "WARN", "SKIP"]

# How long stdout must stay quiet after an answer for it to count as clean.
QUIET_GRACE = 0.3
# After a timeout, how long to wait for an answer held back until end of input.
LATE_GRACE = 1.0

FIX_STDOUT = "write only response lines to stdout and send logs to stderr"
FIX_FLUSH = "flush stdout after every response line (for example print(..., flush=True) or fflush(stdout))"
FIX_ANSWER = "read one request line, write exactly one response line, and do not wait for more input first"
FIX_ONESHOT = ("it exits after its first answer, as a one-shot adapter does: run with --oneshot "
               "(doctor and run), or keep reading requests until end of input")


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    summary: str
    fix: str = ""

    def line(self) -> str:
        """One line; a summary of several lines (a command's stderr) goes on below it, as text."""
        first, *rest = self.summary.rstrip("\n").split("\n")
        text = f"{self.status:<4}  {self.name:<16} {first}"
        if self.fix and self.status in ("FAIL", "WARN"):
            text += f" -- fix: {self.fix}"
        return "\n".join([text, *(f"{'':6}| {line}" for line in rest)])


@dataclass
class Reply:
    """What came back on stdout for one request."""

    line: bytes | None = None            # the answer line, if one arrived in time
    outcome: object = None               # interpret_line() of it
    extra_line: bytes | None = None      # one-shot: a line after the answer
    problem: str | None = None           # "timeout", "late" (arrived after stdin closed) or "exited"
    exit_code: int | None = None


class Probe:
    """Talks raw lines to the adapter, persistent or one-shot, for the checks."""

    def __init__(self, argv: list[str], scratch: Path, timeout: float, oneshot: bool,
                 limits: AdapterLimits = AdapterLimits()):
        self.argv = argv
        self.scratch = scratch
        home, tmp = scratch / "home", scratch / "tmp"
        home.mkdir(exist_ok=True)
        tmp.mkdir(exist_ok=True)
        self.env = adapter_environment(home, tmp=tmp)
        self.timeout = timeout
        self.oneshot = oneshot
        self.limits = limits
        self.process: AdapterProcess | None = None
        self.stderr = ""
        self.failure_stderr = ""  # stderr of the first process that misbehaved
        self.stalled = False  # an answer never came: later checks would only wait again
        self.exit_codes: list[int | None] = []  # one-shot: how each process ended
        self.answered: set[int] = set()  # ids the current process answered

    def start(self) -> AdapterProcess:
        """A fresh adapter process (StartError if it cannot be started)."""
        self.stop()
        self.process = AdapterProcess(self.argv, cwd=self.scratch, env=self.env, limits=self.limits)
        self.answered = set()
        return self.process

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.stderr = self.process.stderr_tail(settle=0.5) or self.stderr
            self.process = None

    def roundtrip(self, request: Request) -> Reply:
        """Send `request`, read its answer (StartError if the adapter cannot start).

        Persistent mode reuses the running process; a fresh one first gets
        the describe handshake, as the runner would send it.
        """
        if not self.oneshot and self.process is None and request.op != "describe":
            warmup = self._exchange(Request(HANDSHAKE_PROTOCOL, 1, "describe", {}))
            if warmup.problem or isinstance(warmup.outcome, AdapterFault):
                return warmup
        return self._exchange(request)

    def _exchange(self, request: Request) -> Reply:
        process = self.start() if self.oneshot or self.process is None else self.process
        reply = Reply()
        try:
            process.send(request.to_line(), self.timeout)
            if self.oneshot:
                process.close_stdin()
            reply.line = process.read_line(self.timeout)
        except LineTooLong as error:
            reply.outcome = AdapterFault("too_long", f"the answer to request {request.id} ({request.op}) is {error}")
        except TimeoutError:
            reply.problem = "timeout"
            self.stalled = True
            if not self.oneshot:
                # Did the answer sit in a buffer? Closing stdin makes most
                # runtimes flush on their way out.
                process.close_stdin()
                try:
                    reply.line = process.read_line(LATE_GRACE)
                except TimeoutError:
                    pass
                if reply.line:
                    reply.problem = "late"
        if reply.line is None and reply.problem is None and reply.outcome is None:
            reply.problem = "exited"
            reply.exit_code = process.wait(1.0)
        if reply.line is not None:
            reply.outcome = interpret_line(reply.line, request)
            repeated = decode_line(reply.line)
            repeated = repeated.get("id") if isinstance(repeated, dict) else None
            if isinstance(reply.outcome, AdapterFault) and type(repeated) is int and repeated in self.answered:
                reply.outcome = AdapterFault("repeated_answer", f"request {repeated} was answered a second time "
                                                                f"instead of request {request.id} ({request.op})")
            elif not isinstance(reply.outcome, AdapterFault):
                self.answered.add(request.id)
        if self.oneshot and reply.problem is None:
            started = time.monotonic()
            try:
                reply.extra_line = process.read_line(EXIT_GRACE)
            except TimeoutError:
                pass
            reply.exit_code = process.wait(max(0.0, EXIT_GRACE - (time.monotonic() - started)))
            self.exit_codes.append(reply.exit_code)
        failed = reply.problem is not None or isinstance(reply.outcome, AdapterFault)
        if failed or self.oneshot:
            # After a fault the stream may be out of step: start afresh.
            self.stop()
        if failed and not self.failure_stderr:
            self.failure_stderr = self.stderr
        return reply

    def quiet(self, grace: float = QUIET_GRACE) -> bytes | None:
        """A line that arrives on stdout within `grace` seconds without being asked for."""
        if self.process is None:
            return None
        try:
            return self.process.read_line(grace)
        except TimeoutError:
            return None


def _shown(line: bytes) -> str:
    return repr(line.decode("utf-8", errors="replace").rstrip("\r\n")[:120])


def _is_id_problem(fault: AdapterFault) -> bool:
    """A wrong id, or an id that is not an integer (`1.0` and `1e0` are not)."""
    return fault.kind == "wrong_id" or (fault.kind == "bad_message" and " at /id: " in fault.detail)


def _reply_problem(reply: Reply, what: str, timeout: float, oneshot: bool = False) -> Check | None:
    """A FAIL check named after the stream problem in `reply`, or None."""
    if reply.problem == "late":
        return Check("flushes", "FAIL", f"the answer to {what} arrived only after stdin was closed", FIX_FLUSH)
    if reply.problem == "timeout":
        return Check("answers", "FAIL", f"no answer to {what} within {timeout:g} s", FIX_ANSWER)
    if reply.problem == "exited":
        code = "an unknown code" if reply.exit_code is None else f"code {reply.exit_code}"
        # In persistent mode a process always answered something (describe) first.
        fix = (FIX_ONESHOT if reply.exit_code == 0 and not oneshot else "see its stderr below")
        return Check("answers", "FAIL", f"the adapter exited with {code} instead of answering {what}", fix)
    outcome = reply.outcome
    if isinstance(outcome, AdapterFault) and outcome.kind == "not_json":
        return Check("clean-stdout", "FAIL", f"stdout carried {_shown(reply.line)} instead of the answer to {what}",
                     FIX_STDOUT)
    if isinstance(outcome, AdapterFault) and outcome.kind == "repeated_answer":
        return Check("clean-stdout", "FAIL", outcome.detail, "write exactly one response line per request")
    if isinstance(outcome, AdapterFault) and outcome.kind == "too_long":
        return Check("response-shape", "FAIL", outcome.detail, "keep each response line under the limit")
    if isinstance(outcome, AdapterFault) and _is_id_problem(outcome):
        return Check("echoes-ids", "FAIL", outcome.detail,
                     "copy the request's id into its response unchanged, as an integer")
    if isinstance(outcome, AdapterFault):
        return Check("response-shape", "FAIL", outcome.detail, "see the response shape in docs/adapter-protocol.md")
    return None
