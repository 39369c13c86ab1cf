#!/usr/bin/env python3
"""Mutant 38: when parked_actions overflows, the action just parked is the one dropped.

Breaks spec 4.1 (rotation out of `next_actions` MUST go to
`parked_actions`, not to nowhere; only when parked overflows may an action
be dropped, oldest by date out), requirement S4.1-next-actions-rotate-to-parked.
Level: writer.

The writer appends the newly parked action and cuts the parked list to its
cap from the front: at the parked cap, the action that just left the live
list, newer than every parked one, disappears.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    def add_next_action(original, session, *, caps, **kwargs):
        """add_next_action that trims parked_actions by position"""
        session, log = original(session, caps={**caps, "parked_actions": 10**9}, **kwargs)
        current = session["current"]
        current["parked_actions"] = current["parked_actions"][: caps["parked_actions"]]
        return session, log

    wrap_session_op("add_next_action", add_next_action)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
