"""What common YAML writers emit and the frontmatter subset reads otherwise (lenient.py).

The files here conform to the spec: the frontmatter being YAML is a SHOULD
(3.1), and 3.1's MUST NOT names only anchors, multi-line block scalars and
deeper nesting. So none of them gets an error; a warning says where a
reader of the subset (the kit's line-by-line reading, AMB-FRONTMATTER-LINES)
gets something else than a YAML reader. Most come from an audit's files,
written by PyYAML, python-frontmatter, js-yaml, gray-matter and Go yaml.v3.
"""

from __future__ import annotations

import pytest
import yaml

from conformance.model.frontmatter import parse_entry_text
from conformance.validator.memoir import rules
from conformance.validator.memoir.entry import check_entry
from conformance.validator.memoir.lenient import lenient


def findings(text: str, link: str = "fact_x"):
    return check_entry(f"memory/{link}.md", link, text)[0]


def shown(text: str, link: str = "fact_x") -> list[tuple[str, str, int, int]]:
    """(severity, rule, line, column) of every finding but the infos."""
    return [(d.severity, d.rule, d.line, d.column) for d in findings(text, link) if d.severity != "info"]


def errors(text: str, link: str = "fact_x") -> list[tuple[str, str]]:
    return [(d.rule, d.message) for d in findings(text, link) if d.severity == "error"]


# -- empty and non-empty flow collections ---------------------------------------------------

PYFM_EMPTY_CONTAINERS = """---
aliases: []
description: PyYAML dumps empty containers in flow style
name: Empty origin and aliases
origin: {}
type: fact
---

Body.
"""
GO_YAML_V3 = """---
type: fact
name: Go yaml.v3 output
description: Marshalled by gopkg.in/yaml.v3
created: "2026-01-02"
tags: []
project: ""
origin:
    tool: go-memo
    session_id: "123"
---
Body.
"""
GRAY_MATTER = """---
type: next_action
name: Add retry with backoff
description: Sync fails on 5xx
added: 2026-01-02T03:04:05.120Z
tags: []
project: ''
machine_id: m-1
---
Touch only src/sync/client.js.
"""


@pytest.mark.parametrize("text, link", [(PYFM_EMPTY_CONTAINERS, "fact_x"), (GO_YAML_V3, "fact_x"),
                                        (GRAY_MATTER, "next_action_x")], ids=["pyfm", "go-yaml-v3", "gray-matter"])
def test_empty_flow_collections_are_empty_and_no_finding(text, link):
    assert shown(text, link) == []


def test_empty_flow_collections_read_as_the_empty_list_and_mapping():
    fields = lenient(parse_entry_text(PYFM_EMPTY_CONTAINERS)).parsed.fields
    assert fields["aliases"] == [] and fields["origin"] == {}
    # and the model's own reading (the runner's) is left as it is
    assert parse_entry_text(PYFM_EMPTY_CONTAINERS).fields["aliases"] == "[]"


def test_a_non_empty_flow_collection_is_one_warning_and_no_field_type_finding():
    text = "---\ntype: fact\nname: n\ndescription: d\ntags: [infra, db]\norigin: {tool: x}\n---\n"
    assert shown(text) == [("warning", rules.YAML_FLOW.id, 5, 7), ("warning", rules.YAML_FLOW.id, 6, 9)]
    assert rules.YAML_FLOW.former_ids == ("MEMOIR-E-YAML-FLOW",)


def test_a_flow_collection_in_a_required_field_is_not_said_to_be_missing():
    text = "---\ntype: fact\nname: [a, b]\ndescription: d\n---\n"
    assert shown(text) == [("warning", rules.YAML_FLOW.id, 3, 7)]


# -- values folded over several lines (PyYAML's default width of 80) -----------------------


PYFM_LONG_DESCRIPTION = """---
description: This description is deliberately long so that PyYAML folds it over several
  lines when dumping with its default width of eighty columns, as python-frontmatter
  does.
name: Long description
type: fact
---

Body.
"""
PYFM_LONG_QUOTED = """---
description: 'Note: this long description has a colon and a space so PyYAML must quote
  it, and it is long enough to fold.'
name: Long quoted
type: fact
---

Body.
"""


@pytest.mark.parametrize("text", [PYFM_LONG_DESCRIPTION, PYFM_LONG_QUOTED], ids=["plain", "quoted"])
def test_a_folded_value_is_one_warning_that_says_the_subset_cuts_it(text):
    found = [d for d in findings(text) if d.severity != "info"]
    assert [(d.rule, d.line, d.column) for d in found] == [(rules.YAML_FOLDED.id, 2, 14)]
    message = found[0].message
    assert "cuts the value" in message and "write the value on one line" in message and "width=" in message


@pytest.mark.parametrize("value", [
    "Note: this long description has a colon and a space so PyYAML must quote it, and it is long enough to fold.",
    'a "double" \\ backslash ' + "word " * 20 + "\u00e9\t tab",
    "word " * 30,
])
def test_a_folded_value_is_checked_as_yaml_reads_it(value):
    dumped = yaml.safe_dump({"type": "fact", "name": "n", "description": value}, sort_keys=False)
    assert len(dumped.splitlines()) > 3  # PyYAML folded it
    parsed = lenient(parse_entry_text(f"---\n{dumped}---\nBody.\n")).parsed
    assert parsed.fields["description"] == value
    assert [problem.code for problem in parsed.problems] == ["folded"]


def test_a_folded_nested_value_and_list_item_are_folds_too():
    text = ("---\ntype: fact\nname: n\ndescription: d\norigin:\n  tool: 'word word word\n    word word '\n"
            "tags:\n- 'word word word\n  word '\n---\n")
    assert shown(text) == [("warning", rules.YAML_FOLDED.id, 6, 9), ("warning", rules.YAML_FOLDED.id, 9, 3)]
    assert lenient(parse_entry_text(text)).parsed.fields["origin"] == {"tool": "word word word word word "}


