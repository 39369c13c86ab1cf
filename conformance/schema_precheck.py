"""A yes, no or don't-know reading of a document against one of the kit's JSON schemas.

Nearly every entry and session a validator sees is valid, and jsonschema
(with the libraries it imports, about 70 ms of a run's start) is there to
name the errors. `precheck(schema)` gives a function that answers True
(valid: jsonschema would find no error), False (invalid) or None (not
sure) for the few keywords the kit's schemas use, with jsonschema's
meaning of each; the validator asks jsonschema only when the answer is not
True. A schema with any other keyword gets a precheck that always answers
None. `tests/validator/test_schema_precheck.py` holds it to jsonschema.

False must be as sure as True: an `if` that is wrongly False would skip
its `then`. So wherever jsonschema's meaning turns on something this
reading leaves out (a float where an integer or a constant is asked, a
list or mapping compared with `const` or `enum`), the answer is None.
"""

from __future__ import annotations

from typing import Callable

from conformance import linear_schema

Verdict = bool | None  # True valid, False invalid, None not sure
Check = Callable[[object], Verdict]

# Keywords that say nothing of validity (annotations), and those read here.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples"})
_READ = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties", "items",
                   "minimum", "pattern", "allOf", "if", "then", "else", "$ref", "$defs"})

_TYPES: dict[str, Callable[[object], Verdict]] = {
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    # jsonschema takes 2.0 for an integer: a float is not judged here.
    "integer": lambda value: None if isinstance(value, float) else isinstance(value, int) and not isinstance(value, bool),
}


class Unsupported(Exception):
    """The schema uses a keyword this reading does not know."""


def precheck(schema: dict) -> Check:
    """A check of documents against `schema` (a draft 2020-12 schema whose `$ref`s point into its own `$defs`)."""
    try:
        return _compile(schema, schema)
    except Unsupported:
        return lambda document: None


def _compile(node: object, root: dict) -> Check:
    if node is True:
        return lambda value: True
    if node is False:
        return lambda value: False
    if not isinstance(node, dict) or not set(node) <= _ANNOTATIONS | _READ:
        raise Unsupported(node)
    checks: list[Check] = []
    if "$ref" in node:
        checks.append(_reference(node["$ref"], root))
    if "type" in node:
        checks.append(_type(node["type"]))
    if "enum" in node:
        checks.append(_one_of_values(node["enum"]))
    if "const" in node:
        checks.append(_one_of_values([node["const"]]))
    if "minimum" in node:
        checks.append(_minimum(node["minimum"]))
    if "pattern" in node:
        source = node["pattern"]
        checks.append(lambda value: not isinstance(value, str) or linear_schema.finds(source, value))
    if "required" in node:
        required = tuple(node["required"])
        checks.append(lambda value: not isinstance(value, dict) or all(key in value for key in required))
    if "properties" in node or "additionalProperties" in node:
        checks.append(_properties(node.get("properties", {}), node.get("additionalProperties", True), root))
    if "items" in node:
        checks.append(_items(_compile(node["items"], root)))
    for branch in node.get("allOf", ()):
        checks.append(_compile(branch, root))
    if "if" in node:
        checks.append(_condition(node, root))
    return _all(checks)


def _all(checks: list[Check]) -> Check:
    def check(value: object) -> Verdict:
        unsure = False
        for each in checks:
            verdict = each(value)
            if verdict is False:
                return False
            unsure = unsure or verdict is None
        return None if unsure else True
    return check


def _reference(ref: str, root: dict) -> Check:
    prefix = "#/$defs/"
    if not ref.startswith(prefix) or ref[len(prefix):] not in root.get("$defs", {}):
        raise Unsupported(ref)
    name = ref[len(prefix):]
    compiled: list[Check] = []  # compiled when first used: a definition may refer to itself

    def check(value: object) -> Verdict:
        if not compiled:
            compiled.append(_compile(root["$defs"][name], root))
        return compiled[0](value)
    return check


def _type(expected: object) -> Check:
    names = [expected] if isinstance(expected, str) else expected
    if not isinstance(names, list) or not all(name in _TYPES for name in names):
        raise Unsupported(expected)
    tests = [_TYPES[name] for name in names]

    def check(value: object) -> Verdict:
        verdicts = [test(value) for test in tests]
        return True if True in verdicts else None if None in verdicts else False
    return check


def _one_of_values(allowed: list) -> Check:
    def check(value: object) -> Verdict:
        # jsonschema's equality: True is not 1, but 1.0 is 1; lists and mappings compare item by item.
        if isinstance(value, (float, list, dict)) or any(isinstance(each, float) for each in allowed):
            return None
        return any(type(each) is type(value) and each == value for each in allowed)
    return check


def _minimum(bound: object) -> Check:
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise Unsupported(bound)
    return lambda value: isinstance(value, bool) or not isinstance(value, (int, float)) or value >= bound


def _properties(properties: dict, additional: object, root: dict) -> Check:
    named = {key: _compile(schema, root) for key, schema in properties.items()}
    others = _compile(additional, root)

    def check(value: object) -> Verdict:
        if not isinstance(value, dict):
            return True
        unsure = False
        for key, item in value.items():
            verdict = named.get(key, others)(item)
            if verdict is False:
                return False
            unsure = unsure or verdict is None
        return None if unsure else True
    return check


def _items(each: Check) -> Check:
    def check(value: object) -> Verdict:
        if not isinstance(value, list):
            return True
        unsure = False
        for item in value:
            verdict = each(item)
            if verdict is False:
                return False
            unsure = unsure or verdict is None
        return None if unsure else True
    return check


def _condition(node: dict, root: dict) -> Check:
    condition = _compile(node["if"], root)
    then = _compile(node.get("then", True), root)
    otherwise = _compile(node.get("else", True), root)

    def check(value: object) -> Verdict:
        holds = condition(value)
        if holds is None:
            return None
        return then(value) if holds else otherwise(value)
    return check
