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
import threading
import uuid
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

from conformance.model import store as model_store
from conformance.model.frontmatter import parse_entry_text
from conformance.model.identity import item_key, text_hash
from conformance.model.session import load_session_data, load_session_text, render
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse, Outcome
from conformance.runner.adapter_files import UnsafeFile, copy_tree, read_file, read_tree, remove_tree
from conformance.runner.checks import CheckContext, CheckFailure, FileContext, evaluate_check
from conformance.runner.compare import Rules
from conformance.runner.implementations import Implementation
from conformance.runner.invariants import (
    ABSORPTION,
    FULL_DATA,
    as_of,
    demoted,
    is_replica,
    relation_failures,
    rendered_view,
    store_as_of,
    store_is_replica,
    without_unknown_keys,
)
from conformance.runner.vectors import (
    DEFAULT_CHOICES,
    FEATURES,
    REPORTS,
    Expectation,
    ExpansionProblem,
    PlantedLink,
    Vector,
    content_text,
    effective_caps,
    expand,
    materialise_store,
    refuse_links,
    session_text,
)

PASS, FAIL, ERROR, NOT_APPLICABLE = "pass", "fail", "error", "not_applicable"
# Kinds of not applicable; only NA_OP keeps a level from being earned.
NA_OP, NA_FEATURE, NA_CHOICE, NA_CAPS = "op", "feature", "choice", "caps"
SCRATCH = "<scratch>"
SHOWN_CHARS = 4000
REFUSALS = ("response", "expect_error")
POLLER_GRACE = 10.0   # seconds the session.json poller gets to notice the end of its vector


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
            # An implementation that captures stderr per vector has it replaced by
            # the capture (run_vector); the others can only show the process's.
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
    # Named afresh for every vector: a directory an adapter made unremovable
    # stays with the vector that made it, and spoils no later one.
    scratch = (Path(workdir) / _scratch_name(vector.id)).resolve()
    session = _Session(implementation, scratch)
    capturing = callable(getattr(implementation, "start_stderr_capture", None))
    if capturing:
        implementation.start_stderr_capture()
    try:
        result, document = _run_in_scratch(expanded, session, described)
        if capturing:
            # Every failure shows what the adapter logged while this vector ran
            # (a runner error keeps the runner's own traceback).
            # Only that: never the process's earlier stderr, which belongs to
            # the vectors before this one.
            captured = implementation.take_stderr_capture()
            if not result.runner_error:
                result.stderr_tail = captured
        if keep_scratch is not None and result.outcome in (FAIL, ERROR):
            left_out = keep_scratch_dir(expanded, scratch, Path(keep_scratch) / safe_name(vector.id), document)
            if left_out:
                result.detail = (f"{result.detail}; " if result.detail else "") + (
                    f"--keep-scratch left out {', '.join(left_out[:5])}")
    finally:
        removal = remove_tree(scratch, f"{Path(workdir).name}/{scratch.name}")
    problem = removal.fault("its scratch directory")
    if problem:
        _charge_error(result, problem)
    result.sent = session.sent
    result.duration = time.monotonic() - started
    return result


def _charge_error(result: VectorResult, problem: str) -> None:
    """Make `result` an error for `problem`, found after its verdict."""
    if result.outcome == ERROR:
        result.detail = f"{result.detail}; and {problem}"
    else:
        result.detail = problem if not result.detail else f"{problem}; before that: {result.detail}"
        result.outcome = ERROR


