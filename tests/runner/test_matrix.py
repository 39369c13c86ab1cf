"""`memoir-conform run` with several implementations: repeated --adapter / --cli, a matrix file."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from runner_helpers import vector, write_vector_file

from conformance.cli import build_parser, main
from conformance.resources import runners_dir
from conformance.report import matrix
from conformance.report.matrix import Target, load_matrix

REFERENCE = shlex.join([sys.executable, str(runners_dir() / "reference" / "adapter.py")])
MUTANT = shlex.join([sys.executable, str(runners_dir() / "mutants" / "03_hidden_not_sticky.py")])
HIDDEN = {"version": 1, "current": {"decisions": [{"text": "use x", "date": "2026-01-01T00:00:00Z", "hidden": True}]}}
NEWER = {"version": 1, "current": {"decisions": [{"text": "use x", "date": "2026-01-05T00:00:00Z"}]}}


def parse(*argv: str) -> argparse.Namespace:
    return build_parser(["run"]).parse_args(["run", *argv])


def test_adapters_and_cli_files_are_kept_in_command_line_order():
    args = parse("--adapter", "a", "--cli", "tool.toml", "--adapter", "b")
    assert args.targets == [Target(adapter="a"), Target(cli=Path("tool.toml")), Target(adapter="b")]
    assert matrix.several(args, args.targets)


def test_one_adapter_is_a_plain_single_run():
    args = parse("--adapter", "a", "--json", "r.json")
    assert args.adapter == "a" and args.cli is None
    assert matrix.targets(args) == [Target(adapter="a")] and not matrix.several(args, args.targets)
    assert not matrix.several(parse(), [])


@pytest.mark.parametrize("argv, message", [
    (["--model", "--adapter", "a"], "--model runs the reference model alone"),
    (["--adapter", "a", "--adapter", "b", "--json", "r.json"], "--json-dir DIR writes a report for each"),
    (["--adapter", "a", "--cli", "t.toml", "--junit", "r.xml"], "--json and --junit take one implementation"),
])
def test_combinations_that_cannot_work_are_refused(argv, message):
    assert message in matrix.targets(parse(*argv))


def test_a_matrix_file_names_implementations_with_their_own_options(tmp_path):
    path = tmp_path / "ci" / "matrix.toml"
    path.parent.mkdir()
    path.write_text('[[implementation]]\nname = "mini"\nadapter = "node adapter.js"\ntimeout = 20\n\n'
                    '[[implementation]]\ncli = "tool.toml"\noneshot = true\nexpect_fail = "known.yaml"\n'
                    'claim = "reader"\n', encoding="utf-8")
    assert load_matrix(path) == [
        Target(adapter="node adapter.js", name="mini", timeout=20.0),
        Target(cli=path.parent / "tool.toml", oneshot=True, expect_fail=path.parent / "known.yaml", claim="reader"),
    ]


@pytest.mark.parametrize("text, message", [
    ("", "no [[implementation]] table"),
    ("[[implementation]\n", "not TOML"),
    ("title = 'x'\n[[implementation]]\nadapter = 'a'\n", "unknown key 'title'"),
    ("[[implementation]]\nadapter = 'a'\ncli = 'b'\n", "exactly one of adapter"),
    ("[[implementation]]\nname = 'x'\n", "exactly one of adapter"),
    ("[[implementation]]\nadapter = 'a'\nsandbox = true\n", "implementation 1: unknown key 'sandbox'"),
    ("[[implementation]]\nadapter = ''\n", "adapter must be a non-empty string"),
    ("[[implementation]]\nadapter = 'a'\ntimeout = 0\n", "timeout must be a number"),
    ("[[implementation]]\nadapter = 'a'\noneshot = 'yes'\n", "oneshot must be true or false"),
    ("[[implementation]]\nadapter = 'a'\nclaim = 'gold'\n", "claim must be one of reader, writer, full"),
])
def test_a_bad_matrix_file_says_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "matrix.toml"
    path.write_text(text, encoding="utf-8")
    assert message in load_matrix(path)


def test_two_adapters_give_a_report_each_and_the_worst_exit_code(tmp_path, capsys):
    root = tmp_path / "vectors"
    write_vector_file(root, "m.json", [
        vector("mx.merge.union"),
        vector("mx.merge.hidden", sections=["5.3.1"], requirements=["S5.3.1-hidden-sticky"],
               input={"local": HIDDEN, "remote": NEWER}, expect=[{"path": "/live/decisions", "excludes": ["use x"]}]),
    ])
    out = tmp_path / "out"
    code = main(["run", "--adapter", REFERENCE, "--adapter", MUTANT, "--adapter", "/nonexistent/adapter",
                 "--no-bundled", "--vectors", str(root), "--json-dir", str(out), "--quiet"])
    captured = capsys.readouterr()
    assert code == 2   # the adapter that cannot start
    names = sorted(path.name for path in out.iterdir())
    assert names == ["memoir-conform-mutant-03-hidden-not-sticky-0-1-0.json", "memoir-conform-reference-model-0-1-0.json"]
    reference, mutant = (json.loads((out / name).read_text()) for name in reversed(names))
    outcomes = {name: {v["id"]: v["outcome"] for v in report["vectors"]}
                for name, report in (("reference", reference), ("mutant", mutant))}
    assert set(outcomes["reference"].values()) == {"pass"} and outcomes["mutant"]["mx.merge.hidden"] == "fail"
    assert "== implementation 3/3: /nonexistent/adapter" in captured.out
    assert "could not run" in captured.out and "cannot start the adapter" in captured.err
    # The summary table: a header on every column, and the result model's counts under them.
    table = captured.out[captured.out.index("implementation  "):].splitlines()
    assert re.split(r"\s{2,}", table[0].strip()) == ["implementation", "claimed", "earned", "MUST failed",
                                                     "adapter errors", "SHOULD failed", "advisory failed", "waived",
                                                     "exit", "report"]
    mutant_row = next(line for line in table if line.startswith("memoir-conform mutant 03"))
    assert re.split(r"\s{2,}", mutant_row.strip())[1:9] == ["Full", "none", "1", "0", "0", "0", "0", "1"]
