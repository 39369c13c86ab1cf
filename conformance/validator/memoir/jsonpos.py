"""Line and column of a value inside a JSON text, found by its path.

jsonschema reports where a problem is as a path of keys and indices; a
person needs a line and a column. `locate` walks the text along the path
(only along it: other values are skipped whole) and never raises.
"""

from __future__ import annotations

import json
from json.decoder import scanstring

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _offset(text: str, index: int, path: tuple) -> int | None:
    index = _skip_ws(text, index)
    if not path:
        return index
    head, rest = path[0], path[1:]
    if index >= len(text):
        return None
    if text[index] == "{":
        index = _skip_ws(text, index + 1)
        while index < len(text) and text[index] == '"':
            key, index = scanstring(text, index + 1)
            index = _skip_ws(text, index)
            if index >= len(text) or text[index] != ":":
                return None
            index = _skip_ws(text, index + 1)
            if key == head:
                return _offset(text, index, rest)
            _, index = _DECODER.raw_decode(text, index)
            index = _skip_ws(text, index)
            if index < len(text) and text[index] == ",":
                index = _skip_ws(text, index + 1)
        return None
    if text[index] == "[" and isinstance(head, int):
        index = _skip_ws(text, index + 1)
        position = 0
        while index < len(text) and text[index] != "]":
            if position == head:
                return _offset(text, index, rest)
            _, index = _DECODER.raw_decode(text, index)
            index = _skip_ws(text, index)
            if index < len(text) and text[index] == ",":
                index = _skip_ws(text, index + 1)
            position += 1
        return None
    return None


def locate(text: str, path: tuple | list) -> tuple[int, int]:
    """(line, column), 1-based, of the value at `path`; (0, 0) when not found."""
    try:
        offset = _offset(text, 0, tuple(path))
    except (ValueError, RecursionError, IndexError):
        return (0, 0)
    if offset is None:
        return (0, 0)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def pointer(path: tuple | list) -> str:
    """A readable form of a path: current.decisions[2].text_hash."""
    shown = ""
    for part in path:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else str(part))
    return shown or "(document)"
