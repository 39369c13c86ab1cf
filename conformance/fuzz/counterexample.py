"""What a property reports when it fails: the counterexample, as values.

A `Counterexample` carries everything a spec author needs: the property and
the requirement it broke (ids of `vectors/requirements.json`), the inputs,
what was expected and what the implementation did (shown as a unified diff
of pretty JSON), and a `case`: the one call, or the one store and writer
op, that a saved vector replays (`export.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.fuzz.views import unified_diff


@dataclass(frozen=True)
class MergeCase:
    """A `merge_sessions` vector to save: the two replica texts, in the orientation that fails."""

    local: str
    remote: str
    # Parts of the merged session the vector must pin beyond the live view
    # (names of `views.session_view` components, e.g. "history", "lists/goals").
    focus: tuple[str, ...] = ()


@dataclass(frozen=True)
class WriteCase:
    """A `write` vector to save: the store before the failing op, and the op."""

    session_text: str | None       # session.json before the op (None: no file)
    steps: tuple[dict, ...]        # [{"op": ..., "args": {...}}], without `store`
    expected_session: dict         # the reference model's session.json after the steps
    focus: tuple[str, ...] = ()


@dataclass(frozen=True)
class Counterexample:
    property: str
    requirement: str               # the violated requirement (vectors/requirements.json)
    section: str                   # its spec section
    message: str                   # one line: what went wrong
    inputs: dict[str, object]      # name -> replica text, or the op sequence
    expected: object = None
    actual: object = None
    expected_label: str = "expected"
    actual_label: str = "actual"
    case: MergeCase | WriteCase | None = None
    related: tuple[str, ...] = field(default_factory=tuple)   # further requirement ids

    @property
    def requirements(self) -> tuple[str, ...]:
        return (self.requirement, *[r for r in self.related if r != self.requirement])

    def diff(self) -> str:
        if self.expected is None and self.actual is None:
            return ""
        return unified_diff(self.expected, self.actual, self.expected_label, self.actual_label)

    def to_json(self) -> dict:
        return {
            "property": self.property,
            "requirement": self.requirement,
            "requirements": list(self.requirements),
            "section": self.section,
            "message": self.message,
            "inputs": self.inputs,
            "expected": self.expected,
            "actual": self.actual,
            "expected_label": self.expected_label,
            "actual_label": self.actual_label,
            "diff": self.diff(),
        }
