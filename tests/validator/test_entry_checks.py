"""Checks of one entry file: every entry rule on a golden case, at its place."""

from __future__ import annotations

import pytest

from conformance.validator.memoir import rules
from conformance.model.entry import wikilinks
from conformance.model.frontmatter import parse_entry_text
from conformance.validator.memoir.entry import check_entry

FM = "---\n{}\n---\nBody.\n"


def findings(text: str, link: str = "fact_x"):
    found, _summary = check_entry(f"memory/{link}.md", link, text)
    return found


def only(text: str, rule, link: str = "fact_x"):
    found = [d for d in findings(text, link) if d.rule == rule.id]
    assert found, f"{rule.id} not reported; got {[(d.rule, d.message) for d in findings(text, link)]}"
    return found


def rule_ids(text: str, link: str = "fact_x") -> set[str]:
    return {d.rule for d in findings(text, link)}


CANONICAL = {
    "fact": "type: fact\nname: Staging endpoints\ndescription: URLs\ncreated: 2026-05-14",
    "preference": "type: preference\nname: Commit style\ndescription: d\nscope: global",
    "decision": "type: decision\nname: SQLite\ndescription: d\ndate: 2026-05-02\nwhy: w\nrejected: r",
    "lesson": "type: lesson\nname: Rehearse\ndescription: d\ntrigger: t\nhow_to_apply: h\ncreated: 2026-04-11",
    "goal": "type: goal\nname: Ship\ndescription: d\nset_on: 2026-06-01",
    "next_action": "type: next_action\nname: Retry\ndescription: d\nadded: 2026-06-12T09:30:00Z",
}


@pytest.mark.parametrize("entry_type", sorted(CANONICAL))
def test_canonical_entries_are_clean(entry_type):
    found = findings(FM.format(CANONICAL[entry_type]), f"{entry_type}_x")
    # created is a SHOULD the spec's own examples leave out: an info, never a warning.
    assert [d.rule for d in found] == ([] if "created:" in CANONICAL[entry_type] else [rules.NO_CREATED.id])


