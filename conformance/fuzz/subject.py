"""The implementation under test, as the fuzzer talks to it.

A thin layer over the runner's `Implementation` (an adapter subprocess, or
the reference model in-process): what it declared (`describe`: ops and caps,
spec 4.1 "caps are implementation-chosen"), and the two kinds of call the
properties make, a merge of two replica texts and a writer op on a store.
Calls return values, never raise: an error answer or a broken protocol is
a `CallProblem`, which a property reports as what it is.
"""

from __future__ import annotations

import itertools
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse
from conformance.runner.implementations import Implementation
from conformance.runner.vectors import effective_caps


@dataclass(frozen=True)
class CallProblem:
    """The implementation did not give a usable answer to one call."""

    op: str
    kind: str          # an error kind (invalid_input, internal, unsupported) or a fault kind
    message: str
    stderr_tail: str = ""

    def __str__(self) -> str:
        return f"{self.op} was answered with {self.kind}: {self.message}"


def session_text(session: dict) -> str:
    """A merged session handed back to a merge, as it would sit on disk."""
    return json.dumps(session, indent=2, ensure_ascii=False)


class Subject:
    """One implementation, its declaration, and a scratch area for stores."""

    def __init__(self, implementation: Implementation, described: Describe, scratch: Path):
        self.implementation = implementation
        self.described = described
        self.caps = effective_caps(dict(described.caps))
        self.scratch = Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._stores = itertools.count(1)
        self.calls = 0

    @property
    def label(self) -> str:
        return self.implementation.label

    def supports(self, op: str) -> bool:
        return self.described.supports(op)

    def _problem(self, op: str, outcome) -> CallProblem:
        if isinstance(outcome, AdapterFault):
            return CallProblem(op, outcome.kind, outcome.detail,
                               outcome.stderr_tail or self.implementation.stderr_tail())
        return CallProblem(op, outcome.kind, outcome.message)

    def call(self, op: str, args: dict):
        """The result object of an ok answer, or a `CallProblem`."""
        self.calls += 1
        outcome = self.implementation.call(op, args)
        if isinstance(outcome, (AdapterFault, ErrorResponse)):
            return self._problem(op, outcome)
        return dict(outcome.result)

    def merge(self, local_text: str, remote_text: str) -> dict | CallProblem:
        """merge_sessions of two replica texts: the merged session object."""
        result = self.call("merge_sessions", {"local": local_text, "remote": remote_text})
        if isinstance(result, CallProblem):
            return result
        merged = result.get("session")
        if not isinstance(merged, dict):
            return CallProblem("merge_sessions", "bad_result", f"the result's `session` is not an object: {merged!r}"[:300])
        return merged

    def new_store(self) -> Path:
        """A fresh, empty store directory inside the scratch area (an absolute path)."""
        store = self.scratch / f"store-{next(self._stores)}"
        shutil.rmtree(store, ignore_errors=True)
        store.mkdir(parents=True)
        return store

    def write(self, store: Path, op: str, args: dict):
        """One writer op on `store`: its result object, or a `CallProblem`."""
        return self.call(op, {**args, "store": str(store)})
