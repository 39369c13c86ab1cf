"""The expect-fail file's life: written from a run, honoured by the next, pruned when
vectors pass, stale digests reported (and refreshed only when asked); `--level L` grades
up to L."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

import conformance
from conformance.cli import main
from conformance.runner.expect_fail_writer import PLACEHOLDER_REASON
from conformance.runner.grading import load_expected_failures
from conformance.runner.vectors import load_corpus

QUIRKY = Path(__file__).with_name("quirky_adapter.py")
CRASHING = shlex.join([sys.executable, str(QUIRKY), str(Path(conformance.__file__).resolve().parents[1])])
STORE = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def reads(vectors_root) -> Path:
    write_vector_file(vectors_root, "t/reads.json", [
        vector("t.read.wrong", op="read_store", level="reader", sections=["3.3"],
               requirements=["S8-reader-unknown-type-opaque"], input={"store": STORE},
               expect=[{"path": "/entries", "count": 3}]),
        vector("t.read.right", op="read_store", level="reader", sections=["3.3"],
               requirements=["S8-reader-unknown-type-opaque"], input={"store": STORE},
               expect=[{"path": "/entries", "count": 1}]),
        vector("t.read.should", op="read_store", level="reader", sections=["3.4"],
               requirements=["S3.4-readers-resolve-wikilinks"], input={"store": STORE},
               expect=[{"path": "/entries", "count": 3}]),
    ])
    return vectors_root


def digests(root: Path) -> dict[str, str]:
    return {v.id: v.digest for v in load_corpus([root]).vectors}


def test_the_writer_round_trip(capsys, monkeypatch, reads, tmp_path):
    known = tmp_path / "known.yaml"
    common = ["--no-bundled", "--vectors", reads, "--claim", "reader", "--write-expect-fail", known]
    # 1. An adapter that crashes on every read: both MUST vectors are added; the SHOULD one costs nothing.
    monkeypatch.setenv("QUIRK", "crash")
    monkeypatch.setenv("QUIRK_OP", "read_store")
    code, _, err = run_cli(capsys, "run", "--adapter", CRASHING, *common)
    assert code == 1
    entries = load_expected_failures(known)
    assert [(e.id, e.reason, e.digest) for e in entries] == [
        ("t.read.right", PLACEHOLDER_REASON, digests(reads)["t.read.right"]),
        ("t.read.wrong", PLACEHOLDER_REASON, digests(reads)["t.read.wrong"])]
    assert "added 2 failing vector(s) with a placeholder reason" in err

    # 2. A person writes the reasons and a comment; the same run now passes on the waivers.
    text = known.read_text().replace(PLACEHOLDER_REASON, "crashes on read, issue 7")
    known.write_text("# known failures of our reader\n" + text)
    code, out, err = run_cli(capsys, "run", "--adapter", CRASHING, *common)
    assert code == 0 and "2 expected failures" in out.splitlines()[-1]
    assert "nothing to change" in err

    # 3. The crash is fixed: the vector that passes leaves the file, the other stays as written.
    monkeypatch.delenv("QUIRK")
    code, out, err = run_cli(capsys, "run", "--adapter", CRASHING, *common)
    assert code == 1  # graded with the file as it was: an xpass fails this run
    assert "removed 1 entry whose vectors now pass: t.read.right" in err
    text = known.read_text()
    assert text.startswith("# known failures of our reader\n")
    assert [(e.id, e.reason) for e in load_expected_failures(known)] == [("t.read.wrong", "crashes on read, issue 7")]
    code, out, _ = run_cli(capsys, "run", "--adapter", CRASHING, *common)
    assert code == 0


def test_a_changed_digest_is_reported_with_both_digests_and_refreshed_only_when_asked(capsys, reads, tmp_path):
    known = tmp_path / "known.json"
    old = "ab" * 32
    known.write_text(json.dumps([{"id": "t.read.wrong", "reason": "tracked", "digest": old}]))
    common = ["--model", "--no-bundled", "--vectors", reads, "--claim", "reader", "--write-expect-fail", known]
    code, out, err = run_cli(capsys, "run", *common)
    new = digests(reads)["t.read.wrong"]
    assert code == 1
    assert f"entry digest:  {old}" in out and f"vector digest: {new}" in out          # the STALE block
    assert f"entry digest:  {old}\n    vector digest: {new}" in err                     # the writer's report
    assert json.loads(known.read_text())[0]["digest"] == old
    code, _, err = run_cli(capsys, "run", *common, "--refresh-digests")
    assert f"digest refreshed (the changed vector still fails)\n    was: {old}\n    now: {new}" in err
    assert json.loads(known.read_text()) == [{"id": "t.read.wrong", "reason": "tracked", "digest": new}]
    code, _, _ = run_cli(capsys, "run", *common)
    assert code == 0


def test_write_expect_fail_reads_the_same_file_it_writes(capsys, reads, tmp_path):
    code, _, err = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", reads,
                           "--expect-fail", tmp_path / "a.json", "--write-expect-fail", tmp_path / "b.json")
    assert code == 2 and "give the same file" in err
    code, _, err = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", reads, "--refresh-digests")
    assert code == 2 and "--refresh-digests only applies with --write-expect-fail" in err


# --- --level L grades up to L -----------------------------------------------------------------

def test_level_reader_grades_reader_and_says_the_rest_is_not_graded(capsys, reads, tmp_path):
    write_vector_file(reads, "t/reads.json", [vector("t.read.right", op="read_store", level="reader",
                                                     sections=["3.3"], requirements=["S8-reader-unknown-type-opaque"],
                                                     input={"store": STORE}, expect=[{"path": "/entries", "count": 1}]),
                                              vector("t.merge.union")])
    code, out, _ = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", reads, "--level", "reader",
                           "--json", tmp_path / "r.json")
    assert code == 0
    lines = out.splitlines()
    assert lines[-5:] == ["Reader: earned", "Writer: not graded (run limited to --level reader)",
                          "Full: not graded (run limited to --level reader)",
                          "verdict: PASS memoir Reader earned: nothing failed",
                          "memoir Reader (v0.1.2) earned; Writer and Full not graded (run limited to --level reader); "
                          "SHOULD 0/0"]
    grade = json.loads((tmp_path / "r.json").read_text())["grade"]
    assert grade["graded_up_to"] == "reader" and grade["earned"] == "reader" and grade["claimed"] == "reader"
    code, out, _ = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", reads, "--level", "reader",
                           "-k", "t.read")
    assert out.splitlines()[-1].startswith("filtered run, no level graded")


def test_level_reader_does_not_earn_reader_when_a_reader_vector_fails(capsys, reads):
    code, out, _ = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", reads, "--level", "reader")
    assert code == 1
    assert out.splitlines()[-1].startswith("no memoir level (v0.1.2) earned; Reader claimed, not earned: "
                                           "1 MUST vector failed")