# (rule, frontmatter lines or whole text, expected (line, column) of the first finding)
GOLDEN = [
    (rules.NO_FRONTMATTER, "# Title\n\ntext\n", (1, 1)),
    (rules.PREAMBLE, "<!-- note -->\n---\ntype: fact\nname: n\ndescription: d\n---\n", (1, 1)),
    (rules.UNTERMINATED, "---\ntype: fact\nname: n\n", (1, 1)),
    (rules.NO_CREATED, FM.format("type: fact\nname: n\ndescription: d"), (3, 7)),
    (rules.YAML_ANCHOR, FM.format("type: fact\nname: &a n\ndescription: d"), (3, 7)),
    (rules.YAML_ALIAS, FM.format("type: fact\nname: n\ndescription: *a"), (4, 14)),
    (rules.YAML_TAG, FM.format("type: fact\nname: !!str n\ndescription: d"), (3, 7)),
    (rules.YAML_BLOCK_SCALAR, FM.format("type: fact\nname: n\ndescription: >\n  folded"), (4, 14)),
    (rules.YAML_DEEP_NESTING, FM.format("type: fact\nname: n\ndescription: d\norigin:\n  tool:\n    deep: x"), (7, 5)),
    (rules.YAML_FLOW, FM.format("type: fact\nname: n\ndescription: d\ntags: [a, b]"), (5, 7)),
    (rules.YAML_DUPLICATE_KEY, FM.format("type: fact\nname: n\nname: m\ndescription: d"), (4, 1)),
    (rules.YAML_BAD_LINE, FM.format("type: fact\nname: n\ndescription: d\nprose line"), (5, 1)),
    (rules.YAML_FOLDED, FM.format("type: fact\nname: n\ndescription: a long\n  value"), (4, 14)),
    (rules.YAML_TAB, FM.format("type: fact\nname: n\ndescription: d\norigin:\n\ttool: t"), (6, 1)),
    (rules.YAML_QUOTING, FM.format('type: fact\nname: "a" b\ndescription: d'), (3, 10)),
    (rules.YAML_REJECTED, FM.format("type: fact\nname: Trailer order: Signed-off-by\ndescription: d"), (3, 20)),
    (rules.YAML_COMMENT, FM.format("type: fact\nname: n\ndescription: 2026-08-14 #1131 closed"), (4, 25)),
    (rules.YAML_RETYPED, FM.format("type: fact\nname: n\ndescription: yes"), (4, 14)),
    (rules.MISSING_TYPE, FM.format("name: n\ndescription: d"), None),
    (rules.MISSING_NAME, FM.format("type: fact\ndescription: d"), None),
    (rules.MISSING_DESCRIPTION, FM.format("type: fact\nname: n"), (3, 7)),
    (rules.UNKNOWN_TYPE, FM.format("type: stable\nname: n\ndescription: d"), (2, 7)),
    (rules.FIELD_TYPE, FM.format("type: fact\nname: n\ndescription: d\ntags: just-text"), (5, 7)),
    (rules.DATE, FM.format("type: fact\nname: n\ndescription: d\ncreated: 14 May 2026"), (5, 10)),
    (rules.SCHEMA_VERSION, FM.format("type: fact\nname: n\ndescription: d\nschema_version: one"), (5, 17)),
    (rules.SCHEMA_VERSION_NEWER, FM.format("type: fact\nname: n\nschema_version: 2"), (4, 17)),
    (rules.LESSON_FIELDS, FM.format("type: lesson\nname: n\ndescription: d\ntrigger: t"), (2, 7)),
    (rules.NEXT_ACTION_ADDED, FM.format("type: next_action\nname: n\ndescription: d"), (2, 7)),
    (rules.HIDDEN_AT, FM.format("type: decision\nname: n\ndescription: d\nwhy: w\nrejected: r\nhidden: true"), (2, 7)),
    (rules.DECISION_WHY, FM.format("type: decision\nname: n\ndescription: d\nrejected: r"), (2, 7)),
    (rules.DECISION_REJECTED, FM.format("type: decision\nname: n\ndescription: d\nwhy: w"), (2, 7)),
    (rules.DONE_BEFORE_ADDED, FM.format(
        "type: next_action\nname: n\ndescription: d\nadded: 2026-06-12\ndone_at: 2026-06-01"), (6, 10)),
    (rules.LEGACY_METADATA, FM.format("name: n\ndescription: d\nmetadata: \n  type: reference"), (5, 9)),
    (rules.LEGACY_ORIGIN, FM.format("type: fact\nname: n\ndescription: d\noriginSessionId: abc"), (5, 18)),
    (rules.LEGACY_TYPE, FM.format("type: user\nname: n\ndescription: d"), (2, 7)),
    (rules.LEGACY_DOSSIER, FM.format("type: project\nname: n\ndescription: d"), (2, 7)),
    (rules.LEGACY_LESSON, FM.format("type: feedback\nname: n\ndescription: d"), (2, 7)),
    (rules.LEGACY_HOW_TO_APPLY, FM.format("type: lesson\nname: n\ndescription: d\ntrigger: t") + "**How to apply:** x\n",
     (2, 7)),
    (rules.INDEX_FILE, "- [A](fact_a.md) one\n- [B](fact_b.md) two\n- [C](fact_c.md) three\n", None),
]


@pytest.mark.parametrize("rule, text, place", GOLDEN, ids=[case[0].id for case in GOLDEN])
def test_golden_case(rule, text, place):
    found = only(text, rule)
    if place is not None:
        assert (found[0].line, found[0].column) == place
    assert all(d.severity == rule.severity and d.section == rule.section for d in found)
    assert all("\n" not in d.message and d.message for d in found)


