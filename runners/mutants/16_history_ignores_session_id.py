#!/usr/bin/env python3
"""Mutant 16: history is deduplicated ignoring session_id.

Breaks spec 4.1 (v0.1.2: history is deduplicated by `session_id` when
present: the same session updates its own row in place) as the merge of
spec 5.2 step 4 applies it, requirement S4.1-history-session-id-dedupe.
Level: full. Strength: advisory: 5.2 itself keys rows by `(date,
machine_id, summary)`, so this is one reading of a contradiction in the
spec (AMB-HISTORY-KEY); it must earn Full and be caught by advisory checks.

The merge keys every row by `(date, machine_id, summary)`, so two versions
of one session's row are both kept.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge

    def history_key(row):
        return merge.canonical(["row", row.get("date"), row.get("machine_id"), row.get("summary")])

    replace(merge, "history_key", history_key)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
