"""A verdict claims no more than was shown and demands no more than the spec (issue 11).

Each test runs the bundled corpus against a small implementation built on
the reference model that differs from it in one way the spec allows (it
must still earn Full) or forbids (it must not). Implementations are
in-process: only the vectors that send an op the implementation changes are
run against it; every other vector's result is the reference model's, which
it is by construction. (None of them changes what happens to a fresh empty
store, so the runner-driven concurrency vectors are not run again either.)
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from ruamel.yaml import YAML, YAMLError

from conformance import SPEC_VERSION
from conformance.model import entry as model_entry
from conformance.model import merge as model_merge
from conformance.model.frontmatter import parse_entry_text
from conformance.model.identity import item_key
from conformance.model.store import atomic_write
from conformance.protocol.messages import ErrorResponse, OkResponse
from conformance.report import console as report_console, json_report as report_json, junit as report_junit
from conformance.runner.execute import run_vector
from conformance.runner.grading import ExpectedFailure, grade, grade_vectors
from conformance.runner.implementations import ModelImplementation
from conformance.runner.run import RunRecord

from verdict_support import INDEX, failing, graded_of, graded_run, plain, results_of

SESSION_OPS = ("add_goal", "complete_goal", "add_next_action", "complete_next_action", "add_question",
               "add_decision", "hide_decision", "record_session")
SMALL_CAPS = {"goals": 2, "next_actions": 3, "parked_actions": 10, "open_questions": 2, "decisions": 4,
              "completed_actions": 12, "completed_goals": 12, "history": 6}


def test_the_reference_model_earns_full(corpus, reference_results):
    graded = grade_vectors(corpus, list(reference_results.values()), INDEX)
    result = grade(graded, SPEC_VERSION, "full")
    assert result.earned == "full" and result.exit_code == 0, failing(graded)


# --- readers ----------------------------------------------------------------------------

class NoLinksReader(ModelImplementation):
    """Resolves no [[wikilinks]] (a SHOULD of spec 3.4)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                found["links"] = []
        return outcome


class NoLegacyReader(ModelImplementation):
    """Applies none of the Appendix A rows: a legacy file is an entry of an unknown type, read as opaque."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            outcome.result["entries"] = [self._plain(found, Path(args["store"])) for found in outcome.result["entries"]]
        return outcome

    @staticmethod
    def _plain(found: dict, store: Path) -> dict:
        if found["status"] == "quarantined":
            return found
        parsed = parse_entry_text((store / "memory" / f"{found['link']}.md").read_text(encoding="utf-8"))
        fields = parsed.fields if parsed.has_frontmatter else {}
        kind = fields.get("type")
        name = fields.get("name")
        return {"link": found["link"], "status": "ok" if kind in model_entry.ENTRY_TYPES else "opaque",
                "type": kind if isinstance(kind, str) else None, "name": name if isinstance(name, str) else None,
                "fields": fields, "body": parsed.body, "links": model_entry.wikilinks(parsed.body),
                "live": found["live"]}


class RendersHiddenReader(ModelImplementation):
    """Shows hidden decisions as live: breaks a Reader MUST (spec 8, tombstone visibility)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            try:
                session = json.loads((Path(args["store"]) / "session.json").read_text(encoding="utf-8"))
                decisions = session["current"]["decisions"]
            except (OSError, ValueError, KeyError, TypeError):
                return outcome
            if not isinstance(decisions, list):  # a malformed session (vectors/boundary/session-shapes.json)
                return outcome
            live = outcome.result["session"]["live"]
            live["decisions"] = [d["text"] for d in decisions if isinstance(d, dict) and isinstance(d.get("text"), str)]
        return outcome


