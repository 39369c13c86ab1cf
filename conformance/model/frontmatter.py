"""The restricted YAML subset of entry frontmatter (spec 3.1), read line by line.

The spec allows scalar ``key: value`` pairs, one level of nested mapping and
simple ``- item`` string lists, "so that it can be parsed without a full YAML
engine". This module is that parser. It reads every line on its own terms
(docs/spec-ambiguities.md, AMB-FRONTMATTER-LINES):

- an unquoted value is the rest of the line, trimmed, taken verbatim: ``: ``
  inside it is kept and an unquoted `` #`` is text, not a comment (a YAML
  engine would reject the first and truncate at the second);
- ``true``/``false`` are booleans, ``null``/``~``/nothing is None, a plain
  ``-?[0-9]+`` is an integer; everything else, dates included, is a string;
- double-quoted values take JSON-style escapes (and YAML's extra ones),
  single-quoted values double ``''``; a quoted value followed by more text
  reads as the whole raw text (real-world file 003) with a problem noted;
- list items are always strings.

Nothing here raises on any input. Everything outside the subset (anchors,
aliases, tags, block scalars, flow collections, deeper nesting, duplicate
keys, lines of no known form, a frontmatter without its closing ``---``) is
reported as a `Problem` at a 1-based line and column, and the line is still
read as leniently as it can be: aliases are kept as their literal text and
never expanded.

A preamble of blank lines and HTML comments before the opening ``---``
(real-world file 010) does not hide the frontmatter: it is recorded and
reported (AMB-PREAMBLE).

Line endings are ``\\r\\n``, ``\\n`` or a lone ``\\r`` (as in CommonMark); a
leading UTF-8 byte order mark is ignored. The body is the original text
after the closing ``---`` line, unchanged.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from conformance import patterns

BOM = "\ufeff"

# Stable problem codes, with what each means. The validator maps each code
# to a rule; tests and docs list them from here.
PROBLEM_CODES = {
    "preamble": "text (blank lines, HTML comments) before the opening ---",
    "unterminated": "an opening --- without a closing --- line",
    "bad-line": "a frontmatter line that is none of the subset's forms",
    "tab-indent": "a tab in the indentation",
    "duplicate-key": "a key given twice in one mapping",
    "anchor": "a YAML anchor (&name)",
    "alias": "a YAML alias (*name)",
    "tag": "a YAML tag (!tag or !!type)",
    "block-scalar": "a multi-line block scalar (| or >)",
    "flow-collection": "a flow collection ([...] or {...})",
    "deep-nesting": "nesting deeper than one level of mapping or a list of strings",
    "quoted-trailing-text": "a quoted value followed by more text on its line",
    "unterminated-quote": "a quoted value whose closing quote is not on its line",
    "bad-escape": "an unknown escape sequence in a double-quoted value",
}


@dataclass(frozen=True)
class Problem:
    """One departure from the frontmatter subset, at a 1-based line and column."""

    code: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class ParsedEntry:
    """An entry file split into frontmatter fields and body.

    ``frontmatter_start`` is the line of the opening ``---`` (0 when there is
    none); ``body_start`` the first line of the body.
    """

    has_frontmatter: bool
    fields: dict
    body: str
    problems: tuple[Problem, ...] = ()
    frontmatter_start: int = 0
    body_start: int = 1
    preamble: str = ""
    # The frontmatter lines between the delimiters, line endings removed.
    frontmatter_lines: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # Where each value stands: (key path, line, column, raw text), in file
    # order. Key paths are "key", "parent.key", and "key[]" for list items;
    # raw text is the value as written (quotes included), "" when empty.
    places: tuple[tuple[str, int, int, str], ...] = field(default=(), repr=False, compare=False)


# ---------------------------------------------------------------------------
# Finding the frontmatter

# Plain scanning, no regular expressions: each finds its end in one pass
# over the text it is given, so reading a file is linear in its size.
_COMMENT_END = "-->"


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks; `\\r\\n`, `\\r` and `\\n` each end a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _blank_to_line_end(text: str, position: int, end_counts: bool) -> int:
    """The offset after spaces and tabs from `position` and the line break that
    follows them (or the end of the text, if `end_counts`), else -1."""
    position = _lstrip_spaces(text, position)
    if position == len(text):
        return position if end_counts else -1
    if text[position] == "\n":
        return position + 1
    if text[position] == "\r":
        return position + (2 if text.startswith("\n", position + 1) else 1)
    return -1


def _is_delimiter(text: str, position: int) -> bool:
    """Whether a `---` line (trailing spaces and tabs allowed) starts at `position`."""
    return text.startswith("---", position) and _blank_to_line_end(text, position + 3, True) >= 0


def _closing_delimiter(text: str, position: int) -> tuple[int, int] | None:
    """(start, end with its line break) of the first `---` line at or after `position`."""
    while (found := text.find("---", position)) >= 0:
        if found and text[found - 1] in "\r\n":
            end = _blank_to_line_end(text, found + 3, True)
            if end >= 0:
                return found, end
        position = found + 1
    return None


def line_of(text: str, position: int) -> int:
    """The 1-based line number of a character offset (any of the three line breaks)."""
    # Counting "\r\n" once: every "\n" and every "\r" not followed by "\n".
    return 1 + text.count("\n", 0, position) + text.count("\r", 0, position) - text.count("\r\n", 0, position)


def _skip_preamble(text: str) -> int:
    """The offset after leading blank lines and HTML comments, or -1 when
    something else comes first (then the file has no frontmatter)."""
    position = 0
    length = len(text)
    while position < length:
        blank_end = _blank_to_line_end(text, position, False)
        if blank_end >= 0:
            position = blank_end
            continue
        start = _lstrip_spaces(text, position)
        if text.startswith("<!--", start):
            end = text.find(_COMMENT_END, start + 4)
            if end < 0:
                return -1
            position = end + len(_COMMENT_END)
            position = _blank_to_line_end(text, position, True)
            if position < 0:
                return -1  # text after the comment on the same line
            continue
        return position
    return position


def column_of(text: str, position: int) -> int:
    """The 1-based column (in code points) of a character offset."""
    line_start = max(text.rfind("\n", 0, position), text.rfind("\r", 0, position)) + 1
    return position - line_start + 1


def _lstrip_spaces(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def parse_entry_text(text: str) -> ParsedEntry:
    """Split an entry file into frontmatter fields and body, noting every
    departure from the frontmatter subset. Never raises."""
    if not isinstance(text, str):
        return ParsedEntry(False, {}, "", (Problem("bad-line", 1, 1, "entry content is not text"),))
    if text.startswith(BOM):
        text = text[1:]
    opening = _skip_preamble(text)
    if opening < 0 or not _is_delimiter(text, opening):
        return ParsedEntry(False, {}, text, (), 0, 1, "")
    preamble = text[:opening]
    opening_line = line_of(text, opening)
    problems: list[Problem] = []
    if preamble:
        problems.append(Problem(
            "preamble", 1, 1,
            f"{opening_line - 1} line(s) of blank lines or HTML comments before the opening ---; "
            "the frontmatter after them is read",
        ))
    content_start = _blank_to_line_end(text, opening + 3, False)
    if content_start < 0:
        problems.append(Problem("unterminated", opening_line, 1, "the opening --- is the last line; no closing ---"))
        return ParsedEntry(False, {}, text, tuple(problems), 0, 1, "")
    closing = _closing_delimiter(text, content_start)
    if closing is None:
        problems.append(Problem(
            "unterminated", opening_line, 1,
            "frontmatter opened here is never closed by a --- line; the file is read as having no frontmatter",
        ))
        return ParsedEntry(False, {}, text, tuple(problems), 0, 1, "")
    region = text[content_start:closing[0]]
    lines = split_lines(region)
    if region.endswith(("\n", "\r")) or region == "":
        lines.pop()  # the break before the closing line ends the last line
    first_line = opening_line + 1
    reader = _FrontmatterReader(lines, first_line, problems)
    fields = reader.read()
    closing_line = first_line + len(lines)
    return ParsedEntry(
        has_frontmatter=True,
        fields=fields,
        body=text[closing[1]:],
        problems=tuple(problems),
        frontmatter_start=opening_line,
        body_start=closing_line + 1,
        preamble=preamble,
        frontmatter_lines=tuple(lines),
        places=tuple(reader.places),
    )


# ---------------------------------------------------------------------------
# Reading the lines

_KEY_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")
_BLOCK_INDICATOR = patterns.compile(r"[|>][0-9+-]*[ \t]*(?:#.*)?\z")
# Past this depth a block is skipped, not read (the subset allows 1; real
# files reach 2): bounded work and recursion on any input.
_MAX_DEPTH = 8


@dataclass(slots=True)
class _Line:
    number: int
    indent: int
    content: str   # without indentation or trailing whitespace


class _FrontmatterReader:
    """Builds the fields from the frontmatter lines, noting problems."""

    def __init__(self, raw_lines: list[str], first_line: int, problems: list[Problem]):
        self.problems = problems
        self.places: list[tuple[str, int, int, str]] = []
        self.lines: list[_Line] = []
        lines = self.lines
        for offset, raw in enumerate(raw_lines):
            unindented = raw.lstrip(" \t")
            if not unindented or unindented[0] == "#":
                continue  # blank lines and whole-line comments carry nothing
            number = first_line + offset
            indent = len(raw) - len(unindented)
            if indent and "\t" in raw[:indent]:
                self.note("tab-indent", number, raw.index("\t") + 1,
                          "a tab in the indentation (YAML allows only spaces); read as one column")
            lines.append(_Line(number, indent, unindented.rstrip(" \t")))
        self.position = 0

    def note(self, code: str, line: int, column: int, message: str) -> None:
        self.problems.append(Problem(code, line, column, message))

    def peek(self) -> _Line | None:
        return self.lines[self.position] if self.position < len(self.lines) else None

    def read(self) -> dict:
        fields: dict = {}
        while (line := self.peek()) is not None:
            if line.indent > 0:
                self.note("bad-line", line.number, 1,
                          "an indented line under a key that already has a value "
                          "(a multi-line value is outside the subset); ignored")
                self.position += 1
                continue
            self.read_mapping_entry(fields, line, 0, "")
        return fields

    # -- mappings --------------------------------------------------------

    def read_mapping_entry(self, mapping: dict, line: _Line, depth: int, parent: str) -> None:
        """Read one ``key: value`` line (and the block under it) into mapping."""
        self.position += 1
        content = line.content
        if content[0] == "-" and (len(content) == 1 or content[1] == " "):
            self.note("bad-line", line.number, line.indent + 1,
                      "a list item with no key above it to belong to; ignored")
            return
        colon = _key_end(content)
        if colon < 0:
            self.note("bad-line", line.number, line.indent + 1,
                      "not a 'key: value' line, a list item or a comment; ignored "
                      "(a multi-line value is outside the subset)")
            return
        key = content[:colon].rstrip(" \t")
        if not key or key[0] in _KEY_BAD_START:
            self.note("bad-line", line.number, line.indent + 1,
                      f"{key!r} is not a plain key (quoted, empty or starting with a YAML indicator); ignored")
            return
        after_colon = content[colon + 1:].lstrip(" \t")
        raw_value = after_colon.rstrip(" \t")
        value_column = line.indent + 1 + len(content) - len(after_colon)
        path = f"{parent}.{key}" if parent else key
        self.places.append((path, line.number, value_column if raw_value else line.indent + 1, raw_value))
        if key in mapping:
            self.note("duplicate-key", line.number, line.indent + 1,
                      f"key {key!r} is given again; the last value is read")
            del mapping[key]  # so the last one also takes the last place
        if raw_value:
            mapping[key] = self.read_value(raw_value, line, value_column, depth)
            return
        mapping[key] = self.read_block(line, depth, path)

    def read_block(self, parent: _Line, depth: int, path: str) -> object:
        """The value of ``key:`` with nothing after the colon: a nested block,
        a list (possibly at the key's own indentation), or None."""
        following = self.peek()
        if following is None:
            return None
        is_item = following.content.startswith("- ") or following.content == "-"
        if depth >= _MAX_DEPTH and following.indent >= parent.indent and (following.indent > parent.indent or is_item):
            return self.skip_deeper(parent.indent, following)
        if following.indent > parent.indent:
            if depth >= 1:
                kind = "list" if is_item else "mapping"
                self.note("deep-nesting", following.number, following.indent + 1,
                          f"a {kind} nested inside a nested mapping; the subset allows one level. "
                          "Read as given")
            if is_item:
                return self.read_list(following.indent, depth + 1, path)
            return self.read_mapping(following.indent, depth + 1, path)
        if following.indent == parent.indent and is_item:
            if depth >= 1:
                self.note("deep-nesting", following.number, following.indent + 1,
                          "a list nested inside a nested mapping; the subset allows one level. Read as given")
            return self.read_list(following.indent, depth + 1, path)
        return None

    def read_mapping(self, indent: int, depth: int, path: str) -> dict:
        mapping: dict = {}
        while (line := self.peek()) is not None and line.indent >= indent:
            if line.indent > indent:
                self.note("bad-line", line.number, line.indent + 1,
                          "indented deeper than the lines around it with no key to belong to "
                          "(a multi-line value is outside the subset); ignored")
                self.position += 1
                continue
            self.read_mapping_entry(mapping, line, depth, path)
        return mapping

    def skip_deeper(self, indent: int, first: _Line) -> None:
        """Past the nesting limit: skip the whole block, reading nothing of it."""
        self.note("deep-nesting", first.number, first.indent + 1,
                  f"nesting deeper than {_MAX_DEPTH} levels; the block is not read")
        while (line := self.peek()) is not None and line.indent > indent:
            self.position += 1
        return None

    # -- lists -----------------------------------------------------------

    def read_list(self, indent: int, depth: int, path: str) -> list:
        items: list = []
        while (line := self.peek()) is not None and line.indent >= indent:
            if line.indent > indent:
                self.note("bad-line", line.number, line.indent + 1,
                          "indented deeper than the list items around it "
                          "(a multi-line item is outside the subset); ignored")
                self.position += 1
                continue
            if not (line.content.startswith("- ") or line.content == "-"):
                break  # a key at the list's indentation ends a compact list
            self.position += 1
            raw_item = line.content[1:].strip(" \t")
            item_column = line.indent + 1 + len(line.content) - len(line.content[1:].lstrip(" \t"))
            self.places.append((f"{path}[]", line.number, item_column if raw_item else line.indent + 1, raw_item))
            if not raw_item:
                nested = self.peek()
                if nested is not None and nested.indent > line.indent and depth >= _MAX_DEPTH:
                    items.append(self.skip_deeper(line.indent, nested))
                elif nested is not None and nested.indent > line.indent:
                    self.note("deep-nesting", nested.number, nested.indent + 1,
                              "a block nested inside a list item; lists hold strings only. Read as given")
                    nested_is_item = nested.content.startswith("- ") or nested.content == "-"
                    items.append(self.read_list(nested.indent, depth + 1, f"{path}[]") if nested_is_item
                                 else self.read_mapping(nested.indent, depth + 1, f"{path}[]"))
                else:
                    items.append("")
                continue
            items.append(self.read_value(raw_item, line, item_column, depth, as_item=True))
        return items

    # -- scalars ---------------------------------------------------------

    def read_value(self, raw: str, line: _Line, column: int, depth: int, as_item: bool = False) -> object:
        first = raw[0]
        if first == '"':
            return self.read_double_quoted(raw, line, column)
        if first == "'":
            return self.read_single_quoted(raw, line, column)
        if first == "&":
            self.note("anchor", line.number, column,
                      f"YAML anchor {raw.split()[0]!r}; anchors are outside the subset. Read as the literal text")
        elif first == "*":
            self.note("alias", line.number, column,
                      f"YAML alias {raw.split()[0]!r}; aliases are outside the subset and never expanded. "
                      "Read as the literal text")
        elif first == "!":
            self.note("tag", line.number, column,
                      f"YAML tag {raw.split()[0]!r}; tags are outside the subset. Read as the literal text")
        elif first in "|>" and _BLOCK_INDICATOR.match(raw):
            return self.read_block_scalar(raw, line, column)
        elif first in "[{":
            self.note("flow-collection", line.number, column,
                      "a flow collection; the subset has only block '- item' lists. Read as the literal text")
        if as_item:
            return raw
        return _plain_scalar(raw)

    def read_block_scalar(self, raw: str, line: _Line, column: int) -> str:
        self.note("block-scalar", line.number, column,
                  f"block scalar {raw[0]!r}; multi-line values belong in the body. "
                  "Read as its lines joined by newlines")
        taken: list[str] = []
        while (following := self.peek()) is not None and following.indent > line.indent:
            taken.append(following.content)
            self.position += 1
        return "\n".join(taken)

    def read_double_quoted(self, raw: str, line: _Line, column: int) -> object:
        value, end, bad_escape = _decode_double_quoted(raw)
        if end < 0:
            self.note("unterminated-quote", line.number, column,
                      "the closing double quote is not on this line (multi-line values are outside the subset); "
                      "read as the raw text")
            return raw
        if raw[end:].strip(" \t"):
            self.note("quoted-trailing-text", line.number, column + end,
                      "text after the closing quote; read as the whole raw text, quotes included "
                      "(a YAML parser rejects this line)")
            return raw
        if bad_escape >= 0:
            self.note("bad-escape", line.number, column + bad_escape,
                      "an unknown escape sequence; read as the raw text")
            return raw
        return value

    def read_single_quoted(self, raw: str, line: _Line, column: int) -> object:
        position = 1
        pieces = []
        while True:
            close = raw.find("'", position)
            if close < 0:
                self.note("unterminated-quote", line.number, column,
                          "the closing single quote is not on this line (multi-line values are outside "
                          "the subset); read as the raw text")
                return raw
            pieces.append(raw[position:close])
            if raw.startswith("''", close):
                pieces.append("'")
                position = close + 2
                continue
            end = close + 1
            break
        if raw[end:].strip(" \t"):
            self.note("quoted-trailing-text", line.number, column + end,
                      "text after the closing quote; read as the whole raw text, quotes included "
                      "(a YAML parser rejects this line)")
            return raw
        return "".join(pieces)


def _key_end(content: str) -> int:
    """The offset of the first colon followed by a space, a tab or the end of the line, or -1."""
    colon = content.find(":")
    while colon >= 0 and not (colon + 1 == len(content) or content[colon + 1] in " \t"):
        colon = content.find(":", colon + 1)
    return colon


def _is_integer(raw: str) -> bool:
    digits = raw[1:] if raw.startswith("-") else raw
    return digits.isascii() and digits.isdigit()


def _plain_scalar(raw: str) -> object:
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw in ("null", "~", ""):
        return None
    if len(raw) <= 4000 and _is_integer(raw):
        return int(raw)
    return raw


_SIMPLE_ESCAPES = {
    '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    # YAML's double-quoted escapes beyond JSON's
    "0": "\0", "a": "\a", "v": "\v", "e": "\x1b", " ": " ", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _decode_double_quoted(raw: str) -> tuple[str, int, int]:
    """Decode a double-quoted scalar starting at raw[0].

    Returns (value, offset after the closing quote or -1, offset of the first
    bad escape or -1)."""
    pieces: list[str] = []
    position = 1
    bad_escape = -1
    length = len(raw)
    while position < length:
        char = raw[position]
        if char == '"':
            return _join_surrogates("".join(pieces)), position + 1, bad_escape
        if char != "\\":
            next_special = _next_special(raw, position)
            pieces.append(raw[position:next_special])
            position = next_special
            continue
        if position + 1 >= length:
            return "", -1, bad_escape
        code = raw[position + 1]
        if code in _SIMPLE_ESCAPES:
            pieces.append(_SIMPLE_ESCAPES[code])
            position += 2
            continue
        if code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            digits = raw[position + 2: position + 2 + width]
            if len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits):
                number = int(digits, 16)
                if number <= 0x10FFFF:
                    pieces.append(chr(number))
                    position += 2 + width
                    continue
        if bad_escape < 0:
            bad_escape = position
        pieces.append(raw[position: position + 2])
        position += 2
    return "", -1, bad_escape


def _next_special(raw: str, position: int) -> int:
    quote = raw.find('"', position)
    backslash = raw.find("\\", position)
    candidates = [index for index in (quote, backslash) if index >= 0]
    return min(candidates) if candidates else len(raw)


def _join_surrogates(text: str) -> str:
    """Combine \\uD83D\\uDE00-style escaped surrogate pairs, as JSON does."""
    if not any("\ud800" <= char <= "\udfff" for char in text):
        return text
    try:
        return text.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        return text  # a lone surrogate stays as it is


# ---------------------------------------------------------------------------
# Writing the canonical form


_YAML_WORDS = {
    "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~",
}
# Letters in both cases spelled out, not `(?i)`: Python's case folding also
# takes the dotless i for an i. A value with a newline is quoted anyway.
_YAML_NUMBER_LIKE = patterns.compile(
    r"[-+]?(?:\.?[0-9]|\.(?:[iI][nN][fF]|[nN][aA][nN])\z)|0[xXoObB]|[0-9]{4}-[0-9]"
)


class UnrepresentableFrontmatter(ValueError):
    """A value that the frontmatter subset cannot hold (spec 3.1)."""


def _needs_quotes(text: str) -> bool:
    """Whether a string written plain would read back differently, here or in
    a YAML engine (canonical output is meant to read the same in both)."""
    if not text or text != text.strip(" \t"):
        return True
    if text[0] in _KEY_BAD_START or text.lower() in _YAML_WORDS:
        return True
    if _YAML_NUMBER_LIKE.match(text):
        return True
    if ": " in text or " #" in text or "\t" in text or text.endswith(":"):
        return True
    return any(_is_unsafe_char(char) for char in text)


def _is_unsafe_char(char: str) -> bool:
    if char in "\u2028\u2029\ufeff\x85":
        return True
    return unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn") or char == "\x7f"


def _quote(text: str) -> str:
    out = ['"']
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif _is_unsafe_char(char):
            code = ord(char)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _format_scalar(value: object, where: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _quote(value) if _needs_quotes(value) else value
    raise UnrepresentableFrontmatter(f"{where}: a {type(value).__name__} cannot be written in the frontmatter subset")


def _check_key(key: object, where: str) -> str:
    if not isinstance(key, str):
        raise UnrepresentableFrontmatter(f"{where}: key {key!r} is not a string")
    if (not key or key != key.strip() or key[0] in _KEY_BAD_START or ": " in key or key.endswith(":")
            or " #" in key or "\t" in key or any(_is_unsafe_char(char) for char in key)):
        raise UnrepresentableFrontmatter(f"{where}: key {key!r} cannot be written as a plain key")
    return key


def serialize_frontmatter(fields: dict) -> str:
    """The canonical subset form of `fields`, ``---`` lines included.

    Values may be None, booleans, integers, strings, non-empty lists of
    strings, and non-empty mappings of those scalars. Anything else raises
    `UnrepresentableFrontmatter` (a ValueError) naming the key.
    """
    if not isinstance(fields, dict):
        raise UnrepresentableFrontmatter("frontmatter must be a mapping")
    out = ["---"]
    for key, value in fields.items():
        _check_key(key, "frontmatter")
        if isinstance(value, list):
            if not value:
                raise UnrepresentableFrontmatter(f"{key}: an empty list cannot be written in the subset")
            out.append(f"{key}:")
            for item in value:
                if not isinstance(item, str):
                    raise UnrepresentableFrontmatter(f"{key}: list items must be strings, got {item!r}")
                out.append(f"  - {_format_scalar(item, key)}")
        elif isinstance(value, dict):
            if not value:
                raise UnrepresentableFrontmatter(f"{key}: an empty mapping cannot be written in the subset")
            out.append(f"{key}:")
            for sub_key, sub_value in value.items():
                _check_key(sub_key, key)
                if isinstance(sub_value, (list, dict)):
                    raise UnrepresentableFrontmatter(
                        f"{key}.{sub_key}: nesting deeper than one level is outside the subset")
                out.append(f"  {sub_key}: {_format_scalar(sub_value, f'{key}.{sub_key}')}")
        else:
            out.append(f"{key}: {_format_scalar(value, key)}")
    out.append("---")
    return "\n".join(out) + "\n"
