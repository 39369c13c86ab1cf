"""Running one vector against an implementation and judging the result.

Each vector gets a fresh scratch directory; every path in the args sent is
absolute and inside it. The executor builds the result document that the
vector's checks point into (docs/architecture.md, "Result documents"): for
`write` and `merge_stores` it reads the store itself with the reference
model, never through the adapter. Two vectors are driven by the runner:
`concurrent_writes` (spec 4.1: a locked read-mutate-write cycle loses no
update), `atomic_writes` (spec 4.1: a reader never sees a half-written
session.json) and `atomic_merges` (the same for the session.json that
`merge_stores` writes). Derived vectors (`conformance.runner.derived`) re-run a
merge vector's inputs swapped and re-merged (spec 5.4).

The outcome is `pass`, `fail` (with the failed checks, each carrying the
requirements it checks), `error` (the adapter broke the protocol) or
`not_applicable`, of one of four kinds: the adapter does not do an op the
vector needs (`op`: the levels that need it are not earned), it refused a
MAY feature of the spec (`feature`), it made another choice where the spec
offers one (`choice`), or its declared caps are too small for the case
(`caps`). Only the first kind blocks a level.
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

from conformance.model import store as model_store
from conformance.model.identity import text_hash
from conformance.model.session import KNOWN_LISTS, KNOWN_TOP_LEVEL, load_session_data, load_session_text, render
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse, Outcome
from conformance.runner.checks import CheckFailure, FileContext, difference, evaluate_check
from conformance.runner.implementations import Implementation
from conformance.runner.vectors import (
    DEFAULT_CHOICES,
    FEATURES,
    REPORTS,
    Expectation,
    ExpansionProblem,
    Vector,
    canonical_json,
    content_text,
    effective_caps,
    expand,
    materialise_store,
    session_text,
    snapshot,
)

PASS, FAIL, ERROR, NOT_APPLICABLE = "pass", "fail", "error", "not_applicable"
# Kinds of not applicable; only NA_OP keeps a level from being earned.
NA_OP, NA_FEATURE, NA_CHOICE, NA_CAPS = "op", "feature", "choice", "caps"
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
    na_kind: str | None = None         # for not_applicable: NA_OP, NA_FEATURE, NA_CHOICE or NA_CAPS
    stderr_tail: str = ""
    sent: list[dict] = field(default_factory=list)   # [{"op", "args"}], abbreviated, scratch paths masked
    duration: float = 0.0
    runner_error: bool = False         # an error of the runner itself, not of the adapter


class _Stop(Exception):
    """Ends a vector early with an outcome other than pass or fail."""

    def __init__(self, outcome: str, detail: str, stderr_tail: str = "", na_kind: str | None = None):
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail
        self.stderr_tail = stderr_tail
        self.na_kind = na_kind


def required_ops(vector: Vector) -> list[str]:
    """The protocol ops a vector sends (for an expanded vector)."""
    if vector.op == "write":
        return sorted({step["op"] for step in vector.input["steps"] if "op" in step})
    if vector.op == "concurrent_writes":
        return ["add_next_action"]
    if vector.base is not None:
        return required_ops(vector.base)
    if vector.op == "atomic_writes":
        return ["add_question", "record_session"]
    if vector.op == "atomic_merges":
        return ["merge_stores"]
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

    def call(self, op: str, args: dict, feature: str | None = None) -> OkResponse | ErrorResponse:
        self.record(op, args)
        return self.judge(op, self.implementation.call(op, args), feature)

    def judge(self, op: str, outcome: Outcome, feature: str | None = None) -> OkResponse | ErrorResponse:
        if isinstance(outcome, AdapterFault):
            tail = outcome.stderr_tail or self.implementation.stderr_tail()
            raise _Stop(ERROR, str(outcome), tail)
        if isinstance(outcome, ErrorResponse) and outcome.kind == "unsupported":
            if feature:
                raise _Stop(NOT_APPLICABLE, f"the adapter refused the MAY feature {feature} (spec {FEATURES[feature]}) "
                                            f"with unsupported: {outcome.message}", na_kind=NA_FEATURE)
            raise _Stop(NOT_APPLICABLE, f"the adapter answered {op} with unsupported: {outcome.message}", na_kind=NA_OP)
        return outcome


def inapplicable(vector: Vector, described: Describe) -> VectorResult | None:
    """Not applicable before anything is sent: a choice the implementation made
    otherwise, or declared caps too small for the case."""
    choices = {**DEFAULT_CHOICES, **described.choices}
    other = {name: value for name, value in vector.choices.items() if choices.get(name) != value}
    if other:
        said = ", ".join(f"{name} {choices.get(name)!r} (this vector needs {value!r})" for name, value in other.items())
        return VectorResult(vector.id, NOT_APPLICABLE, na_kind=NA_CHOICE,
                            detail=f"the implementation chose {said} where the spec offers a choice")
    caps = effective_caps(described.caps)
    small = {name: least for name, least in vector.min_caps.items() if caps.get(name, 0) < least}
    if small:
        said = ", ".join(f"{name} {caps.get(name)} < {least}" for name, least in small.items())
        return VectorResult(vector.id, NOT_APPLICABLE, na_kind=NA_CAPS,
                            detail=f"the declared caps are too small to show this case ({said})")
    return None


def run_vector(vector: Vector, implementation: Implementation, described: Describe, workdir: Path,
               keep_scratch: Path | None = None) -> VectorResult:
    """Run one vector in a fresh scratch directory under `workdir`; with
    `keep_scratch`, a vector that fails or errors leaves a copy of its
    scratch directory there (`keep_scratch/<vector id>`)."""
    started = time.monotonic()
    skipped = inapplicable(vector, described)
    if skipped:
        return skipped
    expanded = expand(vector, effective_caps(described.caps))
    if isinstance(expanded, ExpansionProblem):
        return VectorResult(vector.id, NOT_APPLICABLE, na_kind=NA_CAPS,
                            detail=f"the vector cannot run with the declared caps: {expanded}")
    missing = [op for op in required_ops(expanded) if not described.supports(op)]
    if missing:
        return VectorResult(vector.id, NOT_APPLICABLE, na_kind=NA_OP,
                            detail=f"the adapter does not declare op{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    unreported = [report for report in vector.reports if report not in described.reports]
    if unreported:
        # What the vector decides cannot be shown without the report: like a missing op, it blocks its level.
        return VectorResult(vector.id, NOT_APPLICABLE, na_kind=NA_OP,
                            detail=f"the adapter does not declare the read_store report{'s' if len(unreported) > 1 else ''} "
                                   f"{', '.join(unreported)} (describe `reports`, spec {REPORTS[unreported[0]]})")
    # Made by the ops that put a store in it (merge_sessions sends texts only):
    # on a slow disk a directory made and removed per vector is most of a run.
    scratch = (Path(workdir) / _scratch_name(vector.id)).resolve()
    shutil.rmtree(scratch, ignore_errors=True)
    session = _Session(implementation, scratch)
    capturing = callable(getattr(implementation, "start_stderr_capture", None))
    if capturing:
        implementation.start_stderr_capture()
    try:
        result = _run_in_scratch(expanded, session, described)
        if capturing:
            # Every failure shows what the adapter logged while this vector ran
            # (a runner error keeps the runner's own traceback).
            captured = implementation.take_stderr_capture()
            if captured and not result.runner_error:
                result.stderr_tail = captured
        if keep_scratch is not None and result.outcome in (FAIL, ERROR):
            keep_scratch_dir(expanded, scratch, Path(keep_scratch) / safe_name(vector.id))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result.sent = session.sent
    result.duration = time.monotonic() - started
    return result


def _run_in_scratch(vector: Vector, session: _Session, described: Describe) -> VectorResult:
    try:
        run = DERIVED_OPS[(vector.derived, vector.op)] if vector.derived else OPS[vector.op]
        document, files, failures = run(vector, session, effective_caps(described.caps))
        # When the op itself was refused, the checks would only repeat that.
        if not any(failure.check in REFUSALS for failure in failures):
            failures = failures + evaluate_checks(vector, document, files)
        return VectorResult(vector.id, FAIL if failures else PASS, failures)
    except _Stop as stop:
        return VectorResult(vector.id, stop.outcome, detail=stop.detail, stderr_tail=stop.stderr_tail,
                            na_kind=stop.na_kind)
    except Exception as error:  # noqa: BLE001 - one vector the runner cannot handle must not end the run
        return VectorResult(vector.id, ERROR, detail=f"the runner could not run this vector: "
                                                     f"{type(error).__name__}: {error}",
                            stderr_tail=traceback.format_exc()[-4000:], runner_error=True)


def keep_scratch_dir(vector: Vector, scratch: Path, target: Path) -> None:
    """Copy a vector's scratch directory (its stores as the adapter left them)
    to `target`; a merge_sessions vector, which has no store, leaves the two
    replica texts it sent instead."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if scratch.is_dir():
        shutil.copytree(scratch, target, dirs_exist_ok=True)
    if (vector.base or vector).op == "merge_sessions":
        for side in ("local", "remote"):
            (target / f"{side}.session.json").write_text(content_text(vector.input[side]), encoding="utf-8",
                                                         errors="surrogateescape")


