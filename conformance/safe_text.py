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

import re

# C0 controls, DEL and C1 controls (0x9b is a one-byte CSI on some
# terminals); spaces that do not look like one or show as nothing (no-break
# space, Ogham space, Mongolian vowel separator, the U+2000 spaces, narrow
# no-break space, medium mathematical space, ideographic space, Hangul
# fillers); zero-width characters, the left-to-right and right-to-left
# marks, the Arabic letter mark, the bidirectional embeddings, overrides and
# isolates; word joiner and invisible operators; the line and paragraph
# separators; the byte-order mark; lone surrogates; the two non-characters
# XML forbids; the tag characters.
_UNSAFE = ("\x00-\x08\x0b-\x1f\x7f-\xa0\u061c\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f"
           "\u205f-\u2064\u2066-\u206f\u3000\u3164\ufeff\uffa0\ud800-\udfff\ufffe\uffff\U000e0000-\U000e007f")
# One character class each (no repetition): linear in the text.
_UNSAFE_INLINE = re.compile(f"[\n\t{_UNSAFE}]")
_UNSAFE_KEEP_TABS = re.compile(f"[\n{_UNSAFE}]")
_UNSAFE_MULTILINE = re.compile(f"[{_UNSAFE}]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # as JSON writes it: a UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


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
        return _UNSAFE_MULTILINE.sub(_escape, text.replace("\r\n", "\n"))
    return (_UNSAFE_KEEP_TABS if tabs else _UNSAFE_INLINE).sub(_escape, text)
