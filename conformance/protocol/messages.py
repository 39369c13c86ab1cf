"""The adapter protocol's messages as typed values (docs/adapter-protocol.md).

Requests go from the runner to an adapter; `OkResponse` and `ErrorResponse`
come back. `AdapterFault` is what the runner records when the adapter did
not keep the protocol (no answer, a crash, a line that is not JSON, ...):
faults are values, never exceptions, so a misbehaving adapter can never
stop a run.

Every message is checked against `schema/adapter-protocol.schema.json`
(one `$defs` entry per message). A violation is reported as an
`InvalidMessage` naming the JSON Pointer of the offending value, which the
client turns into `AdapterFault("bad_message", ...)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Literal, Mapping, Union


from conformance.resources import load_schema
from conformance.safe_text import printable

SCHEMA_FILE = "adapter-protocol.schema.json"

# Protocol versions this runner speaks. Negotiation picks the highest
# version both sides share (docs/adapter-protocol.md, "Negotiation").
SUPPORTED_PROTOCOLS: tuple[int, ...] = (1,)
# The describe handshake always travels as protocol 1: its shape is frozen
# so that any adapter, old or new, can answer it before negotiation.
HANDSHAKE_PROTOCOL = 1

ErrorKind = Literal["unsupported", "invalid_input", "internal"]
ERROR_KINDS: tuple[str, ...] = ("unsupported", "invalid_input", "internal")

FaultKind = Literal["timeout", "crashed", "not_json", "too_long", "wrong_id", "repeated_answer", "bad_message",
                    "start_failed", "outside_scratch"]
FAULT_KINDS: tuple[str, ...] = ("timeout", "crashed", "not_json", "too_long", "wrong_id", "repeated_answer",
                                "bad_message", "start_failed", "outside_scratch")

# Conformance levels an adapter may claim (spec 8), lowest first.
LEVELS: tuple[str, ...] = ("reader", "writer", "full")


class InvalidMessage(ValueError):
    """A message that breaks the protocol schema; `pointer` locates the problem."""

    def __init__(self, pointer: str, problem: str):
        super().__init__(f"{pointer or '/'}: {problem}")
        self.pointer = pointer
        self.problem = problem


@cache
def _validator(definition: str):
    # Imported here: adapters built on `server.py` never validate, and
    # importing jsonschema is most of an adapter's start-up time.
    from conformance import linear_schema

    schema = load_schema(SCHEMA_FILE)
    if definition not in schema["$defs"]:
        raise KeyError(f"{SCHEMA_FILE} has no $defs entry {definition!r}")
    return linear_schema.validator({**schema, "$ref": f"#/$defs/{definition}"})


@cache
def _error_finder(definition: str):
    from conformance import schema_errors

    return schema_errors.error_finder({**load_schema(SCHEMA_FILE), "$ref": f"#/$defs/{definition}"})


def has_definition(definition: str) -> bool:
    return definition in load_schema(SCHEMA_FILE)["$defs"]


def _pointer(parts) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def check(definition: str, instance: Any, *, at: str = "") -> None:
    """Raise `InvalidMessage` if `instance` violates `$defs/<definition>`.

    `at` is the pointer of `instance` inside the whole message, so that the
    reported location is the one the adapter author sees in their output.
    jsonschema is asked only when the error finder (conformance.schema_errors)
    is not sure the message is valid: every request and answer is checked.
    """
    if _error_finder(definition)(instance) == []:
        return
    from jsonschema.exceptions import best_match

    error = best_match(_validator(definition).iter_errors(instance))
    if error is not None:
        raise InvalidMessage(at + _pointer(error.absolute_path), error.message)


def require_integer(value: Any, pointer: str) -> None:
    """Raise `InvalidMessage` unless `value` is an integer in JSON's own sense.

    JSON Schema counts `1.0` as an integer, but an id or a version is JSON
    digits without a fraction or an exponent, and never a boolean. Python's
    parser turns `1.0` and `1e0` into floats, so the type tells them apart.
    """
    if type(value) is not int:
        raise InvalidMessage(pointer, f"{json.dumps(value)} is not an integer (JSON digits without a fraction or an exponent)")


@dataclass(frozen=True)
class Request:
    protocol: int
    id: int
    op: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"protocol": self.protocol, "id": self.id, "op": self.op, "args": dict(self.args)}

    def to_line(self) -> str:
        """The request as one line of JSON Lines, newline included."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, document: Any) -> Request:
        check("request", document)
        for key in ("protocol", "id"):
            require_integer(document[key], f"/{key}")
        return cls(document["protocol"], document["id"], document["op"], document["args"])


