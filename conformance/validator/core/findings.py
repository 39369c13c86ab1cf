"""Diagnostics and rules: the values every validator check produces.

A `Rule` is a stable, documented check (its id never changes meaning); a
`Diagnostic` is one finding of one rule at one place. Checks return
diagnostics as values and never raise on bad input.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Rule:
    id: str            # stable, for example "MEMOIR-E-YAML-ANCHOR"
    severity: Severity
    section: str       # spec section, for example "3.1" or "memory-diff: Validation rules"
    summary: str       # one line: what the rule requires
    format: str = "memoir"  # memoir, memory-diff or reme-vault


@dataclass(frozen=True)
class Diagnostic:
    path: str          # file path as given by the user (or relative to the store)
    line: int          # 1-based; 0 when the finding is about the whole file
    column: int        # 1-based; 0 when not known
    severity: Severity
    rule: str
    message: str
    section: str

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, SEVERITY_ORDER[self.severity], self.rule, self.message)


def diagnostic(rule: Rule, path: str, message: str, line: int = 0, column: int = 0) -> Diagnostic:
    """A finding of `rule`, with the rule's severity and section."""
    return Diagnostic(path, line, column, rule.severity, rule.id, message, rule.section)
