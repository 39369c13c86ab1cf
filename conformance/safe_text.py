"""Text from adapters and files made safe to show: control characters escaped visibly.

An adapter's stderr, its `describe` name or an error message can carry
escape sequences that clear a terminal, retitle its window, move the cursor
over a verdict line, or make a JUnit file invalid XML. `printable` is applied
wherever such text leaves the kit (the console, JUnit, JSON and doctor
output, and the protocol client's free-text fields).

Each unsafe character becomes a `\\uXXXX` escape, which reads the same in a
terminal and is JSON's own escape, so applying `printable` to serialized
JSON keeps it valid and meaning the same data.
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls (0x9b is a one-byte CSI on some
# terminals), the bidirectional overrides and isolates (text that reads
# differently than it is stored), the line and paragraph separators, lone
# surrogates and the two non-characters XML forbids.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
_UNSAFE_INLINE = re.compile(f"[\n{_UNSAFE}]")
_UNSAFE_MULTILINE = re.compile(f"[{_UNSAFE}]")


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable(text: str, *, multiline: bool = False) -> str:
    """`text` with every control character escaped visibly.

    Tabs are kept. Newlines are kept only with `multiline` (a stderr tail,
    a whole report); otherwise they are escaped, so that text from outside
    can never start a line of its own (a fake verdict line, for instance).
    """
    if multiline:
        return _UNSAFE_MULTILINE.sub(_escape, text.replace("\r\n", "\n"))
    return _UNSAFE_INLINE.sub(_escape, text)