@dataclass(frozen=True)
class Describe:
    """The adapter's answer to `describe`: who it is and what it claims."""

    name: str
    version: str
    protocols: tuple[int, ...]
    spec: str
    claims: tuple[str, ...]
    ops: tuple[str, ...]
    caps: Mapping[str, int]
    # Where the spec offers a choice, the one this implementation made
    # (docs/adapter-protocol.md, extension E14); absent: the spec's first option.
    choices: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # Optional reports of read_store the adapter gives (extension E15), e.g. `entry_live`.
    reports: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, document: Any, *, at: str = "") -> Describe:
        check("describe.result", document, at=at)
        for index, version in enumerate(document["protocols"]):
            require_integer(version, f"{at}/protocols/{index}")
        for name, cap in document["caps"].items():
            require_integer(cap, f"{at}/caps{_pointer([name])}")
        return cls(
            name=printable(document["name"]),  # shown in every report
            version=printable(document["version"]),
            protocols=tuple(document["protocols"]),
            spec=document["spec"],
            claims=tuple(document["claims"]),
            ops=tuple(document["ops"]),
            caps=MappingProxyType(dict(document["caps"])),
            choices=MappingProxyType(dict(document.get("choices", {}))),
            reports=tuple(document.get("reports", ())),
        )

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "version": self.version,
            "protocols": list(self.protocols),
            "spec": self.spec,
            "claims": list(self.claims),
            "ops": list(self.ops),
            "caps": dict(self.caps),
            **({"choices": dict(self.choices)} if self.choices else {}),
            **({"reports": list(self.reports)} if self.reports else {}),
        }

    def supports(self, op: str) -> bool:
        return op == "describe" or op in self.ops


@dataclass(frozen=True)
class OkResponse:
    id: int
    result: Mapping[str, Any]

    ok = True

    def to_json(self) -> dict:
        return {"id": self.id, "ok": True, "result": dict(self.result)}


@dataclass(frozen=True)
class ErrorResponse:
    id: int | None
    kind: ErrorKind
    message: str

    ok = False

    def to_json(self) -> dict:
        return {"id": self.id, "ok": False, "error": {"kind": self.kind, "message": self.message}}


Response = Union[OkResponse, ErrorResponse]


def parse_response(document: Any) -> Response:
    """A response line's JSON as a typed value; `InvalidMessage` if malformed."""
    check("response", document)
    if document["id"] is not None:
        require_integer(document["id"], "/id")
    if document["ok"]:
        return OkResponse(document["id"], document["result"])
    error = document["error"]
    # The message is for a human and ends up in every report: made printable here.
    return ErrorResponse(document["id"], error["kind"], printable(error["message"]))


def result_definition(op: str) -> str | None:
    """The `$defs` entry an ok result of `op` must satisfy, if the protocol defines one."""
    if op in WRITER_OPS:
        return "writer.result"
    name = f"{op}.result"
    return name if has_definition(name) else None


@dataclass(frozen=True)
class AdapterFault:
    """The adapter broke the protocol; recorded by the runner as an `error`."""

    kind: FaultKind
    detail: str
    stderr_tail: str = ""

    ok = False

    def __str__(self) -> str:
        return f"adapter fault ({self.kind}): {self.detail}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "detail": self.detail, "stderr_tail": self.stderr_tail}


Outcome = Union[OkResponse, ErrorResponse, AdapterFault]


def negotiate(offered, supported: tuple[int, ...] = SUPPORTED_PROTOCOLS) -> int | None:
    """The highest protocol version both sides speak, or None."""
    shared = set(offered) & set(supported)
    return max(shared) if shared else None


READER_OPS: tuple[str, ...] = ("read_store",)
WRITER_OPS: tuple[str, ...] = (
    "add_goal",
    "complete_goal",
    "add_next_action",
    "complete_next_action",
    "add_question",
    "add_decision",
    "hide_decision",
    "record_session",
    "write_entry",
    "update_entry",
)
FULL_OPS: tuple[str, ...] = ("merge_sessions", "merge_stores")

# The ops a level claim needs; levels are cumulative (spec 8).
OPS_FOR_LEVEL: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "reader": READER_OPS,
    "writer": READER_OPS + WRITER_OPS,
    "full": READER_OPS + WRITER_OPS + FULL_OPS,
})