def _run_in_scratch(vector: Vector, session: _Session, described: Describe) -> tuple[VectorResult, dict]:
    """The vector's result, and the result document its checks looked at."""
    document: dict = {}
    try:
        run = DERIVED_OPS[(vector.derived, vector.op)] if vector.derived else OPS[vector.op]
        document, files, failures = run(vector, session, effective_caps(described.caps))
        # When the op itself was refused, the checks would only repeat that.
        if not any(failure.check in REFUSALS for failure in failures):
            failures = failures + evaluate_checks(vector, document, files)
        return VectorResult(vector.id, FAIL if failures else PASS, failures), document
    except _Stop as stop:
        return VectorResult(vector.id, stop.outcome, detail=stop.detail, stderr_tail=stop.stderr_tail,
                            na_kind=stop.na_kind), document
    except PlantedLink as planted:
        detail = f"the adapter left a link in its scratch area: {planted}"
        return VectorResult(vector.id, ERROR, detail=detail), document
    except Exception as error:  # noqa: BLE001 - one vector the runner cannot handle must not end the run
        return VectorResult(vector.id, ERROR, detail=f"the runner could not run this vector: "
                                                     f"{type(error).__name__}: {error}",
                            stderr_tail=traceback.format_exc()[-4000:], runner_error=True), document


def keep_scratch_dir(vector: Vector, scratch: Path, target: Path, document: dict | None = None) -> list[str]:
    """Copy a vector's scratch directory (its stores as the adapter left them)
    to `target`, links as links; a merge_sessions vector, which has no store,
    leaves the two replica texts it sent instead, and a derived one also every
    merge it compared (`ab`, `ba`; `merged` (M), `self`, `with_local`,
    `with_remote`). A derived merge_stores vector's merges are its scratch
    directories. Returns what was left out (special files, too deep, too big)."""
    remove_tree(target)
    target.mkdir(parents=True)
    left_out = copy_tree(scratch, target) if scratch.is_dir() else []
    if (vector.base or vector).op == "merge_sessions":
        for side in ("local", "remote"):
            (target / f"{side}.session.json").write_text(content_text(vector.input[side]), encoding="utf-8",
                                                         errors="surrogateescape")
        for name, part in (document or {}).items() if vector.derived else ():
            if isinstance(part, dict) and "session" in part:
                (target / f"{name}.session.json").write_text(
                    json.dumps(part["session"], indent=2, ensure_ascii=False) + "\n", encoding="utf-8",
                    errors="surrogateescape")
    return left_out


def evaluate_checks(vector: Vector, document: dict, files: FileContext | None) -> list[CheckFailure]:
    """The vector's failed checks, each with the requirements it checks and
    the interpretation it rests on."""
    context = check_context(vector, files)
    failures = []
    refused = refused_steps(document)
    for check in vector.expect:
        if check.get("unless_refused") in refused:
            continue  # it checks what that step wrote, and the step refused as its `may_refuse` allows
        failures.extend(annotated(failure, vector.check_expectation(check))
                        for failure in evaluate_check(check, document, files, context))
    return failures


def refused_steps(document: dict) -> set[int]:
    """The indexes of a write vector's steps that the adapter refused."""
    steps = document.get("steps")
    return {index for index, step in enumerate(steps if isinstance(steps, list) else [])
            if isinstance(step, dict) and step.get("ok") is False}


def check_context(vector: Vector, files: FileContext | None) -> CheckContext:
    """The comparison rules of the vector's result document: entries a reader
    reported (read_store), and for a write the items its input held."""
    input_lists = None
    if vector.op == "write" and files is not None:
        input_lists = _input_lists(files.original.get("files", {}).get(model_store.SESSION_FILE))
        for step in vector.input.get("steps", ()):
            text = step.get("args", {}).get("text") if isinstance(step, dict) else None
            if isinstance(text, str):
                input_lists.pop(text_hash(text), None)
    return CheckContext(files, Rules(reader_reported=vector.op == "read_store"), input_lists)


def _input_lists(data: bytes | None) -> dict[str | None, frozenset[str]]:
    """identity -> the lists of an input session.json that hold it (the key
    None stands for the items that have no identity)."""
    try:
        session = json.loads(data.decode("utf-8")) if data is not None else None
    except (UnicodeDecodeError, ValueError):
        return {}
    current = session.get("current") if isinstance(session, dict) else None
    found: dict[str | None, set[str]] = {}
    for name, items in (current.items() if isinstance(current, dict) else ()):
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict):
                found.setdefault(item_key(item), set()).add(name)
    return {key: frozenset(names) for key, names in found.items()}


