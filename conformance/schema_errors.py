"""jsonschema's errors for the keywords the kit's schemas use, without jsonschema.

jsonschema and the libraries it imports cost about 70 ms of every run's
start, more than checking a hundred entries, and its checks are five times
slower than these: the validator checks every entry, the runner every vector
file, every request and answer and every merged session. `error_finder(schema)` gives a
function that finds, in a document, the errors jsonschema's Draft 2020-12
validator finds (with `conformance.linear_schema`'s patterns), in the order
it yields them, each as `(path, keyword, expected, missing)`: the path into
the document, the keyword that failed, the keyword's value in the schema, and
for `required` the missing property. It answers None where it is not sure
(a float where jsonschema's equality or its integers differ from Python's, a
list or mapping compared with `const` or `enum`) and always for a schema with
a keyword it does not read; the caller then asks jsonschema (for its
messages, too: a combinator such as `anyOf` fails here as one error with no
reason). `tests/validator/test_schema_errors.py` holds it to jsonschema.
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
# (contentEncoding is an annotation in draft 2020-12: jsonschema does not check it.)
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs",
                          "contentEncoding"})
_READ = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties", "items",
                   "minimum", "maximum", "minLength", "minItems", "minProperties", "maxProperties", "uniqueItems",
                   "pattern", "propertyNames", "contains", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
                   "$ref"})

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
    """The errors of a document against `schema` (draft 2020-12, `$ref`s within it), or None."""
    try:
        find = _compile(schema, _Root(schema))
    except _Unsupported:
        return lambda document: None
    return lambda document: find(document, ())


def _compile(node: object, root: _Root) -> Finder:
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


def _some(verdicts: Iterable[bool | None]) -> bool | None:
    """True if one verdict surely holds, False if each surely does not, None if it cannot be said."""
    verdicts = list(verdicts)
    return True if True in verdicts else None if None in verdicts else False


class _Root:
    """The schema being compiled, and what each `$ref` in it compiled to (a definition may refer to itself)."""

    def __init__(self, schema: dict):
        self.schema = schema
        self.references: dict[str, Finder] = {}

    def resolve(self, ref: str) -> Finder:
        if ref not in self.references:
            if not ref.startswith("#/"):
                raise _Unsupported(ref)
            target: object = self.schema
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    raise _Unsupported(ref)
                target = target[part]
            compiled: list[Finder] = []
            self.references[ref] = lambda value, path: compiled[0](value, path)
            compiled.append(_compile(target, self))
        return self.references[ref]


def _reference(node: dict, root: _Root) -> Finder:
    return root.resolve(node["$ref"])


def _type(node: dict, root: _Root) -> Finder:
    expected = node["type"]
    names = [expected] if isinstance(expected, str) else expected
    if not isinstance(names, list) or not all(name in _TYPES for name in names):
        raise _Unsupported(expected)
    tests = [_TYPES[name] for name in names]

    def test(value: object) -> bool | None:
        return _some(each(value) for each in tests)
    return _single("type", expected, test)


def _values(keyword: str, expected: object, allowed: list) -> Finder:
    any_float = any(isinstance(each, float) for each in allowed)

    def test(value: object) -> bool | None:
        # jsonschema's equality: True is not 1, but 1.0 is 1; lists and mappings compare item by item.
        if any_float or isinstance(value, (float, list, dict)):
            return None
        return any(type(each) is type(value) and each == value for each in allowed)
    return _single(keyword, expected, test)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bound(keyword: str, applies: Callable[[object], bool],
           holds: Callable[[object, object], bool]) -> Callable[[dict, _Root], Finder]:
    """A keyword with a number for its value, checked only on the values it `applies` to."""
    def compile_bound(node: dict, root: _Root) -> Finder:
        bound = node[keyword]
        if not _number(bound):
            raise _Unsupported(bound)
        return _single(keyword, bound, lambda value: not applies(value) or holds(value, bound))
    return compile_bound


def _unique_items(node: dict, root: _Root) -> Finder:
    if node["uniqueItems"] is not True:
        raise _Unsupported(node["uniqueItems"])

    def test(value: object) -> bool | None:
        if not isinstance(value, list):
            return True
        # jsonschema's equality differs from Python's for floats, booleans and containers.
        if not all(type(item) in (str, int) for item in value):
            return None
        return len(set(value)) == len(value)
    return _single("uniqueItems", True, test)


def _pattern(node: dict, root: _Root) -> Finder:
    source = node["pattern"]
    return _single("pattern", source, lambda value: not isinstance(value, str) or linear_schema.finds(source, value))


def _required(node: dict, root: _Root) -> Finder:
    required = node["required"]

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        return [SchemaError(path, "required", required, key) for key in required if key not in value]
    return find


def _properties(node: dict, root: _Root) -> Finder:
    named = [(key, _compile(schema, root)) for key, schema in node["properties"].items()]

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        return _gathered((each, value[key], (*path, key)) for key, each in named if key in value)
    return find


def _additional_properties(node: dict, root: _Root) -> Finder:
    schema = node["additionalProperties"]
    named = node.get("properties", {})
    if schema is False:  # one error, naming every extra key
        return _single("additionalProperties", False,
                       lambda value: not isinstance(value, dict) or all(key in named for key in value))
    if not isinstance(schema, dict):
        raise _Unsupported(schema)
    each = _compile(schema, root)

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        found = _gathered((each, item, (*path, key)) for key, item in value.items() if key not in named)
        if found and len({error.path[len(path)] for error in found}) > 1:
            return None  # jsonschema visits the extra keys in a set's order, which varies from run to run
        return found
    return find


def _items(node: dict, root: _Root) -> Finder:
    each = _compile(node["items"], root)

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, list):
            return []
        return _gathered((each, item, (*path, index)) for index, item in enumerate(value))
    return find


def _property_names(node: dict, root: _Root) -> Finder:
    each = _compile(node["propertyNames"], root)

    def find(value: object, path: tuple) -> Errors:
        if not isinstance(value, dict):
            return []
        return _gathered((each, key, path) for key in value)  # a key's errors are at its mapping's path
    return find


def _valid(find: Finder, value: object) -> bool | None:
    errors = find(value, ())
    return None if errors is None else not errors


def _contains(node: dict, root: _Root) -> Finder:
    each = _compile(node["contains"], root)

    def test(value: object) -> bool | None:
        if not isinstance(value, list):
            return True
        return _some(_valid(each, item) for item in value)
    return _single("contains", node["contains"], test)


def _any_of(node: dict, root: _Root) -> Finder:
    branches = [_compile(branch, root) for branch in node["anyOf"]]

    def test(value: object) -> bool | None:
        return _some(_valid(branch, value) for branch in branches)
    return _single("anyOf", node["anyOf"], test)


def _one_of(node: dict, root: _Root) -> Finder:
    branches = [_compile(branch, root) for branch in node["oneOf"]]

    def test(value: object) -> bool | None:
        verdicts = [_valid(branch, value) for branch in branches]
        return None if None in verdicts else verdicts.count(True) == 1
    return _single("oneOf", node["oneOf"], test)


def _not(node: dict, root: _Root) -> Finder:
    branch = _compile(node["not"], root)

    def test(value: object) -> bool | None:
        verdict = _valid(branch, value)
        return None if verdict is None else not verdict
    return _single("not", node["not"], test)


def _all_of(node: dict, root: _Root) -> Finder:
    return _together([_compile(branch, root) for branch in node["allOf"]])


def _condition(node: dict, root: _Root) -> Finder:
    condition = _compile(node["if"], root)
    then = _compile(node.get("then", True), root)
    otherwise = _compile(node.get("else", True), root)

    def find(value: object, path: tuple) -> Errors:
        errors = condition(value, path)
        if errors is None:
            return None
        return otherwise(value, path) if errors else then(value, path)
    return find


_KEYWORDS: dict[str, Callable[[dict, _Root], Finder]] = {
    "$ref": _reference,
    "type": _type,
    "enum": lambda node, root: _values("enum", node["enum"], node["enum"]),
    "const": lambda node, root: _values("const", node["const"], [node["const"]]),
    "minimum": _bound("minimum", _number, lambda value, bound: value >= bound),
    "maximum": _bound("maximum", _number, lambda value, bound: value <= bound),
    "minLength": _bound("minLength", lambda value: isinstance(value, str), lambda value, bound: len(value) >= bound),
    "minItems": _bound("minItems", lambda value: isinstance(value, list), lambda value, bound: len(value) >= bound),
    "minProperties": _bound("minProperties", lambda value: isinstance(value, dict),
                            lambda value, bound: len(value) >= bound),
    "maxProperties": _bound("maxProperties", lambda value: isinstance(value, dict),
                            lambda value, bound: len(value) <= bound),
    "uniqueItems": _unique_items,
    "propertyNames": _property_names,
    "contains": _contains,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "pattern": _pattern,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "items": _items,
    "allOf": _all_of,
    "if": _condition,  # with its then and else
}
