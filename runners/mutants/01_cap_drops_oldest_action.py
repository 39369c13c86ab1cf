#!/usr/bin/env python3
"""Mutant 01: next_actions capped by dropping the oldest, no parking.

Breaks spec 4.1 ("Bounded lists": rotation out of `next_actions` MUST go to
`parked_actions`, not to nowhere), requirement S4.1-next-actions-rotate-to-parked.
Level: writer.

The historical `slice(-8)`: adding an action to a full live list silently
evicts the oldest one instead of parking it. Merges are untouched.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    from conformance.model.identity import item_key

    def add_next_action(original, session, **kwargs):
        """add_next_action that drops the overflow instead of parking it"""
        parked_before = {item_key(a) for a in session["current"]["parked_actions"]}
        session, log = original(session, **kwargs)
        current = session["current"]
        current["parked_actions"] = [a for a in current["parked_actions"] if item_key(a) in parked_before]
        return session, log

    wrap_session_op("add_next_action", add_next_action)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
