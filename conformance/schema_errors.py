"""jsonschema's errors for the few keywords the kit's schemas use, without jsonschema.

jsonschema and the libraries it imports cost about 70 ms of every run's
start, more than checking a hundred entries. `error_finder(schema)` gives a
function that finds, in a document, the errors jsonschema's Draft 2020-12
validator finds (with `conformance.linear_schema`'s patterns), in the order
it yields them, each as `(path, keyword, expected, missing)`: the path into
the document, the keyword that failed, the keyword's value in the schema, and
for `required` the missing property. It answers None where it is not sure
(a float where jsonschema's equality or its integers differ from Python's, a
list or mapping compared with `const` or `enum`) and always for a schema with
a keyword it does not read; the caller then asks jsonschema.
`tests/validator/test_schema_precheck.py` holds it to jsonschema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from conformance import linear_schema


class SchemaError(NamedTuple):
    path: tuple                # into the document: keys and list indexes
    keyword: str               # the keyword that failed
    expected: object           # its value in the schema
    missing: str | None = None  # `required`: the property


Errors = list[SchemaError] | None  # None: not sure
Finder = Callable[[object, tuple], Errors]

# Keywords that say nothing of validity (annotations), and those read here.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs"})
_READ = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties", "items",
                   "minimum", "pattern", "allOf", "if", "then", "else", "$ref"})

_TYPES: dict[str, Callable[[object], bool | None]] = {
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    # jsonschema takes 2.0 for an integer: a float is not judged here.
    "integer": lambda value: None if isinstance(value, float) else isinstance(value, int) and not isinstance(value, bool),
}


class _Unsupported(Exception):
    """The schema uses a keyword this reading does not know."""


def error_finder(schema: dict) -> Callable[[object], list[SchemaError] | None]:
    """The errors of a document against `schema` (draft 2020-12, `$ref`s into its own `$defs`), or None."""
    try:
        find = _compile(schema, schema)
    except _Unsupported:
        return lambda document: None
    return lambda document: find(document, ())


def _compile(node: object, root: dict) -> Finder:
    if node is True:
        return lambda value, path: []
    if not isinstance(node, dict) or not set(node) <= _ANNOTATIONS | _READ:
        raise _Unsupported(node)
    # jsonschema applies a schema's keywords in the order the schema has them.
    return _together([_KEYWORDS[keyword](node, root) for keyword in node if keyword in _KEYWORDS])


def _gathered(checks: Iterable[tuple[Finder, object, tuple]]) -> Errors:
    """The errors of each (finder, value, path) in turn; None as soon as one is not sure."""
    found: list[SchemaError] = []
    for find, value, path in checks:
        errors = find(value, path)
        if errors is None:
            return None
        found += errors
    return found


def _together(finders: list[Finder]) -> Finder:
    return lambda value, path: _gathered((each, value, path) for each in finders)


def _single(keyword: str, expected: object, test: Callable[[object], bool | None]) -> Finder:
    """A keyword that fails as one error at the value's own path."""
    def find(value: object, path: tuple) -> Errors:
        holds = test(value)
        return None if holds is None else [] if holds else [SchemaError(path, keyword, expected)]
    return find


def _reference(node: dict, root: dict) -> Finder:
    ref, prefix = node["$ref"], "#/$defs/"
    if not ref.startswith(prefix) or ref[len(prefix):] not in root.get("$defs", {}):
        raise _Unsupported(ref)
    name = ref[len(prefix):]
    compiled: list[Finder] = []  # compiled when first used: a definition may refer to itself

    def find(value: object, path: tuple) -> Errors:
        if not compiled:
            compiled.append(_compile(root["$defs"][name], root))
        return compiled[0](value, path)
    return find


def _type(node: dict, root: dict) -> Finder:
    expected = node["type"]
    names = [expected] if isinstance(expected, str) else expected
    if not isinstance(names, list) or not all(name in _TYPES for name in names):
        raise _Unsupported(expected)
    tests = [_TYPES[name] for name in names]

    def test(value: object) -> bool | None:
        verdicts = [each(value) for each in tests]
        return True if True in verdicts else None if None in verdicts else False
    return _single("type", expected, test)


def _values(keyword: str, expected: object, allowed: list) -> Finder:
    any_float = any(isinstance(each, float) for each in allowed)

    def test(value: object) -> bool | None:
        # jsonschema's equality: True is not 1, but 1.0 is 1; lists and mappings compare item by item.
        if any_float or isinstance(value, (float, list, dict)):
            return None
        return any(type(each) is type(value) and each == value for each in allowed)
    return _single(keyword, expected, test)


def _minimum(node: dict, root: dict) -> Finder:
    bound = node["minimum"]
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise _Unsupported(bound)
    return _single("minimum", bound, lambda value: isinstance(value, bool) or not isinstance(value, (int, float))
                   or value >= bound)


def _pattern(node: dict, root: dict) -> Finder:
    source = node["pattern"]
    return _single("pattern", source, lambda value: not isinstance(value, str) or linear_schema.finds(source, value))


def _required(node: dict, root: dict) -> Finder:
    required = node["required"]

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        return [SchemaError(path, "required", required, key) for key in required if key not in value]
    return find


def _properties(node: dict, root: dict) -> Finder:
    named = [(key, _compile(schema, root)) for key, schema in node["properties"].items()]

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        return _gathered((each, value[key], (*path, key)) for key, each in named if key in value)
    return find


def _additional_properties(node: dict, root: dict) -> Finder:
    schema = node["additionalProperties"]
    if not isinstance(schema, dict):
        raise _Unsupported(schema)  # `false` is one error naming every extra key: left to jsonschema
    each = _compile(schema, root)
    named = node.get("properties", {})

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        found = _gathered((each, item, (*path, key)) for key, item in value.items() if key not in named)
        if found and len({error.path[len(path)] for error in found}) > 1:
            return None  # jsonschema visits the extra keys in a set's order, which varies from run to run
        return found
    return find


def _items(node: dict, root: dict) -> Finder:
    each = _compile(node["items"], root)

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, list):
            return []
        return _gathered((each, item, (*path, index)) for index, item in enumerate(value))
    return find


def _all_of(node: dict, root: dict) -> Finder:
    return _together([_compile(branch, root) for branch in node["allOf"]])


def _condition(node: dict, root: dict) -> Finder:
    condition = _compile(node["if"], root)
    then = _compile(node.get("then", True), root)
    otherwise = _compile(node.get("else", True), root)

    def find(value: object, path: tuple) -> Errors:
        errors = condition(value, path)
        if errors is None:
            return None
        return otherwise(value, path) if errors else then(value, path)
    return find


_KEYWORDS: dict[str, Callable[[dict, dict], Finder]] = {
    "$ref": _reference,
    "type": _type,
    "enum": lambda node, root: _values("enum", node["enum"], node["enum"]),
    "const": lambda node, root: _values("const", node["const"], [node["const"]]),
    "minimum": _minimum,
    "pattern": _pattern,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "items": _items,
    "allOf": _all_of,
    "if": _condition,  # with its then and else
}
