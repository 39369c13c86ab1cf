"""The Node.js example adapter (runners/node-example/), driven over stdio.

These tests speak the adapter protocol to `node adapter.js` directly: the
describe handshake, a reader on a small store built here (spec 3, 4.1, 6,
Appendix A), writer ops checked on the files they leave (spec 4.1, 5.3),
merges (spec 5), and a differential check of its merge against the
reference model. The last test runs `memoir-conform run` against it and
asserts it earns the level it claims (spec 8).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from conformance import resources
from conformance.fuzz import strategies
from conformance.model.merge import canonical, merge_session_texts
from conformance.model.session import DEFAULT_CAPS
from conformance.protocol.messages import OPS_FOR_LEVEL, check, parse_response, result_definition
from conformance.protocol.process import adapter_environment

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the Node.js example adapter cannot run")

ADAPTER = resources.runners_dir() / "node-example" / "adapter.js"
TIMEOUT = 20


class NodeAdapter:
    """One persistent `node adapter.js` process; `call` sends a request and
    returns the response, checked against the protocol schema."""

    def __init__(self, scratch: Path):
        home = scratch / "home"
        home.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [NODE, str(ADAPTER)], cwd=scratch, env=adapter_environment(home),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        )
        self.next_id = 0

    def send_line(self, line: str) -> dict:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"the adapter answered nothing; stderr: {self.process.stderr.read()}"
        return json.loads(answer)

    def call(self, op: str, args: dict | None = None) -> dict:
        self.next_id += 1
        request = {"protocol": 1, "id": self.next_id, "op": op, "args": args or {}}
        response = self.send_line(json.dumps(request))
        parsed = parse_response(response)
        assert parsed.id == self.next_id
        definition = result_definition(op)
        if response["ok"] and definition:
            check(definition, response["result"])
        return response

    def ok(self, op: str, args: dict | None = None) -> dict:
        response = self.call(op, args)
        assert response["ok"], response
        return response["result"]

    def close(self) -> int:
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            self.process.stdout.close()
            self.process.stderr.close()


@pytest.fixture
def adapter(tmp_path):
    node = NodeAdapter(tmp_path)
    yield node
    if node.process.poll() is None:
        node.close()


def session_file(store: Path) -> dict:
    return json.loads((store / "session.json").read_text(encoding="utf-8"))


def texts(items: list[dict]) -> list[str]:
    return [item["text"] for item in items]


# -- protocol ------------------------------------------------------------------


def test_describe_handshake_claims_only_levels_whose_ops_it_lists(adapter):
    described = adapter.ok("describe")
    assert described["protocols"] == [1]
    assert described["spec"] == "0.1.2"
    assert described["caps"] == DEFAULT_CAPS
    for level in described["claims"]:
        assert set(OPS_FOR_LEVEL[level]) <= set(described["ops"]), level


def test_unknown_op_bad_line_and_end_of_input(adapter):
    assert adapter.call("no_such_op")["error"]["kind"] == "unsupported"
    bad = adapter.send_line("this is not json")
    assert bad == {"id": None, "ok": False, "error": {"kind": "invalid_input", "message": bad["error"]["message"]}}
    wrong_protocol = adapter.send_line(json.dumps({"protocol": 99, "id": 5, "op": "read_store", "args": {}}))
    assert wrong_protocol["id"] == 5 and wrong_protocol["error"]["kind"] == "invalid_input"
    assert adapter.close() == 0


def test_bad_arguments_are_invalid_input(adapter, tmp_path):
    store = tmp_path / "store"
    assert adapter.call("add_next_action", {"store": str(store), "text": "   "})["error"]["kind"] == "invalid_input"
    assert adapter.call("add_goal", {"store": "relative/path", "text": "x"})["error"]["kind"] == "invalid_input"
    assert adapter.call("write_entry", {"store": str(store), "link": "../escape", "frontmatter": {"type": "fact", "name": "x"},
                                        "body": ""})["error"]["kind"] == "invalid_input"
    assert adapter.call("merge_sessions", {"local": 1, "remote": "{}"})["error"]["kind"] == "invalid_input"


# -- reader (spec 3, 4.1, 6, Appendix A) ------------------------------------------


def build_store(root: Path) -> Path:
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / "lesson_staging.md").write_text(
        "---\ntype: lesson\nname: Rehearse migrations\ntrigger: before a migration\n"
        "how_to_apply: run it on a copy first\nx_custom: kept\n---\nSee [[fact_db]] and [[fact_db|the db]].\n",
        encoding="utf-8",
    )
    (memory / "feedback_commits.md").write_text(
        "---\nname: Commit style\ndescription: When writing a commit message\nmetadata: \n  type: feedback\n"
        "  originSessionId: abc-123\n---\nUse the imperative.\n\n**Why:** history reads well.\n\n"
        "**How to apply:** write `Add x`, not `Added x`.\n",
        encoding="utf-8",
    )
    (memory / "notes.md").write_text("Some preamble.\n\n# Loose notes\n\ntext\n", encoding="utf-8")
    (memory / "fact_future.md").write_text("---\ntype: fact\nname: From the future\nschema_version: 2\n---\nb\n",
                                           encoding="utf-8")
    (memory / "project_dossier.md").write_text("---\ntype: project\nname: Big dossier\n---\nb\n", encoding="utf-8")
    session = {
        "version": 1,
        "current": {
            "goals": [{"text": "Ship v1", "set_on": "2026-01-01T00:00:00Z"}],
            "next_actions": [
                {"text": "Open", "added": "2026-02-01T00:00:00Z"},
                {"text": "Done already", "added": "2026-01-01T00:00:00Z"},
            ],
            "parked_actions": [{"text": "Parked one", "added": "2025-12-01T00:00:00Z", "parked_at": "2026-01-05T00:00:00Z"}],
            "completed_actions": [{"text": "done ALREADY", "done_at": "2026-01-02T00:00:00Z"}],
            "decisions": [
                {"text": "Use SQLite", "date": "2026-01-01T00:00:00Z"},
                {"text": "Junk", "date": "2026-01-01T00:00:00Z", "hidden": True, "hidden_at": "2026-01-03T00:00:00Z"},
            ],
            "open_questions": [{"text": "Why?", "asked": "2026-01-01T00:00:00Z"}],
        },
    }
    (root / "session.json").write_text(json.dumps(session, indent=2), encoding="utf-8")
    return root


def test_read_store_entries_and_live_view(adapter, tmp_path):
    store = build_store(tmp_path / "store")
    result = adapter.ok("read_store", {"store": str(store)})
    entries = {entry["link"]: entry for entry in result["entries"]}

    lesson = entries["lesson_staging"]
    assert (lesson["status"], lesson["type"], lesson["name"]) == ("ok", "lesson", "Rehearse migrations")
    assert lesson["fields"]["x_custom"] == "kept"  # readers ignore unknown fields, never drop them (3.2)
    assert lesson["links"] == ["fact_db"]

    legacy = entries["feedback_commits"]  # Appendix A: metadata.type, feedback -> lesson, originSessionId
    assert (legacy["status"], legacy["type"]) == ("ok", "lesson")
    assert legacy["fields"]["trigger"] == "When writing a commit message"
    assert legacy["fields"]["how_to_apply"] == "write `Add x`, not `Added x`."
    assert legacy["fields"]["origin"] == {"session_id": "abc-123"}

    assert (entries["notes"]["status"], entries["notes"]["name"]) == ("opaque", "Loose notes")
    assert entries["fact_future"]["status"] == "quarantined"
    assert entries["project_dossier"]["status"] == "opaque"

    assert result["session"]["status"] == "ok"
    assert result["session"]["live"] == {
        "goals": ["Ship v1"],
        "next_actions": ["Open"],
        "parked_actions": ["Parked one"],
        "open_questions": ["Why?"],
        "decisions": ["Use SQLite"],
    }


@pytest.mark.parametrize("content", ['{"version": 2, "current": {}}', '{"version": 1, "current": '])
def test_degraded_session_is_reported_and_left_untouched(adapter, tmp_path, content):
    store = tmp_path / "store"
    store.mkdir()
    (store / "session.json").write_text(content, encoding="utf-8")
    result = adapter.ok("read_store", {"store": str(store)})
    assert result["session"]["status"] == "degraded"
    assert sorted(p.name for p in store.iterdir()) == ["session.json"]
    assert (store / "session.json").read_text(encoding="utf-8") == content


def test_writer_refuses_to_overwrite_a_newer_version(adapter, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    newer = '{"version": 2, "current": {"next_actions": []}}'
    (store / "session.json").write_text(newer, encoding="utf-8")
    response = adapter.call("add_next_action", {"store": str(store), "text": "x"})
    assert response["error"]["kind"] == "invalid_input"
    assert (store / "session.json").read_text(encoding="utf-8") == newer


# -- writer (spec 4.1, 5.3) --------------------------------------------------------


def test_add_next_action_overflow_parks_the_oldest(adapter, tmp_path):
    store = tmp_path / "store"
    for index in range(1, 10):
        adapter.ok("add_next_action", {"store": str(store), "text": f"action {index}"})
    current = session_file(store)["current"]
    assert texts(current["next_actions"]) == [f"action {index}" for index in range(2, 10)]
    [parked] = current["parked_actions"]
    assert parked["text"] == "action 1" and "parked_at" in parked and "added" in parked
    machine = current["next_actions"][0]["machine_id"]
    assert session_file(store)["machines"][machine]["last_seen"]
    assert not (store / "session.json.lock").exists()

    # Adding a parked identity returns it to live (4.1); the oldest live one is parked instead.
    adapter.ok("add_next_action", {"store": str(store), "text": "ACTION 1 "})
    current = session_file(store)["current"]
    assert "action 1" in texts(current["next_actions"])
    assert texts(current["parked_actions"]) == ["action 2"]

    # Completing a parked action records the temporal tombstone (5.3.2).
    adapter.ok("complete_next_action", {"store": str(store), "text": "action 2"})
    current = session_file(store)["current"]
    assert current["parked_actions"] == []
    assert texts(current["completed_actions"]) == ["action 2"] and current["completed_actions"][0]["done_at"]


def test_hide_with_purge_removes_the_words(adapter, tmp_path):
    store = tmp_path / "store"
    adapter.ok("add_decision", {"store": str(store), "text": "Client is ACME", "why": "secret", "rejected": "none"})
    adapter.ok("hide_decision", {"store": str(store), "text": "client is acme", "purge": True})
    raw = (store / "session.json").read_text(encoding="utf-8")
    assert "ACME" not in raw and "secret" not in raw
    [decision] = session_file(store)["current"]["decisions"]
    assert decision["text"] == "[purged]" and decision["hidden"] is True and decision["hidden_at"]
    assert decision["text_hash"] == hashlib.sha256(b"client is acme").hexdigest()
    # Adding the text again does not bring it back (5.3.1: hidden is monotonic).
    adapter.ok("add_decision", {"store": str(store), "text": "Client is ACME"})
    assert "ACME" not in (store / "session.json").read_text(encoding="utf-8")


def test_record_session_updates_its_row_in_place(adapter, tmp_path):
    store = tmp_path / "store"
    adapter.ok("record_session", {"store": str(store), "summary": "first", "session_id": "s1"})
    adapter.ok("record_session", {"store": str(store), "summary": "other"})
    adapter.ok("record_session", {"store": str(store), "summary": "first, longer", "session_id": "s1"})
    history = session_file(store)["history"]
    assert [row["summary"] for row in history] == ["first, longer", "other"]


def test_update_entry_touches_only_the_named_keys(adapter, tmp_path):
    store = tmp_path / "store"
    (store / "memory").mkdir(parents=True)
    original = ("---\r\ntype: fact\r\nname: Endpoints\r\nx_unknown: keep me  \r\ntags:\r\n  - a\r\n"
                "description: old\r\n---\r\nBody, exactly.\r\n")
    (store / "memory" / "fact_x.md").write_bytes(original.encode("utf-8"))
    adapter.ok("update_entry", {"store": str(store), "link": "fact_x", "set": {"description": "new: value"},
                                "unset": ["tags"]})
    updated = (store / "memory" / "fact_x.md").read_bytes().decode("utf-8")
    assert updated.startswith("---\r\ntype: fact\r\nname: Endpoints\r\nx_unknown: keep me  \r\n")
    assert 'description: "new: value"\r\n' in updated
    assert "tags:" not in updated and "  - a" not in updated
    assert updated.endswith("---\r\nBody, exactly.\r\n")
    assert "\nupdated: " in updated  # AMB-ENTRY-UPDATED


def test_write_entry_stamps_and_reads_back(adapter, tmp_path):
    store = tmp_path / "store"
    adapter.ok("write_entry", {"store": str(store), "link": "next_action_retry",
                               "frontmatter": {"type": "next_action", "name": "Add retry", "tags": ["sync"]},
                               "body": "Touch only the client.\n"})
    [entry] = adapter.ok("read_store", {"store": str(store)})["entries"]
    assert entry["status"] == "ok" and entry["fields"]["tags"] == ["sync"]
    assert {"added", "machine_id", "created"} <= set(entry["fields"])
    again = adapter.call("write_entry", {"store": str(store), "link": "next_action_retry",
                                         "frontmatter": {"type": "fact", "name": "x"}, "body": ""})
    assert again["error"]["kind"] == "invalid_input"  # never overwrites an entry it was not asked to touch


def test_a_stale_lock_of_a_dead_process_is_broken(adapter, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = subprocess.run([NODE, "-e", "process.stdout.write(require('os').hostname())"], capture_output=True, text=True)
    (store / "session.json.lock").write_text(f"{dead.stdout.strip()} {host.stdout} 2026-01-01T00:00:00Z\n")
    adapter.ok("add_goal", {"store": str(store), "text": "after the crash"})
    assert texts(session_file(store)["current"]["goals"]) == ["after the crash"]
    assert not (store / "session.json.lock").exists()


def test_two_processes_lose_no_update(tmp_path):
    store = tmp_path / "store"
    script = "".join(
        json.dumps({"protocol": 1, "id": i, "op": "add_next_action", "args": {"store": str(store), "text": f"{{p}} {i}"}}) + "\n"
        for i in range(1, 11)
    )
    runs = []
    for name in ("first", "second"):
        home = tmp_path / name
        home.mkdir()
        runs.append(subprocess.Popen([NODE, str(ADAPTER)], cwd=tmp_path, env=adapter_environment(home),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    outputs = [run.communicate(script.replace("{p}", name), timeout=TIMEOUT)[0]
               for run, name in zip(runs, ("first", "second"))]
    assert all(line.count('"ok":true') == 10 for line in outputs)
    current = session_file(store)["current"]
    assert len(current["next_actions"]) + len(current["parked_actions"]) == 20


# -- merge (spec 5) --------------------------------------------------------------


def merge(adapter, local: dict | str, remote: dict | str) -> dict:
    as_text = lambda side: side if isinstance(side, str) else json.dumps(side, indent=2)  # noqa: E731
    return adapter.ok("merge_sessions", {"local": as_text(local), "remote": as_text(remote)})["session"]


def test_merge_hidden_is_sticky_against_a_newer_copy(adapter):
    local = {"version": 1, "current": {"decisions": [
        {"text": "Use Redis", "date": "2026-01-01T00:00:00Z", "hidden": True, "hidden_at": "2026-02-01T00:00:00Z"}]}}
    remote = {"version": 1, "current": {"decisions": [
        {"text": "use redis ", "date": "2026-03-01T00:00:00Z", "why": "fast"}]}}
    for merged in (merge(adapter, local, remote), merge(adapter, remote, local)):
        [decision] = merged["current"]["decisions"]
        assert decision["hidden"] is True and decision["hidden_at"] == "2026-02-01T00:00:00Z"
        assert decision["date"] == "2026-03-01T00:00:00Z"  # the newer copy won, and inherited the tombstone


def test_merge_temporal_tombstone_and_readd(adapter):
    local = {"version": 1, "current": {"completed_actions": [{"text": "Fix flaky test", "done_at": "2026-02-01T00:00:00Z"}]}}
    stale = {"version": 1, "current": {"next_actions": [{"text": "fix flaky test", "added": "2026-01-01T00:00:00Z"}]}}
    readded = {"version": 1, "current": {"next_actions": [{"text": "fix flaky test", "added": "2026-03-01T00:00:00Z"}]}}
    assert merge(adapter, local, stale)["current"]["next_actions"] == []
    assert texts(merge(adapter, local, readded)["current"]["next_actions"]) == ["fix flaky test"]


def test_merge_ignores_a_forward_version_or_unparseable_replica(adapter):
    local = {"version": 1, "current": {"goals": [{"text": "Mine", "set_on": "2026-01-01T00:00:00Z"}]}}
    newer = {"version": 2, "current": {"goals": [{"text": "Theirs", "set_on": "2026-01-01T00:00:00Z"}]}}
    assert texts(merge(adapter, local, newer)["current"]["goals"]) == ["Mine"]
    assert texts(merge(adapter, local, '{"version": 1, "current": {')["current"]["goals"]) == ["Mine"]


def _without_huge_ints(value):
    """JavaScript numbers hold integers exactly only up to 2^53 (a documented limit of the example)."""
    return json.loads(json.dumps(value), parse_int=lambda digits: float(digits) if abs(int(digits)) > 2**53 else int(digits))


@pytest.fixture(scope="module")
def shared_adapter(tmp_path_factory):
    node = NodeAdapter(tmp_path_factory.mktemp("node-example"))
    yield node
    node.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.replica_texts(), strategies.replica_texts())
def test_merge_agrees_with_the_reference_model(shared_adapter, local, remote):
    ours = shared_adapter.ok("merge_sessions", {"local": local, "remote": remote})["session"]
    expected = merge_session_texts(local, remote)
    assert canonical(_without_huge_ints(ours)) == canonical(_without_huge_ints(expected))


# -- the whole corpus --------------------------------------------------------------


@pytest.mark.slow
def test_memoir_conform_run_grants_the_claimed_level(tmp_path):
    help_text = subprocess.run([sys.executable, "-m", "conformance", "run", "--help"], capture_output=True, text=True)
    if help_text.returncode != 0:
        pytest.skip("`memoir-conform run` is not available in this checkout")
    report_file = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--adapter", f"{NODE} {ADAPTER}", "--json", str(report_file)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(resources.__file__).resolve().parents[1])},
    )
    assert report_file.exists(), run.stdout + run.stderr
    report = json.loads(report_file.read_text(encoding="utf-8"))
    grade = report["grade"]
    failing = [v["id"] for v in report["vectors"] if v.get("outcome") in ("fail", "error")]
    assert grade["claimed"] == "full"
    assert grade["earned"] == grade["claimed"], f"{grade['verdict']}; failing: {failing}"
    assert run.returncode == 0, run.stdout[-2000:]
