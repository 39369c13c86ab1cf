"""`memoir-conform validate` and `memoir-conform rules` from the command line."""

from __future__ import annotations

import json
import sys
import types

import pytest

from conformance.cli import main
from conformance.validator import rules as registry
from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, Rule

CLEAN = "---\ntype: fact\nname: n\ndescription: d\n---\nbody\n"
WARNING_ONLY = "---\ntype: fact\nname: n\n---\nbody\n"
ERROR = "---\ntype: fact\nname: &a n\ndescription: d\n---\n"


def store(tmp_path, **files):
    memory = tmp_path / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (memory / f"{name}.md").write_text(text, encoding="utf-8")
    return str(tmp_path)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_exit_codes(tmp_path, capsys):
    assert run(capsys, store(tmp_path / "a", fact_a=CLEAN))[0] == 0
    assert run(capsys, store(tmp_path / "b", fact_b=WARNING_ONLY))[0] == 0
    assert run(capsys, "--strict", str(tmp_path / "b"))[0] == 1
    assert run(capsys, store(tmp_path / "c", fact_c=ERROR))[0] == 1


@pytest.mark.parametrize("argv, message", [
    (["does-not-exist"], "no such file"),
    (["--select", "NOT-A-RULE", "."], "no rule id"),
    (["--format", "yaml", "."], "invalid choice"),
    ([], "required"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_select_and_ignore_by_id_and_prefix(tmp_path, capsys):
    path = store(tmp_path, fact_a=ERROR.replace("description: d\n", ""))
    _code, out, _ = run(capsys, "--format", "json", path)
    everything = {d["rule"] for d in json.loads(out)["diagnostics"]}
    assert everything == {rules.YAML_ANCHOR.id, rules.MISSING_DESCRIPTION.id}
    code, out, _ = run(capsys, "--format", "json", "--select", "MEMOIR-W", path)
    assert {d["rule"] for d in json.loads(out)["diagnostics"]} == {rules.MISSING_DESCRIPTION.id}
    assert code == 0
    code, out, _ = run(capsys, "--format", "json", "--ignore", f"{rules.MISSING_DESCRIPTION.id},MEMOIR-I", path)
    assert {d["rule"] for d in json.loads(out)["diagnostics"]} == {rules.YAML_ANCHOR.id}
    assert code == 1


def test_output_file_and_formats(tmp_path, capsys):
    path = store(tmp_path / "s", fact_a=ERROR)
    report = tmp_path / "report.sarif"
    code, out, err = run(capsys, "-f", "sarif", "-o", str(report), path)
    assert code == 1 and out == ""
    assert "1 error" in err
    assert json.loads(report.read_text(encoding="utf-8"))["version"] == "2.1.0"
    code, out, _ = run(capsys, "-f", "junit", path)
    assert out.startswith("<?xml")


def test_human_output_has_no_colour_when_not_a_terminal(tmp_path, capsys):
    _code, out, _ = run(capsys, store(tmp_path, fact_a=ERROR))
    assert "\033[" not in out
    assert "MEMOIR-E-YAML-ANCHOR" in out
    _code, out, _ = run(capsys, "--color", "always", str(tmp_path))
    assert "\033[31m" in out


def test_rules_lists_every_rule(capsys):
    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {item["id"] for item in listed} == {rule.id for rule in registry.all_rules()}
    assert all(item["severity"] in ("error", "warning", "info") and item["section"] for item in listed)
    assert main(["rules"]) == 0
    text = capsys.readouterr().out
    assert all(rule.id in text for rule in rules.RULES)


@pytest.fixture
def fake_kind(monkeypatch):
    """A stand-in format module plugged in as the memory-diff kind."""
    module = types.ModuleType("fake_memory_diff_kind")
    fake_rule = Rule("FAKE-E-THING", "error", "fake: 1", "a fake rule", format="memory-diff")
    module.RULES = [fake_rule]
    seen = []

    def validate_paths(paths):
        seen.extend(paths)
        return [Diagnostic(path, 1, 1, "error", fake_rule.id, "fake finding", fake_rule.section) for path in paths]

    module.validate_paths = validate_paths
    module.detect = lambda path: path.endswith(".diff.yaml")
    monkeypatch.setitem(sys.modules, "fake_memory_diff_kind", module)
    monkeypatch.setitem(registry.KIND_MODULES, "memory-diff", "fake_memory_diff_kind")
    monkeypatch.setitem(rules.RULE_MODULES, "memory-diff", "fake_memory_diff_kind")
    return seen


def test_format_alias_sets_the_kind(tmp_path, capsys, fake_kind):
    target = tmp_path / "a.yaml"
    target.write_text("x: 1\n", encoding="utf-8")
    code, out, _ = run(capsys, "--format", "memory-diff", str(target))
    assert code == 1 and "FAKE-E-THING" in out and fake_kind == [str(target)]
    code, _out, err = run(capsys, "--format", "memory-diff", "--kind", "memoir", str(target))
    assert code == 2 and "names an input kind" in err


def test_auto_kind_dispatches_per_path_and_rules_include_sibling_formats(tmp_path, capsys, fake_kind):
    diff = tmp_path / "change.diff.yaml"
    diff.write_text("x: 1\n", encoding="utf-8")
    entry = tmp_path / "fact_a.md"
    entry.write_text(ERROR, encoding="utf-8")
    code, out, _ = run(capsys, "-f", "json", str(diff), str(entry))
    found = {(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]}
    assert found == {(str(diff), "FAKE-E-THING"), (str(entry), rules.YAML_ANCHOR.id)}
    assert main(["rules", "--kind", "memory-diff", "-f", "json"]) == 0
    assert [item["id"] for item in json.loads(capsys.readouterr().out)] == ["FAKE-E-THING"]


def test_missing_kind_module_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry.KIND_MODULES, "reme-vault", "conformance.validator.no_such_module")
    code, _out, err = run(capsys, "--kind", "reme-vault", str(tmp_path))
    assert code == 2 and "not installed" in err
