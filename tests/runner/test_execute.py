"""Running single vectors: result documents of every op, and every outcome."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

from conformance.model import writer
from conformance.model.session import load_session_text
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse
from conformance.model.store import entry_paths
from conformance.runner.adapter_files import read_tree
from conformance.runner.execute import entry_files, run_vector
from conformance.runner.implementations import ModelImplementation
from conformance.runner.vectors import load_corpus


def load_one(root: Path, raw: dict):
    write_vector_file(root, "t.json", [raw])
    corpus = load_corpus([root])
    assert corpus.problems == []
    return corpus.vectors[0]


@pytest.fixture
def model():
    return ModelImplementation()


def run(root, raw, implementation, tmp_path):
    loaded = load_one(root, raw)
    return run_vector(loaded, implementation, implementation.describe(), tmp_path / "work")


SESSION = {"version": 1, "current": {
    "decisions": [{"text": "Use SQLite", "date": "2026-01-01", "hidden": True, "hidden_at": "2026-01-05"}]}}


def test_merge_sessions_result_has_session_and_live(vectors_root, tmp_path, model):
    remote = {"version": 1, "current": {"decisions": [{"text": "use sqlite", "date": "2026-02-01"}]}}
    raw = vector("t.hidden", input={"local": SESSION, "remote": remote}, expect=[
        {"path": "/session/current/decisions", "contains": [{"text": "Use SQLite", "hidden": True}]},
        {"path": "/live/decisions", "count": 0},
    ])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    assert result.sent[0]["op"] == "merge_sessions"
    assert json.loads(result.sent[0]["args"]["local"]) == SESSION


def test_merge_sessions_sends_text_sides_verbatim(vectors_root, tmp_path, model):
    raw = vector("t.text", input={"local": {"$text": "{broken"}, "remote": SESSION},
                 expect=[{"path": "/session/current/decisions", "identities": ["use sqlite"]}])
    result = run(vectors_root, raw, model, tmp_path)
    assert result.outcome == "pass" and result.sent[0]["args"]["local"] == "{broken"


def test_a_wrong_expectation_fails_at_its_path(vectors_root, tmp_path, model):
    raw = vector("t.wrong", input={"local": SESSION, "remote": {"version": 1}},
                 expect=[{"path": "/session/current/decisions", "contains": [{"text": "use sqlite", "hidden": False}]}])
    result = run(vectors_root, raw, model, tmp_path)
    assert result.outcome == "fail"
    failure, = result.failures
    assert failure.path == "/session/current/decisions/0/hidden" and failure.actual is True


def test_read_store_with_a_golden_store_leaves_it_unchanged(vectors_root, tmp_path, model):
    golden = vectors_root / "stores" / "future"
    (golden / "memory").mkdir(parents=True)
    (golden / "session.json").write_text('{"version": 99, "current": {}}')
    (golden / "memory" / "fact_a.md").write_text("---\ntype: fact\nname: A\n---\nSee [[fact_b]].\n")
    raw = vector("t.read", op="read_store", level="reader", input={"store": {"dir": "stores/future"}}, expect=[
        {"path": "/session/status", "equals": "degraded"},
        {"path": "/files/session.json", "unchanged": True},
        {"path": "/files/session.json", "preserved": True},
        {"path": "/entries/fact_a", "matches": {"status": "ok", "type": "fact", "links": ["fact_b"]}},
    ])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    assert result.sent == [{"op": "read_store", "args": {"store": "<scratch>/store"}}]


def test_write_steps_stamps_and_expected_errors(vectors_root, tmp_path, model):
    raw = vector("t.write", op="write", level="writer", input={
        "store": {"files": {"memory/fact_x.md": "---\ntype: fact\nname: X\n---\nbody\n"}},
        "steps": [{"op": "add_next_action", "args": {"text": "Ship it"}},
                  {"op": "add_goal", "args": {"text": "  "}, "expect_error": "invalid_input"},
                  {"op": "complete_next_action", "args": {"text": "ship IT"}}]},
        expect=[{"path": "/session/current/completed_actions", "stamped": ["done_at"]},
                {"path": "/live/next_actions", "count": 0},
                {"path": "/files/memory/fact_x.md", "unchanged": True},
                {"path": "/steps/1", "matches": {"ok": False, "error": {"kind": "invalid_input"}}}])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    assert [sent["op"] for sent in result.sent] == ["add_next_action", "add_goal", "complete_next_action"]


def test_a_step_that_should_be_refused_but_is_not_fails(vectors_root, tmp_path, model):
    raw = vector("t.refuse", op="write", level="writer", input={
        "steps": [{"op": "add_goal", "args": {"text": "fine"}, "expect_error": "invalid_input"}]},
        expect=[{"path": "/live/goals", "count": 5}])
    result = run(vectors_root, raw, model, tmp_path)
    failure, = result.failures
    assert (failure.path, failure.check, failure.actual) == ("/steps/0", "expect_error", "ok")


def test_merge_stores_reads_the_out_store(vectors_root, tmp_path, model):
    local = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\n", "session.json": SESSION}}
    remote = {"files": {"memory/fact_b.md": "---\ntype: fact\nname: B\n---\n"}}
    raw = vector("t.stores", op="merge_stores", input={"local": local, "remote": remote}, expect=[
        {"path": "/entries", "contains": ["fact_a", "fact_b"]},
        {"path": "/session/current/decisions", "identities": ["use sqlite"]},
        {"path": "/local_files/session.json", "unchanged": True},
    ])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])


def test_concurrent_and_atomic_writes_pass_on_the_model(vectors_root, tmp_path, model):
    concurrent = vector("t.conc", op="concurrent_writes", level="writer",
                        input={"processes": 2, "actions_per_process": 3},
                        expect=[{"path": "/session/current/next_actions", "count": 6}])
    result = run(vectors_root, concurrent, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    atomic = vector("t.atomic", op="atomic_writes", level="writer", input={"writes": 10},
                    expect=[{"path": "/partial_reads", "equals": 0}])
    result = run(vectors_root, atomic, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])


def test_concurrent_writes_scale_to_the_declared_caps(vectors_root, tmp_path):
    small = ModelImplementation(caps={"next_actions": 2, "parked_actions": 5})
    raw = vector("t.big", op="concurrent_writes", level="writer", input={"processes": 3, "actions_per_process": 10},
                 expect=[{"path": "/load", "equals": {"processes": 3, "actions_per_process": 2}}])
    result = run(vectors_root, raw, small, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    tiny = ModelImplementation(caps={"next_actions": 1, "parked_actions": 2})
    raw["expect"] = [{"path": "/load", "equals": {"processes": 3, "actions_per_process": 1}}]
    assert run(vectors_root, raw, tiny, tmp_path).outcome == "pass"


# --- implementations that misbehave ---------------------------------------------

class Wrapped(ModelImplementation):
    """The model, with one behaviour replaced by a test."""

    def __init__(self, ops=None, answer=None):
        super().__init__()
        self.ops = ops
        self.answer = answer

    def describe(self) -> Describe:
        described = super().describe()
        if self.ops is None:
            return described
        return Describe(**{**described.__dict__, "ops": tuple(self.ops)})

    def call(self, op, args):
        if self.answer is not None:
            return self.answer
        return super().call(op, args)


def test_an_op_missing_from_describe_is_not_applicable_and_nothing_is_sent(vectors_root, tmp_path):
    result = run(vectors_root, vector("t.na"), Wrapped(ops=["describe", "read_store"]), tmp_path)
    assert result.outcome == "not_applicable" and result.sent == []
    assert result.detail == "the adapter does not declare op merge_sessions"


def test_an_unsupported_answer_is_not_applicable(vectors_root, tmp_path):
    unsupported = Wrapped(answer=ErrorResponse(1, "unsupported", "no merging here"))
    result = run(vectors_root, vector("t.unsup"), unsupported, tmp_path)
    assert result.outcome == "not_applicable" and "no merging here" in result.detail


class Crashing(Wrapped):
    """Writes `said` to its stderr while the vector runs, then crashes; the fault
    carries the whole process's stderr, an earlier vector's trace included."""

    def __init__(self, said: str):
        super().__init__(answer=AdapterFault("crashed", "the adapter exited with code 3",
                                             "Traceback of an earlier vector\n" + said))
        self.said = said

    def call(self, op, args):
        if self._captured is not None and self.said:
            self._captured.append(self.said)
        return super().call(op, args)


def test_an_adapter_fault_is_an_error_with_the_stderr_written_while_the_vector_ran(vectors_root, tmp_path):
    result = run(vectors_root, vector("t.crash"), Crashing("Traceback: boom"), tmp_path)
    assert result.outcome == "error" and result.stderr_tail == "Traceback: boom"
    assert "exited with code 3" in result.detail


def test_stderr_written_before_the_vector_is_never_shown_under_it(vectors_root, tmp_path):
    result = run(vectors_root, vector("t.crash"), Crashing(""), tmp_path)
    assert result.outcome == "error" and result.stderr_tail == ""


def test_an_internal_error_answer_fails_once_without_repeating_every_check(vectors_root, tmp_path):
    broken = Wrapped(answer=ErrorResponse(1, "internal", "KeyError: 'current'"))
    result = run(vectors_root, vector("t.internal"), broken, tmp_path)
    failure, = result.failures
    assert result.outcome == "fail" and failure.check == "response" and "KeyError" in failure.message


class TornWriter(ModelImplementation):
    """Writes session.json in place, in slow pieces: a reader can see half a file."""

    def call(self, op, args):
        path = Path(args["store"]) / "session.json"
        text = path.read_text() if path.exists() else None
        session = load_session_text(text).session
        stamp = writer.Stamp("2026-01-01T00:00:00.000Z", "m")
        if op == "add_question":
            session, _ = writer.add_question(session, text=args["text"], stamp=stamp)
        else:
            session, _ = writer.record_session(session, summary=args["summary"], stamp=stamp)
        data = json.dumps(session, indent=2).encode()
        with open(path, "wb") as handle:
            for start in range(0, len(data), 64):
                handle.write(data[start:start + 64])
                handle.flush()
                time.sleep(0.002)
        return OkResponse(1, {})


def test_atomic_writes_catch_a_torn_write(vectors_root, tmp_path):
    raw = vector("t.torn", op="atomic_writes", level="writer", input={"writes": 10}, expect=[])
    result = run(vectors_root, raw, TornWriter(), tmp_path)
    assert result.outcome == "fail"
    failure, = result.failures
    assert failure.path == "/partial_reads" and failure.check == "atomic" and failure.actual > 0
    assert "first (read" in failure.message


class UnlockedWriters(ModelImplementation):
    """Concurrent writers that read, wait for each other, then write: every round loses updates."""

    def call_in_parallel(self, jobs):
        barrier = threading.Barrier(len(jobs))
        results = [[] for _ in jobs]

        def work(index):
            for op, args in jobs[index]:
                path = Path(args["store"]) / "session.json"
                text = path.read_text() if path.exists() else None
                barrier.wait()
                session, _ = writer.add_next_action(load_session_text(text).session, text=args["text"],
                                                    stamp=writer.Stamp("2026-01-01T00:00:00.000Z", "m"))
                path.with_suffix(f".{index}").write_text(json.dumps(session))
                path.with_suffix(f".{index}").replace(path)
                barrier.wait()
                results[index].append(OkResponse(1, {}))

        threads = [threading.Thread(target=work, args=(index,)) for index in range(len(jobs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results


def test_concurrent_writes_catch_lost_updates(vectors_root, tmp_path):
    raw = vector("t.lost", op="concurrent_writes", level="writer", input={"processes": 2, "actions_per_process": 3},
                 expect=[])
    result = run(vectors_root, raw, UnlockedWriters(), tmp_path)
    assert result.outcome == "fail"
    failure, = result.failures
    assert failure.path == "/missing" and len(failure.actual) == 3


class TornMerger(ModelImplementation):
    """merge_stores that writes the merged session.json in place, in small chunks."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "merge_stores" and outcome.ok:
            path = Path(args["out"]) / "session.json"
            data = path.read_bytes()
            with open(path, "wb") as handle:
                for start in range(0, len(data), 64):
                    handle.write(data[start:start + 64])
                    handle.flush()
                    time.sleep(0.002)
        return outcome


