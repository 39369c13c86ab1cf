"""The rule catalogue and the JSON Schemas of entries and sessions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance.model.frontmatter import parse_entry_text
from conformance.resources import load_schema
from conformance.validator.core.findings import SEVERITY_LETTER
from conformance.validator.memoir import rules
from conformance.validator.memoir.entry import schema_errors

SPEC = Path(__file__).resolve().parents[2] / ".." / "shared" / "spec" / "memoir-format-v0.1.2.md"


def test_rule_ids_are_unique_and_say_their_severity():
    ids = [rule.id for rule in rules.RULES]
    former = [name for rule in rules.RULES for name in rule.former_ids]
    assert len(ids + former) == len(set(ids + former))  # an id, once used, is never given to another rule
    for rule in rules.RULES:
        assert re.fullmatch(r"MEMOIR-[EWLI]-[A-Z0-9]+(?:-[A-Z0-9]+)*", rule.id), rule.id
        assert rule.id.split("-")[1] == SEVERITY_LETTER[rule.severity], rule.id
        assert rule.summary.endswith(".") and "\n" not in rule.summary
        assert all(name.split("-")[1] != rule.id.split("-")[1] for name in rule.former_ids), rule.id


# 3.1's MUST NOT names anchors, multi-line block scalars and deeper nesting; the rest of the subset's syntax is a
# warning, and so are a frontmatter a YAML engine rejects (3.1 SHOULD) and a repeated session identity (5.1).
DOWNGRADED = {
    "MEMOIR-E-YAML-FLOW": rules.YAML_FLOW, "MEMOIR-E-YAML-DUPLICATE-KEY": rules.YAML_DUPLICATE_KEY,
    "MEMOIR-E-YAML-BAD-LINE": rules.YAML_BAD_LINE, "MEMOIR-E-YAML-TAB": rules.YAML_TAB,
    "MEMOIR-E-YAML-QUOTING": rules.YAML_QUOTING, "MEMOIR-E-YAML-TAG": rules.YAML_TAG,
    "MEMOIR-E-YAML-REJECTED": rules.YAML_REJECTED, "MEMOIR-E-SESSION-DUPLICATE": rules.SESSION_DUPLICATE,
}


@pytest.mark.parametrize("former", sorted(DOWNGRADED))
def test_rules_that_break_no_must_are_warnings_that_keep_their_error_id(former):
    rule = DOWNGRADED[former]
    assert rule.severity == "warning" and former in rule.former_ids


def test_what_3_1_must_not_names_stays_an_error():
    for rule in (rules.YAML_ANCHOR, rules.YAML_ALIAS, rules.YAML_BLOCK_SCALAR, rules.YAML_DEEP_NESTING):
        assert rule.severity == "error" and not rule.former_ids


def test_the_legacy_category_is_appendix_a_and_nothing_else():
    legacy = {rule.id for rule in rules.RULES if rule.severity == "legacy"}
    assert legacy == {rules.NO_FRONTMATTER.id, rules.LEGACY_METADATA.id, rules.LEGACY_ORIGIN.id, rules.LEGACY_TYPE.id,
                      rules.LEGACY_DOSSIER.id, rules.LEGACY_HOW_TO_APPLY.id}


@pytest.mark.skipif(not SPEC.is_file(), reason="shared/spec is not beside the repository")
def test_rule_sections_exist_in_the_spec():
    text = SPEC.read_text(encoding="utf-8")
    headings = set(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", text, re.MULTILINE))
    for rule in rules.RULES:
        if rule.section == rules.APPENDIX_A:
            assert "## Appendix A" in text
        else:
            assert rule.section in headings, (rule.id, rule.section)


@pytest.mark.parametrize("name", ["entry.schema.json", "session.schema.json"])
def test_schemas_are_valid_draft_2020_12(name):
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def _spec_examples() -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    return [block for block in re.findall(r"```markdown\n(.*?)```", text, re.DOTALL) if block.startswith("---")]


@pytest.mark.skipif(not SPEC.is_file(), reason="shared/spec is not beside the repository")
def test_every_example_entry_of_the_spec_is_valid():
    examples = _spec_examples()
    assert len(examples) == 6
    validator = Draft202012Validator(load_schema("entry.schema.json"))
    for example in examples:
        fields = parse_entry_text(example).fields
        assert list(validator.iter_errors(fields)) == [], fields["type"]


@pytest.mark.parametrize("fields, keyword", [
    ({"type": "lesson", "name": "n", "trigger": "t"}, "required"),
    ({"type": "next_action", "name": "n"}, "required"),
    ({"type": "decision", "name": "n", "hidden": True}, "required"),
    ({"type": "fact", "name": "n", "created": "May 14"}, "pattern"),
    ({"type": "fact", "name": "n", "tags": "a"}, "type"),
    ({"type": "fact", "name": "n", "schema_version": 0}, "minimum"),
    ({"type": "preference", "name": "n", "scope": "team"}, "enum"),
    ({"type": "essay", "name": "n"}, "enum"),
    ({"type": "fact", "name": "  "}, "pattern"),
])
def test_entry_schema_catches(fields, keyword):
    errors = list(Draft202012Validator(load_schema("entry.schema.json")).iter_errors(fields))
    assert [error.validator for error in errors] == [keyword]


@pytest.mark.parametrize("fields", [
    {"type": "lesson", "name": "n", "trigger": "t"},
    {"type": "fact", "name": "n", "created": "2026-13-99", "tags": ["a", 1], "origin": {"tool": 3}},
    {"type": "next_action", "name": "n", "added": "2026-06-12T09:30:00+02:00", "done_at": "x"},
    {"type": "preference", "name": "", "scope": "project", "schema_version": 7, "extra": {"a": [1]}},
    {"name": 12, "hidden": "yes", "fired_count": -1},
])
def test_memoised_schema_verdict_equals_the_schema_verdict(fields):
    validator = Draft202012Validator(load_schema("entry.schema.json"))
    direct = sorted((tuple(e.absolute_path), e.validator) for e in validator.iter_errors(fields))
    memoised = sorted((path, keyword) for path, keyword, _expected, _missing in schema_errors(fields))
    assert memoised == direct


def test_docs_list_every_memoir_rule_as_the_catalogue_says():
    from conformance.validator.core.output import render_rules

    docs = (Path(__file__).resolve().parents[2] / "docs" / "validator.md").read_text(encoding="utf-8")
    table = render_rules([rule for rule in rules.RULES], "markdown")
    assert table in docs, "docs/validator.md is stale: regenerate with `memoir-conform rules --format markdown --kind memoir`"
