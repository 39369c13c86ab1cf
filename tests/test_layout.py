"""The package layout: no import cycles between modules, and the output formats
(conformance/report/) apart from loading, checking, execution and grading
(conformance/runner/), which never import them."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import conformance

ROOT = Path(conformance.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in ROOT.rglob("*.py") if "_data" not in path.parts}


def _type_checking_only(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports_of(name: str) -> set[str]:
    """The kit's modules `name` imports, at the top or inside a function (not those only for type checking)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed = {id(child) for node in ast.walk(tree) if isinstance(node, ast.If) and _type_checking_only(node)
             for child in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typed:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        found |= {target for target in targets if target in MODULES and target != name}
    return found


@cache
def graph() -> dict[str, set[str]]:
    # Built when a test asks, not at collection: every xdist worker collects this module.
    return {name: imports_of(name) for name in MODULES}


def cycles() -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    edges = graph()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return found


def test_no_module_imports_itself_back():
    assert cycles() == []


def test_loading_checking_executing_and_grading_never_import_an_output_format():
    # conformance.runner.command is the `run` subcommand: it wires the run to its outputs.
    edges = graph()
    grading_side = [name for name in edges
                    if name.startswith("conformance.runner.") and name != "conformance.runner.command"]
    outputs = ("conformance.report", "conformance.site")
    assert grading_side
    assert {name: sorted(target for target in edges[name] if target.startswith(outputs))
            for name in grading_side} == {name: [] for name in grading_side}


def test_the_output_formats_live_in_their_own_package():
    outputs = {"console", "json_report", "junit", "github_report", "failure_block", "matrix", "merge_reports"}
    assert outputs <= {name.rpartition(".")[2] for name in MODULES if name.startswith("conformance.report.")}
    assert not outputs & {name.rpartition(".")[2] for name in MODULES if name.startswith("conformance.runner.")}
