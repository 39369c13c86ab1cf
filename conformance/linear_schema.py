"""JSON-schema patterns on RE2: the `pattern` and `patternProperties` keywords in time linear in the text.

python-jsonschema applies a schema's `pattern` with Python's `re.search`, to
whatever an adapter or a file holds (issue 24). `validator(schema)` builds a
Draft 2020-12 validator whose `pattern`, `patternProperties` (and the
`additionalProperties` that depends on it) search with RE2 instead, with
jsonschema's own error messages.

A schema's patterns are written in Python's syntax, as the schemas always
were: `translate(source)` rewrites one into RE2 syntax that says the same
thing of every text, from the parse tree of Python's own parser. Each class
is spelled out as Python reads it (`\\d` any Unicode decimal digit, `\\s` any
character `str.isspace` accepts, `\\w` what `str.isalnum` accepts and `_`),
and `$` (the end, or before a final newline) becomes ``(?:\\n?\\z)``, which
says the same thing to a search where nothing follows it. What RE2 cannot
say (look-around, back-references, `\\b` on Unicode words, possessive and
atomic repeats, flags, a `$` with something after it) is refused with
`patterns.error`, when the validator is built: a schema either runs linear
or does not run.

A text with a lone surrogate (a JSON ``"\\ud800"`` escape) cannot be handed to
RE2, which takes UTF-8: each surrogate is searched as a stand-in character
that every class of the pattern treats alike.
"""

from __future__ import annotations

from functools import lru_cache
from re import _constants as C  # noqa: N812 (the parser's opcodes; the kit's source, not a text, is parsed)
from re import _parser
from typing import Callable, Iterator

from conformance import patterns

_MAX = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)
_STAND_INS = (0xFFFF, 0x10FFFF, 0xFFFE)

Ranges = tuple[tuple[int, int], ...]


def _ranges_where(test: Callable[[str], bool], below: int) -> Ranges:
    found: list[tuple[int, int]] = []
    for char in filter(test, map(chr, range(below))):  # the loop in C: tens of milliseconds for all of Unicode
        code = ord(char)
        if found and found[-1][1] == code - 1:
            found[-1] = (found[-1][0], code)
        else:
            found.append((code, code))
    return tuple(found)


@lru_cache(maxsize=None)
def _category(name: str) -> Ranges:
    """Python's Unicode classes, as `_sre` reads them (str.isspace, str.isdecimal, str.isalnum or '_')."""
    if name == "space":
        return _ranges_where(str.isspace, 0x3001)  # the last whitespace character is U+3000
    if name == "digit":
        return _ranges_where(str.isdecimal, 0x20000)  # the last decimal digit is below U+20000
    return _normal(_ranges_where(str.isalnum, _MAX + 1) + ((0x5F, 0x5F),))


def _normal(ranges) -> Ranges:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return tuple(out)


_CATEGORIES = {
    C.CATEGORY_DIGIT: ("digit", False), C.CATEGORY_NOT_DIGIT: ("digit", True),
    C.CATEGORY_SPACE: ("space", False), C.CATEGORY_NOT_SPACE: ("space", True),
    C.CATEGORY_WORD: ("word", False), C.CATEGORY_NOT_WORD: ("word", True),
}


def _class_ranges(items) -> Ranges:
    ranges, negated = [], False
    for op, av in items:
        if op is C.NEGATE:
            negated = True
        elif op is C.LITERAL:
            ranges.append((av, av))
        elif op is C.RANGE:
            ranges.append(av)
        elif op is C.CATEGORY and av in _CATEGORIES:
            name, opposite = _CATEGORIES[av]
            ranges.extend(_complement(_category(name)) if opposite else _category(name))
        else:
            raise patterns.error(f"class item {op} {av!r} has no RE2 spelling")
    normal = _normal(ranges)
    return _complement(normal) if negated else normal


def _char(code: int) -> str:
    """A character as both engines read it: itself, or `\\xHH` for ASCII punctuation and controls."""
    char = chr(code)
    if char.isascii():
        return char if char.isalnum() else f"\\x{code:02x}"
    return char  # no character past ASCII is special to either engine


def _without_surrogates(ranges: Ranges) -> Ranges:
    """RE2 reads UTF-8, which has no surrogates (a text that holds one is searched with a stand-in)."""
    low, high = _SURROGATES
    out = []
    for start, end in ranges:
        if end < low or start > high:
            out.append((start, end))
            continue
        if start < low:
            out.append((start, low - 1))
        if end > high:
            out.append((high + 1, end))
    return tuple(out)


def _class(ranges: Ranges) -> str:
    ranges = _without_surrogates(ranges)
    if not ranges:
        return "[^\\x00-\U0010ffff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _char(ranges[0][0])
    return "[" + "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges) + "]"


