"""Line and column of a value inside a JSON text, found by its path.

jsonschema reports where a problem is as a path of keys and indices; a
person needs a line and a column. `JsonPlaces` walks the text along each
path, remembering where the children of every container it has been through
start, so that a thousand findings in one long list cost one pass over that
list, not a thousand (a hostile session with 100,000 bad items stays
linear). It never raises.
"""

from __future__ import annotations

import json
from json.decoder import scanstring

from conformance.validator.core.positions import LineIndex

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


class JsonPlaces:
    """Places of values in one JSON text."""

    def __init__(self, text: str):
        self.text = text
        self.lines = LineIndex(text)
        self._children: dict[int, dict | list] = {}

    def locate(self, path: tuple | list) -> tuple[int, int]:
        """(line, column), 1-based, of the value at `path`; (0, 0) when not found."""
        try:
            offset: int | None = _skip_ws(self.text, 0)
            for part in path:
                children = self._children_of(offset)
                if isinstance(children, dict):
                    offset = children.get(part) if isinstance(part, str) else None
                elif isinstance(part, int) and 0 <= part < len(children):
                    offset = children[part]
                else:
                    offset = None
                if offset is None:
                    return (0, 0)
        except (ValueError, RecursionError, IndexError):
            return (0, 0)
        return self.lines.place(offset)

    def _children_of(self, offset: int) -> dict | list:
        """Where each child of the container at `offset` starts (first of equal keys)."""
        if offset not in self._children:
            self._children[offset] = self._scan(offset)
        return self._children[offset]

    def _scan(self, index: int) -> dict | list:
        text = self.text
        if index < len(text) and text[index] == "{":
            keys: dict[str, int] = {}
            index = _skip_ws(text, index + 1)
            while index < len(text) and text[index] == '"':
                key, index = scanstring(text, index + 1)
                index = _skip_ws(text, index)
                if index >= len(text) or text[index] != ":":
                    break
                index = _skip_ws(text, index + 1)
                keys.setdefault(key, index)
                _, index = _DECODER.raw_decode(text, index)
                index = _skip_ws(text, index)
                if index < len(text) and text[index] == ",":
                    index = _skip_ws(text, index + 1)
            return keys
        if index < len(text) and text[index] == "[":
            items: list[int] = []
            index = _skip_ws(text, index + 1)
            while index < len(text) and text[index] != "]":
                items.append(index)
                _, index = _DECODER.raw_decode(text, index)
                index = _skip_ws(text, index)
                if index < len(text) and text[index] == ",":
                    index = _skip_ws(text, index + 1)
            return items
        return []


def pointer(path: tuple | list) -> str:
    """A readable form of a path: current.decisions[2].text_hash."""
    shown = ""
    for part in path:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else str(part))
    return shown or "(document)"
