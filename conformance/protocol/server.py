"""The adapter side of the protocol: a JSON Lines server loop for Python adapters.

`serve(handler, describe)` reads one request per line from stdin and writes
exactly one response per line to stdout, flushing each. It answers
`describe` itself, `unsupported` for ops the adapter does not list,
`invalid_input` for malformed requests, and `internal` (with the exception
message; the traceback goes to stderr, never stdout) when the handler fails
unexpectedly. The reference adapter and the mutants are this loop around a
model; keep it small.
"""

from __future__ import annotations

import io
import json
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TextIO

from conformance.protocol.messages import ERROR_KINDS, InvalidMessage, Request


class OpError(Exception):
    """Raised by a handler to answer with a protocol error of `kind`."""

    def __init__(self, kind: str, message: str):
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}; expected one of {ERROR_KINDS}")
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass
class RequestContext:
    """What a handler knows about the request besides op and args."""

    protocol: int                 # the version the runner negotiated
    request_id: int
    state: dict = field(default_factory=dict)  # shared by every request of this process
    stderr: TextIO = sys.stderr

    def log(self, message: str) -> None:
        """A diagnostic line for the runner's failure report (stderr, never stdout)."""
        print(message, file=self.stderr, flush=True)


Handler = Callable[[str, dict, RequestContext], Any]


def _error(request_id: int | None, kind: str, message: str) -> dict:
    return {"id": request_id, "ok": False, "error": {"kind": kind, "message": message}}


def _protocol_error(exc: BaseException) -> tuple[str, str] | None:
    """(kind, message) if `exc` is a protocol error from any model's own OpError class."""
    kind = getattr(exc, "kind", None)
    if kind in ERROR_KINDS:
        return kind, str(getattr(exc, "message", None) or exc)
    return None


def answer(
    line: str,
    handler: Handler,
    described: Mapping[str, Any],
    state: dict,
    stderr: TextIO,
) -> dict:
    """The response object for one request line."""
    try:
        document = json.loads(line)
    except ValueError as error:
        return _error(None, "invalid_input", f"the request line is not JSON: {error}")
    request_id = document.get("id") if isinstance(document, dict) else None
    if type(request_id) is not int or request_id < 0:
        request_id = None
    try:
        request = Request.from_json(document)
    except InvalidMessage as error:
        return _error(request_id, "invalid_input", f"the request breaks the protocol schema at {error}")
    if request.op == "describe":
        return {"id": request.id, "ok": True, "result": dict(described)}
    spoken = described.get("protocols", [])
    if request.protocol not in spoken:
        return _error(request.id, "invalid_input", f"protocol {request.protocol} is not spoken here; describe offers {spoken}")
    if request.op not in described.get("ops", []):
        return _error(request.id, "unsupported", f"{described.get('name', 'this adapter')} does not implement {request.op!r}")
    context = RequestContext(request.protocol, request.id, state, stderr)
    try:
        result = handler(request.op, dict(request.args), context)
    except Exception as error:  # noqa: BLE001 - any failure becomes an answer, never a dead adapter
        known = _protocol_error(error)
        if known is not None:
            return _error(request.id, *known)
        traceback.print_exc(file=stderr)
        stderr.flush()
        return _error(request.id, "internal", f"{type(error).__name__}: {error}")
    if result is None:
        result = {}
    if not isinstance(result, Mapping):
        return _error(request.id, "internal", f"the handler returned {type(result).__name__}, not an object")
    return {"id": request.id, "ok": True, "result": dict(result)}


def _encode(response: dict) -> str:
    try:
        return json.dumps(response, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        return json.dumps(_error(response.get("id"), "internal", f"the result is not JSON-serializable: {error}"))


def serve(
    handler: Handler,
    describe: Callable[[], Mapping[str, Any]] | Mapping[str, Any],
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Answer requests until end of input; returns the exit code (0)."""
    stdin = stdin if stdin is not None else io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n")
    if stdout is None:
        stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
        # A stray print() in a model must not corrupt the response stream.
        sys.stdout = sys.stderr
    stderr = stderr if stderr is not None else sys.stderr
    described = describe() if callable(describe) else describe
    state: dict = {}
    for line in stdin:
        if not line.strip():
            continue  # a blank line is not a request; answering it would shift every later answer
        stdout.write(_encode(answer(line, handler, described, state, stderr)) + "\n")
        stdout.flush()
    return 0