def test_every_entry_rule_has_a_golden_case():
    entry_rules = {rule.id for rule, _text, _place in GOLDEN}
    wanted = {rule.id for rule in rules.RULES if rule.section in ("3.1", "3.2", "3.3", "3.3.3", "3.3.4", "3.3.6",
                                                                     "5.3.2", "6", rules.APPENDIX_A)}
    wanted -= {rules.NOT_UTF8.id, rules.BINARY.id, rules.SESSION_SUPPRESSED.id, rules.SESSION_VERSION_NEWER.id}
    wanted -= {rules.TOO_LARGE_TO_CHECK.id}  # tests/validator/test_hostile_files.py
    assert wanted <= entry_rules


def test_memory_md_is_not_an_entry():
    found = findings("# Index\n\nsee other files\n", link="MEMORY")
    assert [d.rule for d in found] == [rules.INDEX_FILE.id]


def test_legacy_feedback_reads_as_lesson_in_the_legacy_category_only():
    text = ("---\nname: n\ndescription: Before deleting\nmetadata: \n  node_type: memory\n  type: feedback\n"
            "  originSessionId: s\n---\n**How to apply:** check twice\n")
    found = findings(text, "feedback_x")
    assert {d.severity for d in found} == {"legacy"}
    assert {d.rule for d in found} == {rules.LEGACY_METADATA.id, rules.LEGACY_ORIGIN.id, rules.LEGACY_TYPE.id}
    [reading] = [d for d in found if d.rule == rules.LEGACY_TYPE.id]
    assert reading.message == ("legacy type 'feedback' reads as a lesson (its description is the trigger and its "
                               "**How to apply:** section is the how_to_apply)")


def test_legacy_feedback_without_a_section_is_never_said_to_read_one():
    """Real-world file 025: the legacy reading and the missing section must not contradict each other."""
    found = findings(FM.format("type: feedback\nname: n\ndescription: Before deleting"), "feedback_x")
    messages = " | ".join(d.message for d in found)
    assert "**How to apply:** section is the how_to_apply" not in messages
    [missing] = [d for d in found if d.rule == rules.LEGACY_LESSON.id]
    assert missing.severity == "warning" and "no **How to apply:** section" in missing.message


def test_legacy_messages_use_no_internal_names():
    found = findings(FM.format("name: n\ndescription: d\nmetadata:\n  type: project"), "project_x")
    messages = " | ".join(d.message for d in found)
    assert "status" not in messages and "opaque, type" not in messages
    assert "reads as type 'project'" not in messages  # metadata.type "reads as" itself said nothing


def test_legacy_feedback_without_how_to_apply_names_the_heading_it_has():
    text = FM.format("type: feedback\nname: n\ndescription: d") + "## How to Apply\nDo this.\n"
    found = only(text, rules.LEGACY_LESSON)
    assert "heading" in found[0].message
    assert rules.LESSON_FIELDS.id not in rule_ids(text)


def test_canonical_lesson_with_body_section_is_accepted_as_legacy():
    text = FM.format("type: lesson\nname: n\ndescription: d\ntrigger: t") + "**How to apply:** do it\n"
    assert rules.LESSON_FIELDS.id not in rule_ids(text)
    [found] = only(text, rules.LEGACY_HOW_TO_APPLY)
    assert found.severity == "legacy" and "body section" in found.message


def test_yaml_rejection_message_from_the_engine_for_other_lines():
    # A bad line: the engine is asked (events only) and its own words reported.
    text = FM.format("type: fact\nname: n\ndescription: d\nprose: x\n more: y")
    assert rules.YAML_BAD_LINE.id in rule_ids(text)


def test_dates_are_not_retyped_in_date_fields_but_are_in_text_fields():
    text = FM.format("type: goal\nname: n\ndescription: 2026-06-01\nset_on: 2026-06-01")
    found = only(text, rules.YAML_RETYPED)
    assert [d.line for d in found] == [4]
    assert "a date" in found[0].message


