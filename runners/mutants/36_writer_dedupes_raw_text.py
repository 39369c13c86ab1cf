#!/usr/bin/env python3
"""Mutant 36: add_goal, add_question and add_decision look for an existing item by its raw text.

Breaks spec 5.1 (the identity of a session-list item is its normalized
text, whitespace-trimmed and case-folded; two items with the same
normalized text are the same item), requirements S5.1-same-identity-same-item,
S5.1-identity-trimmed and S5.1-identity-case-folded. Level: writer.

The writer compares `item.text === text`, so adding a goal, question or
decision again in another case or spacing stores a second copy of it.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    from conformance.model.identity import item_key, text_hash

    def by_raw_text(name):
        def add(original, session, *, text, **kwargs):
            """the add op, deduplicating by raw text"""
            items = session["current"][name]
            respelled = [i for i in items if item_key(i) == text_hash(text) and i.get("text") != text]
            trimmed = {**session, "current": {**session["current"], name: [i for i in items if i not in respelled]}}
            session, log = original(trimmed, text=text, **kwargs)
            session["current"][name] = respelled + session["current"][name]
            return session, log
        return add

    for op, name in (("add_goal", "goals"), ("add_question", "open_questions"), ("add_decision", "decisions")):
        wrap_session_op(op, by_raw_text(name))


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
