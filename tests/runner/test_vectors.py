"""Loading vector files: validation messages, duplicates, digests, expansion, stores."""

from __future__ import annotations

import base64
import json

import pytest
from runner_helpers import vector, write_vector_file

from conformance.model.session import DEFAULT_CAPS
from conformance.runner.vectors import (
    ExpansionProblem,
    corpus_digest,
    expand,
    load_corpus,
    materialise_store,
    repeat_order,
    timestamp,
    vector_digest,
)


def test_a_valid_file_loads_typed_vectors(vectors_root):
    write_vector_file(vectors_root, "merge/union.json", [vector("t.b"), vector("t.a", tags=["x"])])
    corpus = load_corpus([vectors_root])
    assert corpus.problems == []
    assert [v.id for v in corpus.vectors if not v.derived] == ["t.a", "t.b"]
    first = corpus.vectors[0]
    assert first.sections == ("5.2",) and first.level == "full" and first.tags == ("x",)
    assert first.file == "vectors/merge/union.json"


def test_requirements_index_and_golden_stores_are_not_vector_files(vectors_root):
    write_vector_file(vectors_root, "a.json", [vector("t.a")])
    (vectors_root / "requirements.json").write_text("[]")
    (vectors_root / "stores" / "s1").mkdir(parents=True)
    (vectors_root / "stores" / "s1" / "session.json").write_text('{"version": 1}')
    corpus = load_corpus([vectors_root])
    assert corpus.problems == [] and [v.id for v in corpus.vectors if not v.derived] == ["t.a"]


@pytest.mark.parametrize("mutate, json_path, words", [
    (lambda v: v.update(level="expert"), "$.vectors[1].level", "'expert' is not one of"),
    (lambda v: v.update(colour="red"), "$.vectors[1]", "'colour' was unexpected"),
    (lambda v: v["expect"][0].update(count=2), "$.vectors[1].expect[0]", "exactly one keyword; found identities, count"),
    (lambda v: v["expect"].append({"path": "/x"}), "$.vectors[1].expect[1]", "needs one keyword"),
    (lambda v: v["expect"][0].update(path="live"), "$.vectors[1].expect[0].path", "does not match"),
    (lambda v: v.update(tags=["ambiguous"]), "$.vectors[1].tags", "no expectation depends on an interpretation"),
    (lambda v: v["expect"][0].update(ambiguity="AMB-TIE"), "$.vectors[1].tags", "depends on AMB-TIE: tag the vector"),
    (lambda v: v["expect"][0].update(requirements=["S5.2-newest-wins"]), "$.vectors[1].expect[0].requirements",
     "not among the vector's requirements"),
    (lambda v: v["input"].update(local={"$text": "x"}, remote={"$text": "y"}) or v["expect"][0].update(one_of=[]),
     "$.vectors[1].expect[0]", "exactly one keyword"),
    (lambda v: v["input"].pop("remote"), "$.vectors[1].input", "'remote' is a required property"),
])
def test_an_invalid_file_is_rejected_naming_file_and_json_path(vectors_root, mutate, json_path, words):
    bad = vector("t.bad")
    mutate(bad)
    write_vector_file(vectors_root, "area/broken.json", [vector("t.good"), bad])
    corpus = load_corpus([vectors_root])
    assert corpus.vectors == []
    assert len(corpus.problems) == 1
    problem = corpus.problems[0]
    assert problem.file == "vectors/area/broken.json"
    assert problem.json_path == json_path
    assert words in problem.message
    assert str(problem).startswith(f"vectors/area/broken.json: at {json_path}: ")


def test_a_file_changed_after_a_load_is_checked_again(vectors_root):
    """The schema's verdict is remembered per text (a second load skips it), never per file name."""
    write_vector_file(vectors_root, "area/changing.json", [vector("t.one")])
    assert load_corpus([vectors_root]).problems == []
    bad = vector("t.one")
    bad.update(level="expert")
    write_vector_file(vectors_root, "area/changing.json", [bad])
    problem, = load_corpus([vectors_root]).problems
    assert problem.json_path == "$.vectors[0].level" and "'expert' is not one of" in problem.message
    write_vector_file(vectors_root, "area/changing.json", [vector("t.one")])
    corpus = load_corpus([vectors_root])
    assert corpus.problems == [] and [v.id for v in corpus.vectors if not v.derived] == ["t.one"]


def test_a_file_that_is_not_json_names_line_and_column(vectors_root):
    (vectors_root / "bad.json").write_text('{"vectors": [\n  oops\n]}')
    problem, = load_corpus([vectors_root]).problems
    assert problem.file == "vectors/bad.json" and problem.json_path == "$"
    assert "line 2, column 3" in problem.message


