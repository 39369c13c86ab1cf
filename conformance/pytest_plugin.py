"""memoir-conform inside a pytest run: one test item per conformance vector.

Registered as a pytest plugin (entry point `pytest11`), so that installing
the kit is enough. It is inert unless asked: without `--memoir-adapter`,
`--memoir-cli` or their ini options it adds no item, no marker, no hook
work (docs/pytest-plugin.md).

With one of them, the vectors become items named by their ids
(`memoir::merge.hidden.sticky-local-hidden-remote-newer`), marked `memoir`,
`memoir_<level>`, `memoir_section_<S>` for each section and its parents,
and `memoir_tag_<tag>`; `-k` and `-m` select among them as usual. The
adapter starts at the first vector item that runs and stops at the end of
the session. How an item ends:

| the vector | item |
|---|---|
| passed | passed |
| a failed MUST check, an adapter error, or a missing op, at or below the claimed level | failed, with the runner's failure block |
| only SHOULD or advisory checks failed, above the claimed level, or no level claimed | xfailed, with why it costs nothing (failed with `--runxfail`) |
| not applicable for a reason that blocks no level (a MAY feature refused, a choice, caps) | skipped |
| listed in the expect-fail file | strict xfail: it must fail; passing fails the item |
| listed with a digest that no longer matches | failed (stale entry) |

The terminal summary ends with the runner's short verdict, the result
model's counts (`conformance.runner.result_model`: MUST failed apart from
SHOULD and advisory failed, as in every output) and the long verdict, for
the vectors that ran ("filtered run" when some were deselected).
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

COLLECTOR_NAME = "memoir"


class VectorFailed(Exception):
    """A vector item failed; the message is the runner's failure block."""


# --- options -----------------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memoir-conform", "memoir conformance vectors (memoir-conform, docs/pytest-plugin.md)")
    group.addoption("--memoir-adapter", metavar="CMD", help="run the memoir conformance vectors against this adapter")
    group.addoption("--memoir-cli", metavar="FILE", help="run them against a command-line tool configured by FILE "
                                                         "(the generic CLI adapter, docs/cli-adapter.md)")
    group.addoption("--memoir-oneshot", action="store_true", default=None,
                    help="start a fresh adapter process for every request")
    group.addoption("--memoir-timeout", metavar="S", type=float, help="seconds to wait for each answer (default 10)")
    group.addoption("--memoir-expect-fail", metavar="FILE", help="known failures: listed vectors are strict xfail")
    group.addoption("--memoir-vectors", metavar="DIR", action="append", default=None,
                    help="also load the vector files under DIR (repeatable)")
    group.addoption("--memoir-claim", choices=("reader", "writer", "full"),
                    help="judge failures against this level instead of the adapter's claims")
    group.addoption("--memoir-keep-scratch", metavar="DIR",
                    help="keep the scratch directory of each failing vector under DIR")
    parser.addini("memoir_adapter", "adapter command for the memoir conformance vectors", default="")
    parser.addini("memoir_cli", "CLI adapter configuration file (relative to the ini file)", default="")
    parser.addini("memoir_oneshot", "start a fresh adapter process for every request", type="bool", default=False)
    parser.addini("memoir_timeout", "seconds to wait for each answer", default="")
    parser.addini("memoir_expect_fail", "expect-fail file (relative to the ini file)", default="")
    parser.addini("memoir_vectors", "extra vector directories (relative to the ini file)", type="paths", default=[])
    parser.addini("memoir_claim", "level to judge failures against", default="")
    parser.addini("memoir_keep_scratch", "keep failing vectors' scratch directories here", default="")


@dataclass(frozen=True)
class Settings:
    adapter: str | None = None
    cli: Path | None = None
    oneshot: bool = False
    timeout: float | None = None
    expect_fail: Path | None = None
    vectors: tuple[Path, ...] = ()
    claim: str | None = None
    keep_scratch: Path | None = None


def settings(config: pytest.Config) -> Settings | None:
    """What the options and ini ask for; None when the plugin is not asked to do anything."""
    base = config.inipath.parent if config.inipath else config.rootpath

    def value(name: str):
        given = config.getoption(f"memoir_{name}")
        return given if given is not None else config.getini(f"memoir_{name}")

    def path(name: str) -> Path | None:
        given = config.getoption(f"memoir_{name}")
        if given:
            return Path(given)   # as typed on the command line: relative to where pytest runs
        from_ini = config.getini(f"memoir_{name}")
        return base / from_ini if from_ini else None

    adapter, cli = value("adapter") or None, path("cli")
    if adapter is None and cli is None:
        return None
    if adapter and cli:
        raise pytest.UsageError("memoir-conform: give --memoir-adapter or --memoir-cli, not both")
    timeout = value("timeout")
    try:
        timeout = float(timeout) if timeout not in (None, "") else None
    except ValueError:
        raise pytest.UsageError(f"memoir-conform: memoir_timeout is not a number: {timeout!r}") from None
    given_vectors = config.getoption("memoir_vectors")
    return Settings(
        adapter=adapter, cli=cli, oneshot=bool(value("oneshot")), timeout=timeout,
        expect_fail=path("expect_fail"),
        vectors=tuple(Path(d) for d in given_vectors) if given_vectors else tuple(config.getini("memoir_vectors")),
        claim=value("claim") or None, keep_scratch=path("keep_scratch"),
    )


