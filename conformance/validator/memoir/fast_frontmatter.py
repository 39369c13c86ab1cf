"""A fast path for the reference reader on the commonest entry files.

`conformance.model.frontmatter.parse_entry_text` reads any text, noting every
departure from the subset; it is the model the runner is mutation-tested
against, so it is not tuned for the validator. Most files of a store are far
simpler than what it is built for: the opening `---` on the first line,
`\\n` (or `\\r\\n`) line breaks, no tabs, plain unquoted values, one
level of nesting. On those `parse` gives the very `ParsedEntry` the model
gives (fields, body, line numbers, places, lines), about twice as fast; on
anything else it returns None, and the caller asks the model.

It never guesses: each line is taken only in a form whose reading by the
model is spelled out below, and the first line of any other form (a quote, a
tab, a YAML indicator, an empty list item, a line the model would report as a
problem) sends the whole file to the model. So a file it reads has no
problems. `tests/validator/test_fast_frontmatter.py` compares both readers on
every entry file of the vectors and of the real-world corpus.
"""

from __future__ import annotations

# The model's own reading of a plain scalar, reused rather than written again:
# true, false, null, ~ and integers come out as the model makes them, by construction.
from conformance.model.frontmatter import ParsedEntry, _plain_scalar

# First characters of a value the model reads otherwise than as a plain
# scalar (quotes, anchors, aliases, tags, block scalars, flow collections):
# such a file is left to the model.
_SPECIAL_VALUE_START = frozenset("\"'&*!|>[{")
# First characters of a key the model refuses (its _KEY_BAD_START).
_BAD_KEY_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
# First characters of the values the model's _plain_scalar reads as other
# than the text itself (true, false, null, ~, integers).
_SCALAR_WORD_STARTS = frozenset("tfn~-0123456789")


class _NotSimple(Exception):
    """The file holds a form this fast path does not read: ask the model."""


def parse(text: str) -> ParsedEntry | None:
    """The model's `parse_entry_text(text)` for a simple file, else None."""
    if text.startswith("---\n"):
        start, newline = 4, "\n"
    elif text.startswith("---\r\n"):
        start, newline = 5, "\r\n"
    else:
        return None  # a byte order mark, a preamble, a lone "\r", no frontmatter: rare, the model's
    # The model's closing line is the first "---" line after the opening one.
    # With every line break before it one "\n" (or one "\r\n", as checked
    # below), that line follows the first "\n---".
    close = text.find("\n---", start - 1) + 1
    if close == 0:
        return None
    end = close + 3
    length = len(text)
    while end < length and text[end] in " \t":
        end += 1
    if end < length:
        if text[end] == "\n":
            end += 1
        elif text.startswith("\r\n", end):
            end += 2
        elif text[end] == "\r":
            end += 1
        else:
            return None  # "---x": not the closing line (the model reads on; here, a bad line anyway)
    region = text[start:close]
    if "\t" in region:
        return None
    if newline == "\n":
        if "\r" in region:
            return None
    elif not region.count("\r") == region.count("\n") == region.count("\r\n"):
        return None  # a lone "\r" or "\n" among the "\r\n" breaks
    lines = region.split(newline)
    lines.pop()  # the break before the closing line ends the last line (or region == "")
    try:
        fields, places = _read(lines)
    except _NotSimple:
        return None
    return ParsedEntry(
        has_frontmatter=True, fields=fields, body=text[end:], problems=(), frontmatter_start=1,
        body_start=len(lines) + 3, preamble="", frontmatter_lines=tuple(lines), places=tuple(places))