STORES = {"local": {"files": {"session.json": SESSION}},
          "remote": {"files": {"session.json": {"version": 1, "current": {"goals": [{"text": "Ship", "set_on": "2026-01-02"}]}}}}}


def test_atomic_merges_pass_on_the_model_and_catch_a_torn_merge(vectors_root, tmp_path, model):
    raw = vector("t.atomic-merge", op="atomic_merges", input={"merges": 5, **STORES}, expect=[
        {"path": "/partial_reads", "equals": 0}, {"path": "/live/goals", "identities": ["Ship"]}])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    assert [call["op"] for call in result.sent] == ["merge_stores"]
    torn = run(vectors_root, dict(raw, expect=[]), TornMerger(), tmp_path / "torn")
    failure, = torn.failures
    assert failure.path == "/partial_reads" and "in the merged store" in failure.message


def test_a_put_files_step_changes_the_store_between_two_writes_and_sends_nothing(vectors_root, tmp_path, model):
    raw = vector("t.put", op="write", level="writer", input={"store": {"files": {"session.json": {"$text": "{one"}}}, "steps": [
        {"op": "add_goal", "args": {"text": "First"}},
        {"put_files": {"session.json": {"$text": "{two"}}},
        {"op": "add_goal", "args": {"text": "Second"}}]}, expect=[
        {"path": "/files/session.json", "preserved": True},
        {"path": "/files/session.json", "preserved": {"$text": "{two"}},
        {"path": "/steps/1", "equals": {"put_files": ["session.json"], "ok": True}},
        {"path": "/live/goals", "identities": ["Second"]},
        {"path": "/machine_ids", "count": 1}])
    result = run(vectors_root, raw, model, tmp_path)
    assert (result.outcome, result.failures) == ("pass", [])
    assert [call["op"] for call in result.sent] == ["add_goal", "add_goal"]