def evaluate_checks(vector: Vector, document: dict, files: FileContext | None) -> list[CheckFailure]:
    """The vector's failed checks, each with the requirements it checks and
    the interpretation it rests on."""
    failures = []
    for check in vector.expect:
        failures.extend(annotated(failure, vector.check_expectation(check))
                        for failure in evaluate_check(check, document, files))
    return failures


def annotated(failure: CheckFailure, expectation: Expectation) -> CheckFailure:
    return replace(failure, requirements=expectation.requirements, ambiguity=expectation.ambiguity)


def safe_name(vector_id: str) -> str:
    """A vector id as a file name (ids are `[a-z0-9._-]`, derived ones add `~`)."""
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in vector_id)


def _scratch_name(vector_id: str) -> str:
    return "v-" + safe_name(vector_id)


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
    document["machine_ids"] = stamped_machine_ids(document.get("session"))
    read = model_store.read_store(store)
    document["entries"] = _entries_by_link(read["entries"])
    document["files"] = file_texts(snapshot(store))
    return document


def stamped_machine_ids(session: object) -> list[str]:
    """Every machine id a stored session names: the `machines` keys and the
    `machine_id` of every item and history row (spec 4.1: UUIDs MUST NOT
    change, so one machine writing leaves one)."""
    if not isinstance(session, dict):
        return []
    found = set(session["machines"]) if isinstance(session.get("machines"), dict) else set()
    current = session.get("current") if isinstance(session.get("current"), dict) else {}
    lists = [*current.values(), session.get("history")]
    for items in lists:
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("machine_id"), str):
                found.add(item["machine_id"])
    return sorted(found)


