"""Safe YAML reading for the sibling formats (memory diffs and REME frontmatter).

Both formats are YAML written by tools and people we do not trust, so the
reader here is deliberately narrow:

- the text is decoded as UTF-8 by us (a byte-order mark is dropped), never
  sniffed by the YAML library;
- the data is built straight from the parser's event stream, and a
  document with an anchor or an alias is refused at the first one. Aliases
  are never expanded, so an exponential "billion laughs" document costs at
  most one pass over its bytes;
- nesting deeper than `MAX_DEPTH` is refused as it is met (the builder keeps
  its own stack, so nothing recurses);
- only the JSON data model comes out: mappings with string keys, sequences,
  strings, integers, floats, booleans and null. Timestamps stay the text the
  author wrote (YAML would turn them into `datetime` objects, which neither
  JSON Schema nor a diagnostic message can use). Any other tag is refused.

The result carries the 1-based line and column of every key and sequence item
so that findings can point at the offending place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
)
from ruamel.yaml.nodes import ScalarNode

MAX_DEPTH = 64

Path = tuple  # a path into the loaded data: mapping keys and sequence indices

_TAG = "tag:yaml.org,2002:"
_TEXT_TAGS = {_TAG + "str", _TAG + "timestamp"}  # timestamps stay text
_PLAIN_SCALAR_TAGS = {_TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null"}


@dataclass(frozen=True)
class YamlProblem:
    """Why a YAML text was not loaded.

    `kind` is ``"encoding"``, ``"syntax"``, ``"alias"`` (an anchor or alias
    was refused) or ``"structure"`` (well-formed YAML outside the JSON data
    model, duplicate keys, several documents, too deep).
    """

    kind: str
    message: str
    line: int = 0
    column: int = 0


@dataclass
class LoadedYaml:
    """One YAML document as plain data, with where each part of it starts."""

    data: Any
    positions: dict = field(default_factory=dict)  # Path -> (line, column), 1-based

    def position(self, path: Path) -> tuple[int, int]:
        """The position of `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (1, 1))


def decode_utf8(raw: bytes) -> str | YamlProblem:
    """The text of `raw`, or a problem naming the first byte that is not UTF-8."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        column = len(raw[line_start:error.start].decode("utf-8", "replace")) + 1
        return YamlProblem("encoding", f"not UTF-8 text: byte 0x{raw[error.start]:02x} at offset {error.start} cannot be decoded",
                           line, column)
    return text.removeprefix("\ufeff")


def load_yaml(text: str, *, line_offset: int = 0) -> LoadedYaml | YamlProblem:
    """Load one YAML document from `text` safely; see the module docstring.

    `line_offset` is added to every reported line (for YAML embedded in a
    larger file, such as frontmatter). An empty document loads as ``None``.
    """
    yaml = YAML(typ="safe", pure=True)
    builder = _Builder(yaml)
    try:
        for event in yaml.parse(text):
            builder.feed(event)
    except _Refused as refused:
        return _shift(refused.problem, line_offset)
    except (YAMLError, ValueError, RecursionError) as error:
        return _shift(_syntax_problem(error), line_offset)
    return builder.result(line_offset)


def _syntax_problem(error: Exception) -> YamlProblem:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None)
    context = getattr(error, "context", None)
    if problem:
        message = f"{context}, {problem}" if context else str(problem)
    else:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    return YamlProblem("syntax", f"not well-formed YAML: {message}", line, column)


def _mark(event) -> tuple[int, int]:
    mark = event.start_mark
    return mark.line + 1, mark.column + 1


def _shift(problem: YamlProblem, offset: int) -> YamlProblem:
    if not offset or not problem.line:
        return problem
    return YamlProblem(problem.kind, problem.message, problem.line + offset, problem.column)


class _Refused(Exception):
    def __init__(self, problem: YamlProblem):
        self.problem = problem


def _refuse(kind: str, message: str, event) -> _Refused:
    return _Refused(YamlProblem(kind, message, *_mark(event)))


class _Builder:
    """Builds plain data straight from the parser's events, in one pass.

    Going from events rather than through ruamel's composer is what lets an
    alias be refused before anything is expanded, bounds the depth before
    anything recurses, and records each key's position on the way.
    """

    def __init__(self, yaml: YAML):
        self._yaml = yaml
        self._stack: list[tuple[Path, dict | list]] = []
        self._pending_key: list[str | None] = []  # per open mapping: the key waiting for its value
        self._documents = 0
        self._root: Any = None
        self._last_tag = ""
        self.positions: dict = {}

    def result(self, line_offset: int) -> LoadedYaml:
        positions = {path: (line + line_offset, column) for path, (line, column) in self.positions.items()}
        positions.setdefault((), (1 + line_offset, 1))
        return LoadedYaml(self._root, positions)

    def feed(self, event) -> None:
        if isinstance(event, AliasEvent):
            raise _refuse("alias", f"alias '*{event.anchor}' refused: anchors and aliases are not allowed "
                                   "(they are never expanded)", event)
        if isinstance(event, NodeEvent) and event.anchor is not None:
            raise _refuse("alias", f"anchor '&{event.anchor}' refused: anchors and aliases are not allowed", event)
        if isinstance(event, DocumentStartEvent):
            self._documents += 1
            if self._documents > 1:
                raise _refuse("structure", "more than one YAML document in the stream; expected exactly one", event)
        elif isinstance(event, ScalarEvent):
            self._place(self._scalar(event), event)
        elif isinstance(event, CollectionStartEvent):
            if len(self._stack) >= MAX_DEPTH:
                raise _refuse("structure", f"nesting deeper than {MAX_DEPTH} levels", event)
            mapping = isinstance(event, MappingStartEvent)
            self._check_collection_tag(event, _TAG + ("map" if mapping else "seq"))
            container: dict | list = {} if mapping else []
            path = self._place(container, event)
            self._stack.append((path, container))
            self._pending_key.append(None)
        elif isinstance(event, CollectionEndEvent):
            self._stack.pop()
            self._pending_key.pop()

    def _place(self, value: Any, event) -> Path:
        """Put `value` where the document is at, and return its path.

        In a mapping, scalars alternate between key and value; a key is
        remembered until its value arrives.
        """
        if not self._stack:
            self._root = value
            self.positions[()] = _mark(event)
            return ()
        path, container = self._stack[-1]
        if isinstance(container, list):
            here = path + (len(container),)
            container.append(value)
            self.positions[here] = _mark(event)
            return here
        key = self._pending_key[-1]
        if key is None:
            if not isinstance(event, ScalarEvent) or self._last_tag not in _TEXT_TAGS:
                raise _refuse("structure", "mapping keys must be plain strings", event)
            if value in container:
                raise _refuse("structure", f"duplicate key '{value}'", event)
            self._pending_key[-1] = value
            self.positions[path + (value,)] = _mark(event)
            return path + (value,)
        self._pending_key[-1] = None
        container[key] = value
        return path + (key,)

    def _check_collection_tag(self, event, standard: str) -> None:
        tag = _event_tag(event)
        if tag is not None and _tag_name(tag) not in ("!", standard):
            raise _refuse("structure", f"tag {_tag_name(tag)!r} is not allowed (only plain JSON-like data)", event)

    def _scalar(self, event) -> Any:
        tag = _event_tag(event)
        if tag is None or _tag_name(tag) == "!":
            tag = self._yaml.resolver.resolve(ScalarNode, event.value, event.implicit)
        name = _tag_name(tag)
        self._last_tag = name
        if name in _TEXT_TAGS:
            return event.value
        if name in _PLAIN_SCALAR_TAGS:
            node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            try:
                return self._yaml.constructor.construct_object(node)
            except (YAMLError, ValueError) as error:
                raise _refuse("structure", f"cannot read scalar {event.value!r}: {error}", event) from None
        raise _refuse("structure", f"tag {name!r} is not allowed (only plain JSON-like data)", event)




def _event_tag(event) -> Any:
    # ruamel.yaml 0.18 moved the explicit tag to `ctag`; older releases have `tag`.
    return getattr(event, "ctag", None) if hasattr(event, "ctag") else getattr(event, "tag", None)


def _tag_name(tag: Any) -> str:
    return str(getattr(tag, "value", tag))