STORE_LAYOUT = {
    "memory/fact_a.md": b"---\ntype: fact\nname: A\n---\n",
    "memory/decision_b.md": b"---\ntype: decision\nname: B\n---\n",
    "memory/archive/fact_old.md": b"---\ntype: fact\nname: Old\n---\n",
    "memory/notes.txt": b"not an entry",
    "memory/fact_c.md.bak": b"a backup",
    "memoryless/fact_d.md": b"---\ntype: fact\nname: D\n---\n",
    "fact_e.md": b"---\ntype: fact\nname: E\n---\n",
    "session.json": b"{}",
}


def test_entry_files_picks_what_the_models_reader_picks_from_the_same_store(tmp_path):
    # The runner reads an adapter's store from a snapshot, the model reads its own from disk:
    # both must see the same entries, or a vector grades an adapter on other files.
    for relative, data in STORE_LAYOUT.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(data)
    picked = entry_files(read_tree(tmp_path))
    assert [link for link, _ in picked] == [path.stem for path in entry_paths(tmp_path)]
    assert picked == [("decision_b", STORE_LAYOUT["memory/decision_b.md"]),
                      ("fact_a", STORE_LAYOUT["memory/fact_a.md"])]


def test_entry_files_of_a_store_without_a_memory_folder_is_empty():
    assert entry_files({"session.json": b"{}", "memory.md": b"---\n---\n"}) == []
