"""Fixtures for the mutant tests: the mutant table, and one run of the corpus against every mutant.

The run (the reference adapter and the mutants of SHOULD rules on the whole
corpus, each mutant of a MUST rule on the vectors of its requirements, each a
real adapter subprocess) is done once per session and shared by
the per-mutant tests; its wall time is shown in the terminal summary
(under xdist, by tests/conftest.py).
"""

from __future__ import annotations

import os

import pytest

from conformance.mutants.evaluate import MutationRun, load_selection, run_mutants
from conformance.mutants.registry import load_registry

_SUMMARY_KEY = pytest.StashKey[str]()


@pytest.fixture(scope="session")
def registry():
    loaded = load_registry()
    assert loaded.problems == []
    return loaded


@pytest.fixture(scope="session")
def mutation_run(registry, request) -> MutationRun:
    selection = load_selection()
    assert not isinstance(selection, str), selection
    # One run per core: each run is one adapter process plus the runner's thread. Each
    # mutant of a MUST rule runs on its own requirements' vectors only (a kill there is a
    # kill on the corpus: see conformance/mutants/evaluate.py); `memoir-conform mutants`
    # runs the whole corpus against every mutant.
    result = run_mutants(registry.mutants, selection, jobs=max(1, min(2, os.cpu_count() or 1)), focused=True)
    line = _summary(result)
    workeroutput = getattr(request.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: tests/conftest.py shows it in the main process's summary
        workeroutput.setdefault("summary_lines", []).append(line)
    else:
        request.config.stash[_SUMMARY_KEY] = line
    return result


def _summary(result: MutationRun) -> str:
    slowest = max(result.verdicts, key=lambda verdict: verdict.run.duration, default=None)
    return (
        f"mutants: {result.killed}/{result.total} killed; {len(result.verdicts) + 1} runs, "
        f"{sum(len(verdict.run.graded) for verdict in result.verdicts) + len(result.reference.graded)} vectors "
        f"(the corpus has {len(result.selection.vectors)}) in {result.duration:.1f}s with {result.jobs} jobs "
        f"(reference {result.reference.duration:.1f}s"
        + (f", slowest {slowest.mutant.name} {slowest.run.duration:.1f}s)" if slowest else ")")
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    line = config.stash.get(_SUMMARY_KEY, None)
    if line is not None:
        terminalreporter.write_line(line)