# --- the session's state -------------------------------------------------------------

@dataclass
class MemoirRun:
    """Everything one pytest session needs: the corpus, the adapter (started on demand), the results."""

    settings: Settings
    base: Path                                   # where a relative adapter path is looked up
    corpus: list = field(default_factory=list)
    index: object = None
    expected: list = field(default_factory=list)
    implementation: object = None
    described: object = None
    start_problem: str | None = None
    claim_grade: object = None                   # a Grade that only carries the claimed level
    workdir: Path | None = None
    results: dict = field(default_factory=dict)  # vector id -> VectorResult

    def load(self) -> None:
        from conformance import resources
        from conformance.runner.grading import load_expected_failures
        from conformance.runner.requirements import index_for
        from conformance.runner.selection import Filters, select
        from conformance.runner.strength import strength_problems
        from conformance.runner.vectors import load_corpus

        corpus = load_corpus([resources.vectors_dir(), *self.settings.vectors])
        self.index = index_for(self.settings.vectors)
        problems = [str(problem) for problem in corpus.problems] + [
            f"{vector.file}: vector {vector.id!r}: {problem}"
            for vector in corpus.vectors for problem in strength_problems(vector, self.index)]
        if problems:
            raise pytest.UsageError("memoir-conform: invalid vector files:\n" + "\n".join(problems))
        self.corpus, _ = select(corpus.vectors, Filters(), self.index, _spec())
        if self.settings.expect_fail:
            expected = load_expected_failures(self.settings.expect_fail)
            if isinstance(expected, str):
                raise pytest.UsageError(f"memoir-conform: {expected}")
            self.expected = expected

    def start(self) -> None:
        """Start and describe the adapter, once; a failure is kept and fails every vector item."""
        if self.described is not None or self.start_problem is not None:
            return
        from conformance.options import bundled_adapters, chosen_adapter, start_failure
        from conformance.protocol.client import DEFAULT_TIMEOUT
        from conformance.protocol.messages import AdapterFault
        from conformance.protocol.process import StartError, resolve_command
        from conformance.runner.grading import claimed_level, grade
        from conformance.runner.implementations import AdapterImplementation

        settings = self.settings
        args = argparse.Namespace(adapter=None, cli=settings.cli, timeout=settings.timeout or DEFAULT_TIMEOUT)
        if settings.adapter in bundled_adapters():
            args.adapter = settings.adapter   # a bundled adapter's short name (reference, node-example)
        elif settings.adapter:
            try:
                args.adapter = resolve_command(settings.adapter, self.base)
            except (StartError, ValueError) as error:
                self.start_problem = f"cannot read the adapter command: {error}"
                return
        adapter = chosen_adapter(args, "memoir-conform (pytest)")
        if adapter is None:
            self.start_problem = f"the --memoir-cli configuration {settings.cli} cannot be used (see stderr)"
            return
        self.workdir = Path(tempfile.mkdtemp(prefix="memoir-conform-pytest-"))
        try:
            self.implementation = AdapterImplementation(adapter.command, workdir=self.workdir / "adapters",
                                                        oneshot=settings.oneshot, timeout=adapter.timeout)
        except StartError as error:
            self.start_problem = start_failure(f"cannot start the adapter: {error}", adapter.command)
            return
        described = self.implementation.describe()
        if isinstance(described, AdapterFault):
            tail = described.stderr_tail.strip()
            self.start_problem = start_failure(f"cannot start the adapter: {described}"
                                               + (f"\nstderr:\n{tail}" if tail else ""), adapter.command)
            return
        self.described = described
        self.claim_grade = grade([], _spec(), claimed_level(described.claims, settings.claim))

    def run(self, vector):
        from conformance.runner.execute import run_vector

        result = run_vector(vector, self.implementation, self.described, self.workdir / "vectors",
                            self.settings.keep_scratch)
        self.results[vector.id] = result
        return result

    def close(self) -> None:
        if self.implementation is not None:
            self.implementation.close()
        if self.workdir is not None:
            from conformance.runner.adapter_files import remove_tree  # imported late, as the plugin's others

            remove_tree(self.workdir)


def _spec() -> str:
    from conformance import SPEC_VERSION

    return SPEC_VERSION


RUN_KEY = pytest.StashKey[MemoirRun]()


