"""`memoir-conform validate` and `memoir-conform rules` from the command line."""

from __future__ import annotations

import json
import sys
import types

import pytest

from conformance.cli import main
from conformance.validator import rules as registry
from conformance.validator.core.findings import Diagnostic, FileChecked, NothingToCheck, Rule
from conformance.validator.memoir import pipeline, rules

CLEAN = "---\ntype: fact\nname: n\ndescription: d\ncreated: 2026-05-01\n---\nbody\n"
WARNING_ONLY = "---\ntype: fact\nname: n\ncreated: 2026-05-01\n---\nbody\n"
LEGACY_ONLY = "---\ntype: reference\nname: n\ndescription: d\ncreated: 2026-05-01\n---\nbody\n"
ERROR = "---\ntype: fact\nname: &a n\ndescription: d\ncreated: 2026-05-01\n---\n"


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


@pytest.mark.parametrize("text, options, code", [
    (CLEAN, [], 0),
    (WARNING_ONLY, [], 0),
    (WARNING_ONLY, ["--strict"], 1),
    (ERROR, [], 1),
    (LEGACY_ONLY, [], 0),
    (LEGACY_ONLY, ["--strict"], 0),
    (LEGACY_ONLY, ["--legacy", "error"], 1),
])
def test_exit_codes_follow_severities(tmp_path, capsys, text, options, code):
    assert run(capsys, *options, store(tmp_path, reference_a=text))[0] == code