def test_lines_that_are_no_value_to_yaml_either_stay_bad_lines():
    # `more: y` under a plain value: a YAML engine rejects it, so it is no fold.
    text = "---\ntype: fact\nname: n\ndescription: d\nprose: x\n more: y\n---\n"
    assert shown(text) == [("warning", rules.YAML_BAD_LINE.id, 6, 1)]


# -- null, booleans, numbers, quoted keys ----------------------------------------------------

NULL_VALUES = """---
type: fact
name: Null values
description: null-ish optional fields
project:
source: ~
updated: null
---
Body.
"""


def test_null_optional_fields_are_absent():
    assert errors(NULL_VALUES) == []
    assert errors("---\ntype: fact\nname: n\ndescription: d\nproject: null\norigin:\n  tool:\n---\n") == []


def test_a_null_required_field_is_missing_and_the_message_says_so_once():
    [(rule, message)] = errors("---\ntype: fact\nname: ~\ndescription: d\n---\n")
    assert rule == rules.MISSING_NAME.id and "None" not in message


def test_a_field_of_the_wrong_type_still_says_null_plainly():
    from conformance.validator.memoir.entry import _schema_message

    assert _schema_message("type", "string", None) == "is null where the spec has text; write it as text"


@pytest.mark.parametrize("written, hidden", [("False", False), ("FALSE", False), ("True", True), ("TRUE", True)])
def test_yaml_core_booleans_are_booleans(written, hidden):
    text = f"---\ntype: decision\nname: n\ndescription: d\nwhy: w\nrejected: r\nhidden: {written}\n---\n"
    assert lenient(parse_entry_text(text)).parsed.fields["hidden"] is hidden
    found = findings(text, "decision_x")
    assert rules.FIELD_TYPE.id not in {d.rule for d in found}
    [retyped] = [d for d in found if d.rule == rules.YAML_RETYPED.id]
    assert f"write {written.lower()}" in retyped.message and "quote" not in retyped.message
    # True without hidden_at is a tombstone without its date to a YAML reader: 3.3.3's MUST.
    assert (rules.HIDDEN_AT.id in {d.rule for d in found}) is hidden


def test_a_numeric_name_is_present_and_a_warning_to_quote_it():
    text = "---\ntype: fact\nname: 2026\ndescription: A year as the name\n---\nBody.\n"
    assert shown(text) == [("warning", rules.YAML_RETYPED.id, 3, 7)]
    [retyped] = [d for d in findings(text) if d.rule == rules.YAML_RETYPED.id]
    assert "quote it" in retyped.message
    assert check_entry("memory/fact_x.md", "fact_x", text)[1].name == "2026"


def test_an_integer_list_item_is_reported_as_yaml_reads_it():
    text = "---\ntype: fact\nname: n\ndescription: d\ntags:\n  - 2026\n  - true\n---\n"
    assert [d.line for d in findings(text) if d.rule == rules.YAML_RETYPED.id] == [6, 7]


QUOTED_KEYS = """---
"type": "fact"
'name': 'It''s quoted'
description: "Escapes: \\"q\\" \\u00e9 \\t tab"
---
Body.
"""


def test_quoted_keys_are_read_and_are_a_warning():
    assert shown(QUOTED_KEYS) == [("warning", rules.YAML_BAD_LINE.id, 2, 1), ("warning", rules.YAML_BAD_LINE.id, 3, 1)]
    found = [d for d in findings(QUOTED_KEYS) if d.rule == rules.YAML_BAD_LINE.id]
    assert all("quoted key" in d.message and "without quotes" in d.message for d in found)
    fields = lenient(parse_entry_text(QUOTED_KEYS)).parsed.fields
    assert fields["type"] == "fact" and fields["name"] == "It's quoted"


def test_a_quoted_key_that_repeats_a_key_is_not_read_twice():
    text = '---\ntype: fact\n"type": goal\nname: n\ndescription: d\n---\n'
    assert lenient(parse_entry_text(text)).parsed.fields["type"] == "fact"
    assert shown(text) == [("warning", rules.YAML_BAD_LINE.id, 3, 1)]


# -- what stays an error: 3.1's MUST NOT, and the REQUIRED fields -------------------------------

CONTROLS = {
    "anchor and alias": ("---\ntype: fact\nname: &n Anchor\ndescription: *n\n---\n",
                         {rules.YAML_ANCHOR.id, rules.YAML_ALIAS.id}),
    "block scalar": ("---\ntype: fact\nname: Block\ndescription: |\n  line one\n  line two\n---\n",
                     {rules.YAML_BLOCK_SCALAR.id}),
    "js-yaml folded block": ("---\ntype: fact\nname: js-yaml long\ndescription: >-\n  x x x\n  x x\n---\n",
                             {rules.YAML_BLOCK_SCALAR.id}),
    "deeper nesting": ("---\ntype: fact\nname: Deep\ndescription: d\norigin:\n  tool:\n    name: x\n---\n",
                       {rules.YAML_DEEP_NESTING.id, rules.FIELD_TYPE.id}),
    "no type": ("---\nname: No type\ndescription: missing type\n---\n", {rules.MISSING_TYPE.id}),
    "no name": ("---\ntype: fact\ndescription: missing name\n---\n", {rules.MISSING_NAME.id}),
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_what_breaks_a_must_stays_an_error(name):
    text, wanted = CONTROLS[name]
    assert {rule for rule, _message in errors(text)} == wanted
