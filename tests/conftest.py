"""Fixtures shared by the test areas: the fault-injecting fake adapter, a check for
leftover processes, pytest's `pytester`, and a run of the kit's own tests that is
never a GitHub Actions job of the kit's users; and how the run is spread over the
CPUs (pytest-xdist: one worker more than CPUs, `unit_of` and the hooks below it),
and where its scratch files go (a RAM disk where there is one: `pytest_configure`).

Under GitHub Actions the commands write annotations and a job summary by
default (docs/ci.md); the kit's own tests must see what a terminal user sees,
wherever they run. The GitHub output has tests of its own that set these
variables themselves.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import settings

from conformance import resources

pytest_plugins = ("pytester",)

# No example's duration decides a test: Hypothesis's default deadline (200 ms) failed a property
# whose examples take 25 ms idle, on a machine busy with two suites (benchmarks/README.md).
settings.register_profile("kit", deadline=None)
settings.load_profile("kit")

FAKE_ADAPTER = resources.runners_dir() / "fake" / "adapter.py"
FAKE_VARIABLES = ("FAULT", "FAULT_AFTER", "FAULT_WHEN", "PROTOCOLS", "MODEL", "PID_FILE", "LINK_TO")


@pytest.fixture
def sandbox() -> None:
    """Skip where `--sandbox` cannot work, saying why; with MEMOIR_CONFORM_REQUIRE_SANDBOX=1
    (`.ci/run` as root, where bubblewrap is installed) fail instead: there the sandbox tests must run."""
    from conformance.protocol.process import sandbox_problem

    problem = sandbox_problem()
    if problem and os.environ.get("MEMOIR_CONFORM_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"the sandbox tests must run here, but: {problem}")
    if problem:
        pytest.skip(f"no sandbox here: {problem}")


@pytest.fixture
def fake_command() -> list[str]:
    """The fake adapter as an argv; choose faults with the fake_env fixture."""
    return [sys.executable, str(FAKE_ADAPTER)]


@pytest.fixture
def fake_env(monkeypatch):
    """Set the fake adapter's environment knobs (FAKE_ADAPTER_*) for this test, all unset at first."""
    for name in FAKE_VARIABLES:
        monkeypatch.delenv(f"FAKE_ADAPTER_{name}", raising=False)

    def setter(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"FAKE_ADAPTER_{name.upper()}", str(value))

    return setter


def _stat_fields(pid: int) -> list[str] | None:
    """State, parent, group, session, ... of `pid` (/proc/PID/stat after the command name); None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def running(pid: int) -> bool:
    """Is `pid` a live process (a zombie, dead but not yet reaped, is not)?"""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def _zombie_children() -> set[int]:
    found = set()
    for name in os.listdir("/proc"):
        fields = _stat_fields(int(name)) if name.isdigit() else None
        if fields is not None and fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.add(int(name))
    return found


@pytest.fixture
def pid_file(tmp_path, fake_env) -> Path:
    """Where the fake adapter lists the processes it leaves behind; read it with `pids(path)`."""
    path = tmp_path / "children.pids"
    fake_env(pid_file=path)
    return path


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _carrying(entry: bytes) -> list[int]:
    """Live processes whose environment holds `entry` (every fake adapter and child of a test holds its PID file)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if name.isdigit() and entry in environ.split(b"\0") and running(int(name)):
            found.append(int(name))
    return found


@pytest.fixture
def survivors():
    """`survivors(pid_file)`: the processes of the test still running, after a short grace for SIGKILL to land.

    They are the processes (a fake adapter, started before or after a
    signal, or a child) whose environment names the file; the pids listed in
    it alone prove nothing, since a pid is reused once its process is gone.
    Whatever of the test's is still running is killed when it ends.
    """
    seen: list[int] = []

    def check(path: Path) -> list[int]:
        assert pids(path), "the fake adapter started no child: the test proves nothing"
        entry = f"FAKE_ADAPTER_PID_FILE={path}".encode()
        seen.append(entry)
        deadline = time.monotonic() + 2
        while True:
            # A listed pid counts only while its process still carries the test's PID file in its
            # environment: once a listed process is gone its pid is reused by unrelated processes
            # (a forking chain cycles through the whole pid space), which must never be blamed or killed.
            alive = sorted(_carrying(entry))
            if not alive or time.monotonic() > deadline:
                return alive
            time.sleep(0.02)

    yield check
    for entry in seen:
        for pid in _carrying(entry):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def zombies():
    """`zombies(pid_file=None)`: the zombies the test made that nobody will reap.

    They are this process's zombie children that appeared during the test
    (the runner reaps only its own subprocesses, so an orphan it adopted
    would stay one), and the pids listed in `pid_file` that are zombies of
    init (which in a container may never reap them) or of this process.
    """
    before = _zombie_children()

    def check(path: Path | None = None) -> list[int]:
        found = _zombie_children() - before
        for pid in pids(path) if path is not None else ():
            fields = _stat_fields(pid)
            if fields is not None and fields[0] == "Z" and int(fields[1]) in (1, os.getpid()):
                found.add(pid)
        return sorted(found)

    return check


