"""What an adapter leaves in its scratch directory cannot hurt the runner (issue 24, items 3, 7 and 8):
links and special files are faults of their vector, never followed nor opened for reading; deep trees,
deep JSON and unremovable directories are faults, not tracebacks, and spoil no later vector."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import pytest
from runner_helpers import run_report, vector, write_vector_file

from conformance.cli import main

ROOT = os.geteuid() == 0


def write(id: str, text: str) -> dict:
    return vector(id, op="write", level="writer", sections=["4.1"], requirements=["S4.1-atomic-write"],
                  input={"store": {"files": {}}, "steps": [{"op": "add_question", "args": {"text": text}}]},
                  expect=[{"path": "/live/open_questions", "count": 1}])


ATOMIC = vector("t.atomic", op="atomic_writes", level="writer", sections=["4.1"], requirements=["S4.1-atomic-write"],
                input={"writes": 4}, expect=[{"path": "/partial_reads", "equals": 0}])


@pytest.fixture
def runner_tmp(tmp_path, monkeypatch) -> Path:
    """The runner's temporary directory, to see that it is removed."""
    path = tmp_path / "runner-tmp"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


def test_a_session_json_linked_to_dev_zero_is_an_error_of_its_vector(capsys, vectors_root, hostile, fake_env, runner_tmp):
    fake_env(fault="link_session", fault_when="LINKED")
    started = time.monotonic()
    code, _, by_id = run_report(capsys, vectors_root, [write("t.linked", "LINKED"), write("t.fine", "fine")],
                         "--adapter", hostile)
    assert time.monotonic() - started < 30
    assert by_id["t.linked"]["outcome"] == "error"
    assert "store/session.json: a symbolic link to '/dev/zero'" in by_id["t.linked"]["detail"]
    assert by_id["t.fine"]["outcome"] == "pass"
    assert list(runner_tmp.iterdir()) == []