def _entries_by_link(entries: object) -> dict:
    by_link: dict = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("link"), str):
            by_link.setdefault(entry["link"], entry)
    return by_link


def _response_failure(vector: Vector, op: str, response: ErrorResponse, path: str = "") -> CheckFailure:
    """An op refused where the vector allows no refusal: nothing it expects was shown."""
    return annotated(CheckFailure(path, "response", "an ok response", response.to_json()["error"],
                                  f"{op} was answered with an error ({response.kind}): {response.message}"),
                     vector.refusal_expectation())


# --- the ops ---------------------------------------------------------------------

Built = tuple[dict, FileContext | None, list[CheckFailure]]


def _merge_texts(session: _Session, vector: Vector, local: str, remote: str) -> dict | CheckFailure:
    """The merged session of two replica texts, or the failure of a refused merge."""
    response = session.call("merge_sessions", {"local": local, "remote": remote})
    if isinstance(response, ErrorResponse):
        return _response_failure(vector, "merge_sessions", response)
    return response.result.get("session")


def _session_document(merged: object) -> dict:
    live = render(load_session_data(merged).session) if isinstance(merged, dict) else {}
    return {"session": merged, "live": live}


def run_merge_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    merged = _merge_texts(session, vector, content_text(vector.input["local"]), content_text(vector.input["remote"]))
    if isinstance(merged, CheckFailure):
        return {}, None, [merged]
    return _session_document(merged), None, []


