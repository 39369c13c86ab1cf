"""The memory diff spec's own examples validate clean.

The examples are vendored as fixtures (spec.*-example.yaml) so the check runs
everywhere; where the shared spec is present, the examples are also
extracted from it, so a change to the spec shows up here.
"""

from __future__ import annotations

import re

import pytest

from conformance.validator import memory_diff
from sibling_helpers import MEMORY_DIFF_FIXTURES, SHARED_SPEC

SPEC = SHARED_SPEC / "memory-diff-format-v0.1.md"
VENDORED = ["spec.format-example.yaml", "spec.empty-example.yaml"]


def spec_examples(text: str) -> list[str]:
    """The YAML examples of the spec: from a `version: "0.1"` line to the next prose line."""
    examples, current = [], None
    for line in text.splitlines():
        if line.startswith('version: "0.1"'):
            current = [line]
        elif current is not None:
            prose = line and not line[0].isspace() and not re.match(r"^[A-Za-z_]+:( |$)", line)
            if prose:
                examples.append("\n".join(current).rstrip() + "\n")
                current = None
            else:
                current.append(line)
    return examples


@pytest.mark.parametrize("name", VENDORED)
def test_vendored_spec_example_validates_clean(name):
    assert memory_diff.validate_paths([str(MEMORY_DIFF_FIXTURES / name)]) == []


@pytest.mark.skipif(not SPEC.is_file(), reason="the shared spec folder is not beside the repository")
def test_spec_examples_are_the_vendored_ones_and_validate_clean():
    examples = spec_examples(SPEC.read_text(encoding="utf-8"))
    assert len(examples) == 2
    for example, name in zip(examples, VENDORED):
        assert example == (MEMORY_DIFF_FIXTURES / name).read_text(encoding="utf-8")
        assert memory_diff.validate_text(example, name) == []

