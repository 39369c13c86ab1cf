#!/usr/bin/env python3
"""Mutant 07: completing an action removes it but records no tombstone.

Breaks spec 5.3 (removals MUST be represented as tombstones) and 5.3.2
(completing a next action removes it from `next_actions` AND records
`{text, done_at}` in `completed_actions`; removal alone lets any stale
replica resurrect it), requirements S5.3-removals-as-tombstones and
S5.3.2-complete-removes-and-records. Level: writer.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    def complete_next_action(original, session, **kwargs):
        """complete_next_action that only removes"""
        tombstones = session["current"]["completed_actions"]
        session, log = original(session, **kwargs)
        session["current"]["completed_actions"] = tombstones
        return session, log

    wrap_session_op("complete_next_action", complete_next_action)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
