#!/usr/bin/env python3
"""Mutant 20: legacy `type: feedback` is not read as a lesson.

Breaks spec Appendix A (legacy `type: feedback` reads as `lesson`, trigger
from `description`, how_to_apply from the `**How to apply:**` body section),
requirement SA-feedback-is-lesson. Level: reader. Strength: SHOULD (the
appendix's rule is "Conforming Readers SHOULD apply these compatibility
rules"): the feedback entry is still shown, as an opaque entry, so the
mutant must earn Full and be caught at SHOULD level.

One entry of the legacy type table is missing, so a feedback entry reads as
an opaque entry of an unknown type.
"""

from __future__ import annotations

from _mutant import serve_mutant


def mutate() -> None:
    from conformance.model import entry

    del entry.LEGACY_TYPES["feedback"]


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
