"""The reference implementation of every adapter-protocol op, over the model.

`handle(op, args, context)` is what `runners/reference/adapter.py` serves
over stdio and what the runner's in-process `ModelImplementation` calls, so
the self-test and a third party's adapter take the same path. Mutants
(runners/mutants/) serve the same handler with one rule of the model
overridden.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from conformance import SPEC_VERSION, __version__
from conformance.model import store
from conformance.model.dates import format_timestamp
from conformance.model.merge import merge_session_texts
from conformance.model.session import DEFAULT_CAPS
from conformance.model.writer import SESSION_OPS, Stamp, WriterError

READER_OPS = ("read_store",)
WRITER_OPS = (*SESSION_OPS, "write_entry", "update_entry")
FULL_OPS = ("merge_sessions", "merge_stores")
# The optional read_store reports the reference gives (docs/adapter-protocol.md, E15).
REPORTS = ("entry_live",)


class OpError(Exception):
    """An op failed; `kind` is the protocol error kind."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def utc_now() -> str:
    return format_timestamp(datetime.now(timezone.utc))


@dataclass
class Context:
    """Who is writing, and the clock: the only inputs the model does not get from the op."""

    machine_id: str
    machine_label: str | None = None
    clock: Callable[[], str] = utc_now
    caps: dict = field(default_factory=lambda: dict(DEFAULT_CAPS))

    def stamp(self) -> Stamp:
        return Stamp(self.clock(), self.machine_id, self.machine_label)

    @classmethod
    def from_home(cls, home: Path | None = None) -> "Context":
        """The machine UUID persisted under $HOME, created on first use (spec 4.1: UUIDs MUST NOT change)."""
        home = Path(home or os.environ.get("HOME") or Path.home())
        path = home / ".config" / "memoir" / "machine-id"
        try:
            machine_id = path.read_text(encoding="utf-8").strip()
        except OSError:
            machine_id = ""
        if not machine_id:
            machine_id = str(uuid.uuid4())
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(machine_id + "\n", encoding="utf-8")
        return cls(machine_id=machine_id, machine_label=socket.gethostname() or None)


def describe(name: str = "memoir-conform reference model", caps: dict | None = None) -> dict:
    return {
        "name": name,
        "version": __version__,
        "protocols": [1],
        "spec": SPEC_VERSION,
        "claims": ["reader", "writer", "full"],
        "ops": ["describe", *READER_OPS, *WRITER_OPS, *FULL_OPS],
        "caps": dict(caps or DEFAULT_CAPS),
        "reports": list(REPORTS),
    }


def _store(args: dict, key: str = "store") -> Path:
    value = args.get(key)
    if not isinstance(value, str) or not os.path.isabs(value):
        raise OpError("invalid_input", f"`{key}` must be an absolute path")
    return Path(value)


def _text(args: dict, key: str) -> str | None:
    value = args.get(key)
    if value is not None and not isinstance(value, str):
        raise OpError("invalid_input", f"`{key}` must be a string")
    return value


def handle(op: str, args: dict, context: Context) -> dict:
    try:
        return _dispatch(op, args, context)
    except WriterError as error:
        raise OpError("invalid_input", str(error)) from None


def _dispatch(op: str, args: dict, context: Context) -> dict:
    if op == "describe":
        return describe()
    if op == "read_store":
        return store.read_store(_store(args))
    if op in SESSION_OPS:
        op_args = {k: v for k, v in args.items() if k != "store"}
        allowed = {
            "hide_decision": {"text", "purge"},
            "add_decision": {"text", "why", "rejected"},
            "record_session": {"summary", "session_id", "files_touched", "duration_min"},
        }.get(op, {"text"})
        unknown = set(op_args) - allowed
        if unknown:
            raise OpError("invalid_input", f"unexpected arguments for {op}: {sorted(unknown)}")
        if op == "hide_decision":
            op_args["purge"] = bool(op_args.get("purge", False))
        log = store.apply_session_op(_store(args), op, context.stamp(), context.caps, **op_args)
        return {"log": log} if log else {}
    if op == "write_entry":
        store.write_entry(
            _store(args), args.get("link"), args.get("frontmatter"), args.get("body", ""), context.stamp()
        )
        return {}
    if op == "update_entry":
        store.update_entry(
            _store(args), args.get("link"), args.get("set", {}), args.get("unset", []), context.stamp()
        )
        return {}
    if op == "merge_sessions":
        return {"session": merge_session_texts(_text(args, "local"), _text(args, "remote"), context.caps)}
    if op == "merge_stores":
        store.merge_stores(_store(args, "local"), _store(args, "remote"), _store(args, "out"), context.caps)
        return {}
    raise OpError("unsupported", f"unknown op: {op}")