class _Translation:
    def __init__(self, source: str):
        tree = _parser.parse(source)
        if tree.state.flags & ~C.SRE_FLAG_UNICODE:
            raise patterns.error(f"{source!r}: flags have no exact RE2 spelling here")
        self.names = {number: name for name, number in tree.state.groupdict.items()}
        self.classes: list[Ranges] = []
        self.text = self.sequence(list(tree), tail=True)
        self.stand_in = self._stand_in()

    def sequence(self, items, tail: bool) -> str:
        return "".join(self.item(op, av, tail and index == len(items) - 1) for index, (op, av) in enumerate(items))

    def item(self, op, av, tail: bool) -> str:
        if op is C.LITERAL:
            self.classes.append(((av, av),))
            return _char(av)
        if op in (C.NOT_LITERAL, C.ANY, C.IN):
            ranges = {C.NOT_LITERAL: lambda: _complement(((av, av),)),
                      C.ANY: lambda: _complement(((10, 10),)),
                      C.IN: lambda: _class_ranges(av)}[op]()
            self.classes.append(ranges)
            return _class(ranges)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, inner = av
            if low > 1000 or (high != C.MAXREPEAT and high > 1000):
                raise patterns.error(f"a repeat of {low}..{high} is past RE2's limit of 1000")
            body = "(?:" + self.sequence(list(inner), tail=False) + ")"
            count = ("*" if low == 0 else "+" if low == 1 else f"{{{low},}}") if high == C.MAXREPEAT else \
                "?" if (low, high) == (0, 1) else f"{{{low}}}" if low == high else f"{{{low},{high}}}"
            return body + count + ("?" if op is C.MIN_REPEAT else "")
        if op is C.SUBPATTERN:
            group, add_flags, del_flags, inner = av
            if add_flags or del_flags:
                raise patterns.error("inline flags have no exact RE2 spelling here")
            body = self.sequence(list(inner), tail)
            if group is None:
                return f"(?:{body})"
            return f"(?P<{self.names[group]}>{body})" if group in self.names else f"({body})"
        if op is C.BRANCH:
            return "(?:" + "|".join(self.sequence(list(branch), tail) for branch in av[1]) + ")"
        if op is C.AT:
            if av is C.AT_BEGINNING or av is C.AT_BEGINNING_STRING:
                return "\\A"
            if av is C.AT_END_STRING:
                return "\\z"
            if av is C.AT_END and tail:
                return "(?:\\n?\\z)"  # before a final newline, or at the end: the same to a search
        raise patterns.error(f"{op} {av!r} has no RE2 spelling that reads every text alike")

    def _stand_in(self) -> int | None:
        """A character that each class holds exactly when it holds the surrogates."""
        low, high = _SURROGATES
        for stand_in in _STAND_INS:
            fits = True
            for ranges in self.classes:
                inside = [r for r in ranges if r[0] <= high and r[1] >= low]
                whole = len(inside) == 1 and inside[0][0] <= low and inside[0][1] >= high
                if inside and not whole:
                    return None  # the pattern tells surrogates apart: no stand-in fits
                holds = any(r[0] <= stand_in <= r[1] for r in ranges)
                if holds != whole:
                    fits = False
                    break
            if fits:
                return stand_in
        return None


_SURROGATE_TABLE = {code: None for code in range(_SURROGATES[0], _SURROGATES[1] + 1)}


class Searcher:
    """`search(text) -> bool`: whether Python's `re.search(source, text)` finds a match, in linear time."""

    __slots__ = ("source", "pattern", "_stand_in")

    def __init__(self, source: str):
        translation = _Translation(source)
        self.source = source
        self.pattern = patterns.compile(translation.text)
        self._stand_in = translation.stand_in

    def search(self, text: str) -> bool:
        try:
            return self.pattern.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8
            if self._stand_in is None:
                raise patterns.error(f"{self.source!r} tells surrogates apart; RE2 cannot search {text!r}") from None
            stand_in = chr(self._stand_in)
            return self.pattern.search(text.translate({code: stand_in for code in _SURROGATE_TABLE})) is not None


def translate(source: str) -> str:
    """`source` (Python syntax) in RE2 syntax, for a search; `patterns.error` if RE2 cannot say it."""
    return _Translation(source).text


@lru_cache(maxsize=256)
def searcher(source: str) -> Searcher:
    return Searcher(source)


# -- the keywords --------------------------------------------------------------------


def _pattern(validator, patrn, instance, schema):
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not searcher(patrn).search(instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        found = searcher(pattern)
        for key, value in instance.items():
            if found.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator, additional, instance, schema):
    from jsonschema._keywords import additionalProperties

    if "patternProperties" not in schema or not validator.is_type(instance, "object"):
        yield from additionalProperties(validator, additional, instance, schema)
        return
    from jsonschema.exceptions import ValidationError

    properties = schema.get("properties", {})
    searchers = [searcher(pattern) for pattern in schema["patternProperties"]]
    extras = {key for key in instance
              if key not in properties and not any(found.search(key) for found in searchers)}
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        verb = "does" if len(extras) == 1 else "do"
        joined = ", ".join(repr(each) for each in sorted(extras))
        shown = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
        yield ValidationError(f"{joined} {verb} not match any of the regexes: {shown}")


def _schema_patterns(node) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        if isinstance(node.get("patternProperties"), dict):
            if "unevaluatedProperties" in node:
                raise patterns.error("unevaluatedProperties beside patternProperties would search with re")
            yield from node["patternProperties"]
        for value in node.values():
            yield from _schema_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schema_patterns(value)


@lru_cache(maxsize=1)
def validator_class():
    """Draft 2020-12 with the pattern keywords on RE2."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
    })


def validator(schema: dict, **options):
    """A validator of `schema` whose patterns all run on RE2 (each is translated now: `patterns.error`
    if one cannot be)."""
    for source in _schema_patterns(schema):
        searcher(source)
    return validator_class()(schema, **options)