# Units of work under `-n` (pyproject.toml: `--dist loadscope`, with the scheduler below). Each
# module is one unit, so its module-scoped fixtures are built once and its items run in the same
# order on one worker every time (a failure reproduces with `-n 0` and the module alone). The
# users of an expensive session-scoped fixture of a conftest are one unit, or two workers would
# each build it: the shared mutant run (tests/mutants), the results site's matrix run
# (tests/site), the feedback reports (tests/feedback), and the reference results (below: the
# corpus tests, with their corpus and index, and the verdict tests of tests/runner).
_SHARED_DIRECTORIES = ("tests/feedback/", "tests/mutants/", "tests/site/")
_REFERENCE_RESULTS = ("tests/corpus/", "tests/runner/test_conforming_choices.py",
                      "tests/runner/test_verdict_honesty.py", "tests/runner/test_writer_subset_attribution.py")


def unit_of(nodeid: str) -> str:
    """The unit of work of a test id: a module, or the group of modules sharing a session fixture."""
    module = nodeid.split("::", 1)[0]
    if module.startswith(_REFERENCE_RESULTS):
        return "reference_results"
    return next((directory for directory in _SHARED_DIRECTORIES if module.startswith(directory)), module)


@pytest.hookimpl(wrapper=True, optionalhook=True)  # an xdist hook: absent with -p no:xdist
def pytest_xdist_auto_num_workers(config):
    """`-n auto` starts one worker more than there are CPUs (a PYTEST_XDIST_AUTO_NUM_WORKERS of
    yours is kept as it is). Each worker spends about a tenth of its time waiting on the adapters
    and tools it started; one more worker keeps the cores busy (benchmarks/README.md)."""
    count = yield
    return count if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") else count + 1


@pytest.hookimpl(optionalhook=True)  # an xdist hook: absent with -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    """xdist's loadscope scheduling, over the units of `unit_of` in the order the items were collected.

    (Not `--dist loadgroup` with xdist_group marks: pytest-xdist 3.8 marks a
    group by rewriting a private attribute that pytest 9.2 no longer reads,
    so the groups are silently ignored.)
    """
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return UnitScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """The reference results' unit first (the largest: a third of a worker's share), then the units
    holding a `slow` item, the rest in collection order: the longest are not the last to start
    while the other workers have nothing left to do."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(unit_of(item.nodeid), []).append(item)
    order = sorted(units.items(), key=lambda unit: (unit[0] != "reference_results",
                                                    not any(item.get_closest_marker("slow") for item in unit[1])))
    items[:] = [item for _, members in order for item in members]


_WORKER_LINES = pytest.StashKey[list]()
_SCRATCH = pytest.StashKey[tuple]()
RAM_DISK = Path("/dev/shm")
RAM_DISK_FREE = 2 << 30  # the suite writes about 200 MB; leave the machine the rest


def pytest_configure(config):
    """Put every scratch file of the run (pytest's tmp_path, the commands' and adapters' temporary
    directories: TMPDIR is inherited) on a RAM disk, in a directory of its own removed at the end.

    The tests write, fsync and remove tens of thousands of small stores; on a journaled disk that
    is a tenth of the suite's time, and none of it is what they test. Skipped where there is no
    RAM disk with room, under xdist's workers (they inherit the main process's TMPDIR), and where
    the user chose a place: `--basetemp`, or TMPDIR set.
    """
    if hasattr(config, "workerinput") or config.option.basetemp or os.environ.get("TMPDIR"):
        return
    try:
        usage = shutil.disk_usage(RAM_DISK)
        scratch = tempfile.mkdtemp(prefix="mct-", dir=RAM_DISK) \
            if usage.free > RAM_DISK_FREE and os.access(RAM_DISK, os.W_OK | os.X_OK) else None
    except OSError:
        scratch = None
    if scratch is not None:
        config.stash[_SCRATCH] = (scratch, tempfile.tempdir)
        os.environ["TMPDIR"] = tempfile.tempdir = scratch
        if sys.dont_write_bytecode:
            _bytecode_in(Path(scratch) / "bytecode")


def _bytecode_in(directory: Path) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, keep the run's bytecode in `directory` instead of
    writing none: every xdist worker would otherwise rewrite the assertions of all 200 test
    modules again (pytest caches them as bytecode), and every Python process a test starts would
    compile what it imports again. Nothing is written to the checkout, and the directory goes
    with the scratch directory, as PYTHONDONTWRITEBYTECODE asked."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = str(directory)
    sys.dont_write_bytecode = False


def pytest_unconfigure(config):
    scratch, before = config.stash.get(_SCRATCH, (None, None))
    if scratch is not None:
        os.environ.pop("TMPDIR", None)
        tempfile.tempdir = before
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: absent with -p no:xdist
def pytest_testnodedown(node, error):
    """Keep the summary lines a worker's fixtures left in `config.workeroutput["summary_lines"]`
    (the shared mutant run's figures): only the main process writes the terminal summary."""
    lines = getattr(node, "workeroutput", {}).get("summary_lines", [])
    node.config.stash.setdefault(_WORKER_LINES, []).extend(lines)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for line in config.stash.get(_WORKER_LINES, []):
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def reference_results(tmp_path_factory) -> dict:
    """Every bundled vector's result against the in-process reference model, by id: the corpus
    tests read their verdicts here, and the verdict tests take them for the vectors an
    implementation under test does not change (tests/runner/verdict_support.py)."""
    from conformance.runner.execute import run_vector
    from conformance.runner.implementations import ModelImplementation
    from conformance.runner.vectors import load_corpus

    loaded = load_corpus([resources.vectors_dir()])
    model = ModelImplementation()
    described = model.describe()
    workdir = tmp_path_factory.mktemp("reference")
    return {vector.id: run_vector(vector, model, described, workdir) for vector in loaded.vectors}


@pytest.fixture(autouse=True)
def _not_in_github_actions(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