def test_a_link_to_a_secret_shows_nothing_of_it(capsys, vectors_root, hostile, fake_env, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("TOP-SECRET-CONTENT\n")
    fake_env(fault="link_session", fault_when="LINKED", link_to=secret)
    _, out, by_id = run_report(capsys, vectors_root, [write("t.linked", "LINKED")], "--adapter", hostile)
    assert by_id["t.linked"]["outcome"] == "error"
    assert "TOP-SECRET" not in out + json.dumps(by_id["$report"])


@pytest.mark.parametrize("fault, words", [("fifo_session", "a FIFO (named pipe)"),
                                          ("big_session", "a file of 1073741824 bytes, more than the limit")])
def test_a_fifo_or_a_huge_session_json_is_an_error_not_a_hang(capsys, vectors_root, hostile, fake_env, fault, words):
    fake_env(fault=fault, fault_when="LEFT")
    started = time.monotonic()
    _, _, by_id = run_report(capsys, vectors_root, [write("t.left", "LEFT"), write("t.fine", "fine")], "--adapter", hostile)
    assert time.monotonic() - started < 30
    assert by_id["t.left"]["outcome"] == "error" and words in by_id["t.left"]["detail"]
    assert by_id["t.fine"]["outcome"] == "pass"


def test_the_session_poller_reports_a_fifo_instead_of_blocking_on_it(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="fifo_session", fault_when="atomic session 4")  # the last write: the reader sees it
    started = time.monotonic()
    _, _, by_id = run_report(capsys, vectors_root, [ATOMIC], "--adapter", hostile)
    assert time.monotonic() - started < 30
    assert by_id["t.atomic"]["outcome"] == "error"
    assert "store/session.json: a FIFO (named pipe)" in by_id["t.atomic"]["detail"]


def test_keep_scratch_copies_links_as_links(capsys, vectors_root, hostile, fake_env, tmp_path):
    fake_env(fault="link_session", fault_when="LINKED")
    kept = tmp_path / "kept"
    run_report(capsys, vectors_root, [write("t.linked", "LINKED")], "--adapter", hostile, "--keep-scratch", kept)
    link = kept / "t.linked" / "store" / "session.json"
    assert link.is_symlink() and os.readlink(link) == "/dev/zero"


def test_a_directory_1200_levels_deep_is_a_fault_and_is_removed(capsys, vectors_root, hostile, fake_env, runner_tmp):
    fake_env(fault="deep_store", fault_when="DEEP")
    code, _, by_id = run_report(capsys, vectors_root, [write("t.deep", "DEEP"), write("t.fine", "fine")], "--adapter", hostile)
    assert by_id["t.deep"]["outcome"] == "error"
    assert "directories nested more than 32 levels deep" in by_id["t.deep"]["detail"]
    assert by_id["t.fine"]["outcome"] == "pass"
    assert list(runner_tmp.iterdir()) == []


def test_a_session_json_200k_levels_deep_is_too_deeply_nested(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="deep_session", fault_when="DEEP")
    _, _, by_id = run_report(capsys, vectors_root, [write("t.deep", "DEEP")], "--adapter", hostile)
    assert by_id["t.deep"]["outcome"] == "error"
    assert "store/session.json nested too deeply" in by_id["t.deep"]["detail"]


def test_an_unremovable_scratch_is_one_fault_of_the_vector_that_made_it(capsys, vectors_root, hostile, fake_env,
                                                                        runner_tmp):
    fake_env(fault="unremovable", fault_when="STUCK")
    _, _, by_id = run_report(capsys, vectors_root, [write("t.a-stuck", "STUCK"), write("t.b-next", "next"),
                                             write("t.c-last", "last")], "--adapter", hostile)
    assert by_id["t.a-stuck"]["outcome"] == "error"
    assert "store/memory" in by_id["t.a-stuck"]["detail"] and "unremovable" in by_id["t.a-stuck"]["detail"]
    assert "the adapter created" not in by_id["t.a-stuck"]["detail"]
    assert by_id["t.b-next"]["outcome"] == "pass" and by_id["t.c-last"]["outcome"] == "pass"
    if ROOT:  # the runner restores what root can restore, and removes its temporary directory
        assert list(runner_tmp.iterdir()) == []


def test_a_describe_answer_100k_levels_deep_is_a_protocol_fault(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="deep_answer", fault_after="0")
    write_vector_file(vectors_root, "t/leftovers.json", [write("t.one", "one")])
    code = main(["run", "--no-bundled", "--vectors", str(vectors_root), "--adapter", hostile])
    err = capsys.readouterr().err
    assert code == 2
    assert "bad_message" in err and "nested more than 64 levels deep" in err and "Traceback" not in err


@pytest.mark.parametrize("fault, kind, words", [
    ("deep_after", "bad_message", "a line of JSON nested more than 64 levels deep"),
    # Longer than a pipe holds: seen only if the runner reads while it waits for the adapter to exit.
    ("long_after", "too_long", "a line longer than 16777216 bytes, the line limit (not shown)"),
    ("double_answer", "repeated_answer", "was answered a second time after its last request"),
    # Eight kept, the rest read and counted.
    ("flood_after", "not_json", "more lines after it (read and dropped)"),
])
@pytest.mark.parametrize("mode", ["persistent", "oneshot"])
def test_a_line_after_the_last_answer_is_a_fault_of_the_vector_it_followed(capsys, vectors_root, hostile, fake_env,
                                                                           mode, fault, kind, words):
    # Persistent: after the last answer of the run. One-shot: after the one answer of each process, so the
    # faulty vector comes first, and the vector after it must not be charged.
    fake_env(fault=fault, fault_when="LATE", fault_after="0")
    vectors = [write("t.a-fine", "fine"), write("t.b-late", "LATE")]
    if mode == "oneshot":
        vectors = [write("t.a-late", "LATE"), write("t.b-fine", "fine")]
    options = ["--oneshot"] if mode == "oneshot" else []
    code, out, by_id = run_report(capsys, vectors_root, vectors, "--adapter", hostile, *options)
    late, fine = (by_id["t.b-late"], by_id["t.a-fine"]) if mode == "persistent" else (by_id["t.a-late"],
                                                                                          by_id["t.b-fine"])
    assert "Traceback" not in out
    assert fine["outcome"] == "pass"
    assert late["outcome"] == "error" and code == 1
    assert kind in late["detail"] and words in late["detail"]


def test_a_deep_answer_in_the_concurrency_check_is_a_fault_not_a_lost_update(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="deep_answer", fault_when="concurrent writer 2 action 001")
    concurrent = vector("t.concurrent", op="concurrent_writes", level="writer", sections=["4.1"],
                        requirements=["S4.1-serialize-read-mutate-write"],
                        input={"processes": 2, "actions_per_process": 2}, expect=[])
    _, _, by_id = run_report(capsys, vectors_root, [concurrent], "--adapter", hostile)
    assert by_id["t.concurrent"]["outcome"] == "error"
    assert "nested more than 64 levels deep" in by_id["t.concurrent"]["detail"]
    assert "lost" not in by_id["t.concurrent"]["detail"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_oneshot_a_line_after_the_describe_answer_is_a_run_level_fault_not_a_vectors(capsys, vectors_root, hostile,
                                                                                     fake_env, jobs):
    # Every one-shot client describes in a process of its own: the run's first (before any vector) and, with
    # -j 2, the second worker's (during its first vector). Neither line is that vector's doing.
    fake_env(fault="double_answer", fault_when='"describe"', fault_after="0")
    _, out, by_id = run_report(capsys, vectors_root, [write("t.a", "a"), write("t.b", "b")], "--adapter", hostile,
                               "--oneshot", "-j", jobs)
    assert by_id["t.a"]["outcome"] == "pass" and by_id["t.b"]["outcome"] == "pass"
    notes = by_id["$report"]["summary"]["notes"]
    late = [note for note in notes if "repeated_answer" in note]
    assert late and all("after the describe step" in note and "request 1 (describe)" in note for note in late)
    assert "after the describe step" in out
