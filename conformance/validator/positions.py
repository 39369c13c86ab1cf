"""Where each frontmatter value sits: line and column of every key and item.

The subset parser gives values; diagnostics need places. This walks the
frontmatter lines the parser kept and yields each ``key: value`` pair (top
level or nested one level, as ``parent.key``) and each ``- item`` (as
``key[]``), with the raw text of the value as it stands on the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from conformance.model.frontmatter import ParsedEntry

_KEY_END = re.compile(r":(?=[ \t]|$)")


@dataclass(frozen=True)
class Pair:
    line: int          # 1-based line in the file
    key: str           # "name", "metadata.type", or "tags[]" for a list item
    raw: str           # the value's text on the line, trimmed ("" for none)
    key_column: int    # 1-based
    value_column: int  # 1-based; the key's column when there is no value


def iter_pairs(parsed: ParsedEntry) -> Iterator[Pair]:
    """Every pair and list item of the frontmatter, in file order."""
    first = parsed.frontmatter_start + 1
    parent: str | None = None
    for offset, raw_line in enumerate(parsed.frontmatter_lines):
        content = raw_line.strip(" \t")
        if not content or content.startswith("#"):
            continue
        indent = len(raw_line) - len(raw_line.lstrip(" \t"))
        line = first + offset
        if content.startswith("- ") or content == "-":
            item = content[1:].strip(" \t")
            column = indent + 1 + len(content) - len(content[1:].lstrip(" \t"))
            yield Pair(line, f"{parent or ''}[]", item, indent + 1, column if item else indent + 1)
            continue
        match = _KEY_END.search(content)
        if match is None:
            continue
        key = content[: match.start()].rstrip(" \t")
        rest = content[match.end():]
        value = rest.strip(" \t")
        value_column = indent + 1 + len(content) - len(rest.lstrip(" \t")) if value else indent + 1
        if indent == 0:
            parent = key if not value else None
            yield Pair(line, key, value, 1, value_column)
        else:
            yield Pair(line, f"{parent}.{key}" if parent else key, value, indent + 1, value_column)


def field_places(parsed: ParsedEntry) -> dict[str, tuple[int, int]]:
    """Key path -> (line, column of its value): the first place of each key."""
    places: dict[str, tuple[int, int]] = {}
    for pair in iter_pairs(parsed):
        places.setdefault(pair.key, (pair.line, pair.value_column))
    return places