@pytest.mark.parametrize("argv, message", [
    (["does-not-exist"], "no such file or directory: does-not-exist"),
    (["--select", "NOT-A-RULE", "."], "no rule id"),
    (["--format", "yaml", "."], "invalid choice"),
    (["--format", "memory-diff", "."], "use --kind memory-diff"),
    ([], "required"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err


def test_a_path_longer_than_the_system_allows_is_named_as_such(capsys):
    """Issue 16.11: an over-long path was reported as "no such file"."""
    code, _out, err = run(capsys, "x" * 5000 + ".md")
    assert code == 2
    assert "file name too long" in err and "(5003 characters)" in err and "no such file" not in err


@pytest.mark.parametrize("layout", [{}, {"README.md": "# A project\n", "src/main.py": "print(1)\n",
                                        "docs/guide.md": "# Guide\n"}])
def test_a_directory_with_nothing_to_check_exits_2_saying_what_was_looked_for(tmp_path, capsys, layout):
    for relpath, text in layout.items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text, encoding="utf-8")
    code, out, err = run(capsys, str(tmp_path))
    assert code == 2 and out == ""
    assert f"no memoir store or entry file found under {tmp_path}" in err
    for looked_for in ("memory/", "session.json", "MEMORY.md", ".claude/agent-memory/<agent>/",
                       ".claude/projects/<project>/"):
        assert looked_for in err


def test_a_rule_the_precision_audit_made_a_warning_passes_and_is_selected_by_its_error_id(tmp_path, capsys):
    path = store(tmp_path, fact_a=CLEAN.replace("description: d\n", "description: d\ntags: [a, b]\n"))
    code, out, _ = run(capsys, "--format", "json", "--select", "MEMOIR-E-YAML-FLOW", path)
    assert code == 0
    assert [(d["rule"], d["severity"]) for d in json.loads(out)["diagnostics"]] == [(rules.YAML_FLOW.id, "warning")]
    assert run(capsys, "--strict", path)[0] == 1


def test_select_and_ignore_by_id_prefix_and_former_id(tmp_path, capsys):
    path = store(tmp_path, reference_a=ERROR.replace("type: fact", "type: reference").replace("description: d\n", ""))
    _code, out, _ = run(capsys, "--format", "json", "--legacy", "show", path)
    everything = {d["rule"] for d in json.loads(out)["diagnostics"]}
    assert everything == {rules.YAML_ANCHOR.id, rules.MISSING_DESCRIPTION.id, rules.LEGACY_TYPE.id}
    code, out, _ = run(capsys, "--format", "json", "--select", "MEMOIR-W", path)
    assert {d["rule"] for d in json.loads(out)["diagnostics"]} == {rules.MISSING_DESCRIPTION.id}
    assert code == 0
    code, out, _ = run(capsys, "--format", "json", "--ignore", f"{rules.MISSING_DESCRIPTION.id},MEMOIR-I", path)
    assert {d["rule"] for d in json.loads(out)["diagnostics"]} == {rules.YAML_ANCHOR.id}
    assert code == 1
    # An id a rule had before its severity changed still selects it.
    _code, out, _ = run(capsys, "--format", "json", "--legacy", "show", "--select", "MEMOIR-W-LEGACY-TYPE", path)
    assert {d["rule"] for d in json.loads(out)["diagnostics"]} == {rules.LEGACY_TYPE.id}
    _code, out, _ = run(capsys, "--format", "json", "--legacy", "show", "--ignore", "MEMOIR-L", path)
    assert rules.LEGACY_TYPE.id not in {d["rule"] for d in json.loads(out)["diagnostics"]}


def test_output_file_and_formats(tmp_path, capsys):
    path = store(tmp_path / "s", fact_a=ERROR)
    report = tmp_path / "report.sarif"
    code, out, err = run(capsys, "-f", "sarif", "-o", str(report), path)
    assert code == 1 and out == ""
    assert "1 error" in err
    assert json.loads(report.read_text(encoding="utf-8"))["version"] == "2.1.0"
    code, out, _ = run(capsys, "-f", "junit", path)
    assert out.startswith("<?xml")


def test_an_output_file_that_cannot_be_written_exits_2(tmp_path, capsys):
    code, _out, err = run(capsys, "-o", str(tmp_path / "no" / "such" / "dir.json"), store(tmp_path, fact_a=CLEAN))
    assert code == 2 and "cannot write" in err


def test_human_output_names_each_store_and_has_no_colour_when_not_a_terminal(tmp_path, capsys):
    _code, out, _ = run(capsys, store(tmp_path, fact_a=ERROR))
    assert out.startswith(f"== {tmp_path}  (a store with memory/ but no session.json: 1 file to check)")
    assert "\033[" not in out
    assert "MEMOIR-E-YAML-ANCHOR" in out
    _code, out, _ = run(capsys, "--color", "always", str(tmp_path))
    assert "\033[31m" in out


def test_output_is_identical_whatever_the_number_of_workers(tmp_path, capsys, monkeypatch):
    texts = [CLEAN, WARNING_ONLY, LEGACY_ONLY, ERROR, CLEAN + "[[fact_00001]] [[nowhere]]\n"]
    files = {f"fact_{index:05d}": texts[index % len(texts)] for index in range(300)}
    path = store(tmp_path, **files)
    monkeypatch.setattr(pipeline, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(pipeline, "_CHUNK", 7)
    outputs = {}
    for jobs in ("1", "2", "3"):
        for fmt in ("json", "human", "sarif", "junit"):
            _code, out, _ = run(capsys, "-j", jobs, "-f", fmt, "--legacy", "show", path)
            outputs.setdefault(fmt, set()).add(out)
    assert all(len(found) == 1 for found in outputs.values())
    document = json.loads(outputs["json"].pop())
    assert document["summary"]["files"] == 300
    # Files in name order, then what was checked against the whole store (links).
    links = {rules.LINK_UNRESOLVED.id, rules.LINK_BY_NAME.id}
    per_file = [d["path"] for d in document["diagnostics"] if d["rule"] not in links]
    assert per_file == sorted(per_file)
    assert {d["rule"] for d in document["diagnostics"][len(per_file):]} <= links


@pytest.mark.parametrize(("load", "workers"), [(0.1, 2), (0.7, 1), (1.6, 1), (9.0, 1)])
def test_without_jobs_a_pool_is_used_only_when_the_machine_has_idle_cpus(monkeypatch, load, workers):
    from conformance.validator import command

    monkeypatch.setattr(command.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(command.os, "getloadavg", lambda: (load, load, load))
    assert command.default_jobs() == workers


def test_rules_lists_every_rule(capsys):
    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {item["id"] for item in listed} == {rule.id for rule in registry.all_rules()}
    assert all(item["severity"] in ("error", "warning", "legacy", "info") and item["section"] for item in listed)
    assert main(["rules"]) == 0
    text = capsys.readouterr().out
    assert all(rule.id in text for rule in rules.RULES)


@pytest.fixture
def fake_kind(monkeypatch):
    """A stand-in format package plugged in as the memory-diff kind."""
    package = types.ModuleType("fake_memory_diff_kind")
    rules_module = types.ModuleType("fake_memory_diff_kind.rules")
    fake_rule = Rule("FAKE-E-THING", "error", "fake: 1", "a fake rule", format="memory-diff")
    rules_module.RULES = package.RULES = [fake_rule]
    seen = []

    def plan(paths, **_options):
        if any(path.endswith("empty") for path in paths):
            raise NothingToCheck("nothing under empty")
        seen.extend(paths)
        return paths

    def events(planned, jobs=1, **_options):
        for path in planned:
            yield FileChecked(path, (Diagnostic(path, 1, 1, "error", fake_rule.id, "fake finding", fake_rule.section),))

    package.plan, package.events = plan, events
    package.detect = lambda path: path.endswith(".diff.yaml")
    monkeypatch.setitem(sys.modules, "fake_memory_diff_kind", package)
    monkeypatch.setitem(sys.modules, "fake_memory_diff_kind.rules", rules_module)
    monkeypatch.setitem(registry.KIND_MODULES, "memory-diff", "fake_memory_diff_kind")
    return seen


def test_kind_sets_the_format_package(tmp_path, capsys, fake_kind):
    target = tmp_path / "a.yaml"
    target.write_text("x: 1\n", encoding="utf-8")
    code, out, _ = run(capsys, "--kind", "memory-diff", str(target))
    assert code == 1 and "FAKE-E-THING" in out and fake_kind == [str(target)]
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "--kind", "memory-diff", str(tmp_path / "empty"))
    assert code == 2 and out == "" and "nothing under empty" in err


def test_auto_kind_dispatches_per_path_and_rules_include_sibling_formats(tmp_path, capsys, fake_kind):
    diff = tmp_path / "change.diff.yaml"
    diff.write_text("x: 1\n", encoding="utf-8")
    entry = tmp_path / "fact_a.md"
    entry.write_text(ERROR, encoding="utf-8")
    code, out, _ = run(capsys, "-f", "json", str(diff), str(entry))
    found = [(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]]
    assert found == [(str(diff), "FAKE-E-THING"), (str(entry), rules.YAML_ANCHOR.id)]
    assert main(["rules", "--kind", "memory-diff", "-f", "json"]) == 0
    assert [item["id"] for item in json.loads(capsys.readouterr().out)] == ["FAKE-E-THING"]


def test_missing_kind_module_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry.KIND_MODULES, "reme-vault", "conformance.validator.no_such_module")
    code, _out, err = run(capsys, "--kind", "reme-vault", str(tmp_path))
    assert code == 2 and "not installed" in err
