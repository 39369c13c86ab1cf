"""`memoir-conform fuzz` end to end: the reference passes, runs reproduce, counterexamples become vectors."""

from __future__ import annotations

import json

import pytest
from fuzz_helpers import REGISTRY, mutant_command

from conformance.cli import main
from conformance.fuzz.engine import FAILED

needs_mutants = pytest.mark.skipif(not REGISTRY.is_file(), reason="runners/mutants/ is not in this checkout")


def adapter_arg(file_name: str) -> str:
    return " ".join(f'"{part}"' for part in mutant_command(file_name))


def test_the_reference_adapter_passes_a_short_run(tmp_path, capsys):
    report = tmp_path / "fuzz.json"
    code = main(["fuzz", "--seed", "3", "--examples", "15", "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no counterexample in 8 properties" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["seed"] == 3 and document["counterexamples"] == 0
    assert [p["status"] for p in document["properties"]] == ["passed"] * 8
    assert all(p["examples"] >= 15 for p in document["properties"])


@needs_mutants
@pytest.mark.slow
def test_the_same_seed_reproduces_the_same_run(fuzzer):
    first, second = (fuzzer(mutant_command("10_unknown_top_level_keys_dropped.py"))
                     .run(["unknown-keys"], seed=11, examples=200).results[0] for _ in range(2))
    assert first.status == second.status == FAILED
    assert first.examples == second.examples
    assert first.counterexample.inputs == second.counterexample.inputs
    assert first.counterexample.diff() == second.counterexample.diff()


@needs_mutants
@pytest.mark.slow
@pytest.mark.parametrize("mutant, prop", [
    ("16_history_ignores_session_id.py", "differential"),
    ("07_completion_without_tombstone.py", "writer-ops"),
])
def test_a_saved_counterexample_is_a_regression_vector(mutant, prop, tmp_path, capsys):
    saved = tmp_path / "regressions"
    code = main(["fuzz", "--adapter", adapter_arg(mutant), "--seed", "1", "--property", prop,
                 "--shrink-seconds", "5", "--save-vectors", str(saved)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "fails against the implementation, passes against the reference model" in out
    [path] = saved.glob("*.json")
    vector = json.loads(path.read_text(encoding="utf-8"))["vectors"][0]
    assert vector["id"].startswith(f"fuzz.{prop}.") and "fuzz" in vector["tags"]

    assert main(["vectors", "check", str(saved)]) == 0
    outcomes = {}
    for name, adapter in (("mutant", adapter_arg(mutant)), ("reference", None)):
        report = tmp_path / f"{name}.json"
        argv = ["run", "--vectors", str(saved), "--no-bundled", "--json", str(report)]
        main(argv + (["--adapter", adapter] if adapter else []))
        outcomes[name] = {v["id"]: v["outcome"] for v in json.loads(report.read_text(encoding="utf-8"))["vectors"]
                          if not v["derived"]}  # the merge invariants derived from it have tests of their own
    capsys.readouterr()
    assert outcomes["mutant"] == {vector["id"]: "fail"}
    assert outcomes["reference"] == {vector["id"]: "pass"}


def test_usage_errors_exit_2(capsys):
    assert main(["fuzz", "--property", "no-such-property"]) == 2
    assert "unknown property no-such-property" in capsys.readouterr().err
    assert main(["fuzz", "--property", "differential", "--no-differential"]) == 2
    assert "leaves no property" in capsys.readouterr().err
    assert main(["fuzz", "--examples", "0"]) == 2
    assert main(["fuzz", "--adapter", "/no/such/adapter-program", "--examples", "1"]) == 2
    assert "cannot start the adapter" in capsys.readouterr().err


def test_no_differential_leaves_the_differential_out(capsys):
    code = main(["fuzz", "--seed", "2", "--examples", "5", "--property", "differential", "convergence",
                 "--no-differential"])
    out = capsys.readouterr().out
    assert code == 0
    properties = [line.split()[1] for line in out.splitlines() if line.startswith("  ok ")]
    assert properties == ["convergence"]
