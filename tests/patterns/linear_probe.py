"""Finding every regular expression of the package, and timing one on hostile inputs.

`package_patterns()` walks every module of `conformance` for compiled
patterns at module level (alone, or inside a list, tuple or dict): Python's
`re.Pattern` and the kit's RE2 `conformance.patterns.Pattern` (parsed, for
the hostile inputs, by Python's parser with RE2's `\\z` read as `\\Z`), and reads
each module's source to learn how each one is applied (`match`, `search`,
`sub`, ...); a pattern used through a loop variable counts as `search`, the
costliest way. `inline_pattern_calls()` finds the ``re.search("...", text)``
calls that compile their pattern on the spot.

`hostile_inputs(pattern)` derives adversarial texts from the pattern itself:
a shortest text it matches, cut at every point, followed by one of its
characters, pairs of them or its literal runs repeated many times, then a
character that makes the match fail. That is the shape of every catastrophic
input found so far (`# a` + `' \\t'`×N + `x`, `- [a](` + `.md#`×N, a line of
N backticks).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
import time
from dataclasses import dataclass, field
from re import _constants as C  # noqa: N812 (the parser's opcodes)
from re import _parser

import conformance
from conformance import patterns

METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")
_TAIL = "\x01"


@dataclass
class FoundPattern:
    name: str                       # module.NAME
    pattern: re.Pattern | patterns.Pattern
    modes: set[str] = field(default_factory=set)


@functools.cache
def _module_trees() -> tuple[tuple[object, ast.AST], ...]:
    """Every module of the package with its syntax tree, parsed once a process (several tests read them)."""
    trees = []
    for info in pkgutil.walk_packages(conformance.__path__, "conformance."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        try:
            trees.append((module, ast.parse(inspect.getsource(module))))
        except (OSError, TypeError):
            continue
    return tuple(trees)


def python_source(source: str) -> str:
    """An RE2 source in Python's syntax: `\\z` (the very end) is Python's `\\Z`."""
    out, index = [], 0
    while index < len(source):
        pair = source[index:index + 2]
        if pair == "\\z":
            out.append("\\Z")
        else:
            out.append(pair if pair[:1] == "\\" else source[index])
        index += 2 if pair[:1] == "\\" else 1
    return "".join(out)


def flags_of(pattern) -> int:
    return getattr(pattern, "flags", 0)


def _patterns_in(value, depth=0):
    if isinstance(value, (re.Pattern, patterns.Pattern)):
        yield value
    elif depth < 2 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


def _methods_called_on(tree: ast.AST) -> dict[str, set[str]]:
    called: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
                and isinstance(node.func.value, ast.Name)):
            called.setdefault(node.func.value.id, set()).add(node.func.attr)
    return called


def package_patterns() -> list[FoundPattern]:
    found: dict[tuple, FoundPattern] = {}
    for module, tree in _module_trees():
        called = _methods_called_on(tree)
        for name, value in vars(module).items():
            for pattern in _patterns_in(value):
                entry = found.setdefault((module.__name__, pattern.pattern, flags_of(pattern)),
                                         FoundPattern(f"{module.__name__}.{name}", pattern))
                alone = isinstance(value, (re.Pattern, patterns.Pattern))
                entry.modes |= called.get(name, set()) if alone else {"search"}
    for entry in found.values():
        entry.modes = entry.modes or {"search"}
    return list(found.values())


@dataclass
class InlineCall:
    where: str                      # module:line
    method: str
    pattern: str | None             # None when the pattern is not a literal


def inline_pattern_calls() -> list[InlineCall]:
    calls = []
    for module, tree in _module_trees():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in METHODS + ("compile",) and node.args):
                first = node.args[0]
                literal = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
                calls.append(InlineCall(f"{module.__name__}:{node.lineno}", node.func.attr, literal))
    return calls


# -- hostile inputs ------------------------------------------------------------------

def _class_members(items) -> tuple[list[str], bool]:
    chars, negated = [], False
    for op, av in items:
        if op is C.NEGATE:
            negated = True
        elif op is C.LITERAL:
            chars.append(chr(av))
        elif op is C.RANGE:
            chars += [chr(av[0]), chr(av[1])]
        elif op is C.CATEGORY:
            chars += {C.CATEGORY_SPACE: [" ", "\t"], C.CATEGORY_DIGIT: ["0"], C.CATEGORY_WORD: ["a"]}.get(av, [])
    return chars, negated


def _walk(tree, chars: set[str], runs: list[str]):
    run = ""
    for op, av in tree:
        if op is C.LITERAL:
            run += chr(av)
            chars.add(chr(av))
            continue
        if run:
            runs.append(run)
            run = ""
        if op is C.IN:
            members, negated = _class_members(av)
            chars.update(members if not negated else ["a"])
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            _walk(av[2], chars, runs)
        elif op is C.SUBPATTERN:
            _walk(av[-1], chars, runs)
        elif op is C.BRANCH:
            for branch in av[1]:
                _walk(branch, chars, runs)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            _walk(av[1], chars, runs)
        elif op is C.ATOMIC_GROUP:
            _walk(av, chars, runs)
    if run:
        runs.append(run)


def _shortest(tree, groups: dict[int, str]) -> str:
    out = ""
    for op, av in tree:
        if op is C.LITERAL:
            out += chr(av)
        elif op is C.NOT_LITERAL or op is C.ANY:
            out += "a" if av != ord("a") else "b"
        elif op is C.IN:
            members, negated = _class_members(av)
            out += members[0] if members and not negated else next(c for c in "a0 -" if c not in members)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            out += _shortest(av[2], groups) * av[0]
        elif op is C.SUBPATTERN:
            text = _shortest(av[-1], groups)
            if av[0]:
                groups[av[0]] = text
            out += text
        elif op is C.BRANCH:
            out += _shortest(av[1][0], groups)
        elif op is C.GROUPREF:
            out += groups.get(av, "")
        elif op is C.ATOMIC_GROUP:
            out += _shortest(av, groups)
    return out


def hostile_shapes(pattern) -> list[tuple[str, str]]:
    """(prefix, repeated piece) pairs to try on `pattern` (a `re.Pattern` or a `patterns.Pattern`)."""
    if isinstance(pattern, patterns.Pattern):
        # RE2's Unicode classes, which Python's parser lacks, stand as a letter and a digit: shapes only.
        tree = _parser.parse(python_source(pattern.pattern).replace("\\pL", "a").replace("\\pN", "0"), 0)
    else:
        tree = _parser.parse(pattern.pattern, pattern.flags)
    chars: set[str] = {" ", "\t", "a", "0"}
    runs: list[str] = []
    _walk(tree, chars, runs)
    chars = {c for c in chars if c not in "\r\n"}
    shortest = _shortest(tree, {})
    prefixes = sorted({shortest[:cut] + extra for cut in range(min(len(shortest), 12) + 1) for extra in ("", "a")})
    alphabet = sorted(chars)[:24]
    pieces = set(alphabet) | {a + b for a in (" ", "\t", "a", "0") for b in alphabet if a != b}
    pieces |= {run + c for run in runs for c in alphabet} | {c + run for run in runs for c in (" ", "a", "0")}
    return [(prefix, piece) for prefix in prefixes for piece in sorted(pieces)]


def cost(apply, text: str) -> float:
    """Processor seconds of one `apply(text)`: the best of runs adding up to at least 2 ms."""
    best, spent = float("inf"), 0.0
    while spent < 0.002:
        start = time.process_time()
        apply(text)
        took = time.process_time() - start
        best, spent = min(best, took), spent + max(took, 1e-6)
    return best


def applying(pattern, method: str):
    """`text -> None` applying `pattern` the way the package does."""
    if method in ("sub", "subn"):
        return lambda text: pattern.sub("", text)
    if method in ("finditer", "findall"):
        return lambda text: sum(1 for _match in pattern.finditer(text))
    return getattr(pattern, method)


def hostile_text(prefix: str, piece: str, size: int) -> str:
    return prefix + piece * max(1, size // len(piece)) + _TAIL