def run_read_store(vector: Vector, session: _Session, caps: dict) -> Built:
    store = session.scratch / "store"
    original = materialise_store(vector.input["store"], vector.root, store)
    response = session.call("read_store", {"store": str(store)})
    after = snapshot(store)
    files = FileContext({"files": original}, {"files": after})
    if isinstance(response, ErrorResponse):
        return {"files": file_texts(after)}, files, [_response_failure(vector, "read_store", response)]
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
        if "put_files" in step:
            # What happens to the store between two writes (a crash, another tool): no request.
            materialise_store({"files": step["put_files"]}, vector.root, store)
            steps.append({"put_files": sorted(step["put_files"]), "ok": True})
            continue
        args = {**step.get("args", {}), "store": str(store)}
        response = session.call(step["op"], args, step.get("feature"))
        if isinstance(response, OkResponse):
            steps.append({"op": step["op"], "ok": True, "result": dict(response.result)})
        else:
            steps.append({"op": step["op"], "ok": False, "error": response.to_json()["error"]})
        wanted = step.get("expect_error")
        if wanted and (isinstance(response, OkResponse) or response.kind != wanted):
            actual = "ok" if isinstance(response, OkResponse) else steps[-1]["error"]
            failures.append(annotated(CheckFailure(f"/steps/{index}", "expect_error", {"kind": wanted}, actual,
                                                   f"step {index} ({step['op']}) should be refused with {wanted}"),
                                      vector.default_expectation))
            break
        allowed = step.get("may_refuse", ()) if not wanted else (wanted,)
        if isinstance(response, ErrorResponse) and response.kind not in allowed:
            failures.append(_response_failure(vector, step["op"], response, f"/steps/{index}"))
            break
    document = store_document(store)
    document["steps"] = steps
    files = FileContext({"files": original}, {"files": snapshot(store)})
    return document, files, failures


def _merge_store_dirs(session: _Session, vector: Vector, local: Path, remote: Path, out: Path) -> CheckFailure | None:
    out.mkdir(parents=True)
    response = session.call("merge_stores", {"local": str(local), "remote": str(remote), "out": str(out)})
    return None if isinstance(response, OkResponse) else _response_failure(vector, "merge_stores", response)


def run_merge_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    local, remote, out = (session.scratch / name for name in ("local", "remote", "out"))
    local_original = materialise_store(vector.input["local"], vector.root, local)
    remote_original = materialise_store(vector.input["remote"], vector.root, remote)
    refused = _merge_store_dirs(session, vector, local, remote, out)
    failures = [refused] if refused else []
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


