"""Line and column of a character offset, from one index per text.

Counting lines from the start of the text for every finding costs the length
of the text each time: a file with thousands of links or secrets would take
quadratic time. A `LineIndex` is made once per text and remembers every place
it has answered, so each question counts line breaks only from the nearest
known place before it: findings asked in file order cost one pass over the
text in all, and no table of every line is ever built (a hostile file of
four million empty lines costs no memory).

Lines end at ``\\r\\n``, ``\\n`` or a lone ``\\r``, as the entry reader's do;
columns count code points from 1.
"""

from __future__ import annotations

from bisect import bisect_right


class LineIndex:
    """Line and column of offsets in one text."""

    __slots__ = ("_text", "_offsets", "_lines", "_starts", "_lone_breaks")

    def __init__(self, text: str):
        self._text = text
        self._lone_breaks = "\r" in text  # else every line ends at "\n", and one count says it
        # Known places, sorted by offset: the line of each and where that line starts.
        self._offsets = [0]
        self._lines = [1]
        self._starts = [0]

    def place(self, offset: int) -> tuple[int, int]:
        """(line, column), both 1-based, of a character offset."""
        text = self._text
        if offset > len(text):
            offset = len(text)
        known = bisect_right(self._offsets, offset) - 1
        base, line, start = self._offsets[known], self._lines[known], self._starts[known]
        if offset > base:
            if self._lone_breaks:
                breaks = (text.count("\n", base, offset) + text.count("\r", base, offset)
                          - text.count("\r\n", base, offset))
                if base and text[base] == "\n" and text[base - 1] == "\r":
                    breaks -= 1  # the "\n" of a pair whose "\r" lies before the known place
                last_break = max(text.rfind("\n", base, offset), text.rfind("\r", base, offset))
            else:
                breaks = text.count("\n", base, offset)
                last_break = text.rfind("\n", base, offset) if breaks else -1
            line += breaks
            if last_break >= 0:
                start = last_break + 1
            self._offsets.insert(known + 1, offset)
            self._lines.insert(known + 1, line)
            self._starts.insert(known + 1, start)
        return line, offset - start + 1
