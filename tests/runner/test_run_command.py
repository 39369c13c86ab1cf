"""`memoir-conform run` end to end: tiny vector files through the model, the reference
adapter (persistent, one-shot, -j 2) and a misbehaving adapter."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

import conformance
from conformance.cli import main
from conformance.resources import runners_dir
from conformance.report import json_report as report_json

REFERENCE_ADAPTER = runners_dir() / "reference" / "adapter.py"

LEVEL_VECTORS = [
    vector("e2e.read.absent-session", op="read_store", level="reader", sections=["4.1"],
           input={"store": {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}},
           expect=[{"path": "/session/status", "equals": "absent"},
                   {"path": "/entries/fact_a", "matches": {"status": "ok", "type": "fact"}},
                   {"path": "/files/memory/fact_a.md", "unchanged": True}]),
    vector("e2e.write.add-and-complete", op="write", level="writer", sections=["5.3.2"],
           input={"steps": [{"op": "add_next_action", "args": {"text": "Ship it"}},
                            {"op": "complete_next_action", "args": {"text": "ship it"}}]},
           expect=[{"path": "/live/next_actions", "count": 0},
                   {"path": "/session/current/completed_actions", "stamped": ["done_at"]}]),
    vector("e2e.merge.union"),
]


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def level_vectors(vectors_root) -> Path:
    write_vector_file(vectors_root, "e2e/levels.json", LEVEL_VECTORS)
    return vectors_root


def test_the_model_earns_full_on_vectors_of_every_level(capsys, level_vectors, tmp_path):
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", level_vectors,
                           "--json", tmp_path / "r.json", "--junit", tmp_path / "r.xml")
    assert out.splitlines()[-1] == "memoir Full (v0.1.2) earned; SHOULD 0/0"
    assert code == 0
    report = json.loads((tmp_path / "r.json").read_text())
    # The three vectors, the two invariants derived from the merge vector, and JUnit's verdict case.
    assert report_json.validate(report) == [] and report["summary"]["counts"]["pass"] == 5
    assert report["options"]["bundled"] is False
    assert ET.parse(tmp_path / "r.xml").getroot().get("tests") == "6"


def test_a_failing_vector_means_exit_1_and_an_expect_fail_entry_means_exit_0(capsys, vectors_root, tmp_path):
    failing = vector("e2e.merge.wrong", expect=[{"path": "/live/next_actions", "count": 7}])
    write_vector_file(vectors_root, "e2e/levels.json", LEVEL_VECTORS + [failing])
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root)
    assert code == 1 and "Full claimed, not earned: 1 MUST vector failed" in out.splitlines()[-1]
    assert "at /live/next_actions (count; MUST S5.2-union-by-identity): expected 7 elements, found 2" in out

    code, listing, _ = run_cli(capsys, "--no-bundled", "--vectors", vectors_root, "--list", "-k", "wrong")
    digest = next(line.split()[4] for line in listing.splitlines() if line.startswith("e2e.merge.wrong"))
    expect_fail = tmp_path / "expected.yaml"
    expect_fail.write_text(f"- id: e2e.merge.wrong\n  reason: tracked upstream\n  digest: {digest}\n")
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "--expect-fail", expect_fail)
    assert code == 0 and out.splitlines()[-1].endswith("1 expected failure")
    assert "Full: not earned, 1 MUST vector waived by " in out and "Full (v0.1.2) earned" not in out

    expect_fail.write_text(f"- id: e2e.merge.wrong\n  reason: tracked upstream\n  digest: {'0' * 64}\n")
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "--expect-fail", expect_fail)
    assert code == 1 and "STALE e2e.merge.wrong" in out and "1 stale expect-fail entry" in out


def test_usage_errors_exit_2_with_a_message(capsys, vectors_root, tmp_path):
    bad = vector("e2e.bad", level="expert")
    write_vector_file(vectors_root, "e2e/bad.json", [bad])
    code, _, err = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root)
    assert code == 2
    assert "invalid vector file: vectors/e2e/bad.json: at $.vectors[0].level: 'expert' is not one of" in err
    code, _, err = run_cli(capsys, "--model", "--no-bundled")
    assert code == 2 and "--no-bundled needs at least one --vectors DIR" in err
    (tmp_path / "ef.json").write_text('{"id": 1}')
    write_vector_file(vectors_root, "e2e/bad.json", LEVEL_VECTORS)
    code, _, err = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "--expect-fail",
                           tmp_path / "ef.json")
    assert code == 2 and "expected a list" in err
    code, _, err = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "-k", "nothing-like-this")
    assert code == 2 and "no vector matches" in err
    code, _, err = run_cli(capsys, "--adapter", "memoir-conform-no-such-adapter-command", "--no-bundled",
                           "--vectors", vectors_root)
    assert code == 2 and "cannot start the adapter" in err


def test_spec_version_leaves_out_newer_vectors(capsys, vectors_root, tmp_path):
    (vectors_root / "requirements.json").write_text(json.dumps([
        {"id": "S5.4-unknown-fields-pass", "section": "5.4", "keyword": "MUST", "since": "0.1.2",
         "text": "a merge MUST carry every key", "level": "full", "testable": True}]))
    newer = vector("e2e.merge.unknown-fields", requirements=["S5.4-unknown-fields-pass"])
    write_vector_file(vectors_root, "e2e/levels.json", LEVEL_VECTORS + [newer])
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "--list", "--spec", "0.1")
    # The vector and its two derived invariants are left out; e2e.merge.union brings two.
    assert "e2e.merge.unknown-fields" not in out and "5 vectors (3 left out as newer than v0.1)" in out
    code, out, _ = run_cli(capsys, "--model", "--no-bundled", "--vectors", vectors_root, "--spec", "0.1")
    assert code == 0 and out.splitlines()[-1] == "memoir Full (v0.1) earned; SHOULD 0/0"


@pytest.mark.slow
@pytest.mark.parametrize("mode", [[], ["--oneshot"]], ids=["persistent", "oneshot"])
def test_the_reference_adapter_earns_full(capsys, level_vectors, mode):
    code, out, _ = run_cli(capsys, "--adapter", f"{sys.executable} {REFERENCE_ADAPTER}", *mode,
                           "--no-bundled", "--vectors", level_vectors)
    assert out.splitlines()[-1] == "memoir Full (v0.1.2) earned; SHOULD 0/0", out
    assert code == 0


@pytest.mark.slow
def test_parallel_jobs_give_the_same_output_as_one(capsys, vectors_root):
    extra = [vector(f"e2e.merge.copy-{n}", expect=[{"path": "/live/next_actions", "count": n % 3}])
             for n in range(6)]
    write_vector_file(vectors_root, "e2e/levels.json", LEVEL_VECTORS + extra)
    command = f"{sys.executable} {REFERENCE_ADAPTER}"
    serial = run_cli(capsys, "--adapter", command, "--no-bundled", "--vectors", vectors_root)
    parallel = run_cli(capsys, "--adapter", command, "-j", "2", "--no-bundled", "--vectors", vectors_root)
    assert serial[0] == parallel[0] == 1
    assert serial[1] == parallel[1]
    assert "FAIL e2e.merge.copy-0" in serial[1]


MISBEHAVING_ADAPTER = textwrap.dedent("""\
    import json, os, sys, time
    sys.path.insert(0, {root!r})
    from conformance import reference
    from conformance.protocol.server import serve

    context = reference.Context.from_home()

    def handler(op, args, request):
        blob = json.dumps(args)
        if "HANG" in blob:
            time.sleep(60)
        if "CRASH" in blob:
            print("about to crash on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        return reference.handle(op, args, context)

    sys.exit(serve(handler, reference.describe))
""")


@pytest.mark.slow
def test_a_hung_or_crashing_adapter_is_reported_on_its_vector_and_the_run_goes_on(capsys, vectors_root, tmp_path):
    adapter = tmp_path / "misbehaving.py"
    adapter.write_text(MISBEHAVING_ADAPTER.format(root=str(Path(conformance.__file__).resolve().parents[1])))
    session = lambda text: {"version": 1, "current": {"goals": [{"text": text}]}}
    write_vector_file(vectors_root, "e2e/levels.json", LEVEL_VECTORS + [
        vector("e2e.merge.hang", input={"local": session("HANG"), "remote": {"version": 1}}),
        vector("e2e.merge.crash", input={"local": session("CRASH"), "remote": {"version": 1}}),
    ])
    # Six faults of merge_sessions in a row (the two vectors and their derived invariants): not enough to give up.
    code, out, _ = run_cli(capsys, "--adapter", f"{sys.executable} {adapter}", "--timeout", "3",
                           "--give-up-after", "7", "--no-bundled", "--vectors", vectors_root,
                           "--json", tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    outcomes = {v["id"]: v["outcome"] for v in report["vectors"] if not v["derived"]}
    assert outcomes == {"e2e.merge.crash": "error", "e2e.merge.hang": "error", "e2e.merge.union": "pass",
                        "e2e.read.absent-session": "pass", "e2e.write.add-and-complete": "pass"}
    assert "ERROR e2e.merge.hang" in out and "timeout" in out
    assert "about to crash on purpose" in out
    # The invariants derived from the two broken merge vectors meet the same faults.
    assert code == 1 and "6 adapter errors" in out.splitlines()[-1]


def test_k_repeats_and_selects_the_vectors_matching_any_pattern(capsys):
    code, out, _ = run_cli(capsys, "--model", "--list", "-k", "read.golden", "-k", "merge.hidden")
    ids = [line.split()[0] for line in out.splitlines()[2:-1]]
    assert code == 0 and ids
    assert all("read.golden" in vid or "merge.hidden" in vid for vid in ids)
    assert any("read.golden" in vid for vid in ids) and any("merge.hidden" in vid for vid in ids)


@pytest.mark.parametrize("name", ["reference", "node-example"])
def test_a_bundled_adapter_is_named_by_its_short_name(capsys, level_vectors, name):
    if name == "node-example" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    code, out, err = run_cli(capsys, "--adapter", name, "--no-bundled", "--vectors", level_vectors, "--quiet")
    assert code == 0, out + err
    assert out.splitlines()[-2].startswith("verdict: PASS memoir Full earned")