def pytest_configure(config: pytest.Config) -> None:
    wanted = settings(config)
    if wanted is None:
        return  # inert: no option, no ini value
    run = MemoirRun(wanted, base=Path.cwd() if config.getoption("memoir_adapter") else
                    (config.inipath.parent if config.inipath else config.rootpath))
    run.load()
    config.stash[RUN_KEY] = run
    config.addinivalue_line("markers", "memoir: a memoir conformance vector (memoir-conform)")
    for name in sorted({marker for vector in run.corpus for marker in _marker_names(vector)}):
        config.addinivalue_line("markers", f"{name}: memoir conformance vectors ({name.split('_', 1)[1]})")


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN_KEY, None)
    if run is not None:
        run.close()


def _marker_names(vector) -> list[str]:
    names = [f"memoir_{vector.level}"]
    for section in vector.sections:
        parts = section.split(".")
        names += [f"memoir_section_{'_'.join(parts[:depth])}" for depth in range(1, len(parts) + 1)]
    names += [f"memoir_tag_{tag.replace('-', '_')}" for tag in vector.tags]
    return list(dict.fromkeys(names))


# --- collection ----------------------------------------------------------------------

class MemoirVectors(pytest.Collector):
    """The vectors of the corpus, as items."""

    def collect(self):
        run = self.config.stash[RUN_KEY]
        listed = {entry.id: entry for entry in run.expected}
        for vector in run.corpus:
            item = VectorItem.from_parent(self, name=vector.id, vector=vector)
            item.add_marker(pytest.mark.memoir)
            for name in _marker_names(vector):
                item.add_marker(getattr(pytest.mark, name))
            entry = listed.get(vector.id)
            if entry is not None and entry.digest == vector.digest:
                item.add_marker(pytest.mark.xfail(reason=f"expect-fail: {entry.reason}", strict=True,
                                                  raises=VectorFailed))
            yield item


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Add the vector items before -k, -m and the other selections look at the items."""
    if RUN_KEY not in config.stash:
        return
    collector = MemoirVectors.from_parent(session, name=COLLECTOR_NAME, nodeid=COLLECTOR_NAME)
    report = collector.ihook.pytest_make_collect_report(collector=collector)
    config.hook.pytest_collectreport(report=report)  # counted and shown like any collected items
    if report.failed:
        raise pytest.UsageError(f"memoir-conform: cannot collect the vectors: {report.longreprtext}")
    items.extend(report.result)


class VectorItem(pytest.Item):
    """One conformance vector."""

    def __init__(self, *, vector, **kwargs):
        super().__init__(**kwargs)
        self.vector = vector

    def runtest(self) -> None:
        from conformance.report.failure_block import describe_failure, why_no_cost
        from conformance.runner.grading import STALE, XPASS, blocks_run, grade_vectors

        run = self.config.stash[RUN_KEY]
        run.start()
        if run.start_problem:
            raise VectorFailed(run.start_problem)
        result = run.run(self.vector)
        graded = grade_vectors([self.vector], [result], run.index, run.expected)[0]
        if graded.outcome == XPASS:
            return  # listed, but passed: the strict xfail marker fails the item
        if graded.outcome == STALE or blocks_run(graded, run.claim_grade):
            raise VectorFailed(describe_failure(graded, run.index))
        if result.outcome in ("fail", "error"):
            if graded.expected is not None or self.config.option.runxfail:
                raise VectorFailed(describe_failure(graded, run.index))
            pytest.xfail(why_no_cost(graded, run.claim_grade))
        if result.outcome == "not_applicable":
            pytest.skip(f"not applicable: {result.detail}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VectorFailed):
            from conformance.safe_text import printable

            return printable(str(excinfo.value), multiline=True)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        from conformance.report.failure_block import vector_source

        path, line = vector_source(self.vector)
        return path, (line - 1 if line else None), f"memoir vector {self.vector.id}"


# --- the verdict ------------------------------------------------------------------------

def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    run = config.stash.get(RUN_KEY, None)
    if run is None or not run.results or run.described is None:
        return
    from conformance.runner import result_model
    from conformance.runner.grading import grade, grade_vectors

    ran = [vector for vector in run.corpus if vector.id in run.results]
    graded = grade_vectors(ran, [run.results[vector.id] for vector in ran], run.index, run.expected)
    result = grade(graded, _spec(), run.claim_grade.claimed, filtered=len(ran) < len(run.corpus),
                   waived_by=str(run.settings.expect_fail) if run.settings.expect_fail else None)
    results = result_model.of_run(graded, result)
    terminalreporter.write_sep("-", "memoir-conform")
    terminalreporter.write_line(f"{run.described.name} {run.described.version}: {results.headline}")
    terminalreporter.write_line(results.counts_line())
    terminalreporter.write_line(result.verdict)
