"""Rules, findings and the events a format's checker streams to the output.

A `Rule` is a stable, documented check (its id never changes meaning); a
`Diagnostic` is one finding of one rule at one place. Checks return
diagnostics as values and never raise on bad input.

A format's checker yields events in output order: `StoreStarted`, then one
`FileChecked` per file (its findings sorted), then `StoreFindings` (what
needed the whole store, such as links) and `StoreFinished`. Loose files and
formats without stores yield `FileChecked` alone. The output renders each
event as it comes, so memory does not grow with the number of findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, Union

Severity = Literal["error", "warning", "legacy", "info"]
SEVERITIES: tuple[str, ...] = ("error", "warning", "legacy", "info")
SEVERITY_ORDER = {severity: rank for rank, severity in enumerate(SEVERITIES)}
# The letter a rule id carries after its format: MEMOIR-E-..., MEMOIR-L-...
SEVERITY_LETTER = {"error": "E", "warning": "W", "legacy": "L", "info": "I"}


@dataclass(frozen=True)
class Rule:
    id: str            # stable, for example "MEMOIR-E-YAML-ANCHOR"
    severity: Severity
    section: str       # spec section, for example "3.1" or "memory-diff: Validation rules"
    summary: str       # one line: what the rule requires
    format: str = "memoir"  # memoir, memory-diff or reme-vault
    # Ids this rule had before its severity changed: still accepted by --select and --ignore.
    former_ids: tuple[str, ...] = ()


class Diagnostic(NamedTuple):
    """One finding. A named tuple, not a dataclass: a run makes millions, and
    a tuple is made (and pickled to and from a worker) several times faster."""

    path: str          # file path as given by the user (or relative to the store)
    line: int          # 1-based; 0 when the finding is about the whole file
    column: int        # 1-based; 0 when not known
    severity: Severity
    rule: str
    message: str
    section: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "severity": self.severity,
                "rule": self.rule, "message": self.message, "section": self.section}

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, SEVERITY_ORDER[self.severity], self.rule, self.message)


def diagnostic(rule: Rule, path: str, message: str, line: int = 0, column: int = 0) -> Diagnostic:
    """A finding of `rule`, with the rule's severity and section."""
    return Diagnostic(path, line, column, rule.severity, rule.id, message, rule.section)


# A file that repeats one mistake a million times (a hostile file does) gets
# this many findings of it, and one more that counts the rest.
MAX_PER_RULE = 1000


def in_order(diagnostics) -> tuple[Diagnostic, ...]:
    """Findings sorted as the output shows them (by place, then severity, rule
    and message), at most `MAX_PER_RULE` of one rule in one file."""
    ordered = sorted(diagnostics, key=lambda item: item.sort_key)
    if len(ordered) <= MAX_PER_RULE:
        return tuple(ordered)
    return tuple(capped(ordered))


def capped(ordered: list[Diagnostic], limit: int = MAX_PER_RULE) -> list[Diagnostic]:
    """The first `limit` findings of each rule in each file, and for each rule
    with more, one finding that says how many more there are."""
    seen: dict[tuple[str, str], int] = {}
    kept = []
    for found in ordered:
        key = (found.path, found.rule)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= limit:
            kept.append(found)
    for (path, rule), count in seen.items():
        if count > limit:
            first = next(found for found in kept if found.path == path and found.rule == rule)
            kept.append(Diagnostic(path, 0, 0, first.severity, rule,
                                   f"{count - limit} more findings of this rule in this file are not listed "
                                   f"(the first {limit} are); fix those and check again", first.section))
    return sorted(kept, key=lambda item: item.sort_key)


@dataclass(frozen=True)
class StoreStarted:
    path: str          # the store as displayed
    description: str   # what it is, for example "memory/ and session.json: 120 files"


class FileChecked(NamedTuple):
    path: str
    diagnostics: tuple[Diagnostic, ...]
    # False for a path that only carries a note (a file that is not read, a
    # link not followed): it is not counted among the files checked.
    checked: bool = True


@dataclass(frozen=True)
class StoreFindings:
    """Findings that needed the whole store (each still names its file), sorted."""

    path: str
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class StoreFinished:
    path: str


Event = Union[StoreStarted, FileChecked, StoreFindings, StoreFinished]



class NothingToCheck(Exception):
    """A path under which a format found nothing to check: a usage error
    (exit code 2), reported before any output, whose message says what was
    looked for."""
