"""Running one vector against an implementation and judging the result.

Each vector gets a fresh scratch directory; every path in the args sent is
absolute and inside it. The executor builds the result document that the
vector's checks point into (docs/architecture.md, "Result documents"): for
`write` and `merge_stores` it reads the store itself with the reference
model, never through the adapter. Two vectors are driven by the runner:
`concurrent_writes` (spec 4.1: a locked read-mutate-write cycle loses no
update) and `atomic_writes` (spec 4.1: a reader never sees a half-written
session.json).

The outcome is `pass`, `fail` (with the failed checks), `error` (the
adapter broke the protocol, or the vector cannot run here) or
`not_applicable` (the adapter does not do an op the vector needs).
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from conformance.model import store as model_store
from conformance.model.identity import text_hash
from conformance.model.session import load_session_data, load_session_text, render
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse, Outcome
from conformance.runner.checks import CheckFailure, FileContext, evaluate_all
from conformance.runner.implementations import Implementation
from conformance.runner.vectors import (
    ExpansionProblem,
    Vector,
    content_text,
    effective_caps,
    expand,
    materialise_store,
    snapshot,
)

PASS, FAIL, ERROR, NOT_APPLICABLE = "pass", "fail", "error", "not_applicable"
SCRATCH = "<scratch>"
SHOWN_CHARS = 4000
REFUSALS = ("response", "expect_error")


@dataclass
class VectorResult:
    """What happened when one vector ran."""

    id: str
    outcome: str                       # pass, fail, error, not_applicable
    failures: list[CheckFailure] = field(default_factory=list)
    detail: str | None = None          # the fault, or why not applicable
    stderr_tail: str = ""
    sent: list[dict] = field(default_factory=list)   # [{"op", "args"}], abbreviated, scratch paths masked
    duration: float = 0.0


class _Stop(Exception):
    """Ends a vector early with an outcome other than pass or fail."""

    def __init__(self, outcome: str, detail: str, stderr_tail: str = ""):
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail
        self.stderr_tail = stderr_tail


def required_ops(vector: Vector) -> list[str]:
    """The protocol ops a vector sends (for an expanded vector)."""
    if vector.op == "write":
        return sorted({step["op"] for step in vector.input["steps"]})
    if vector.op == "concurrent_writes":
        return ["add_next_action"]
    if vector.op == "atomic_writes":
        return ["add_question", "record_session"]
    return [vector.op]


def _abbreviate(value: object, scratch: str) -> object:
    if isinstance(value, str):
        value = value.replace(scratch, SCRATCH)
        return value if len(value) <= SHOWN_CHARS else value[: SHOWN_CHARS - 3] + "..."
    if isinstance(value, dict):
        return {key: _abbreviate(item, scratch) for key, item in value.items()}
    if isinstance(value, list):
        return [_abbreviate(item, scratch) for item in value]
    return value


class _Session:
    """One vector's run: its scratch directory, the calls sent, the outcomes."""

    def __init__(self, implementation: Implementation, scratch: Path):
        self.implementation = implementation
        self.scratch = scratch
        self.sent: list[dict] = []

    def record(self, op: str, args: dict) -> None:
        self.sent.append({"op": op, "args": _abbreviate(args, str(self.scratch))})

    def call(self, op: str, args: dict) -> OkResponse | ErrorResponse:
        self.record(op, args)
        return self.judge(op, self.implementation.call(op, args))

    def judge(self, op: str, outcome: Outcome) -> OkResponse | ErrorResponse:
        if isinstance(outcome, AdapterFault):
            tail = outcome.stderr_tail or self.implementation.stderr_tail()
            raise _Stop(ERROR, str(outcome), tail)
        if isinstance(outcome, ErrorResponse) and outcome.kind == "unsupported":
            raise _Stop(NOT_APPLICABLE, f"the adapter answered {op} with unsupported: {outcome.message}")
        return outcome


