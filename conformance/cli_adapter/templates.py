"""Command templates: strings with `{placeholder}` fields, and `if` tables.

A template string is split into literal text and fields once, when the
configuration is loaded, so that every mistake (an unknown placeholder, an
unbalanced brace) is found before anything runs. Rendering never re-parses
what it substitutes: a value is one argv element, whatever characters it
holds, and in a `shell = true` template it is quoted for `/bin/sh`.

An argv template is a list of items: a string (one argument), an `if`
table, `{if = "why", then = ["--why", "{why}"], else = [...]}`, whose
branch is chosen by whether the op argument is given (and not false), or
an `each` table, `{each = "set", args = ["--set-json", "{key}={value_json}"]}`,
whose `args` are repeated for every key of an object argument (every item
of a list), with `{key}` (the key, or the item's position), `{value}` (a
string as it is, anything else as JSON) and `{value_json}` (always JSON).
"""

from __future__ import annotations

import json
import shlex
import string
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Union

from conformance import patterns

_NAME = patterns.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_")


class TemplateError(ValueError):
    """A template string or item that cannot be used; the message says why."""


@dataclass(frozen=True)
class Text:
    """One template string: literal text and placeholder fields, in order."""

    source: str
    parts: tuple[tuple[str, str | None], ...]  # (literal, field name or None)

    @classmethod
    def parse(cls, source: str) -> Text:
        parts = []
        try:
            parsed = list(string.Formatter().parse(source))
        except ValueError as error:
            raise TemplateError(f"{source!r}: {error} (write {{{{ and }}}} for literal braces)") from None
        for literal, field, spec, conversion in parsed:
            if field is not None:
                if not _NAME.fullmatch(field):
                    raise TemplateError(f"{source!r}: {{{field}}} is not a placeholder name")
                if spec or conversion:
                    raise TemplateError(f"{source!r}: {{{field}}} takes no conversion or format")
            parts.append((literal, field))
        return cls(source, tuple(parts))

    @property
    def fields(self) -> set[str]:
        return {field for _, field in self.parts if field is not None}

    def render(self, values: Mapping[str, str], quote: Callable[[str], str] = str) -> str:
        return "".join(literal + ("" if field is None else quote(values[field])) for literal, field in self.parts)


@dataclass(frozen=True)
class Choice:
    """An `if` table: `then` when the argument `condition` is given and not false, else `otherwise`."""

    condition: str
    then: tuple[Item, ...]
    otherwise: tuple[Item, ...] = ()


@dataclass(frozen=True)
class Each:
    """An `each` table: `args` once per key of an object argument (per item of a list)."""

    argument: str
    args: tuple[Item, ...]


Item = Union[Text, Choice, Each]
# The placeholders an `each` table adds for its `args`.
EACH_FIELDS = ("key", "value", "value_json")


def parse_argv(items: Iterable[object]) -> tuple[Item, ...]:
    """A TOML array of strings and `if` tables as template items."""
    parsed: list[Item] = []
    for item in items:
        if isinstance(item, str):
            parsed.append(Text.parse(item))
        elif isinstance(item, dict) and "each" in item:
            parsed.append(_parse_each(item))
        elif isinstance(item, dict):
            parsed.append(_parse_choice(item))
        else:
            raise TemplateError(f"{item!r} is neither a string nor an `if` or `each` table")
    return tuple(parsed)


def _parse_choice(table: dict) -> Choice:
    unknown = sorted(set(table) - {"if", "then", "else"})
    if unknown:
        raise TemplateError(f"an `if` table has only the keys if, then, else; found {', '.join(unknown)}")
    condition = table.get("if")
    if not isinstance(condition, str) or not _NAME.fullmatch(condition):
        raise TemplateError("an `if` table needs `if = \"ARGUMENT\"`, an op argument's name")
    branches = []
    for key in ("then", "else"):
        branch = table.get(key, [])
        if not isinstance(branch, list):
            raise TemplateError(f"`{key}` of an `if` table is a list of arguments")
        branches.append(parse_argv(branch))
    if not any(branches):
        raise TemplateError("an `if` table needs `then` or `else`")
    return Choice(condition, *branches)


def _parse_each(table: dict) -> Each:
    unknown = sorted(set(table) - {"each", "args"})
    if unknown:
        raise TemplateError(f"an `each` table has only the keys each, args; found {', '.join(unknown)}")
    argument = table.get("each")
    if not isinstance(argument, str) or not _NAME.fullmatch(argument):
        raise TemplateError("an `each` table needs `each = \"ARGUMENT\"`, the name of an object or list argument")
    args = table.get("args")
    if not isinstance(args, list) or not args:
        raise TemplateError("`args` of an `each` table is a non-empty list of arguments, repeated for every "
                            "key (or item), e.g. [\"--set-json\", \"{key}={value_json}\"]")
    parsed = parse_argv(args)
    if any(isinstance(item, Each) for item in parsed):
        raise TemplateError("an `each` table cannot hold another `each` table")
    return Each(argument, parsed)


