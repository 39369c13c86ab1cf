#!/usr/bin/env python3
"""Mutant 12: a session of a newer version is interpreted instead of quarantined.

Breaks spec 6 ("Forward": an implementation encountering a version newer
than it understands MUST NOT attempt to interpret the data) and spec 8 (a
Reader MUST apply the forward-version rule on read), requirements
S6-forward-no-interpret and S8-reader-forward-version-on-read. Level: reader.

A `version: 2` session.json is "mostly understood" as version 1: a reader
presents it as ok and renders its items, and a merge lets it contribute.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import session

    def load_session_data(original, data):
        """load_session_data that reads any newer version as the known one"""
        if isinstance(data, dict) and isinstance(data.get("version"), int) \
                and not isinstance(data["version"], bool) and data["version"] > session.KNOWN_VERSION:
            return session.LoadedSession("ok", session.sanitize(data))
        return original(data)

    wrap(session, "load_session_data", load_session_data)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