def run_vector(vector: Vector, implementation: Implementation, described: Describe, workdir: Path) -> VectorResult:
    """Run one vector in a fresh scratch directory under `workdir`."""
    started = time.monotonic()
    expanded = expand(vector, effective_caps(described.caps))
    if isinstance(expanded, ExpansionProblem):
        return VectorResult(vector.id, ERROR, detail=f"the vector cannot run with these caps: {expanded}")
    missing = [op for op in required_ops(expanded) if not described.supports(op)]
    if missing:
        return VectorResult(vector.id, NOT_APPLICABLE,
                            detail=f"the adapter does not declare op{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    scratch = Path(workdir) / _scratch_name(vector.id)
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    session = _Session(implementation, scratch.resolve())
    try:
        document, files, failures = OPS[expanded.op](expanded, session, effective_caps(described.caps))
        # When the op itself was refused, the checks would only repeat that.
        if not any(failure.check in REFUSALS for failure in failures):
            failures = failures + evaluate_all(expanded.expect, document, files)
        outcome = FAIL if failures else PASS
        result = VectorResult(vector.id, outcome, failures)
    except _Stop as stop:
        result = VectorResult(vector.id, stop.outcome, detail=stop.detail, stderr_tail=stop.stderr_tail)
    except Exception as error:  # noqa: BLE001 - one vector the runner cannot handle must not end the run
        result = VectorResult(vector.id, ERROR, detail=f"the runner could not run this vector: "
                                                       f"{type(error).__name__}: {error}",
                              stderr_tail=traceback.format_exc()[-4000:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result.sent = session.sent
    result.duration = time.monotonic() - started
    return result


def _scratch_name(vector_id: str) -> str:
    return "v-" + "".join(char if char.isalnum() or char in "._-" else "_" for char in vector_id)


# --- reading stores with the reference model -----------------------------------

def file_texts(files: dict[str, bytes]) -> dict[str, object]:
    """relpath -> text, or {"$base64": ...} for bytes that are not UTF-8."""
    texts: dict[str, object] = {}
    for relative, data in files.items():
        try:
            texts[relative] = data.decode("utf-8")
        except UnicodeDecodeError:
            texts[relative] = {"$base64": base64.b64encode(data).decode("ascii")}
    return texts


def store_document(store: Path) -> dict:
    """The store as the runner sees it: raw session object, live render, entries, files."""
    raw_text = model_store.read_text(store / model_store.SESSION_FILE)
    loaded = load_session_text(raw_text)
    document: dict = {"session_status": loaded.status, "live": render(loaded.session)}
    if raw_text is not None:
        try:
            document["session"] = json.loads(raw_text)
        except ValueError:
            pass
    read = model_store.read_store(store)
    document["entries"] = _entries_by_link(read["entries"])
    document["files"] = file_texts(snapshot(store))
    return document


def _entries_by_link(entries: object) -> dict:
    by_link: dict = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("link"), str):
            by_link.setdefault(entry["link"], entry)
    return by_link


def _response_failure(op: str, response: ErrorResponse, path: str = "") -> CheckFailure:
    return CheckFailure(path, "response", "an ok response", response.to_json()["error"],
                        f"{op} was answered with an error ({response.kind}): {response.message}")


# --- the ops ---------------------------------------------------------------------

Built = tuple[dict, FileContext | None, list[CheckFailure]]


def run_merge_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    args = {"local": content_text(vector.input["local"]), "remote": content_text(vector.input["remote"])}
    response = session.call("merge_sessions", args)
    if isinstance(response, ErrorResponse):
        return {}, None, [_response_failure("merge_sessions", response)]
    merged = response.result.get("session")
    live = render(load_session_data(merged).session) if isinstance(merged, dict) else {}
    return {"session": merged, "live": live}, None, []


def run_read_store(vector: Vector, session: _Session, caps: dict) -> Built:
    store = session.scratch / "store"
    original = materialise_store(vector.input["store"], vector.root, store)
    response = session.call("read_store", {"store": str(store)})
    after = snapshot(store)
    files = FileContext({"files": original}, {"files": after})
    if isinstance(response, ErrorResponse):
        return {"files": file_texts(after)}, files, [_response_failure("read_store", response)]
    document = {
        "entries": _entries_by_link(response.result.get("entries")),
        "session": response.result.get("session"),
        "files": file_texts(after),
    }
    return document, files, []


def run_write(vector: Vector, session: _Session, caps: dict) -> Built:
    store = session.scratch / "store"
    original = materialise_store(vector.input.get("store"), vector.root, store)
    failures: list[CheckFailure] = []
    steps: list[dict] = []
    for index, step in enumerate(vector.input["steps"]):
        args = {**step.get("args", {}), "store": str(store)}
        response = session.call(step["op"], args)
        if isinstance(response, OkResponse):
            steps.append({"op": step["op"], "ok": True, "result": dict(response.result)})
        else:
            steps.append({"op": step["op"], "ok": False, "error": response.to_json()["error"]})
        wanted = step.get("expect_error")
        if wanted and (isinstance(response, OkResponse) or response.kind != wanted):
            actual = "ok" if isinstance(response, OkResponse) else steps[-1]["error"]
            failures.append(CheckFailure(f"/steps/{index}", "expect_error", {"kind": wanted}, actual,
                                         f"step {index} ({step['op']}) should be refused with {wanted}"))
            break
        if not wanted and isinstance(response, ErrorResponse):
            failures.append(_response_failure(step["op"], response, f"/steps/{index}"))
            break
    document = store_document(store)
    document["steps"] = steps
    files = FileContext({"files": original}, {"files": snapshot(store)})
    return document, files, failures


def run_merge_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    local, remote, out = (session.scratch / name for name in ("local", "remote", "out"))
    local_original = materialise_store(vector.input["local"], vector.root, local)
    remote_original = materialise_store(vector.input["remote"], vector.root, remote)
    out.mkdir()
    response = session.call("merge_stores", {"local": str(local), "remote": str(remote), "out": str(out)})
    failures = [] if isinstance(response, OkResponse) else [_response_failure("merge_stores", response)]
    document = store_document(out)
    local_after, remote_after = snapshot(local), snapshot(remote)
    document["local_files"] = file_texts(local_after)
    document["remote_files"] = file_texts(remote_after)
    files = FileContext(
        {"files": {}, "local_files": local_original, "remote_files": remote_original},
        {"files": snapshot(out), "local_files": local_after, "remote_files": remote_after},
    )
    return document, files, failures


def _open_action_keys(document: dict) -> set[str]:
    live = document["live"]
    return {text_hash(text) for text in live.get("next_actions", []) + live.get("parked_actions", [])}


def run_concurrent_writes(vector: Vector, session: _Session, caps: dict) -> Built:
    """K processes each add M actions to one store at once; none may be lost (spec 4.1)."""
    processes, per_process = vector.input["processes"], vector.input["actions_per_process"]
    store = session.scratch / "store"
    original = materialise_store(vector.input.get("store"), vector.root, store)
    room = caps["next_actions"] + caps["parked_actions"] - len(_open_action_keys(store_document(store)))
    if processes * per_process > room:
        raise _Stop(ERROR, f"the vector adds {processes * per_process} actions but the adapter's caps "
                           f"(next_actions {caps['next_actions']} + parked_actions {caps['parked_actions']}) "
                           f"hold only {room} more: a drop could be a legal cap rotation")
    texts = [[f"concurrent writer {p + 1} action {m + 1:03d}" for m in range(per_process)] for p in range(processes)]
    jobs = [[("add_next_action", {"store": str(store), "text": text}) for text in job] for job in texts]
    session.record("concurrent_writes", {"store": str(store), "processes": processes, "actions_per_process": per_process})
    outcomes = session.implementation.call_in_parallel(jobs)
    if isinstance(outcomes, AdapterFault):
        session.judge("add_next_action", outcomes)
    failures = []
    for process_index, results in enumerate(outcomes):
        for call_index, outcome in enumerate(results):
            outcome = session.judge("add_next_action", outcome)
            if isinstance(outcome, ErrorResponse) and not failures:
                failures.append(_response_failure("add_next_action", outcome, f"/calls/{process_index}/{call_index}"))
    document = store_document(store)
    written = [text for job in texts for text in job]
    present = _open_action_keys(document)
    document["written"] = written
    document["missing"] = [text for text in written if text_hash(text) not in present]
    if document["missing"]:
        failures.append(CheckFailure(
            "/missing", "no_lost_update", [], document["missing"],
            f"{len(document['missing'])} of {len(written)} actions added concurrently are neither live nor parked: "
            "the read-mutate-write cycle is not serialized (spec 4.1)",
        ))
    return document, FileContext({"files": original}, {"files": snapshot(store)}), failures


class _SessionFilePoller:
    """Reads session.json as fast as it can; every read must be whole JSON or absent."""

    def __init__(self, path: Path):
        self.path = path
        self.reads = 0
        self.partial_reads = 0
        self.first_partial: dict | None = None
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                data = self.path.read_bytes()
            except (FileNotFoundError, PermissionError):
                data = None
            self.reads += 1
            self.started.set()
            if data is None:
                continue
            try:
                json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as error:
                self.partial_reads += 1
                if self.first_partial is None:
                    self.first_partial = {
                        "read": self.reads, "bytes": len(data),
                        "head": data[:80].decode("utf-8", errors="replace"), "error": str(error),
                    }

    def __enter__(self) -> _SessionFilePoller:
        self.thread.start()
        self.started.wait(5)
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        self.thread.join()


def run_atomic_writes(vector: Vector, session: _Session, caps: dict) -> Built:
    """N writes while a reader polls session.json: no read may be partial (spec 4.1)."""
    store = session.scratch / "store"
    original = materialise_store(vector.input.get("store"), vector.root, store)
    store.mkdir(parents=True, exist_ok=True)
    failures: list[CheckFailure] = []
    with _SessionFilePoller(store / model_store.SESSION_FILE) as poller:
        for index in range(vector.input["writes"]):
            if index % 2 == 0:
                op, args = "add_question", {"store": str(store), "text": f"atomic question {index + 1}"}
            else:
                op, args = "record_session", {"store": str(store), "summary": f"atomic session {index + 1}"}
            # Only the first call is recorded: the others differ by their number.
            response = session.call(op, args) if index < 2 else session.judge(op, session.implementation.call(op, args))
            if isinstance(response, ErrorResponse):
                failures.append(_response_failure(op, response, f"/writes/{index}"))
                break
    document = store_document(store)
    document.update({"reads": poller.reads, "partial_reads": poller.partial_reads})
    if poller.first_partial is not None:
        document["first_partial"] = poller.first_partial
        first = poller.first_partial
        failures.append(CheckFailure(
            "/partial_reads", "atomic", 0, poller.partial_reads,
            f"{poller.partial_reads} of {poller.reads} reads of session.json were not whole JSON; "
            f"the first (read {first['read']}, {first['bytes']} bytes, starting {first['head']!r}) failed: "
            f"{first['error']}. Write a temp file and rename it (spec 4.1)",
        ))
    return document, FileContext({"files": original}, {"files": snapshot(store)}), failures


OPS = {
    "merge_sessions": run_merge_sessions,
    "read_store": run_read_store,
    "write": run_write,
    "merge_stores": run_merge_stores,
    "concurrent_writes": run_concurrent_writes,
    "atomic_writes": run_atomic_writes,
}
