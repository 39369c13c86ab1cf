#!/usr/bin/env python3
"""Mutant 20: legacy `type: feedback` is not read as a lesson.

Breaks spec Appendix A (legacy `type: feedback` reads as `lesson`, trigger
from `description`, how_to_apply from the `**How to apply:**` body section;
validators MUST accept that form, spec 3.3.4), requirements
SA-feedback-is-lesson and S3.3.4-validators-accept-body-how-to-apply.
Level: reader.

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
