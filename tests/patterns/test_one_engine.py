"""The package applies regular expressions only through `conformance.patterns`, on RE2 (issue 24, item 4).

RE2's time is linear in the text for every pattern, so this one structural
fact is what makes the kit's pattern matching linear by construction; the
timing probes beside this file measure it as a second line.
"""

from __future__ import annotations

import ast
import functools
import re
import time
from pathlib import Path

import pytest

import conformance
from conformance import patterns

PACKAGE = Path(conformance.__file__).parent
BACKTRACKING_ENGINES = {"re", "regex", "sre_compile", "sre_parse"}


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@functools.cache
def _modules() -> tuple[tuple[str, ast.AST], ...]:
    """Every source file of the package and its syntax tree, parsed once (three tests read them)."""
    return tuple((path.relative_to(PACKAGE.parent).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(PACKAGE.rglob("*.py")))


def test_no_module_of_the_package_imports_a_backtracking_engine():
    offenders = [f"{name}: imports {', '.join(sorted(_imports(tree) & BACKTRACKING_ENGINES))}"
                 for name, tree in _modules() if _imports(tree) & BACKTRACKING_ENGINES]
    assert not offenders, "\n".join(offenders)


def test_only_the_patterns_module_talks_to_re2():
    users = [name for name, tree in _modules() if "re2" in _imports(tree)]
    assert users == ["conformance/patterns.py"]


def test_the_scan_sees_an_import_of_re():
    # The two tests above pass trivially if the scan sees nothing.
    assert _imports(ast.parse("import re\nfrom regex import compile")) == {"re", "regex"}
    assert sum(1 for _module in _modules()) > 100


def test_a_pattern_the_backtracking_engine_takes_exponential_time_on_is_instant():
    # (a+)+$ on "a" * n + "b": Python's engine doubles its time per added "a".
    start = time.process_time()
    assert patterns.compile(r"(a+)+$").match("a" * 100_000 + "b") is None
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("source", [r"(?=a)", r"(?<!a)b", r"(a)\1", r"a\Z"])
def test_a_construct_re2_lacks_is_refused_at_compile_time_with_the_reason(source):
    with pytest.raises(patterns.error, match="RE2 syntax"):
        patterns.compile(source)


def test_lone_surrogates_are_matched_and_kept():
    text = "a\ud800b: x\udfff"
    assert patterns.compile(r"([^:]+): (.)").match(text).groups() == ("a\ud800b", "x")
    assert patterns.compile("[ab]").sub(lambda match: match.group().upper(), text) == "A\ud800B: x\udfff"
    assert patterns.compile(":").split(text) == ["a\ud800b", " x\udfff"]
    assert patterns.compile(".").findall("\ud800") == ["\ud800"]


def test_a_replacement_string_with_a_backslash_is_refused_not_read_as_a_template():
    with pytest.raises(ValueError, match="function"):
        patterns.compile("a").sub(r"\1", "a")


def test_py_space_is_what_python_calls_whitespace():
    space = patterns.compile(f"[{patterns.PY_SPACE}]")
    differ = [hex(code) for code in range(0x3100)
              if (space.fullmatch(chr(code)) is not None) != (re.fullmatch(r"\s", chr(code)) is not None)]
    assert not differ