class EntryTombstonesLiveReader(ModelImplementation):
    """Reports every entry file as live, hidden decisions and completed actions included (spec 8)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                found["live"] = True
        return outcome


class NoEntryVisibilityReport(ModelImplementation):
    """Declares no `entry_live` report (docs/adapter-protocol.md, E15) and sends no `live`."""

    def describe(self):
        return dataclasses.replace(super().describe(), reports=())

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                found.pop("live", None)
        return outcome


def test_a_reader_that_shows_entry_tombstones_as_live_does_not_earn_reader(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, EntryTombstonesLiveReader(), ["read_store"], tmp_path)
    assert result.earned is None
    assert {"read.entry-visibility.hidden-decision-entry", "read.entry-visibility.next-action-entry-done-after-added",
            "read.entry-visibility.next-action-entry-done-at-offset-equal-instant"} <= set(failing(graded))


def test_a_reader_that_does_not_report_entry_visibility_cannot_earn_reader(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, NoEntryVisibilityReport(), ["read_store"], tmp_path)
    assert result.earned is None and not failing(graded)
    unshown = [item for item in graded if item.result.outcome == "not_applicable"]
    assert {item.vector.id for item in unshown} == {
        vector.id for vector in corpus if "entry_live" in vector.reports}
    assert all(item.result.na_kind == "op" and "entry_live" in item.result.detail for item in unshown)


def test_a_reader_that_resolves_no_links_earns_full_with_should_points_missing(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, NoLinksReader(), ["read_store"], tmp_path)
    assert result.earned == "full" and result.exit_code == 0, failing(graded)
    should = result.tallies["should"]
    assert should.passed < should.total
    assert {"read.entry.fact", "read.golden.canonical-six-types"} <= set(failing(graded, "should"))
    assert result.verdict.startswith("memoir Full (v0.1.2) earned; SHOULD ")


def test_a_reader_that_maps_no_legacy_row_but_shows_legacy_files_opaque_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, NoLegacyReader(), ["read_store"], tmp_path)
    assert result.earned == "full", failing(graded)
    assert "read.legacy.feedback-is-lesson" in failing(graded, "should")
    assert result.tallies["should"].passed < result.tallies["should"].total


# --- writers ----------------------------------------------------------------------------

def _session(store: str) -> dict | None:
    try:
        return json.loads((Path(store) / "session.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _hidden(store: str, text: str) -> bool:
    session = _session(store) or {}
    decisions = session.get("current", {}).get("decisions", []) if isinstance(session, dict) else []
    return any(item_key(d) == item_key({"text": text}) and d.get("hidden") is True for d in decisions)


class RefusesReaddingHidden(ModelImplementation):
    """Refuses to re-add a hidden decision: the decision stays hidden, nothing is lost."""

    def call(self, op, args):
        if op == "add_decision" and _hidden(args["store"], args["text"]):
            return ErrorResponse(0, "invalid_input", "that decision was hidden; it stays hidden")
        return super().call(op, args)


class ReaddsHiddenVisibly(ModelImplementation):
    """Re-adding a hidden decision brings it back: breaks the absolute tombstone (spec 5.3.1)."""

    def call(self, op, args):
        was_hidden = op == "add_decision" and _hidden(args["store"], args["text"])
        outcome = super().call(op, args)
        if was_hidden:
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))
            for decision in session["current"]["decisions"]:
                if item_key(decision) == item_key({"text": args["text"]}):
                    decision.pop("hidden", None)
            path.write_text(json.dumps(session), encoding="utf-8")
        return outcome


class RefusesPurging(ModelImplementation):
    """Does not implement the purged form, a MAY of spec 5.3.1."""

    def call(self, op, args):
        if op == "hide_decision" and args.get("purge"):
            return ErrorResponse(0, "unsupported", "purging is not implemented")
        return super().call(op, args)


def _newer_version(store: str) -> bool:
    session = _session(store)
    return isinstance(session, dict) and isinstance(session.get("version"), int) and session["version"] > 1


class DestroysNewerSession(ModelImplementation):
    """Meets a newer session version by starting over, without keeping the original's bytes."""

    def call(self, op, args):
        if op in SESSION_OPS and _newer_version(args["store"]):
            (Path(args["store"]) / "session.json").unlink()
        return super().call(op, args)


class QuarantinesNewerSession(ModelImplementation):
    """Meets a newer session version by quarantining it, then writing an empty-but-valid state (spec 6)."""

    def call(self, op, args):
        if op in SESSION_OPS and _newer_version(args["store"]):
            path = Path(args["store"]) / "session.json"
            shutil.copyfile(path, path.with_name("session.json.newer-version-backup"))
            path.unlink()
        return super().call(op, args)


