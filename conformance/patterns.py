"""Regular expressions on a linear-time engine: every pattern the kit applies to text it did not write.

Entry files, session files, vector files and an adapter's answers and output
are hostile text. Python's `re` backtracks, so one unlucky pattern turns a
40 KB entry into minutes of CPU (issue 24). Patterns compiled here run on
RE2, whose time is linear in the text whatever the pattern, so that no
pattern of the kit needs to be proved safe one by one.

A `Pattern` takes no `pos`: RE2's Python binding encodes the whole text to
UTF-8 at each call, so a scanner that called `match(text, pos)` once per
line would be quadratic. Callers pass the piece they mean (a line, a value).

RE2's syntax is Python's minus look-around and back-references, and with
`\\z` for the end of the text. Its `\\d`, `\\w`, `\\s` and `\\b` are ASCII
(`\\s` without `\\v`) and its `$` without `(?m)` is the very end of the
text, not also before a final newline; the kit's patterns spell out the
class they mean so that both engines read them alike (tests/patterns/).
"""

from __future__ import annotations

from typing import Callable, Iterator

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a pattern error is raised, not also printed by the C++ library


class Pattern:
    """A compiled RE2 pattern, with the methods of `re.Pattern` minus positions."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, source: str):
        self.pattern = source
        self._compiled = re2.compile(source, _OPTIONS)

    def __repr__(self) -> str:
        return f"patterns.compile({self.pattern!r})"

    @property
    def groups(self) -> int:
        return self._compiled.groups

    def match(self, text: str):
        return self._compiled.match(text)

    def fullmatch(self, text: str):
        return self._compiled.fullmatch(text)

    def search(self, text: str):
        return self._compiled.search(text)

    def finditer(self, text: str) -> Iterator:
        return self._compiled.finditer(text)

    def findall(self, text: str) -> list:
        return self._compiled.findall(text)

    def sub(self, replacement: str | Callable, text: str, count: int = 0) -> str:
        return self._compiled.sub(replacement, text, count)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self._compiled.split(text, maxsplit)


def compile(source: str) -> Pattern:  # noqa: A001 (the name every reader of `re` expects)
    """Compile `source` (RE2 syntax; flags inline, as `(?i)` or `(?m)`); `re2.error` if RE2 refuses it."""
    return Pattern(source)


error = re2.error
