#!/usr/bin/env python3
"""Mutant 15: a missing or unparseable date compares as now instead of the epoch.

Breaks spec 5.2 step 2 (a missing or unparseable date compares as the epoch:
it loses to any real date), requirement S5.2-missing-date-is-epoch.
Level: full.

The copy without a date looks brand new, so it beats every dated copy.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from datetime import datetime, timezone

    from conformance.model import dates

    def sort_key(value):
        return dates.parse_date(value) or datetime.now(timezone.utc)

    replace(dates, "sort_key", sort_key)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