def test_a_writer_that_refuses_to_readd_a_hidden_decision_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, RefusesReaddingHidden(), ["add_decision"], tmp_path)
    assert result.earned == "full", failing(graded)


def test_a_writer_that_readds_a_hidden_decision_visibly_does_not(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, ReaddsHiddenVisibly(), ["add_decision"], tmp_path)
    assert result.earned == "reader" and "write.hide.readd-stays-hidden" in failing(graded)


LIVE_LISTS = {"add_goal": "goals", "add_next_action": "next_actions", "add_question": "open_questions",
              "add_decision": "decisions"}


class RefusesAddingWhatIsLive(ModelImplementation):
    """Refuses an add whose identity is already in its live list (AMB-ADD-LIVE); a parked one it brings back."""

    def call(self, op, args):
        session = _session(args.get("store", ""))
        current = session.get("current") if isinstance(session, dict) else None
        items = current.get(LIVE_LISTS[op]) if op in LIVE_LISTS and isinstance(current, dict) else None
        if isinstance(items, list) and any(
                isinstance(item, dict) and isinstance(item.get("text"), str) and not item.get("hidden")
                and item_key(item) == item_key({"text": args["text"]}) for item in items):
            return ErrorResponse(0, "invalid_input", "already there")
        return super().call(op, args)


class IgnoresAddingWhatIsLive(RefusesAddingWhatIsLive):
    """Answers an add whose identity is already live with success and changes nothing."""

    def call(self, op, args):
        outcome = super().call(op, args)
        refused = isinstance(outcome, ErrorResponse) and outcome.message == "already there"
        return OkResponse(0, {}) if refused else outcome


@pytest.mark.parametrize("implementation", [RefusesAddingWhatIsLive, IgnoresAddingWhatIsLive])
def test_a_writer_that_refuses_or_ignores_adding_a_live_identity_earns_full(corpus, reference_results, tmp_path,
                                                                            implementation):
    graded, result = graded_run(corpus, reference_results, implementation(), list(LIVE_LISTS), tmp_path)
    assert result.earned == "full", failing(graded)


class DuplicatesWhatIsLive(ModelImplementation):
    """Appends a second copy of an identity that is already live."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op in LIVE_LISTS and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))
            items = session["current"][LIVE_LISTS[op]]
            same = [item for item in items if item_key(item) == item_key({"text": args["text"]})]
            if same and not same[0].get("hidden"):
                items.append(dict(same[0]))
            path.write_text(json.dumps(session), encoding="utf-8")
        return outcome


def test_a_writer_that_keeps_two_copies_of_one_identity_does_not_earn_writer(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, DuplicatesWhatIsLive(), list(LIVE_LISTS), tmp_path)
    assert result.earned == "reader"
    assert "write.duplicate-add.goal-same-text-twice" in failing(graded)


def test_a_writer_that_refuses_purging_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, RefusesPurging(), ["hide_decision"], tmp_path)
    assert result.earned == "full", failing(graded)
    refused = [item for item in graded if item.result.na_kind == "feature"]
    assert {item.vector.id for item in refused} == {"write.hide.purge", "write.hide.purge-hashes-normalized-text"}
    assert all(item.blocks is None for item in refused)


def test_an_implementation_with_small_caps_earns_full(corpus, tmp_path):
    implementation = ModelImplementation(caps=SMALL_CAPS)
    results = [run_vector(vector, implementation, implementation.describe(), tmp_path) for vector in corpus]
    graded = grade_vectors(corpus, results, INDEX)
    result = grade(graded, SPEC_VERSION, "full")
    assert result.earned == "full", failing(graded)
    assert not [item.vector.id for item in graded if item.result.outcome == "error"]


def test_destroying_a_newer_session_is_caught_by_a_deciding_check(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, DestroysNewerSession(), SESSION_OPS, tmp_path)
    assert result.earned == "reader"
    assert "write.forward.newer-version-session-preserved" in failing(graded)


def test_quarantining_a_newer_session_then_writing_an_empty_state_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, QuarantinesNewerSession(), SESSION_OPS, tmp_path)
    assert result.earned == "full", failing(graded)
    item = next(item for item in graded if item.vector.id == "write.forward.newer-version-session-preserved")
    assert item.failed_strengths == ("advisory",), "only the kit's read-only reading is not followed"


class WritesInItsOwnStyle(ModelImplementation):
    """Writes what the reference writes, in another style the spec allows: session.json compact, keys
    sorted, non-ASCII escaped, every list but history reversed on each write (only history is ordered, 4.1),
    the stamps it writes now as ISO 8601 with a +02:00 offset and no fraction (3.2, 4.1), entry values
    double-quoted on one line (3.1). A verdict on such a writer must not move."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if not isinstance(outcome, OkResponse):
            return outcome
        if op in SESSION_OPS:
            _restyle_session(Path(args["store"]) / "session.json")
        elif op == "merge_stores":
            _restyle_session(Path(args["out"]) / "session.json")
        elif op == "write_entry":
            _restyle_entry(Path(args["store"]) / "memory" / f"{args['link']}.md")
        return outcome


