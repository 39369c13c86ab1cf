"""Text from adapters and files made safe to show: invisible and control characters escaped visibly.

An adapter's stderr, its `describe` name, an error message, a link text or
a file name can carry escape sequences that clear a terminal, retitle its
window, move the cursor over a verdict line, or make a JUnit file invalid
XML; bidirectional controls that make text read differently than it is
stored; and characters that show as nothing or as a plain space (zero-width
characters, tag characters, a no-break space, an ideographic space), so
that two different values look the same. `printable` is the one function
that makes such text safe, applied wherever text leaves the kit: the
validator's outputs, the runner's console, failure blocks, JSON and JUnit
reports, doctor, the results site and the GitHub job summary.

Each such character becomes a `\\uXXXX` escape (a character beyond U+FFFF
its UTF-16 pair, `\\udb40\\udc41`), which reads the same in a terminal and is
JSON's own escape, so applying `printable` to serialized JSON keeps it valid
and meaning the same data.
"""

from __future__ import annotations

from conformance import patterns

# C0 controls, DEL and C1 controls (0x9b is a one-byte CSI on some
# terminals); spaces that do not look like one or show as nothing (no-break
# space, Ogham space, Mongolian vowel separator, the U+2000 spaces, narrow
# no-break space, medium mathematical space, ideographic space, Hangul
# fillers); zero-width characters, the left-to-right and right-to-left
# marks, the Arabic letter mark, the bidirectional embeddings, overrides and
# isolates; word joiner and invisible operators; the line and paragraph
# separators; the byte-order mark; lone surrogates; the two non-characters
# XML forbids; the tag characters. (Inclusive ranges of code points.)
_UNSAFE = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0xA0), (0x61C, 0x61C), (0x115F, 0x1160), (0x1680, 0x1680),
           (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F),
           (0x3000, 0x3000), (0x3164, 0x3164), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xD800, 0xDFFF),
           (0xFFFE, 0xFFFF), (0xE0000, 0xE007F))


def _escaped(code: int) -> str:
    if code > 0xFFFF:  # as JSON writes it: a UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


# `str.translate` tables, one character at a time: linear in the text.
_ESCAPE_MULTILINE = {code: _escaped(code) for low, high in _UNSAFE for code in range(low, high + 1)}
_ESCAPE_KEEP_TABS = {**_ESCAPE_MULTILINE, ord("\n"): _escaped(ord("\n"))}
_ESCAPE_INLINE = {**_ESCAPE_KEEP_TABS, ord("\t"): _escaped(ord("\t"))}
_BACKTICKS = patterns.compile("`+")


def backtick_fence(text: str, at_least: int = 1) -> str:
    """A run of backticks longer than any in `text` (and at least `at_least` long): a code fence nothing in it closes."""
    return "`" * max(at_least, max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)


def printable(text: str, *, multiline: bool = False, tabs: bool = True) -> str:
    """`text` with every control, bidirectional, zero-width, tag and invisible
    space character escaped visibly.

    Tabs are kept unless `tabs` is false (a one-line report whose columns a
    tab would shift). Newlines are kept only with `multiline` (a stderr tail,
    a whole report); otherwise they are escaped, so that text from outside
    can never start a line of its own (a fake verdict line, for instance).
    """
    if text.isascii() and text.isprintable():  # the common case, at C speed: no control character
        return text
    if multiline:
        return text.replace("\r\n", "\n").translate(_ESCAPE_MULTILINE)
    return text.translate(_ESCAPE_KEEP_TABS if tabs else _ESCAPE_INLINE)
