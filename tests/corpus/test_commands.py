"""The `vectors check`, `vectors new` and `coverage` commands, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.runner.vectors import load_corpus


def test_check_passes_on_the_corpus(capsys):
    assert main(["vectors", "check"]) == 0
    out = capsys.readouterr().out
    assert "ok:" in out and "error:" not in out


def _one_file_corpus(tmp_path: Path, vectors: list[dict]) -> Path:
    root = tmp_path / "vectors"
    (root / "merge").mkdir(parents=True)
    (root / "merge" / "x.json").write_text(json.dumps({"vectors": vectors}), encoding="utf-8")
    return root


def _vector(**changes) -> dict:
    raw = {"id": "merge.example", "title": "An example", "sections": ["5.2"], "requirements": ["S5.2-newest-wins"],
           "level": "full", "op": "merge_sessions",
           "input": {"local": {"version": 1}, "remote": {"version": 1}},
           "expect": [{"path": "/live/goals", "count": 0}]}
    raw.update(changes)
    return raw


def test_check_reports_unknown_requirements(tmp_path, capsys):
    root = _one_file_corpus(tmp_path, [_vector(requirements=["S5.2-newest-wins", "S5.2-made-up"])])
    assert main(["vectors", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "merge.example" in out and "S5.2-made-up" in out and "not in requirements.json" in out


def test_check_reports_duplicate_ids_and_schema_errors(tmp_path, capsys):
    root = _one_file_corpus(tmp_path, [_vector(), _vector()])
    (root / "merge" / "y.json").write_text(json.dumps({"vectors": [_vector(id="merge.other", tags=["ambiguous"])]}),
                                           encoding="utf-8")
    assert main(["vectors", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "duplicate vector id 'merge.example'" in out
    assert "y.json" in out and "tagged 'ambiguous' but names no \"ambiguity\"" in out


def test_check_reports_a_missing_golden_store(tmp_path, capsys):
    root = _one_file_corpus(tmp_path, [_vector(op="read_store", input={"store": {"dir": "stores/nowhere"}},
                                               level="reader", requirements=["S8-reader-ignore-unknown-fields"])])
    assert main(["vectors", "check", str(root)]) == 1
    assert "golden store 'stores/nowhere' not found" in capsys.readouterr().out


@pytest.mark.parametrize("levels", [70, 100_000], ids=["past-the-limit", "past-the-json-parser"])
def test_a_vector_file_nested_too_deep_is_a_problem_not_a_traceback(tmp_path, capsys, levels):
    # Loading, expanding and running copy and walk what a vector holds: a file nested deeper than
    # the kit walks (conformance.nesting) is refused at load, however deep (json.loads itself gives up).
    root = _one_file_corpus(tmp_path, [_vector()])
    deep = '{"a": ' * levels + "1" + "}" * levels
    text = json.dumps({"vectors": [_vector(note="DEEP")]}).replace('"DEEP"', deep)
    (root / "merge" / "x.json").write_text(text, encoding="utf-8")
    assert main(["vectors", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "x.json: at $: nested more than 64 levels deep" in out and '{"$text": "..."}' in out
    assert main(["run", "--model", "--no-bundled", "--vectors", str(root)]) == 2
    assert "nested more than 64 levels deep" in capsys.readouterr().err


def test_a_vector_file_of_json_null_is_told_it_is_no_vector_file(tmp_path, capsys):
    root = _one_file_corpus(tmp_path, [_vector()])
    (root / "merge" / "x.json").write_text("null", encoding="utf-8")
    assert main(["vectors", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "x.json: at $:" in out and "None is not of type 'object'" in out and "levels deep" not in out


def test_a_session_text_nested_past_every_parser_is_run_and_shown_as_text(tmp_path, capsys):
    # As `$text` a session may hold anything, 100,000 levels deep included: the implementation
    # reads it (the model sets it aside as unreadable), and the failure shows the text as sent.
    levels = 100_000
    deep = '{"version": 1, "current": {"goals": [{"text": "a", "x": ' + "[" * levels + "]" * levels + "}]}}"
    root = _one_file_corpus(tmp_path, [_vector(input={"local": {"$text": deep}, "remote": {"version": 1}},
                                               expect=[{"path": "/live/goals", "count": 1}])])
    assert main(["run", "--model", "--no-bundled", "--vectors", str(root)]) == 1
    out = capsys.readouterr().out
    assert "FAIL merge.example" in out and '"local": "{\\"version\\": 1' in out


def test_check_reports_unless_refused_on_a_step_that_may_not_refuse(tmp_path, capsys):
    write = _vector(id="write.example", op="write", level="writer", sections=["4.1"],
                    requirements=["S8-writer-stamps-added"],
                    input={"steps": [{"op": "add_next_action", "args": {"text": "a"}},
                                     {"op": "add_next_action", "args": {"text": "b"}, "may_refuse": ["invalid_input"]}]},
                    expect=[{"path": "/live/next_actions", "count": 2, "unless_refused": 1},
                            {"path": "/live/next_actions", "count": 1, "unless_refused": 0}])
    root = _one_file_corpus(tmp_path, [write])
    assert main(["vectors", "check", str(root)]) == 1
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("error:")]
    assert len(problems) == 1 and "unless_refused 0 names no step with may_refuse" in problems[0]


def test_check_warns_about_undocumented_ambiguities(tmp_path, capsys):
    root = _one_file_corpus(tmp_path, [_vector(tags=["ambiguous"], ambiguity="AMB-NOT-A-THING")])
    assert main(["vectors", "check", str(root)]) == 0
    assert "AMB-NOT-A-THING is not documented" in capsys.readouterr().out


def test_check_of_a_missing_directory_is_a_usage_error(tmp_path, capsys):
    assert main(["vectors", "check", str(tmp_path / "absent")]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_new_prints_a_valid_vector_offering_the_sections_requirements(tmp_path, capsys):
    assert main(["vectors", "new", "--level", "full", "--section", "5.3.2"]) == 0
    vector = json.loads(capsys.readouterr().out)
    assert vector["op"] == "merge_sessions" and vector["level"] == "full"
    assert "S5.3.2-readd-after-done-survives" in vector["requirements"]
    assert all(rid.startswith("S5.3.2-") for rid in vector["requirements"])
    root = _one_file_corpus(tmp_path, [vector])
    corpus = load_corpus([root])
    assert corpus.problems == [] and corpus.vectors[0].id == vector["id"]


def test_new_adds_to_a_file_that_check_then_accepts(tmp_path, capsys):
    out = tmp_path / "vectors" / "write" / "mine.json"
    assert main(["vectors", "new", "--level", "writer", "--section", "4.1", "--out", str(out)]) == 0
    assert main(["vectors", "new", "--level", "writer", "--section", "4.1", "--op", "write",
                 "--id", "write.mine.second", "--out", str(out)]) == 0
    ids = [v["id"] for v in json.loads(out.read_text(encoding="utf-8"))["vectors"]]
    assert ids[1] == "write.mine.second" and ids[0] != ids[1]
    capsys.readouterr()
    assert main(["vectors", "check", str(tmp_path / "vectors")]) == 0
    assert "still a scaffold" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["--level", "reader", "--section", "9.9"], "no testable reader-level requirement"),
    (["--level", "full", "--section", "five"], "is not a spec section"),
    (["--level", "full", "--section", "5.2", "--id", "Bad Id"], "must match"),
    (["--level", "full", "--section", "5.2", "--id", "merge.hidden.sticky-local-hidden-remote-newer"], "already used"),
])
def test_new_refuses_bad_arguments(args, words, capsys):
    assert main(["vectors", "new", *args]) == 2
    assert words in capsys.readouterr().err


def test_coverage_text_and_json(capsys):
    assert main(["coverage"]) == 0
    text = capsys.readouterr().out
    assert "section 5.3.1" in text and text.rstrip().splitlines()[-3].startswith("MUST: ")
    assert text.rstrip().splitlines()[-2].startswith("boundary cases: ")
    assert text.rstrip().splitlines()[-1].startswith("boundary subjects: ")
    assert "boundary cases per MUST requirement" in text and "stored-order" in text
    assert "boundary subject: ops with a text argument" in text and "complete_next_action" in text
    assert main(["coverage", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["boundary_gaps"] == [] and report["subject_gaps"] == []
    reached = {(case["member"], case["kind"]) for case in report["subjects"]}
    assert {("hide_decision", "text-neighbour"), ("history", "long-text"), ("update_entry", "prefix-key")} <= reached
    rows = {row["id"]: row for row in report["requirements"]}
    kinds = {boundary["kind"]: boundary for boundary in rows["S5.2-cap-rotation-oldest-out"]["boundaries"]}
    assert {"cap-size", "stored-order"} <= set(kinds) and kinds["cap-size"]["levels"] == ["writer", "full"]
    assert main(["coverage", "--json", "--spec", "0.1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["spec"] == "0.1" and report["gaps"] == []
    ids = {row["id"] for row in report["requirements"]}
    assert "S5.3.1-hidden-sticky" in ids and "S4.1-parked-rendered" not in ids
    untestable = [row for row in report["requirements"] if row["status"] == "untestable"]
    assert untestable and all(row["untestable_reason"] for row in untestable)
