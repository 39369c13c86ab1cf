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
text, not also before a final newline. So the kit's patterns spell out the
class they mean and write `\\z` for the end, and both engines read them
alike (tests/patterns/ compares them, `\\z` read as Python's `\\Z`).
"""

from __future__ import annotations

from typing import Callable, Iterator

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a pattern error is raised, not also printed by the C++ library


class Pattern:
    """A compiled RE2 pattern, with the methods of `re.Pattern` minus positions.

    `sub` takes a function or a literal string: a backslash in the string is
    refused rather than read as a template, so that no replacement means
    something else here than it would in `re`.
    """

    __slots__ = ("pattern", "_compiled")

    def __init__(self, source: str):
        self.pattern = source
        try:
            self._compiled = re2.compile(source, _OPTIONS)
        except re2.error as refused:
            reason = refused.args[0] if refused.args else "refused"
            reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
            raise error(f"{reason} (RE2 syntax: no look-around, no back-references)") from None

    def __repr__(self) -> str:
        return f"patterns.compile({self.pattern!r})"

    @property
    def groups(self) -> int:
        return self._compiled.groups

    def match(self, text: str):
        return self._first(self._compiled.match, text)

    def fullmatch(self, text: str):
        return self._first(self._compiled.fullmatch, text)

    def search(self, text: str):
        return self._first(self._compiled.search, text)

    def finditer(self, text: str) -> Iterator:
        stand_in = _encodable(text)
        if stand_in is text:
            return self._compiled.finditer(text)
        return (_Match(found, text) for found in self._compiled.finditer(stand_in))

    def findall(self, text: str) -> list:
        groups = self.groups
        if groups == 0:
            return [match.group() for match in self.finditer(text)]
        if groups == 1:
            return [match.group(1) or "" for match in self.finditer(text)]
        return [match.groups("") for match in self.finditer(text)]

    def sub(self, replacement: str | Callable, text: str, count: int = 0) -> str:
        if isinstance(replacement, str):
            if "\\" in replacement:
                raise ValueError("patterns.sub takes a function for a replacement that uses the match")
            literal = replacement
            replacement = lambda _match: literal  # noqa: E731
        pieces, end = [], 0
        for number, match in enumerate(self.finditer(text)):
            if count and number == count:
                break
            pieces += (text[end:match.start()], replacement(match))
            end = match.end()
        pieces.append(text[end:])
        return "".join(pieces)

    def split(self, text: str) -> list[str]:
        pieces, end = [], 0
        for match in self.finditer(text):
            pieces.append(text[end:match.start()])
            pieces += match.groups()
            end = match.end()
        pieces.append(text[end:])
        return pieces

    def _first(self, method, text: str):
        try:
            return method(text)
        except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot carry
            found = method(_encodable(text))
            return found and _Match(found, text)


def _encodable(text: str) -> str:
    """`text` itself when RE2 can take it, else a stand-in of the same length
    with each lone surrogate as U+FFFD, which every kit pattern treats alike:
    matched by `.` and negated classes, by nothing else."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.translate(_SURROGATES)
    return text


_SURROGATES = {code: "\ufffd" for code in range(0xD800, 0xE000)}


class _Match:
    """A match found in a stand-in text, read from the caller's text (lone surrogates kept)."""

    __slots__ = ("_found", "string")

    def __init__(self, found, string: str):
        self._found = found
        self.string = string

    def span(self, group: int = 0) -> tuple[int, int]:
        return self._found.span(group)

    def start(self, group: int = 0) -> int:
        return self._found.start(group)

    def end(self, group: int = 0) -> int:
        return self._found.end(group)

    def __getitem__(self, group: int) -> str | None:
        start, end = self._found.span(group)
        return None if start < 0 else self.string[start:end]

    def group(self, *groups: int):
        if len(groups) > 1:
            return tuple(self[group] for group in groups)
        return self[groups[0] if groups else 0]

    def groups(self, default=None) -> tuple:
        return tuple(default if (value := self[group]) is None else value
                     for group in range(1, self._found.re.groups + 1))


def compile(source: str) -> Pattern:  # noqa: A001 (the name every reader of `re` expects)
    """Compile `source` (RE2 syntax; flags inline, as `(?i)` or `(?m)`); `error` if RE2 refuses it."""
    return Pattern(source)


class error(ValueError):  # noqa: N801 (named as `re.error` is)
    """A pattern RE2 refuses, with its reason."""

# The characters Python's `\s` matches in a str pattern (those `str.isspace()`
# accepts), as the body of a class: `f"[{PY_SPACE}]"` reads alike in both engines.
PY_SPACE = "\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