def test_a_missing_golden_store_and_a_bad_count_are_reported(vectors_root):
    reading = vector("t.read", op="read_store", level="reader", input={"store": {"dir": "stores/nope"}},
                     expect=[{"path": "/session/status", "equals": "ok"}])
    counting = vector("t.count", expect=[{"path": "/live/next_actions", "count": "caps.widgets"}])
    write_vector_file(vectors_root, "a.json", [reading, counting])
    messages = {p.json_path: p.message for p in load_corpus([vectors_root]).problems}
    assert "golden store 'stores/nope' not found" in messages["$.vectors[0].input.store.dir"]
    assert "no cap named 'widgets'" in messages["$.vectors[1].expect[0].count"]


def test_duplicate_ids_across_files_are_an_error(vectors_root):
    write_vector_file(vectors_root, "a.json", [vector("t.same")])
    write_vector_file(vectors_root, "b.json", [vector("t.same")])
    corpus = load_corpus([vectors_root])
    problem, = corpus.problems
    assert problem.file == "vectors/b.json" and problem.json_path == "$.vectors[0].id"
    assert "duplicate vector id 't.same': already defined in vectors/a.json" in problem.message


def test_digest_is_of_canonical_json_and_changes_with_content():
    raw = vector("t.d")
    reordered = json.loads(json.dumps(dict(reversed(list(raw.items())))))
    assert vector_digest(raw) == vector_digest(reordered)
    changed = vector("t.d", title="another title")
    assert vector_digest(changed) != vector_digest(raw)
    assert len(vector_digest(raw)) == 64


def test_digest_is_stable_across_loads_and_whitespace(vectors_root, tmp_path):
    write_vector_file(vectors_root, "a.json", [vector("t.a")])
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.json").write_text(json.dumps({"vectors": [vector("t.a")]}, separators=(",", ":")))
    first, second = load_corpus([vectors_root]).vectors[0], load_corpus([other]).vectors[0]
    assert first.digest == second.digest == vector_digest(vector("t.a"))
    assert corpus_digest([first]) == corpus_digest([second])
    assert corpus_digest([first]) != corpus_digest([])


def _loaded(vectors_root, raw):
    write_vector_file(vectors_root, "x.json", [raw])
    corpus = load_corpus([vectors_root])
    assert corpus.problems == []
    return corpus.vectors[0]


def test_repeat_expands_with_caps_index_and_timestamps(vectors_root):
    item = {"text": "action {i3} of {i}", "added": "{ts}"}
    raw = vector("t.rep", input={
        "local": {"version": 1, "current": {"next_actions": [{"$repeat": "caps.next_actions+1", "item": item}]}},
        "remote": {"version": 1},
    }, expect=[{"path": "/live/next_actions", "count": "caps.next_actions-1"},
               {"path": "/live/parked_actions", "order": [{"$repeat": 2, "item": "action {i3} of {i}"}]}])
    loaded = _loaded(vectors_root, raw)
    caps = {**DEFAULT_CAPS, "next_actions": 4}
    expanded = expand(loaded, caps)
    actions = expanded.input["local"]["current"]["next_actions"]
    assert [a["text"] for a in actions] == [f"action 00{i} of {i}" for i in range(1, 6)]
    assert actions[0]["added"] == "2026-01-01T00:01:00.000Z" and actions[4]["added"] == "2026-01-01T00:05:00.000Z"
    assert expanded.expect[0]["count"] == 3
    assert expanded.expect[1]["order"] == ["action 001 of 1", "action 002 of 2"]
    assert loaded.digest == vector_digest(raw), "the digest is of the unexpanded vector"


def test_repeat_order_descending_and_shuffled(vectors_root):
    def texts(order):
        raw = vector(f"t.{order}", input={
            "local": {"version": 1, "current": {"goals": [
                {"$repeat": "caps.goals", "order": order, "item": {"text": "g{i}", "set_on": "{ts}"}}]}},
            "remote": {"version": 1}})
        goals = expand(_loaded(vectors_root, raw), {**DEFAULT_CAPS, "goals": 6}).input["local"]["current"]["goals"]
        return [goal["text"] for goal in goals]

    assert texts("ascending") == ["g1", "g2", "g3", "g4", "g5", "g6"]
    assert texts("descending") == ["g6", "g5", "g4", "g3", "g2", "g1"]
    shuffled = texts("shuffled")
    assert sorted(shuffled) == sorted(texts("ascending")) and shuffled[0] not in ("g1", "g6")
    assert shuffled[-1] not in ("g1", "g6")
    for count in range(4, 40):
        order = repeat_order(count, "shuffled")
        assert sorted(order) == list(range(1, count + 1))
        assert {order[0], order[-1]}.isdisjoint({1, count}), count