def concurrent_load(processes: int, per_process: int, room: int) -> tuple[int, int]:
    """The vector's load scaled down to fit `room` open actions: as many of
    the processes as fit, each with as many actions as fit."""
    per_process = min(per_process, room // processes)
    if per_process >= 1:
        return processes, per_process
    return min(processes, room), 1


# The requirements the concurrency vector's own checks check (spec 4.1).
SERIALIZED = ("S4.1-serialize-read-mutate-write", "S8-writer-atomic-locked")
ROTATES_TO_PARKED = ("S4.1-next-actions-rotate-to-parked",)


def run_concurrent_writes(vector: Vector, session: _Session, caps: dict) -> Built:
    """K processes add actions to one store at once; none may be lost (spec 4.1).

    The load fits the declared caps (next_actions + parked_actions, less what
    the store holds already), so a correct writer keeps every action. The
    same adds, one after another in a second store, are the control: what
    the control loses is rotation (or caps other than the declared ones),
    and only losses beyond it are lost updates."""
    store, control = session.scratch / "store", session.scratch / "control"
    original = materialise_store(vector.input.get("store"), vector.root, store)
    materialise_store(vector.input.get("store"), vector.root, control)
    room = caps["next_actions"] + caps["parked_actions"] - len(_open_action_keys(store_document(store)))
    processes, per_process = concurrent_load(vector.input["processes"], vector.input["actions_per_process"], room)
    if processes < 2:
        raise _Stop(NOT_APPLICABLE, f"the declared caps leave room for {room} more open actions: "
                                    "too few for two concurrent writers", na_kind=NA_CAPS)
    texts = [[f"concurrent writer {p + 1} action {m + 1:03d}" for m in range(per_process)] for p in range(processes)]
    written = [text for job in texts for text in job]
    load = {"processes": processes, "actions_per_process": per_process}
    failures: list[CheckFailure] = []

    session.record("sequential_control", {"store": str(control), **load})
    for text in written:
        outcome = session.judge("add_next_action", session.implementation.call(
            "add_next_action", {"store": str(control), "text": text}))
        if isinstance(outcome, ErrorResponse):
            return {"load": load}, None, [_response_failure(vector, "add_next_action", outcome, "/control")]
    kept = _open_action_keys(store_document(control))
    control_missing = [text for text in written if text_hash(text) not in kept]

    jobs = [[("add_next_action", {"store": str(store), "text": text}) for text in job] for job in texts]
    session.record("concurrent_writes", {"store": str(store), **load})
    outcomes = session.implementation.call_in_parallel(jobs)
    if isinstance(outcomes, AdapterFault):
        session.judge("add_next_action", outcomes)
    for process_index, results in enumerate(outcomes):
        for call_index, outcome in enumerate(results):
            outcome = session.judge("add_next_action", outcome)
            if isinstance(outcome, ErrorResponse) and not failures:
                failures.append(_response_failure(vector, "add_next_action", outcome,
                                                  f"/calls/{process_index}/{call_index}"))
    document = store_document(store)
    present = _open_action_keys(document)
    document.update(load=load, written=written, control_missing=control_missing,
                    missing=[text for text in written if text_hash(text) not in present])
    if control_missing:
        failures.append(CheckFailure(
            "/control_missing", "sequential_control", [], control_missing,
            f"{len(control_missing)} of {len(written)} actions added one after another (no concurrency) are "
            f"neither live nor parked, though the declared caps (next_actions {caps['next_actions']} + "
            f"parked_actions {caps['parked_actions']}) hold them: actions are dropped instead of parked, or the "
            "caps in describe are not the implementation's (spec 4.1); not counted as lost updates",
            requirements=ROTATES_TO_PARKED))
    lost = len(document["missing"]) - len(control_missing)
    if lost > 0:
        failures.append(CheckFailure(
            "/missing", "no_lost_update", control_missing, document["missing"],
            f"{lost} of {len(written)} actions added by {processes} concurrent writers are lost beyond what the "
            "sequential control run lost: the read-mutate-write cycle is not serialized (spec 4.1)",
            requirements=SERIALIZED))
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


def _partial_read_failure(vector: Vector, poller: _SessionFilePoller, document: dict, what: str) -> CheckFailure | None:
    """The failure at /partial_reads when the poller saw session.json half-written."""
    document.update({"reads": poller.reads, "partial_reads": poller.partial_reads})
    if poller.first_partial is None:
        return None
    document["first_partial"] = first = poller.first_partial
    return CheckFailure(
        "/partial_reads", "atomic", 0, poller.partial_reads,
        f"{poller.partial_reads} of {poller.reads} reads of session.json{what} were not whole JSON; "
        f"the first (read {first['read']}, {first['bytes']} bytes, starting {first['head']!r}) failed: "
        f"{first['error']}. Write a temp file and rename it (spec 4.1)",
        requirements=vector.requirements)


def run_atomic_merges(vector: Vector, session: _Session, caps: dict) -> Built:
    """N merge_stores into one out directory while a reader polls out/session.json:
    the merged session is written atomically too (spec 4.1)."""
    local, remote, out = (session.scratch / name for name in ("local", "remote", "out"))
    local_original = materialise_store(vector.input["local"], vector.root, local)
    remote_original = materialise_store(vector.input["remote"], vector.root, remote)
    out.mkdir(parents=True)
    failures: list[CheckFailure] = []
    with _SessionFilePoller(out / model_store.SESSION_FILE) as poller:
        for index in range(vector.input["merges"]):
            if index:
                # `out` is an empty directory for every merge (the op's contract).
                for child in list(out.iterdir()):
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
            args = {"local": str(local), "remote": str(remote), "out": str(out)}
            # Only the first call is recorded: the others are the same.
            response = session.call("merge_stores", args) if index == 0 else \
                session.judge("merge_stores", session.implementation.call("merge_stores", args))
            if isinstance(response, ErrorResponse):
                failures.append(_response_failure(vector, "merge_stores", response, f"/merges/{index}"))
                break
    document = store_document(out)
    partial = _partial_read_failure(vector, poller, document, " in the merged store")
    failures += [partial] if partial else []
    files = FileContext({"files": {}, "local_files": local_original, "remote_files": remote_original},
                        {"files": snapshot(out), "local_files": snapshot(local), "remote_files": snapshot(remote)})
    return document, files, failures


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
                failures.append(_response_failure(vector, op, response, f"/writes/{index}"))
                break
    document = store_document(store)
    partial = _partial_read_failure(vector, poller, document, "")
    failures += [partial] if partial else []
    return document, FileContext({"files": original}, {"files": snapshot(store)}), failures


# --- derived vectors: merge invariants (spec 5.4) ---------------------------------

def comparable_session(session: object, keep_unknown: bool) -> object:
    """A session as the merge invariants compare it: lists as sets (ordering
    is free, spec 5.4), `parked_at` left out (AMB-PARKED-AT: when a merge
    parks an action, 4.1's "when it overflowed" and 5.4's convergence are
    read differently), keys the merge does not know kept only on request."""
    if not isinstance(session, dict):
        return session

    def unordered(value: object) -> object:
        if not isinstance(value, list):
            return value
        items = [{k: v for k, v in item.items() if k != "parked_at"} if isinstance(item, dict) else item
                 for item in value]
        return sorted(items, key=canonical_json)

    compared = {}
    for key, value in session.items():
        if key == "current" and isinstance(value, dict):
            compared[key] = {name: unordered(items) for name, items in value.items()
                             if keep_unknown or name in KNOWN_LISTS}
        elif key == "history":
            compared[key] = unordered(value)
        elif keep_unknown or key in KNOWN_TOP_LEVEL:
            compared[key] = value
    return compared


def _invariant_failure(vector: Vector, check: str, expected: object, actual: object, path: str,
                       what: str) -> CheckFailure | None:
    found = difference(expected, actual, path)
    if found is None:
        return None
    return annotated(CheckFailure(found.path, check, found.expected, found.actual, f"{what}: {found.message}"),
                     vector.default_expectation)


def run_swapped_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    """merge(A, B) and merge(B, A) carry the same data (spec 5.4: commutative
    up to ordering), keys neither side's merge knows excepted (local wins)."""
    a, b = content_text(vector.input["local"]), content_text(vector.input["remote"])
    document = {}
    for name, pair in (("ab", (a, b)), ("ba", (b, a))):
        merged = _merge_texts(session, vector, *pair)
        if isinstance(merged, CheckFailure):
            return document, None, [merged]
        document[name] = _session_document(merged)
    failure = _invariant_failure(
        vector, "commutative", comparable_session(document["ab"]["session"], False),
        comparable_session(document["ba"]["session"], False), "/ba/session",
        "merge(A, B) (expected) and merge(B, A) (actual) differ")
    return document, None, [failure] if failure else []


def run_idempotent_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    """With M = merge(A, B): merge(M, M), merge(M, A) and merge(M, B) are all M
    (spec 5.4: merging a replica with itself is a no-op; re-merging an input
    brings nothing new)."""
    a, b = content_text(vector.input["local"]), content_text(vector.input["remote"])
    merged = _merge_texts(session, vector, a, b)
    if isinstance(merged, CheckFailure):
        return {}, None, [merged]
    document = {"merged": _session_document(merged)}
    m = session_text(merged) if isinstance(merged, dict) else json.dumps(merged)
    failures = []
    for name, other, what in (("self", m, "M with itself"), ("with_local", a, "M with A again"),
                              ("with_remote", b, "M with B again")):
        again = _merge_texts(session, vector, m, other)
        if isinstance(again, CheckFailure):
            return document, None, [again]
        document[name] = _session_document(again)
        failure = _invariant_failure(vector, "idempotent", comparable_session(merged, True),
                                     comparable_session(again, True), f"/{name}/session",
                                     f"merging the result M = merge(A, B) (expected) {what} changed it (actual)")
        if failure:
            failures.append(failure)
    return document, None, failures


def store_view(store: Path) -> dict:
    """A merged store as the invariants compare it: its entries as the
    reference model reads them, and its session."""
    document = store_document(store)
    entries = {link: {key: entry.get(key) for key in ("status", "type", "name", "fields", "body")}
               for link, entry in document["entries"].items()}
    return {"entries": entries, "session": document.get("session")}


def _comparable_store(view: dict, keep_unknown: bool) -> dict:
    return {"entries": view["entries"], "session": comparable_session(view["session"], keep_unknown)}


def run_swapped_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    """merge_stores(L, R) and merge_stores(R, L) hold the same entries and session (spec 5.4)."""
    document = {}
    for name, first, second in (("ab", "local", "remote"), ("ba", "remote", "local")):
        left, right = session.scratch / name / "local", session.scratch / name / "remote"
        materialise_store(vector.input[first], vector.root, left)
        materialise_store(vector.input[second], vector.root, right)
        refused = _merge_store_dirs(session, vector, left, right, session.scratch / name / "out")
        if refused:
            return document, None, [refused]
        document[name] = store_view(session.scratch / name / "out")
    failure = _invariant_failure(vector, "commutative", _comparable_store(document["ab"], False),
                                 _comparable_store(document["ba"], False), "/ba",
                                 "merge_stores(L, R) (expected) and merge_stores(R, L) (actual) differ")
    return document, None, [failure] if failure else []


def run_idempotent_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    """With M = merge_stores(L, R): merging M with itself, with L or with R gives M again (spec 5.4)."""
    merged = session.scratch / "merged"
    local, remote = session.scratch / "local", session.scratch / "remote"
    materialise_store(vector.input["local"], vector.root, local)
    materialise_store(vector.input["remote"], vector.root, remote)
    refused = _merge_store_dirs(session, vector, local, remote, merged)
    if refused:
        return {}, None, [refused]
    document = {"merged": store_view(merged)}
    failures = []
    for name, other, what in (("self", merged, "M with itself"), ("with_local", local, "M with L again"),
                              ("with_remote", remote, "M with R again")):
        left, right = session.scratch / name / "m", session.scratch / name / "other"
        shutil.copytree(merged, left)
        shutil.copytree(other, right)
        refused = _merge_store_dirs(session, vector, left, right, session.scratch / name / "out")
        if refused:
            return document, None, [refused]
        document[name] = store_view(session.scratch / name / "out")
        failure = _invariant_failure(vector, "idempotent", _comparable_store(document["merged"], True),
                                     _comparable_store(document[name], True), f"/{name}",
                                     f"merging the result M = merge_stores(L, R) (expected) {what} changed it (actual)")
        if failure:
            failures.append(failure)
    return document, None, failures


DERIVED_OPS = {
    ("swapped", "merge_sessions"): run_swapped_sessions,
    ("idempotent", "merge_sessions"): run_idempotent_sessions,
    ("swapped", "merge_stores"): run_swapped_stores,
    ("idempotent", "merge_stores"): run_idempotent_stores,
}

OPS = {
    "merge_sessions": run_merge_sessions,
    "read_store": run_read_store,
    "write": run_write,
    "merge_stores": run_merge_stores,
    "concurrent_writes": run_concurrent_writes,
    "atomic_writes": run_atomic_writes,
    "atomic_merges": run_atomic_merges,
}
