"""A writer's frontmatter is charged with the rule it breaks, and only that one (spec 3.1, 8).

3.1's MUST NOT names three forms: anchors, multi-line block scalars and
deeper nesting. A writer built on a YAML dumper leaves the subset in other
ways too (flow lists, values folded at 80 columns): its values then do not
read back, which is `S8-writer-adds-edits-entries` (or the unknown-field
rules on a rewrite), never one of the three it did not emit. Each writer
below is the reference model with its entry files re-dumped by PyYAML, as
an implementer outside the project would write them.
"""

from __future__ import annotations

import pytest
import yaml

from conformance.runner.strength import MUST

from verdict_support import RewritesFrontmatter, explain, graded_run

ENTRY_OPS = ("write_entry", "update_entry")
SUBSET_MUST_NOTS = {"S3.1-writer-no-anchors", "S3.1-writer-no-block-scalars", "S3.1-writer-no-deep-nesting"}
READS_BACK = "S8-writer-adds-edits-entries"


def charged(graded) -> set[str]:
    """The requirements of every failed check that decides a level."""
    return {requirement for item in graded for failure, strength in zip(item.result.failures, item.failure_strengths)
            if strength == MUST for requirement in failure.requirements}


def shared_equal_values(fields: dict) -> dict:
    """`fields` with equal lists and mappings made one object, as a writer that interns its values
    has them: PyYAML writes the second as an alias of the first."""
    seen: list = []
    shared = {}
    for key, value in fields.items():
        if isinstance(value, (list, dict)):
            value = next((earlier for earlier in seen if earlier == value), value)
            seen.append(value)
        shared[key] = value
    return shared


class BlockScalarDumper(yaml.SafeDumper):
    """Writes a string with a line break as a `|` block scalar."""


BlockScalarDumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))


class DumpsFrontmatterWithPyYaml(RewritesFrontmatter):
    """Every entry file it writes gets its frontmatter from `yaml.dump` with these options (with `share`,
    equal lists and mappings are one object)."""

    def __init__(self, share=False, **options):
        super().__init__()
        self.share = share
        self.options = {"sort_keys": False, "allow_unicode": True, "Dumper": yaml.SafeDumper, **options}

    def block(self, parsed):
        if parsed.problems:
            return None  # a file the model read with problems is not the case here
        fields = shared_equal_values(parsed.fields) if self.share else parsed.fields
        return f"---\n{yaml.dump(fields, **self.options)}---\n"


def test_the_dumpers_write_what_the_tests_say():
    def dumped(fields, **options):
        return yaml.dump(shared_equal_values(fields), **{"sort_keys": False, "Dumper": yaml.SafeDumper, **options})

    assert dumped({"tags": ["a"]}, default_flow_style=None) == "tags: [a]\n"
    assert dumped({"tags": ["a"], "aliases": ["a"]}, default_flow_style=False) == (
        "tags: &id001\n- a\naliases: *id001\n")
    assert dumped({"x": "one\ntwo"}, Dumper=BlockScalarDumper) == "x: |-\n  one\n  two\n"
    assert "\n  " in dumped({"description": "word " * 30}, default_flow_style=False)


@pytest.mark.parametrize("options", [
    pytest.param({"default_flow_style": None, "width": 10**6}, id="flow-lists"),
    pytest.param({"default_flow_style": False}, id="folded-at-80-columns"),
])
def test_a_writer_outside_the_subset_is_charged_with_what_does_not_read_back(corpus, reference_results, tmp_path,
                                                                              options):
    graded, result = graded_run(corpus, reference_results, DumpsFrontmatterWithPyYaml(**options), ENTRY_OPS,
                                tmp_path)
    assert result.earned == "reader", explain(graded)
    assert READS_BACK in charged(graded), explain(graded)
    assert not charged(graded) & SUBSET_MUST_NOTS, explain(graded)


@pytest.mark.parametrize(("options", "rule"), [
    pytest.param({"default_flow_style": False, "width": 10**6, "share": True}, "S3.1-writer-no-anchors",
                 id="anchors"),
    pytest.param({"default_flow_style": False, "width": 10**6, "Dumper": BlockScalarDumper},
                 "S3.1-writer-no-block-scalars", id="block-scalars"),
])
def test_a_writer_that_emits_what_3_1_forbids_is_charged_with_that_rule(corpus, reference_results, tmp_path,
                                                                         options, rule):
    graded, result = graded_run(corpus, reference_results, DumpsFrontmatterWithPyYaml(**options), ENTRY_OPS,
                                tmp_path)
    assert result.earned == "reader", explain(graded)
    assert charged(graded) & SUBSET_MUST_NOTS == {rule}, explain(graded)