def annotated(failure: CheckFailure, expectation: Expectation) -> CheckFailure:
    return replace(failure, requirements=expectation.requirements, ambiguity=expectation.ambiguity)


def safe_name(vector_id: str) -> str:
    """A vector id as a file name (ids are `[a-z0-9._-]`, derived ones add `~`)."""
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in vector_id)


def scratch_prefix(vector_id: str) -> str:
    """How the names of a vector's scratch directories start."""
    return f"v-{safe_name(vector_id)}-"


def _scratch_name(vector_id: str) -> str:
    return scratch_prefix(vector_id) + uuid.uuid4().hex[:8]


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


def entry_files(files: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """(link, bytes) of the entry files in a snapshot of a store, picked as the model's
    `entry_paths` picks them on disk (`memory/*.md`, no subfolder), so that the runner's
    reading of an adapter's store and the model's reading of its own agree."""
    prefix = model_store.MEMORY_DIR + "/"
    return [(Path(relative).stem, data) for relative, data in sorted(files.items())
            if relative.startswith(prefix) and relative.endswith(".md") and "/" not in relative[len(prefix):]]


def adapter_snapshot(directory: Path) -> dict[str, bytes]:
    """relpath -> bytes of a directory the adapter wrote in, read safely
    (`adapter_files`): a link, a special file or too much ends the vector with an error."""
    try:
        return read_tree(directory, shown=directory.name)
    except UnsafeFile as unsafe:
        raise _Stop(ERROR, str(unsafe)) from None


def store_document(store: Path) -> dict:
    """The store as the runner sees it: raw session object, live render, entries, files."""
    files = adapter_snapshot(store)
    raw = files.get(model_store.SESSION_FILE)
    raw_text = None if raw is None else model_store.decode(raw)
    loaded = load_session_text(raw_text)
    document: dict = {"session_status": loaded.status, "live": render(loaded.session)}
    if raw_text is not None:
        try:
            document["session"] = json.loads(raw_text)
        except ValueError:
            pass  # the status says it: degraded
        except RecursionError:
            raise _Stop(ERROR, f"the adapter wrote {store.name}/{model_store.SESSION_FILE} nested too deeply "
                               "for the runner to parse (JSON perhaps, but deeper than any session)") from None
    document["machine_ids"] = stamped_machine_ids(document.get("session"))
    entries = entry_files(files)
    read = model_store.store_from_bytes(entries, raw)
    document["entries"] = _entries_by_link(read["entries"])
    document["frontmatter_problems"] = frontmatter_problems(entries)
    document["files"] = file_texts(files)
    return document


def frontmatter_problems(entries: list[tuple[str, bytes]]) -> dict[str, list[dict]]:
    """link -> where each entry file leaves the frontmatter subset of 3.1
    (`{"code", "line", "message"}`): what a writer's MUST NOTs are checked
    on, apart from whether the values it was given read back."""
    return {link: [{"code": problem.code, "line": problem.line, "message": problem.message}
                   for problem in parse_entry_text(model_store.decode(data)).problems]
            for link, data in entries}


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
    after = adapter_snapshot(store)
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
    files = FileContext({"files": original}, {"files": adapter_snapshot(store)})
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
    local_after, remote_after = adapter_snapshot(local), adapter_snapshot(remote)
    document["local_files"] = file_texts(local_after)
    document["remote_files"] = file_texts(remote_after)
    files = FileContext(
        {"files": {}, "local_files": local_original, "remote_files": remote_original},
        {"files": adapter_snapshot(out), "local_files": local_after, "remote_files": remote_after},
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
    # A writer may refuse a write while another holds the lock rather than wait (4.1 asks that the cycle
    # be serialized, not how): the caller knows that action was not added, so it is no lost update.
    refused = []
    for process_index, results in enumerate(outcomes):
        for call_index, outcome in enumerate(results):
            outcome = session.judge("add_next_action", outcome)
            if isinstance(outcome, ErrorResponse):
                refused.append(texts[process_index][call_index])
    document = store_document(store)
    present = _open_action_keys(document)
    accepted = [text for text in written if text not in refused]
    document.update(load=load, written=written, refused=refused, control_missing=control_missing,
                    missing=[text for text in accepted if text_hash(text) not in present])
    if not accepted:
        failures.append(CheckFailure(
            "/refused", "concurrent_write_accepted", [], refused,
            f"all {len(written)} concurrent adds were refused: a writer may refuse while the lock is busy, but "
            "one of them holds it and its write must go through (spec 4.1)", requirements=SERIALIZED))
    if control_missing:
        failures.append(CheckFailure(
            "/control_missing", "sequential_control", [], control_missing,
            f"{len(control_missing)} of {len(written)} actions added one after another (no concurrency) are "
            f"neither live nor parked, though the declared caps (next_actions {caps['next_actions']} + "
            f"parked_actions {caps['parked_actions']}) hold them: actions are dropped instead of parked, or the "
            "caps in describe are not the implementation's (spec 4.1); not counted as lost updates",
            requirements=ROTATES_TO_PARKED))
    lost = len(document["missing"]) - len([text for text in control_missing if text in accepted])
    if lost > 0:
        failures.append(CheckFailure(
            "/missing", "no_lost_update", control_missing, document["missing"],
            f"{lost} of {len(accepted)} actions added by {processes} concurrent writers are lost beyond what the "
            "sequential control run lost: the read-mutate-write cycle is not serialized (spec 4.1)",
            requirements=SERIALIZED))
    return document, FileContext({"files": original}, {"files": adapter_snapshot(store)}), failures


class _SessionFilePoller:
    """Reads session.json as fast as it can; every read must be whole JSON or absent."""

    def __init__(self, path: Path):
        self.path = path
        self.unsafe: str | None = None    # what the adapter left instead of a file the runner can read
        self.reads = 0
        self.partial_reads = 0
        self.first_partial: dict | None = None
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self._poll()
        finally:
            self.started.set()

    def _poll(self) -> None:
        while not self.stop.is_set():
            try:
                data = read_file(self.path, shown=f"{self.path.parent.name}/{self.path.name}")
            except UnsafeFile as unsafe:
                self.unsafe = str(unsafe)
                return
            self.reads += 1
            self.started.set()
            if data is None:
                continue
            try:
                json.loads(data.decode("utf-8"))
            except RecursionError:
                self.unsafe = (f"the adapter wrote {self.path.parent.name}/{self.path.name} nested too deeply "
                               "for the runner to parse")
                return
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
        # Each read is bounded (a regular file of at most MAX_FILE_BYTES): the thread ends promptly.
        self.thread.join(POLLER_GRACE)


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
                remove_tree(out)
                out.mkdir()
            args = {"local": str(local), "remote": str(remote), "out": str(out)}
            # Only the first call is recorded: the others are the same.
            response = session.call("merge_stores", args) if index == 0 else \
                session.judge("merge_stores", session.implementation.call("merge_stores", args))
            if isinstance(response, ErrorResponse):
                failures.append(_response_failure(vector, "merge_stores", response, f"/merges/{index}"))
                break
    if poller.unsafe:
        raise _Stop(ERROR, poller.unsafe)
    document = store_document(out)
    partial = _partial_read_failure(vector, poller, document, " in the merged store")
    failures += [partial] if partial else []
    files = FileContext({"files": {}, "local_files": local_original, "remote_files": remote_original},
                        {"files": adapter_snapshot(out), "local_files": adapter_snapshot(local),
                         "remote_files": adapter_snapshot(remote)})
    return document, files, failures


def run_atomic_writes(vector: Vector, session: _Session, caps: dict) -> Built:
    """N writes while a reader polls session.json: no read may be partial (spec 4.1)."""
    store = session.scratch / "store"
    original = materialise_store(vector.input.get("store"), vector.root, store)
    store.mkdir(parents=True, exist_ok=True)
    failures: list[CheckFailure] = []
    # Questions only below the cap: a writer may refuse an add at the cap (AMB-CAP-REFUSAL).
    questions = 2 * caps["open_questions"]
    with _SessionFilePoller(store / model_store.SESSION_FILE) as poller:
        for index in range(vector.input["writes"]):
            if index % 2 == 0 and index < questions:
                op, args = "add_question", {"store": str(store), "text": f"atomic question {index + 1}"}
            else:
                op, args = "record_session", {"store": str(store), "summary": f"atomic session {index + 1}"}
            # Only the first call is recorded: the others differ by their number.
            response = session.call(op, args) if index < 2 else session.judge(op, session.implementation.call(op, args))
            if isinstance(response, ErrorResponse):
                failures.append(_response_failure(vector, op, response, f"/writes/{index}"))
                break
    if poller.unsafe:
        raise _Stop(ERROR, poller.unsafe)
    document = store_document(store)
    partial = _partial_read_failure(vector, poller, document, "")
    failures += [partial] if partial else []
    return document, FileContext({"files": original}, {"files": adapter_snapshot(store)}), failures


# --- derived vectors: merge invariants (spec 5.4) ---------------------------------
# What each compares, and what decides: conformance.runner.invariants.


def run_swapped_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    """merge(A, B) and merge(B, A) render identically (spec 5.4); their whole
    data, keys neither side's merge knows excepted, is compared as advisory."""
    a, b = content_text(vector.input["local"]), content_text(vector.input["remote"])
    document = {}
    for name, pair in (("ab", (a, b)), ("ba", (b, a))):
        merged = _merge_texts(session, vector, *pair)
        if isinstance(merged, CheckFailure):
            return document, None, [merged]
        document[name] = {**_session_document(merged), "view": rendered_view(merged, vector.spec)}
    failures = relation_failures(
        vector, "commutative", document["ab"]["view"], document["ba"]["view"], "/ba/view",
        "merge(A, B) (expected) and merge(B, A) (actual) render differently")
    failures += relation_failures(
        vector, "commutative", without_unknown_keys(document["ab"]["session"], vector.spec),
        without_unknown_keys(document["ba"]["session"], vector.spec), "/ba/session",
        "merge(A, B) (expected) and merge(B, A) (actual) hold different data", advisory=FULL_DATA)
    return document, None, demoted(failures, is_replica(a) and is_replica(b))


def run_idempotent_sessions(vector: Vector, session: _Session, caps: dict) -> Built:
    """With M = merge(A, B): merge(M, M) is M (spec 5.4: merging a replica
    with itself is a no-op); merge(M, A) and merge(M, B) are compared with M
    as advisory (absorption, which 5.4 does not state)."""
    a, b = content_text(vector.input["local"]), content_text(vector.input["remote"])
    merged = _merge_texts(session, vector, a, b)
    if isinstance(merged, CheckFailure):
        return {}, None, [merged]
    document = {"merged": _session_document(merged)}
    m = session_text(merged) if isinstance(merged, dict) else json.dumps(merged)
    failures = []
    for name, other, relation, what, advisory in (
            ("self", m, "idempotent", "merge(M, M) changed M = merge(A, B) (self-merge is not a no-op)", None),
            ("with_local", a, "absorption", "merge(M, A) differs from M = merge(A, B)", ABSORPTION),
            ("with_remote", b, "absorption", "merge(M, B) differs from M = merge(A, B)", ABSORPTION)):
        again = _merge_texts(session, vector, m, other)
        if isinstance(again, CheckFailure):
            return document, None, [again]
        document[name] = _session_document(again)
        failures += relation_failures(vector, relation, as_of(merged, vector.spec), as_of(again, vector.spec),
                                       f"/{name}/session",
                                       f"{what} (expected M, actual the re-merge)", advisory=advisory)
    return document, None, demoted(failures, is_replica(a) and is_replica(b))


def store_view(store: Path) -> dict:
    """A merged store as the invariants compare it: its entries as the
    reference model reads them, and its session."""
    document = store_document(store)
    entries = {link: {key: entry.get(key) for key in ("status", "type", "name", "fields", "body")}
               for link, entry in document["entries"].items()}
    return {"entries": entries, "session": document.get("session")}


def run_swapped_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    """merge_stores(L, R) and merge_stores(R, L) hold the same entries and
    render the same session (spec 5.4); the whole session data is advisory."""
    document = {}
    for name, first, second in (("ab", "local", "remote"), ("ba", "remote", "local")):
        left, right = session.scratch / name / "local", session.scratch / name / "remote"
        materialise_store(vector.input[first], vector.root, left)
        materialise_store(vector.input[second], vector.root, right)
        refused = _merge_store_dirs(session, vector, left, right, session.scratch / name / "out")
        if refused:
            return document, None, [refused]
        document[name] = store_view(session.scratch / name / "out")
        document[name]["view"] = rendered_view(document[name]["session"], vector.spec)
    differ = "merge_stores(L, R) (expected) and merge_stores(R, L) (actual)"
    failures = relation_failures(vector, "commutative", document["ab"]["entries"], document["ba"]["entries"],
                                  "/ba/entries", f"{differ} hold different entries")
    failures += relation_failures(vector, "commutative", document["ab"]["view"], document["ba"]["view"],
                                   "/ba/view", f"{differ} render different sessions")
    failures += relation_failures(vector, "commutative", without_unknown_keys(document["ab"]["session"], vector.spec),
                                   without_unknown_keys(document["ba"]["session"], vector.spec), "/ba/session",
                                   f"{differ} hold different session data", advisory=FULL_DATA)
    replicas = all(store_is_replica(vector.input[side], vector.root) for side in ("local", "remote"))
    return document, None, demoted(failures, replicas)


def run_idempotent_stores(vector: Vector, session: _Session, caps: dict) -> Built:
    """With M = merge_stores(L, R): merging M with itself gives M (spec 5.4);
    merging it with L or R again is compared with M as advisory (absorption)."""
    merged = session.scratch / "merged"
    local, remote = session.scratch / "local", session.scratch / "remote"
    materialise_store(vector.input["local"], vector.root, local)
    materialise_store(vector.input["remote"], vector.root, remote)
    refused = _merge_store_dirs(session, vector, local, remote, merged)
    if refused:
        return {}, None, [refused]
    document = {"merged": store_view(merged)}
    failures = []
    for name, other, relation, what, advisory in (
            ("self", merged, "idempotent", "merge_stores(M, M) changed M = merge_stores(L, R) "
                                           "(self-merge is not a no-op)", None),
            ("with_local", local, "absorption", "merge_stores(M, L) differs from M = merge_stores(L, R)", ABSORPTION),
            ("with_remote", remote, "absorption", "merge_stores(M, R) differs from M = merge_stores(L, R)",
             ABSORPTION)):
        left, right = session.scratch / name / "m", session.scratch / name / "other"
        _copy_store(merged, left)
        _copy_store(other, right)
        refused = _merge_store_dirs(session, vector, left, right, session.scratch / name / "out")
        if refused:
            return document, None, [refused]
        document[name] = store_view(session.scratch / name / "out")
        failures += relation_failures(vector, relation, store_as_of(document["merged"], vector.spec),
                                       store_as_of(document[name], vector.spec), f"/{name}",
                                       f"{what} (expected M, actual the re-merge)", advisory=advisory)
    replicas = all(store_is_replica(vector.input[side], vector.root) for side in ("local", "remote"))
    return document, None, demoted(failures, replicas)


def _copy_store(source: Path, target: Path) -> None:
    """A store the adapter wrote, copied as the runner read it (never through a link)."""
    for relative, data in adapter_snapshot(source).items():
        refuse_links(target / relative, target.parent)
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_bytes(data)
    target.mkdir(parents=True, exist_ok=True)


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
