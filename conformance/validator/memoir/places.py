"""Where each frontmatter value sits, by key path.

The subset parser records every value's place as it reads
(`ParsedEntry.places`); diagnostics about a field point there.
"""

from __future__ import annotations

from conformance.model.frontmatter import ParsedEntry


def field_places(parsed: ParsedEntry) -> dict[str, tuple[int, int]]:
    """Key path ("name", "metadata.type", "tags[]") -> (line, column) of its
    value: the first place of each key."""
    places: dict[str, tuple[int, int]] = {}
    for key, line, column, _raw in parsed.places:
        if key not in places:
            places[key] = (line, column)
    return places