def test_repeat_start_shifts_the_index_and_the_timestamp(vectors_root):
    raw = vector("t.start", input={
        "local": {"version": 1, "current": {"next_actions": [
            {"$repeat": "caps.next_actions", "item": {"text": "a{i}", "added": "{ts}"}},
            {"$repeat": "caps.next_actions", "start": "caps.next_actions+1", "order": "descending",
             "item": {"text": "a{i}", "added": "{ts}"}}]}},
        "remote": {"version": 1}},
        expect=[{"path": "/live/next_actions", "identities": [{"$repeat": "caps.next_actions-1", "start": 2, "item": "a{i}"}]}])
    expanded = expand(_loaded(vectors_root, raw), {**DEFAULT_CAPS, "next_actions": 3})
    actions = expanded.input["local"]["current"]["next_actions"]
    assert [a["text"] for a in actions] == ["a1", "a2", "a3", "a6", "a5", "a4"]
    assert actions[3]["added"] == timestamp(6)
    assert expanded.expect[0]["identities"] == ["a2", "a3"]


def test_an_expansion_is_made_once_per_caps(vectors_root):
    raw = vector("t.once", input={
        "local": {"version": 1, "current": {"goals": [{"$repeat": "caps.goals", "item": {"text": "g{i}"}}]}},
        "remote": {"version": 1}})
    loaded = _loaded(vectors_root, raw)
    small = {**DEFAULT_CAPS, "goals": 2}
    assert expand(loaded, small) is expand(loaded, dict(small))
    assert len(expand(loaded, {**DEFAULT_CAPS, "goals": 4}).input["local"]["current"]["goals"]) == 4


def test_timestamps_roll_over_hours():
    assert timestamp(61) == "2026-01-01T01:01:00.000Z"


def test_inner_repeat_keeps_its_own_index(vectors_root):
    raw = vector("t.nested", input={
        "local": {"version": 1, "history": [{"$repeat": 2, "item": {"summary": "s{i}",
                                                                  "files_touched": [{"$repeat": 2, "item": "f{i}"}]}}]},
        "remote": {"version": 1},
    })
    history = expand(_loaded(vectors_root, raw), DEFAULT_CAPS).input["local"]["history"]
    assert history == [{"summary": "s1", "files_touched": ["f1", "f2"]}, {"summary": "s2", "files_touched": ["f1", "f2"]}]


def test_expansion_that_goes_negative_is_a_problem_not_an_exception(vectors_root):
    raw = vector("t.neg", input={
        "local": {"version": 1, "current": {"goals": [{"$repeat": "caps.goals-3", "item": {"text": "g{i}"}}]}},
        "remote": {"version": 1},
    })
    loaded = _loaded(vectors_root, raw)
    assert expand(loaded, DEFAULT_CAPS).input["local"]["current"]["goals"] == []
    problem = expand(loaded, {**DEFAULT_CAPS, "goals": 2})
    assert isinstance(problem, ExpansionProblem)
    assert problem.json_path == '$.input.local.current.goals[0]["$repeat"]'
    assert "negative with caps.goals = 2" in problem.message


def test_repeated_write_steps_are_validated_when_the_file_loads(vectors_root):
    raw = vector("t.steps", op="write", level="writer", input={
        "steps": [{"$repeat": 2, "item": {"op": "add_nxt_action", "args": {"text": "a{i}"}}}]},
        expect=[{"path": "/live/next_actions", "count": 2}])
    write_vector_file(vectors_root, "x.json", [raw])
    problem, = load_corpus([vectors_root]).problems
    assert problem.json_path.startswith("$.vectors[0].input.steps[")
    assert "after expansion" in problem.message and "'add_nxt_action' is not one of" in problem.message


def test_store_specs_materialise_texts_sessions_bytes_and_golden_dirs(vectors_root, tmp_path):
    golden = vectors_root / "stores" / "small"
    (golden / "memory").mkdir(parents=True)
    (golden / "memory" / "fact_a.md").write_text("---\ntype: fact\nname: A\n---\n")
    (golden / "session.json").write_text('{"version": 1}')
    spec = {"dir": "stores/small", "files": {
        "session.json": {"version": 1, "current": {"goals": [{"text": "ünïcode"}]}},
        "memory/raw.md": {"$text": "plain"},
        "memory/bytes.md": {"$base64": base64.b64encode(b"\xff\xfe not utf-8").decode()},
    }}
    target = tmp_path / "store"
    written = materialise_store(spec, vectors_root, target)
    assert sorted(written) == ["memory/bytes.md", "memory/fact_a.md", "memory/raw.md", "session.json"]
    assert (target / "memory" / "bytes.md").read_bytes() == b"\xff\xfe not utf-8"
    assert (target / "memory" / "raw.md").read_text() == "plain"
    assert json.loads((target / "session.json").read_text(encoding="utf-8")) == spec["files"]["session.json"]
    assert (target / "memory" / "fact_a.md").read_text().startswith("---\ntype: fact")
    assert written["session.json"] == (target / "session.json").read_bytes()
