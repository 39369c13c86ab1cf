#!/usr/bin/env python3
"""Mutant 39: record_session caps history one row late.

Breaks spec 4.1 (history is a *bounded* roll-up, newest first) and spec 5.2
step 4 (history sorts newest-first, and caps), requirement
S5.2-history-capped. Level: writer.

The writer caps the earlier rows and then puts the new row in front
(`[row, ...history.slice(0, cap)]`): at the cap, history holds one row more
than the cap, every time.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    def record_session(original, session, *, caps, **kwargs):
        """record_session that caps before adding its row"""
        earlier = session["history"][: caps["history"]]
        session, log = original({**session, "history": earlier}, caps={**caps, "history": caps["history"] + 1}, **kwargs)
        return session, log

    wrap_session_op("record_session", record_session)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
