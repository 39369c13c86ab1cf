#!/usr/bin/env python3
"""Mutant 04: a purged tombstone loses to a newer un-purged copy.

Breaks spec 5.3.1 ("Purged form": on merge the purged form MUST win over any
un-purged copy of the same identity regardless of `date`), requirement
S5.3.1-purged-wins-merge. Level: full.

Decisions are ranked by `date` alone, so a stale replica's newer copy wins
and brings the redacted text back (hidden stays sticky: the text returns
in the file, not in the render).
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge

    replace(merge, "decision_rank", merge.by_date("date"))


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
