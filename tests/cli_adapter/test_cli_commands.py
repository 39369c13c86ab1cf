"""`memoir-conform run / doctor / fuzz --cli FILE` and `init cli` end to end, against toymemo."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from cli_helpers import TOYMEMO_CONFIG

from conformance.cli import main
from conformance.cli_adapter.command import TEMPLATE
from conformance.fuzz.engine import FuzzRun
from conformance.fuzz.report import reproduce_command
from conformance.options import chosen_adapter
from conformance.report import json_report as report_json

SESSION_A = {"version": 1, "current": {"next_actions": [{"text": "Local", "added": "2026-01-01T00:00:00Z"}]}}
SESSION_B = {"version": 1, "current": {"next_actions": [{"text": "Remote", "added": "2026-01-02T00:00:00Z"}]}}


def _vector(id: str, level: str, op: str, input: dict, expect: list, sections=("4.1",)) -> dict:
    return {"id": id, "title": id, "sections": list(sections), "requirements": ["S4.1-writer-stamps"],
            "level": level, "op": op, "input": input, "expect": expect}


# One vector per level, and one writer vector that needs an op the partial configuration lacks.
SMALL_CORPUS = [
    _vector("cli.read.absent-session", "reader", "read_store",
            {"store": {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\n---\nbody\n"}}},
            [{"path": "/session/status", "equals": "absent"},
             {"path": "/entries/fact_a", "matches": {"status": "ok", "type": "fact"}}]),
    _vector("cli.write.add-and-complete", "writer", "write",
            {"steps": [{"op": "add_next_action", "args": {"text": "Ship it"}},
                       {"op": "complete_next_action", "args": {"text": "ship it"}}]},
            [{"path": "/live/next_actions", "count": 0},
             {"path": "/session/current/completed_actions", "stamped": ["done_at"]}]),
    _vector("cli.write.entry", "writer", "write",
            {"steps": [{"op": "write_entry", "args": {"link": "fact_b", "frontmatter": {"type": "fact", "name": "B"},
                                                      "body": "text\n"}}]},
            [{"path": "/entries/fact_b", "matches": {"status": "ok", "type": "fact", "name": "B"}}], sections=("3.2",)),
    _vector("cli.merge.union", "full", "merge_sessions", {"local": SESSION_A, "remote": SESSION_B},
            [{"path": "/live/next_actions", "identities": ["local", "remote"]}], sections=("5.2",)),
]

PARTIAL_CONFIG = """
[defaults]
invalid_input = [3]
[ops.read_store]
command = ["toymemo", "read", "{store}", "--json"]
pointer = "/data"
[ops.add_next_action]
command = ["toymemo", "add-action", "--store", "{store}", "--", "{text}"]
[ops.complete_next_action]
command = ["toymemo", "complete-action", "--store", "{store}", "--", "{text}"]
[ops.merge_sessions]
command = ["toymemo", "merge", "{local}", "{remote}", "--output", "{out}"]
result = "file"
"""


@pytest.fixture
def small_corpus(tmp_path) -> Path:
    root = tmp_path / "vectors"
    root.mkdir()
    (root / "cli.json").write_text(json.dumps({"description": "CLI adapter end to end", "vectors": SMALL_CORPUS}),
                                   encoding="utf-8")
    return root


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_toymemo_passes_a_shard_of_the_corpus_through_its_cli(toymemo, capsys, tmp_path):
    # A process per request makes the whole corpus cost minutes; one shard of
    # thirty-two (about 40 vectors, read, write and both merges) shows the plumbing,
    # and `python benchmarks/cli_adapter_bench.py` runs the whole corpus.
    code, out, err = run(capsys, "run", "--cli", TOYMEMO_CONFIG, "-j", "2", "--shard", "1/32",
                         "--json", tmp_path / "report.json")
    assert code == 0, out[-3000:] + err
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report_json.validate(report) == []
    assert report["options"]["cli"] == str(TOYMEMO_CONFIG) and report["options"]["adapter"] is None
    assert report["implementation"]["describe"]["name"] == "toymemo"
    counts = report["summary"]["counts"]
    assert counts["pass"] > 30 and counts["fail"] == counts["error"] == counts["not_applicable"] == 0
    assert {vector["op"] for vector in report["vectors"]} >= {"read_store", "write", "merge_sessions", "merge_stores"}


def test_a_partial_cli_gets_the_level_it_earns_and_not_the_next(toymemo, capsys, small_corpus, write_config):
    config = write_config(PARTIAL_CONFIG, name="partial.toml")
    code, out, err = run(capsys, "run", "--cli", config, "--no-bundled", "--vectors", small_corpus)
    assert code == 0, out + err  # it claims what its templates cover: Reader
    assert out.splitlines()[-1].startswith("memoir Reader (v0.1.2) earned"), out
    assert "not_applicable" in out or "n/a" in out.lower()
    code, out, _ = run(capsys, "run", "--cli", config, "--no-bundled", "--vectors", small_corpus, "--claim", "full")
    assert code == 1
    assert "Full claimed, not earned" in out.splitlines()[-1], out


def test_a_wrong_template_fails_the_vectors_it_touches(toymemo, capsys, small_corpus, write_config):
    # Completing by adding again: as far as the kit can tell, the tool has a bug.
    config = write_config(PARTIAL_CONFIG.replace(
        '["toymemo", "complete-action", "--store", "{store}", "--", "{text}"]',
        '["toymemo", "add-action", "--store", "{store}", "--", "{text} again"]'), name="wrong.toml")
    code, out, _ = run(capsys, "run", "--cli", config, "--no-bundled", "--vectors", small_corpus, "--claim", "writer")
    assert code == 1
    assert "FAIL cli.write.add-and-complete" in out and '["Ship it", "ship it again"]' in out
    assert out.splitlines()[-1].startswith("memoir Reader (v0.1.2) earned; Writer claimed, not earned"), out


def test_doctor_checks_a_cli_configuration(toymemo, capsys):
    code, out, _ = run(capsys, "doctor", "--cli", TOYMEMO_CONFIG)
    assert code == 0, out
    assert "PASS  describe         toymemo 0.3.1" in out and "0 failed" in out


def test_fuzz_drives_a_cli(toymemo, capsys):
    code, out, err = run(capsys, "fuzz", "--cli", TOYMEMO_CONFIG, "--seed", "1", "--examples", "5",
                         "--property", "convergence")
    assert code == 0, out + err
    assert "no counterexample" in out


@pytest.mark.parametrize("command", [["run"], ["doctor"], ["fuzz", "--examples", "1"]])
def test_a_bad_configuration_stops_every_command_before_anything_runs(toymemo, capsys, write_config, tmp_path,
                                                                      command):
    marker = tmp_path / "ran"
    config = write_config(f"""
        [describe]
        version_command = ["touch", "{marker}"]
        [ops.read_store]
        command = ["touch", "{marker}", "{{store}}"]
        [ops.add_goal]
        command = ["toymemo", "add-goal", "{{txt}}"]
    """)
    code, out, err = run(capsys, *command, "--cli", config)
    assert code == 2 and not marker.exists()
    assert f"memoir-conform {command[0]}: the --cli configuration cannot be used" in err
    assert f"{config}: ops.add_goal.command: unknown placeholder {{txt}}" in err


def test_cli_and_adapter_cannot_be_given_together_to_a_one_implementation_command(capsys):
    # `run` takes both (several implementations, tests/runner/test_matrix.py); `fuzz` drives one.
    assert main(["fuzz", "--cli", "x.toml", "--adapter", "y"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_template_timeout_longer_than_the_runners_raises_the_runners(toymemo, write_config, capsys):
    config = write_config("""
        [ops.add_goal]
        command = ["toymemo", "add-goal", "--store", "{store}", "--", "{text}"]
        timeout = 30
    """)
    chosen = chosen_adapter(argparse.Namespace(cli=config, adapter=None, timeout=10.0), "memoir-conform run")
    assert chosen.timeout == 32 and chosen.command[-1] == "--timeout=32"
    assert "note: waiting up to 32 s for each answer" in capsys.readouterr().err


def test_a_counterexample_reproduces_with_the_same_cli_option():
    fuzz_run = FuzzRun(seed=5, examples=9, max_seconds=None)
    line = reproduce_command(["--cli", "my tool.toml"], fuzz_run, "convergence", True, False)
    assert line == "memoir-conform fuzz --cli 'my tool.toml' --seed 5 --examples 9 --property convergence"


def test_init_cli_writes_the_template_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "init", "cli")
    written = tmp_path / "memoir-cli.toml"
    assert code == 0 and "memoir-conform run --cli memoir-cli.toml" in out
    assert written.read_text(encoding="utf-8") == TEMPLATE.read_text(encoding="utf-8").replace("THIS_FILE",
                                                                                                "memoir-cli.toml")
    written.write_text("# mine\n", encoding="utf-8")
    code, _, err = run(capsys, "init", "cli", "memoir-cli.toml")
    assert code == 2 and "already exists; not overwritten" in err
    assert written.read_text(encoding="utf-8") == "# mine\n"
    code, _, _ = run(capsys, "init", "cli", "other.toml")
    assert code == 0 and (tmp_path / "other.toml").exists()


def test_the_pytest_plugin_drives_a_cli_through_its_configuration(toymemo, pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--memoir-cli", str(TOYMEMO_CONFIG),
                                "-k", "read.golden.canonical or write.hide")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) > 3 and "failed" not in outcomes, result.stdout.str()[-3000:]
