#!/usr/bin/env python3
"""Mutant 14: identity is trimmed but not case-folded.

Breaks spec 5.1 (the identity of a session-list item is its text,
whitespace-trimmed, case-folded), requirement S5.1-identity-case-folded.
Level: full.

"Fix the flaky test" and "fix the flaky test" are two items to this merge,
and their text_hash differs too.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import identity

    replace(identity, "normalize", lambda text: text.strip())


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
