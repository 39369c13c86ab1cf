#!/usr/bin/env python3
"""Mutant 28: dates are compared as strings, not as instants.

Breaks spec 5.2 step 2 (the copy with the newer value in the list's date
field wins; dates are ISO 8601, so `12:00+02:00` is 10:00Z),
requirement S5.2-newest-wins. Level: full.

Comparing the raw ISO 8601 text works while every writer uses `Z` and the
same precision; offsets, date-only values and other precisions order
wrongly. A missing or non-string date is the empty string, still oldest.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import dates

    def sort_key(value):
        return value if isinstance(value, str) else ""

    replace(dates, "sort_key", sort_key)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