def _read(lines: list[str]) -> tuple[dict, list]:
    """Fields and places of frontmatter lines (the first is line 2), as the
    model's _FrontmatterReader reads them; raises _NotSimple on any other form."""
    # (line number, indent, content) of the lines that carry something, as the model keeps them.
    kept = []
    for number, raw in enumerate(lines, 2):
        first = raw[:1]
        if first == " ":  # indented: strip, then skip it if blank or a comment
            content = raw.lstrip(" ")
            if content and content[0] != "#":
                kept.append((number, len(raw) - len(content), content.rstrip(" ")))
        elif first and first != "#":  # most lines: a top-level key
            kept.append((number, 0, raw.rstrip(" ")))
    fields: dict = {}
    places: list = []
    position, count = 0, len(kept)
    while position < count:
        number, indent, content = kept[position]
        position += 1
        if indent:
            raise _NotSimple  # an indented line with no key above to take it: a bad line
        # _key_value(content, 0) and _plain(raw), written out: this loop runs for every line of a store.
        colon = content.find(": ")
        if colon < 0:
            if content[-1] != ":":
                raise _NotSimple  # no key: a bad line
            colon = len(content) - 1
        key = content[:colon].rstrip(" ")
        if not key or key[0] in _BAD_KEY_START:
            raise _NotSimple  # a list item without a key, or a key the model refuses
        if key in fields:
            raise _NotSimple  # a duplicate key
        raw = content[colon + 1:].lstrip(" ")
        if raw:
            places.append((key, number, 1 + len(content) - len(raw), raw))
            first = raw[0]
            if first in _SPECIAL_VALUE_START:
                raise _NotSimple
            fields[key] = _plain_scalar(raw) if first in _SCALAR_WORD_STARTS else raw
            continue
        places.append((key, number, 1, raw))
        # `key:` with nothing after it: a block below, a compact list at the key's indentation, or None.
        if position == count:
            fields[key] = None
            continue
        _, following_indent, following = kept[position]
        is_item = following[:2] == "- " or following == "-"
        if following_indent:
            if is_item:
                fields[key], position = _read_list(kept, position, following_indent, key, places)
            else:
                fields[key], position = _read_mapping(kept, position, following_indent, key, places)
        elif is_item:
            fields[key], position = _read_list(kept, position, 0, key, places)
        else:
            fields[key] = None
    return fields, places


def _key_value(content: str, indent: int) -> tuple[str, str, int]:
    """Key, raw value and the value's column of a `key: value` line (no tabs,
    no trailing spaces), as the model reads it: the key ends at the first ":"
    followed by a space or the end of the line."""
    colon = content.find(": ")
    if colon < 0:
        if content[-1] != ":":
            raise _NotSimple  # no key: a bad line
        colon = len(content) - 1
    key = content[:colon].rstrip(" ")
    if not key or key[0] in _BAD_KEY_START:
        raise _NotSimple  # a list item without a key, or a key the model refuses
    raw = content[colon + 1:].lstrip(" ")
    return key, raw, indent + 1 + len(content) - len(raw)


def _plain(raw: str) -> object:
    first = raw[0]
    if first in _SPECIAL_VALUE_START:
        raise _NotSimple
    if first in _SCALAR_WORD_STARTS:
        return _plain_scalar(raw)
    return raw  # neither true, false, null, ~ nor an integer: the model's _plain_scalar gives the text


def _read_mapping(kept: list, position: int, indent: int, parent: str, places: list) -> tuple[dict, int]:
    """A nested mapping of plain scalars at `indent` (depth 1)."""
    mapping: dict = {}
    while position < len(kept):
        number, line_indent, content = kept[position]
        if line_indent == 0:
            break
        if line_indent != indent:
            raise _NotSimple  # deeper (a bad line) or shallower but indented (a bad line at the top)
        key, raw, column = _key_value(content, indent)
        if not raw or key in mapping:
            raise _NotSimple  # a block under a nested key (deeper nesting, or None), or a duplicate key
        path = f"{parent}.{key}"
        places.append((path, number, column, raw))
        mapping[key] = _plain(raw)
        position += 1
    return mapping, position


def _read_list(kept: list, position: int, indent: int, parent: str, places: list) -> tuple[list, int]:
    """A list of plain strings at `indent` (0: a compact list at its key's indentation)."""
    items: list = []
    path = f"{parent}[]"
    while position < len(kept):
        number, line_indent, content = kept[position]
        if line_indent < indent:
            break
        if line_indent > indent:
            raise _NotSimple  # indented deeper than the items: a bad line
        if content[:2] != "- ":
            if indent:
                raise _NotSimple  # a key at a nested list's indentation: a bad line after the list
            break  # a key after a compact list
        raw = content[2:].lstrip(" ")
        if not raw or raw[0] in _SPECIAL_VALUE_START:
            raise _NotSimple  # an empty item (maybe a nested block), or a quoted or YAML-indicator item
        places.append((path, number, indent + 1 + len(content) - len(raw), raw))
        items.append(raw)
        position += 1
    return items, position
