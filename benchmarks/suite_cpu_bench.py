"""Where the test suite's CPU goes: each test's own CPU and its child processes', by module.

The suite on two cores is bound by CPU, not by the order of its units, so
wall time per test says little (three workers share two cores). As a pytest
plugin, this file records for every test the CPU its worker spent on it and
the CPU of the child processes the worker reaped meanwhile (adapters, CLIs,
mutmut, pre-commit); run as a script, it sums the records by module:

    PYTHONPATH=benchmarks MEMOIR_SUITE_CPU=/tmp/cpu python -m pytest -q -p suite_cpu_bench
    python benchmarks/suite_cpu_bench.py /tmp/cpu [--tests 20]

(MEMOIR_SUITE_CPU unset: a folder in the system's temporary directory; a
run replaces the records of the one before.)

A worker's last line gives its whole CPU, so what the tests' sum leaves
out (start-up and collection) is shown too. Children that a test leaves
running are counted when they are reaped, if ever; grandchildren handed to
init are not counted at all.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import tempfile
import time
from pathlib import Path

_records = None
_relay = False  # the main process of an xdist run: it only relays its workers' reports
_started: dict[str, tuple[float, float, float]] = {}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _folder() -> Path:
    return Path(os.environ.get("MEMOIR_SUITE_CPU") or Path(tempfile.gettempdir()) / "memoir-suite-cpu")


def _log():
    global _records
    if _records is None:
        folder = _folder()
        folder.mkdir(parents=True, exist_ok=True)
        _records = open(folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv", "a", encoding="utf-8")
    return _records


def pytest_runtest_logstart(nodeid, location):
    if not _relay:
        _started[nodeid] = (time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN))


def pytest_runtest_logfinish(nodeid, location):
    began = _started.pop(nodeid, None)
    if began is not None:
        wall, own, children = began
        _log().write(f"test\t{nodeid}\t{time.monotonic() - wall:.3f}\t{_cpu(resource.RUSAGE_SELF) - own:.3f}\t"
                     f"{_cpu(resource.RUSAGE_CHILDREN) - children:.3f}\n")


def pytest_configure(config):
    global _relay
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # the run's first process: a new run's records only
        for old in _folder().glob("*.tsv"):
            old.unlink()
        _relay = bool(getattr(config.option, "numprocesses", None))


def pytest_sessionfinish(session):
    _log().write(f"process\t{os.environ.get('PYTEST_XDIST_WORKER', 'main')}\t0\t{_cpu(resource.RUSAGE_SELF):.3f}\t"
                 f"{_cpu(resource.RUSAGE_CHILDREN):.3f}\n")
    _records.close()


def report(folder: Path, top: int) -> str:
    own, children, count = collections.Counter(), collections.Counter(), collections.Counter()
    tests, processes = [], []
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, name, _wall, spent, reaped = line.split("\t")
            if kind == "process":
                processes.append((name, float(spent), float(reaped)))
                continue
            module = name.split("::")[0]
            own[module] += float(spent)
            children[module] += float(reaped)
            count[module] += 1
            tests.append((float(spent) + float(reaped), name))
    workers = [row for row in processes if row[0] != "main"] or processes  # -n 0: the main process ran the tests
    in_tests = sum(own.values()) + sum(children.values())
    whole = sum(spent + reaped for _, spent, reaped in workers)
    lines = [f"CPU s: {whole:.0f} in the workers, {in_tests:.0f} in tests ({sum(own.values()):.0f} their own, "
             f"{sum(children.values()):.0f} their children's), {whole - in_tests:.0f} outside tests", "",
             "| CPU s | own | children | tests | module |", "|---|---|---|---|---|"]
    for module in sorted(own, key=lambda name: own[name] + children[name], reverse=True):
        lines.append(f"| {own[module] + children[module]:.1f} | {own[module]:.1f} | {children[module]:.1f} | "
                     f"{count[module]} | `{module}` |")
    lines += ["", f"The {top} costliest tests (CPU s, own and children's):"]
    lines += [f"- {spent:.1f} `{name}`" for spent, name in sorted(tests, reverse=True)[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--tests", type=int, default=20, help="how many of the costliest tests to list")
    arguments = parser.parse_args()
    print(report(arguments.folder, arguments.tests))
