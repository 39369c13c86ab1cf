"""The sibling formats through `memoir-conform validate`, end to end.

Two runs go through a real `python -m conformance` subprocess; the others
call the same entry point in-process (argparse, dispatch, rendering and exit
code all included) to keep the suite fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from sibling_helpers import MEMORY_DIFF_FIXTURES, REME_FIXTURES, manifest, materialise_vault

from conformance.cli import main

REPO = Path(__file__).resolve().parents[2]
CLEAN_DIFF = str(MEMORY_DIFF_FIXTURES / "spec.format-example.yaml")
FAILING_DIFF = str(MEMORY_DIFF_FIXTURES / "MDIFF-E-UPDATE-DELETE.fail.yaml")
CLEAN_VAULT = str(REME_FIXTURES / "REME-E-READ.pass")
FAILING_VAULT = str(REME_FIXTURES / "REME-E-MATERIAL-MISSING.fail")
WARNING_VAULT = str(REME_FIXTURES / "REME-W-WIKILINK-DANGLING.fail")


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["validate", *argv])
    return code, capsys.readouterr().out


def python_m_conformance(*argv: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "conformance", *argv], capture_output=True, text=True,
                          cwd=REPO, env=environment, timeout=60)


def test_python_m_conformance_json_reports_a_failing_diff_with_exit_1():
    result = python_m_conformance("validate", "--kind", "memory-diff", "--format", "json", FAILING_DIFF, CLEAN_DIFF)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    [finding] = report["diagnostics"]
    assert finding["rule"] == "MDIFF-E-UPDATE-DELETE"
    assert finding["path"] == FAILING_DIFF and finding["line"] > 0 and finding["column"] > 0
    assert finding["section"] == "memory-diff: Operations"


def test_python_m_conformance_passes_a_clean_diff_with_exit_0():
    result = python_m_conformance("validate", "--kind", "memory-diff", CLEAN_DIFF)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("kind", ["memory-diff", "reme-vault"])
def test_format_no_longer_names_an_input_kind(capsys, kind):
    """--kind says what the input is, --format how to print: the old aliases are a usage error that says so."""
    code = main(["validate", "--format", kind, CLEAN_DIFF])
    assert code == 2
    assert f"use --kind {kind}" in capsys.readouterr().err


def test_sarif_carries_the_sibling_rules_and_results(capsys):
    code, out = run(capsys, "--kind", "memory-diff", "--format", "sarif", FAILING_DIFF)
    assert code == 1
    run_ = json.loads(out)["runs"][0]
    assert [result["ruleId"] for result in run_["results"]] == ["MDIFF-E-UPDATE-DELETE"]
    described = {rule["id"]: rule["properties"]["format"] for rule in run_["tool"]["driver"]["rules"]}
    assert described["MDIFF-E-UPDATE-DELETE"] == "memory-diff"
    assert described["REME-E-WIKILINK-AMBIGUOUS"] == "reme-vault"


def test_junit_fails_the_failing_diff_only(capsys):
    code, out = run(capsys, "--kind", "memory-diff", "--format", "junit", FAILING_DIFF, CLEAN_DIFF)
    assert code == 1
    cases = {case.get("name"): case.find("failure") is not None for case in ElementTree.fromstring(out).iter("testcase")}
    assert cases == {FAILING_DIFF: True, CLEAN_DIFF: False}


@pytest.mark.parametrize(
    ("argv", "code"),
    [(("--kind", "reme-vault", CLEAN_VAULT), 0), (("--kind", "reme-vault", FAILING_VAULT), 1),
     (("--kind", "reme-vault", WARNING_VAULT), 0), (("--kind", "reme-vault", "--strict", WARNING_VAULT), 1),
     (("--kind", "reme-vault", "--format", "json", FAILING_VAULT), 1)],
)
def test_reme_vault_exit_codes(capsys, argv, code):
    assert run(capsys, *argv)[0] == code


def test_auto_detection_sends_yaml_to_memory_diff_and_vaults_to_reme(capsys):
    code, out = run(capsys, "--format", "json", FAILING_DIFF, FAILING_VAULT)
    assert code == 1
    rules = {finding["rule"] for finding in json.loads(out)["diagnostics"]}
    assert rules == {"MDIFF-E-UPDATE-DELETE", "REME-E-MATERIAL-MISSING"}


def test_the_rules_listing_includes_both_catalogues(capsys):
    assert main(["rules", "--format", "json"]) == 0
    listed = {rule["id"]: rule["format"] for rule in json.loads(capsys.readouterr().out)}
    from conformance.validator import memory_diff, reme_vault

    for rule in memory_diff.RULES + reme_vault.RULES:
        assert listed.get(rule.id) == rule.format


def test_since_reaches_the_status_state_machine(capsys, tmp_path):
    entry = next(e for e in manifest(REME_FIXTURES)["fixtures"] if e["vault"] == "REME-E-STATUS-SKIP.fail/new")
    vault, since = materialise_vault(entry, tmp_path)
    code, out = run(capsys, "--kind", "reme-vault", "--format", "json", "--since", since, vault)
    assert code == 1
    assert {finding["rule"] for finding in json.loads(out)["diagnostics"]} == {"REME-E-STATUS-SKIP"}