def _restyle_session(path: Path) -> None:
    try:
        session = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(session, dict):
        session = _restamp(session)
        for container in (session, session.get("current")):
            if isinstance(container, dict):
                for key, value in container.items():
                    if isinstance(value, list) and key != "history":
                        container[key] = value[::-1]
    text = json.dumps(session, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    atomic_write(path, text.encode("ascii"))


def _restamp(value):
    """The stamps written just now (a vector's own dates are far from today) in another ISO 8601 form."""
    if isinstance(value, dict):
        return {key: _restamp(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_restamp(item) for item in value]
    if isinstance(value, str) and value.endswith("Z") and "T" in value:
        try:
            when = datetime.fromisoformat(value[:-1] + "+00:00")
        except ValueError:
            return value
        if abs(datetime.now(timezone.utc) - when) < timedelta(hours=1):
            return when.astimezone(timezone(timedelta(hours=2))).isoformat(timespec="seconds")
    return value


def _restyle_entry(path: Path) -> None:
    opening, frontmatter, body = path.read_text(encoding="utf-8").split("---\n", 2)
    assert opening == "", "the model writes frontmatter first"
    quoted = []
    for line in frontmatter.splitlines():
        key, sep, value = line.partition(": ")
        if sep and not line.startswith(" ") and value and not value.startswith(("[", "-")):
            value = json.dumps(parse_entry_text(f"---\n{line}\n---\n").fields[key], ensure_ascii=False)
            line = f"{key}: {value}"
        quoted.append(line)
    atomic_write(path, ("---\n" + "\n".join(quoted) + "\n---\n" + body).encode("utf-8"))


def test_a_writer_in_another_allowed_style_earns_full(corpus, reference_results, tmp_path):
    changed = (*SESSION_OPS, "write_entry", "merge_stores")
    graded, result = graded_run(corpus, reference_results, WritesInItsOwnStyle(), changed, tmp_path)
    assert result.earned == "full", failing(graded)
    assert not failing(graded, "should"), "no style choice costs a SHOULD point either"


def _yaml_engine_parse(text):
    """Frontmatter read by a full YAML 1.2 engine (what most implementations use), the body split as the
    subset reader splits it; timestamps come back as the engine's own ISO 8601 text."""
    parsed = parse_entry_text(text)
    if not parsed.has_frontmatter:
        return parsed
    try:
        data = YAML(typ="safe", pure=True).load("\n".join(parsed.frontmatter_lines))
    except YAMLError:
        data = {}  # lines YAML rejects: the entry has no usable fields, so it reads as opaque
    return dataclasses.replace(parsed, fields=plain(data) if isinstance(data, dict) else {})


def test_a_reader_that_reads_frontmatter_with_a_yaml_engine_earns_full(corpus, reference_results, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setattr(model_entry, "parse_entry_text", _yaml_engine_parse)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert result.earned == "full", failing(graded)
    assert "read.entry.hash-not-comment" in failing(graded, "advisory"), "the subset reading is the kit's own"


# --- merges: ties and convergence (spec 5.2, 5.4) --------------------------------------------

def test_a_merge_that_lets_the_local_copy_win_ties_does_not_earn_full(corpus, reference_results, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setattr(model_merge, "by_date", lambda field: lambda item: (model_merge.dates.sort_key(item.get(field)),))
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions"], tmp_path)
    assert result.earned == "writer"
    caught = failing(graded)
    assert caught and all(vector_id.endswith("~swapped") for vector_id in caught)
    # A tie between a live and a parked copy renders in another list by argument order (5.4)...
    assert "merge.equal-dates.live-and-parked-copies-same-added-one-item~swapped" in caught
    # ...while copies that differ only in machine_id render the same: reported, not decided.
    assert "merge.newest.equal-dates-tie-a~swapped" in failing(graded, "advisory")
    assert "merge.newest.equal-dates-tie-a~swapped" not in caught


def test_a_merge_that_breaks_ties_by_another_symmetric_order_earns_full(corpus, reference_results, tmp_path,
                                                                         monkeypatch):
    def by_date(field):
        # Equal dates: the smaller canonical JSON wins, whichever side it is on.
        return lambda item: (model_merge.dates.sort_key(item.get(field)),
                             tuple(-ord(char) for char in model_merge.canonical(item)))

    monkeypatch.setattr(model_merge, "by_date", by_date)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions"], tmp_path)
    assert result.earned == "full", failing(graded)
    assert "merge.newest.equal-dates-tie-a" in failing(graded, "advisory"), "the kit's own tie rule is advisory"


class MergesEntryFilesByVcs(ModelImplementation):
    """Leaves same-named entry files to the user's VCS (spec 5.2 offers it): merge_stores keeps the local copy."""

    def describe(self):
        described = super().describe()
        return type(described)(**{**described.__dict__, "choices": {"entry_file_merge": "vcs"}})

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "merge_stores" and outcome.ok:
            for path in (Path(args["local"]) / "memory").glob("*.md"):
                shutil.copyfile(path, Path(args["out"]) / "memory" / path.name)
        return outcome


def test_an_implementation_that_leaves_entry_files_to_the_vcs_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, MergesEntryFilesByVcs(), ["merge_stores"], tmp_path)
    assert result.earned == "full", failing(graded)
    chosen = {item.vector.id for item in graded if item.result.na_kind == "choice"}
    assert "merge.stores.same-file-remote-updated-newer" in chosen
    assert "merge.stores.same-file-remote-updated-newer~swapped" in chosen
    graded_sessions = {item.vector.id: item.result.outcome for item in graded}
    assert graded_sessions["merge.stores.sessions-merged-too"] == "pass", "the session merge is still graded"


# --- waivers: never "earned" with something waived ---------------------------------------------

def test_waived_reader_failures_print_no_earned_and_junit_stays_green(corpus, reference_results, tmp_path):
    implementation = RendersHiddenReader()
    results = results_of(corpus, reference_results, implementation, ["read_store"], tmp_path)
    graded, _ = graded_of(corpus, results)
    failing = [item.vector for item in graded if "must" in item.failed_strengths]
    assert failing and all(vector.level == "reader" for vector in failing)
    expected = [ExpectedFailure(vector.id, "renders hidden decisions", vector.digest) for vector in failing]
    graded, result = graded_of(corpus, results, expected)
    assert result.exit_code == 0
    assert result.earned is None and result.reached_if_waived_fixed == "full"
    assert result.levels["reader"].waived == sorted(vector.id for vector in failing)

    record = RunRecord(
        kit_version="0", spec=SPEC_VERSION, corpus_digest="0" * 64, implementation=implementation.label,
        mode=implementation.mode, described=implementation.describe(), protocol=1, options={}, graded=graded,
        grade=result, requirements=INDEX,
    )
    console = report_console.render(record)
    assert f"Reader: not earned, {len(failing)} MUST vectors waived by known-failures.json" in console
    assert not [line for line in console.splitlines()
                if " earned" in line and "not earned" not in line and "no memoir level" not in line]

    report = report_json.build(record)
    assert report_json.validate(report) == []
    assert report["grade"]["earned"] is None and report["grade"]["reached_if_waived_fixed"] == "full"
    assert report["grade"]["levels"]["reader"]["earned"] is False
    assert report["grade"]["levels"]["reader"]["waived"] == sorted(vector.id for vector in failing)

    junit = ET.fromstring(ET.tostring(report_junit.build(record)))
    assert junit.get("failures") == "0" and junit.get("errors") == "0"
    assert not list(junit.iter("failure"))
    assert int(junit.get("skipped")) >= len(failing)