def fields_of(items: Iterable[Item]) -> set[str]:
    """Every placeholder the items use, in either branch of their `if` tables
    (not the ones an `each` table adds for its own `args`)."""
    names: set[str] = set()
    for item in items:
        if isinstance(item, Text):
            names |= item.fields
        elif isinstance(item, Each):
            names |= fields_of(item.args) - set(EACH_FIELDS)
        else:
            names |= fields_of(item.then) | fields_of(item.otherwise)
    return names


def conditions_of(items: Iterable[Item]) -> set[str]:
    """The argument names the items' `if` tables test."""
    names: set[str] = set()
    for item in items:
        if isinstance(item, Choice):
            names |= {item.condition} | conditions_of(item.then) | conditions_of(item.otherwise)
        elif isinstance(item, Each):
            names |= conditions_of(item.args)
    return names


def iterated_of(items: Iterable[Item]) -> set[str]:
    """The argument names the items' `each` tables repeat over."""
    names: set[str] = set()
    for item in items:
        if isinstance(item, Each):
            names.add(item.argument)
        elif isinstance(item, Choice):
            names |= iterated_of(item.then) | iterated_of(item.otherwise)
    return names


def entries(value: object, spell: Callable[[object], str]) -> list[dict[str, str]]:
    """The `{key}`, `{value}`, `{value_json}` of each repetition over an argument's value:
    an object's keys in order, a list's items by position; nothing for an absent value."""
    if value is None:
        return []
    pairs = value.items() if isinstance(value, dict) else enumerate(value if isinstance(value, list) else [value])
    return [{"key": str(key), "value": spell(item), "value_json": json.dumps(item, ensure_ascii=False,
                                                                              separators=(",", ":"))}
            for key, item in pairs]


def render_argv(items: Iterable[Item], values: Mapping[str, str], given: Callable[[str], bool],
                each: Callable[[str], list[dict[str, str]]] = lambda name: []) -> list[str]:
    """The argv list: one element per string item, `if` tables resolved, `each` tables repeated."""
    argv: list[str] = []
    for item in items:
        if isinstance(item, Text):
            argv.append(item.render(values))
        elif isinstance(item, Each):
            for entry in each(item.argument):
                argv.extend(render_argv(item.args, {**values, **entry}, given, each))
        else:
            argv.extend(render_argv(item.then if given(item.condition) else item.otherwise, values, given, each))
    return argv


def render_shell(template: Text, values: Mapping[str, str]) -> str:
    """A `/bin/sh` command line with every substituted value quoted."""
    return template.render(values, shlex.quote)


def _placeholder_at(source: str, index: int) -> str | None:
    """The `{name}` placeholder starting at `index`, or None."""
    if not source.startswith("{", index):
        return None
    end = index + 1
    while end < len(source) and source[end] in _NAME_CHARS:
        end += 1
    name = source[index + 1:end]
    return source[index:end + 1] if source.startswith("}", end) and _NAME.fullmatch(name) else None


def shell_braces(source: str) -> str:
    """A shell template with the braces of `{ ...; }` groups written `{{` and `}}`, so
    that only `{name}` is a placeholder: a group opens with `{` and a blank (a
    placeholder name never starts with one) and closes with a `}` that ends no
    placeholder. Braces already doubled stay as they are."""
    out, index = [], 0
    while index < len(source):
        char = source[index]
        if source.startswith(("{{", "}}"), index):
            out.append(source[index:index + 2])
            index += 2
            continue
        placeholder = _placeholder_at(source, index)
        if placeholder:
            out.append(placeholder)
            index += len(placeholder)
            continue
        if char == "{" and source[index + 1: index + 2] in (" ", "\t", "\n"):
            out.append("{{")
        elif char == "}":
            out.append("}}")
        else:
            out.append(char)
        index += 1
    return "".join(out)


class _Quotes:
    """/bin/sh quoting, followed one character at a time: `inside` is the open quote ("" outside)."""

    def __init__(self):
        self.inside, self.escaped = "", False

    def feed(self, char: str) -> bool:
        """Whether `char` is shell syntax: not quoted, not escaped, not itself a quote or an escape."""
        if self.escaped:
            self.escaped = False
        elif char == "\\" and self.inside != "'":
            self.escaped = True
        elif char in "'\"" and self.inside in ("", char):
            self.inside = "" if self.inside else char
        else:
            return not self.inside
        return False


def pipelines(template: Text) -> bool:
    """Whether a shell template pipes one command into another (an unquoted `|`, not `||`)."""
    quotes = _Quotes()
    text = "".join(literal + ("x" if field else "") for literal, field in template.parts)
    return any(quotes.feed(char) and char == "|" and "|" not in (text[index - 1: index], text[index + 1: index + 2])
               for index, char in enumerate(text))


def quoted_fields(template: Text) -> list[str]:
    """Placeholders that sit inside quotes in a shell template (they would be quoted twice)."""
    found, quotes = [], _Quotes()
    for literal, field in template.parts:
        for char in literal:
            quotes.feed(char)
        if field is not None and quotes.inside:
            found.append(field)
    return found
