"""Failures that explain themselves: every mismatch, the stderr of the vector, its input,
its scratch store kept, the vector shown whole (from an installed layout too), and the
small things around a run (a closed pipe, a mistyped adapter path)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

import conformance
from conformance.cli import main
from conformance.resources import schema_dir, vectors_dir
from conformance.runner.checks import SHOWN_DIFFERENCES, evaluate_check

QUIRKY = Path(__file__).with_name("quirky_adapter.py")
PACKAGE_ROOT = Path(conformance.__file__).resolve().parents[1]
QUIRKY_COMMAND = shlex.join([sys.executable, str(QUIRKY), str(PACKAGE_ROOT)])
STORE = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody of a\n",
                   "memory/fact_b.md": "---\ntype: fact\nname: B\n---\nbody of b\n"}}


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def block(out: str, vector_id: str) -> str:
    """The failure block of one vector in the console output."""
    start = out.index(f"FAIL {vector_id}  [")
    end = out.find("\n\n", start)
    return out[start:end]


# --- every mismatch of a check -----------------------------------------------------

def test_equals_reports_every_differing_field_not_only_the_first():
    document = {"entries": {"a": {"type": "fact", "name": "A", "body": "x"}}}
    failures = evaluate_check({"path": "/entries/a", "equals": {"type": "lesson", "name": "B", "body": "x"}}, document)
    assert [(f.path, f.expected, f.actual) for f in failures] == [
        ("/entries/a/type", "lesson", "fact"), ("/entries/a/name", "B", "A")]


def test_contains_reports_every_missing_identity_and_every_wrong_field():
    document = {"live": {"goals": ["one"]}, "session": {"current": {"decisions": [{"text": "d", "why": "w"}]}}}
    missing = evaluate_check({"path": "/live/goals", "contains": ["two", "one", "three"]}, document)
    assert [f.expected for f in missing] == ["two", "three"]
    fields = evaluate_check({"path": "/session/current/decisions",
                             "contains": [{"text": "d", "why": "v", "rejected": "r"}]}, document)
    assert [f.path for f in fields] == ["/session/current/decisions/0/why", "/session/current/decisions/0/rejected"]


def test_mismatches_are_bounded_and_the_rest_counted():
    document = {"live": {"goals": []}}
    failures = evaluate_check({"path": "/live/goals", "contains": [f"goal {n}" for n in range(25)]}, document)
    assert len(failures) == SHOWN_DIFFERENCES
    assert failures[-1].message.endswith(f"(and {25 - SHOWN_DIFFERENCES} more differences of this check, not shown)")


# --- the failure block of a run ----------------------------------------------------

@pytest.fixture
def failing_reads(vectors_root) -> Path:
    """Two read vectors that fail on any correct reader (they expect three entries of two)."""
    write_vector_file(vectors_root, "t/reads.json", [
        vector(f"t.read.{name}", op="read_store", level="reader", sections=["3.3"],
               requirements=["S8-reader-unknown-type-opaque"], input={"store": STORE},
               expect=[{"path": "/entries", "count": 3}, {"path": "/entries/fact_a/name", "equals": "Z"}])
        for name in ("first", "second")
    ] + [vector("t.merge.wrong", expect=[{"path": "/live/next_actions", "count": 9}])])
    return vectors_root


@pytest.mark.parametrize("mode", [[], ["--oneshot"]], ids=["persistent", "oneshot"])
def test_each_failure_shows_the_stderr_written_while_its_vector_ran(capsys, monkeypatch, failing_reads, mode):
    monkeypatch.setenv("QUIRK", "stderr_log")
    code, out, err = run_cli(capsys, "run", "--adapter", QUIRKY_COMMAND, *mode, "--no-bundled",
                             "--vectors", failing_reads, "-k", "t.read.*")
    assert code == 1, out + err
    first, second = block(out, "t.read.first"), block(out, "t.read.second")
    assert "adapter stderr while this vector ran" in first
    assert "v-t.read.first" in first and "v-t.read.second" not in first
    assert "v-t.read.second" in second and "v-t.read.first" not in second


def test_a_read_vector_shows_every_mismatch_and_its_input_store(capsys, failing_reads):
    code, out, _ = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", failing_reads, "-k", "t.read.first")
    shown = block(out, "t.read.first")
    assert "at /entries (count;" in shown and "at /entries/fact_a/name (equals;" in shown
    assert "input store (2 files):" in shown
    assert 'memory/fact_a.md (37 bytes): "---\\ntype: fact\\nname: A\\n---\\nbody of a\\n"' in shown
    assert f"whole input: memoir-conform vectors show t.read.first --vectors {failing_reads}" in shown
    assert "  adapter stderr while this vector ran: (none)" in shown


def test_keep_scratch_keeps_the_stores_of_failing_vectors_only(capsys, failing_reads, tmp_path):
    kept = tmp_path / "kept"
    write_vector_file(failing_reads, "t/passing.json", [vector("t.merge.fine")])
    code, out, _ = run_cli(capsys, "run", "--model", "--no-bundled", "--vectors", failing_reads,
                           "--keep-scratch", kept)
    assert code == 1
    assert (kept / "t.read.first" / "store" / "memory" / "fact_a.md").read_text().endswith("body of a\n")
    local = json.loads((kept / "t.merge.wrong" / "local.session.json").read_text())
    assert local["current"]["next_actions"][0]["text"] == "Local"
    assert not (kept / "t.merge.fine").exists()
    assert f"kept under {kept}" in out


# --- vectors show ------------------------------------------------------------------

def test_vectors_show_prints_a_golden_store_vector_with_every_file(capsys):
    code, out, _ = run_cli(capsys, "vectors", "show", "read.golden.canonical-session")
    assert code == 0
    golden = vectors_dir() / "stores" / "canonical"
    for path in golden.rglob("*"):
        if path.is_file():
            assert f"=== {path.relative_to(golden).as_posix()} (" in out
            assert path.read_text(encoding="utf-8") in out
    assert "requirement S4.1-parked-rendered (MUST, 4.1)" in out
    assert '"id": "read.golden.canonical-session"' in out


def test_vectors_show_extracts_the_stores_and_suggests_close_ids(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "vectors", "show", "merge.hidden.sticky-local-hidden-remote-newer",
                           "--extract", tmp_path / "x")
    assert code == 0
    local = json.loads((tmp_path / "x" / "local.session.json").read_text())
    assert local["current"]["decisions"][0]["hidden"] is True
    code, _, err = run_cli(capsys, "vectors", "show", "read.golden.canonical-sesion")
    assert code == 2 and "did you mean read.golden.canonical-session" in err


def test_vectors_show_works_from_an_installed_wheel_layout(tmp_path):
    site = tmp_path / "site-packages"
    package = site / "conformance"
    shutil.copytree(Path(conformance.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(vectors_dir(), package / "_data" / "vectors")
    shutil.copytree(schema_dir(), package / "_data" / "schema")
    done = subprocess.run([sys.executable, "-m", "conformance", "vectors", "show", "read.golden.legacy-mixed-session"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    assert "=== memory/MEMORY.md (" in done.stdout and "file: vectors/read/golden-stores.json" in done.stdout


# --- the small things --------------------------------------------------------------

@pytest.mark.parametrize("command", [["run", "--list"], ["vectors", "show", "read.golden.canonical-session"],
                                     ["rules"], ["coverage"]])
def test_a_closed_pipe_ends_a_listing_quietly(command):
    done = subprocess.run(f"{shlex.join([sys.executable, '-m', 'conformance', *command])} | head -n 1",
                          shell=True, capture_output=True, text=True, timeout=300, cwd=PACKAGE_ROOT)
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_a_mistyped_adapter_path_is_named_as_typed(capsys, failing_reads, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "run", "--adapter", f"{shlex.quote(sys.executable)} adapters/my-adaptr.py",
                           "--no-bundled", "--vectors", failing_reads)
    assert code == 2
    assert "hint: the adapter command names 'adapters/my-adaptr.py', which does not exist" in err
    code, _, err = run_cli(capsys, "run", "--adapter", "./my-adapter.sh", "--no-bundled", "--vectors", failing_reads)
    assert code == 2 and "names './my-adapter.sh', which does not exist" in err