def test_a_timestamp_in_a_field_of_no_text_type_loses_nothing():
    """Real-world file 007: metadata.modified: 2026-07-28T12:09:45.729Z is the same instant to a YAML reader."""
    text = FM.format("type: fact\nname: n\ndescription: d\ncreated: 2026-01-01\nmetadata:\n"
                     "  modified: 2026-07-28T12:09:45.729Z\nreviewed: 2026-07-01")
    assert findings(text) == []


@pytest.mark.parametrize("value, reported", [
    ("3.5", False), ("1.10", True), ("1e3", True), ("0x1F", True), ("007", False), ("yes", True), ("Null", True),
    ("2026-7-8", False)])
def test_a_number_or_word_outside_text_fields_is_reported_only_when_it_changes(value, reported):
    text = FM.format(f"type: fact\nname: n\ndescription: d\ncreated: 2026-01-01\nversion: {value}")
    assert (rules.YAML_RETYPED.id in rule_ids(text)) is reported


def test_impossible_calendar_date_is_reported():
    found = only(FM.format("type: fact\nname: n\ndescription: d\ncreated: 2026-02-30"), rules.DATE)
    assert "no real day" in found[0].message


def test_unknown_fields_are_not_findings():
    text = FM.format("type: fact\nname: n\ndescription: d\ncreated: 2026-01-01\ndomain: personal\n"
                     "relates_to:\n  - a.md")
    assert findings(text) == []


def test_quarantined_entry_is_not_checked_further():
    text = FM.format("type: lesson\nname: n\nschema_version: 3\nweird: &a x")
    assert rule_ids(text) == {rules.SCHEMA_VERSION_NEWER.id, rules.YAML_ANCHOR.id}


def test_summary_for_store_checks():
    text = FM.format("type: reference\nname: N") + "[[a]] x [[a]]\n[[b|B]] [[c#part]]\n```\n[[d]]\n```\n"
    _found, summary = check_entry("m/x.md", "fact_x", text)
    assert (summary.link, summary.name, summary.is_index) == ("fact_x", "N", False)
    # Every target once, at its first place; the targets are the model's own (code fences included).
    assert summary.links == (("a", 6, 1), ("b", 7, 1), ("c", 7, 9), ("d", 9, 1))
    assert [target for target, _line, _column in summary.links] == wikilinks(parse_entry_text(text).body)


def test_every_message_is_one_line_and_says_what_to_do():
    cases = [text for _rule, text, _place in GOLDEN]
    for text in cases:
        for found in findings(text):
            assert "\n" not in found.message and found.message == found.message.strip(), found.message
            if found.severity in ("error", "warning"):
                assert any(word in found.message for word in (
                    "add", "remove", "write", "quote", "move", "rename", "correct", "use", "keep", "indent",
                    "close", "flatten", "delete", "read it with", "check", "split", "save", "copy")), found.message


def test_a_rejected_frontmatter_is_not_also_said_to_be_read_by_yaml_readers():
    """Real-world file 015: a YAML engine rejects the line, so nothing is 'kept' of it by YAML readers."""
    same_line = FM.format("type: fact\nname: n\ndescription: `x` is used #[must_use] here\ncreated: 2026-01-01")
    assert rule_ids(same_line) == {rules.YAML_REJECTED.id}
    other_line = FM.format("type: fact\nname: Trailer order: x\ndescription: 2026-08-14 #1131\ncreated: 2026-01-01")
    [comment] = only(other_line, rules.YAML_COMMENT)
    assert "once the frontmatter parses, YAML readers (PyYAML, js-yaml) would take" in comment.message


def test_a_preamble_before_a_block_never_closed_counts_its_own_lines():
    messages = [f.message for f in findings("\n<!-- draft -->\n---\ntype: fact\nname: n\n") if f.rule == rules.PREAMBLE.id]
    assert len(messages) == 1 and messages[0].startswith("2 lines of blank lines or HTML comments")
