#!/usr/bin/env python3
"""Mutant 41: complete_next_action, complete_goal and hide_decision find their item by substring.

Breaks spec 5.1 (an op names one identity: the whole text, trimmed and
case-folded; completing, 5.3.2, and hiding, 5.3.1, act on that identity), requirements S5.1-same-identity-same-item and
S5.3.2-complete-removes-and-records. Level: writer.

The writer looks the item up with `normalized_item.includes(normalized_text)`,
the way a search box does: `complete_next_action "Deploy"` completes
"Deploy staging", and `hide_decision ""` hides the first decision, for good.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    from conformance.model.identity import normalize

    def by_substring(lists):
        def op(original, session, *, text, **kwargs):
            """the op, finding its item by substring"""
            wanted = normalize(text)
            for name in lists:
                for item in session["current"].get(name, []):
                    if isinstance(item.get("text"), str) and wanted in normalize(item["text"]):
                        return original(session, text=item["text"], **kwargs)
            return original(session, text=text, **kwargs)
        return op

    for op, lists in (("complete_next_action", ("next_actions", "parked_actions")), ("complete_goal", ("goals",)),
                      ("hide_decision", ("decisions",))):
        wrap_session_op(op, by_substring(lists))


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
