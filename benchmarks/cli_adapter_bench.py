"""Benchmark: the corpus through the generic CLI adapter, against the reference adapter.

Not a test. The CLI adapter starts one process of the tool per request, so
its cost is the requests per vector times (the tool's start + the kit's own
work per request). This runs every vector of the bundled corpus (or those
matching `-k`) through the reference adapter (persistent, -j 1), then
through the CLI adapter with `-j 1` and `-j 2`, in one process, and prints
wall times and their ratio to the reference run.

The configurations take turns: the vectors are run in `--chunks` parts,
every configuration on one part before the next part, so that a change of
the machine's load weighs on each alike. `--baseline DIR` (another checkout of the kit) adds, interleaved in the same
run, the CLI adapter of DIR driving DIR's toymemo, and this kit's adapter
driving DIR's toymemo: before/after ratios that tell the kit's part from the
tool's. `--breakdown` first prints where a request's time goes: the requests
per vector by op (counted on the in-process model), the tool's start (its
version command, run alone), and the kit's own cost per request: the
round trip of each op through the CLI adapter to a fake tool (/bin/true,
/bin/cat, /bin/echo), against a bare start of /bin/true.

    python benchmarks/cli_adapter_bench.py                    # toymemo, the tests' example CLI
    python benchmarks/cli_adapter_bench.py --cli mytool.toml  # your tool (on PATH)
    python benchmarks/cli_adapter_bench.py --shard 1/16 --breakdown --baseline ../before
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import conformance  # noqa: F401
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from run_modes_bench import add_selection_options, run_configuration, selected_vectors
from tabulate import tabulate

from conformance.cli_adapter import adapter_command
from conformance.cli_adapter.config import load
from conformance.cli_adapter.templates import render_argv
from conformance.model.merge import merge_session_texts
from conformance.model.session import DEFAULT_CAPS
from conformance.model.store import read_store
from conformance.options import default_adapter
from conformance.protocol.client import AdapterClient
from conformance.protocol.messages import AdapterFault, OkResponse
from conformance.runner.implementations import ModelImplementation
from conformance.runner.run import run_vectors

KIT = Path(__file__).resolve().parents[1]
TOYMEMO_PATH = Path("tests") / "cli_adapter" / "toymemo"
TOYMEMO = KIT / TOYMEMO_PATH

# The fake tool of --breakdown: each op's command costs one start of a small C program.
FAKE_TOOL = """
[describe]
name = "fake"
version = "1"
claims = ["reader"]
[ops.read_store]
command = ["/bin/cat", "{config_dir}/export.json"]
[ops.add_decision]
command = ["/bin/true", "--store", "{store}", { if = "why", then = ["--why={why}"] }, "--", "{text}"]
[ops.write_entry]
command = ["/bin/true", "--store", "{store}", "--fields-file", "{frontmatter_file}", "--", "{link}"]
stdin = "{body}"
[ops.merge_sessions]
command = ["/bin/cat", "{local}"]
"""


def put_toymemo_on_path(bin_dir: Path, toymemo_dir: Path = TOYMEMO, name: str = "toymemo") -> None:
    """A `toymemo` wrapper in `bin_dir` (rewritten if there), and `bin_dir` on PATH."""
    wrapper = bin_dir / name
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{toymemo_dir / "toymemo.py"}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    if str(bin_dir) not in os.environ["PATH"].split(os.pathsep):
        os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def cli_command(kit: Path, config: Path, timeout: float) -> list[str]:
    """`adapter_command` of the kit checked out at `kit` (its __main__.py finds its own package)."""
    command = adapter_command(config, timeout)
    command[1] = str(kit / "conformance" / "cli_adapter" / "__main__.py")
    return command


def requests_per_op(vectors) -> collections.Counter:
    """The requests the runner makes for `vectors`, by op (on the in-process model: same requests)."""
    counted: collections.Counter = collections.Counter()

    class Counting(ModelImplementation):
        def call(self, op, args):
            counted[op] += 1
            return super().call(op, args)

        def call_in_parallel(self, jobs):
            for job in jobs:
                counted.update(op for op, _ in job)
            return super().call_in_parallel(jobs)

        def fork(self, writable=None):
            return Counting(caps=self.context.caps)

    model = Counting()
    with tempfile.TemporaryDirectory(prefix="memoir-bench-count-") as workdir:
        run_vectors(vectors, model, model.describe(), Path(workdir), 1)
    return counted


def time_commands(commands: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median seconds of running each command to its end (output discarded), interleaved."""
    times: dict[str, list[float]] = collections.defaultdict(list)
    for round_number in range(rounds):
        order = list(commands.items())
        for label, argv in order if round_number % 2 else reversed(order):
            started = time.perf_counter()
            subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            times[label].append(time.perf_counter() - started)
    return {label: statistics.median(times[label]) for label in commands}


def tool_starts(config: Path, toymemos: dict[str, Path], workdir: Path, rounds: int) -> list[list[str]]:
    """Rows: the tool run alone. Any tool: its version command; toymemo: a merge and a read too, each toymemo."""
    commands: dict[str, list[str]] = {"/bin/true (a bare process start)": ["/bin/true"]}
    loaded = load(config)
    if not toymemos and loaded.version_command is not None and loaded.version_command.argv:
        argv = render_argv(loaded.version_command.argv, {"config_dir": str(loaded.config_dir)},
                           lambda _name: False, lambda _name: [])
        commands[" ".join(argv)] = argv
    store = workdir / "store"
    (store / "memory").mkdir(parents=True)
    session = workdir / "session.json"
    session.write_text(json.dumps(merge_session_texts("{}", "{}", caps=DEFAULT_CAPS)), encoding="utf-8")
    for label, toymemo_dir in toymemos.items():
        # Through the wrapper the adapter runs (a /bin/sh script exec-ing Python), like a user's installed CLI.
        put_toymemo_on_path(workdir, toymemo_dir, f"toymemo-{label}")
        wrapper = str(workdir / f"toymemo-{label}")
        for args in (["--version"], ["merge", str(session), str(session)], ["read", str(store), "--json"]):
            commands[f"toymemo {' '.join(args[:1])} ({label})"] = [wrapper, *args]
    return [[label, f"{1000 * seconds:.1f}"] for label, seconds in time_commands(commands, rounds).items()]


def fake_tool_round_trips(kits: dict[str, Path], workdir: Path, rounds: int) -> dict[tuple[str, str], float]:
    """Median round trip of each op through each kit's CLI adapter to the fake tool, interleaved."""
    config = workdir / "fake.toml"
    config.write_text(FAKE_TOOL, encoding="utf-8")
    store = workdir / "store"
    (store / "memory").mkdir(parents=True)
    # What the tool prints: the reference model's answers, so that the runner's checks of them pass.
    (workdir / "export.json").write_text(json.dumps(read_store(store)), encoding="utf-8")
    session = json.dumps(merge_session_texts("{}", "{}", caps=DEFAULT_CAPS))
    requests = {"read_store": {"store": str(store)},
                "add_decision": {"store": str(store), "text": "a decision", "why": "because"},
                "write_entry": {"store": str(store), "link": "note", "frontmatter": {"type": "note"}, "body": "x\n"},
                "merge_sessions": {"local": session, "remote": session}}
    clients = {label: AdapterClient(cli_command(kit, config, 30.0), timeout=30.0, workdir=workdir / label)
               for label, kit in kits.items()}
    times: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    try:
        for label, client in clients.items():
            described = client.describe()
            if isinstance(described, AdapterFault):
                raise SystemExit(f"the fake tool's adapter ({label}) did not start: {described}")
        for round_number in range(rounds):
            order = list(clients.items())
            for op, args in requests.items():
                for label, client in order if round_number % 2 else reversed(order):
                    started = time.perf_counter()
                    outcome = client.request(op, args)
                    times[(label, op)].append(time.perf_counter() - started)
                    if not isinstance(outcome, OkResponse):
                        raise SystemExit(f"the fake tool's {op} failed ({label}): {outcome}")
    finally:
        for client in clients.values():
            client.close()
    return {key: statistics.median(values) for key, values in times.items()}


def breakdown(vectors, config: Path, kits: dict[str, Path], toymemos: dict[str, Path], rounds: int) -> None:
    counted = requests_per_op(vectors)
    total = sum(counted.values())
    print(f"requests per vector: {total / len(vectors):.2f} ({total} for {len(vectors)} vectors, "
          "plus the version command once per adapter process)")
    print(tabulate([[op, count, f"{count / len(vectors):.2f}"] for op, count in counted.most_common()],
                   headers=["op", "requests", "per vector"], tablefmt="simple"))
    with tempfile.TemporaryDirectory(prefix="memoir-bench-tool-") as workdir:
        rows = tool_starts(config, toymemos, Path(workdir), rounds)
    print(f"\nthe tool run alone (ms, median of {rounds}, interleaved)")
    print(tabulate(rows, headers=["command", "ms"], tablefmt="simple"))
    with tempfile.TemporaryDirectory(prefix="memoir-bench-fake-") as workdir:
        trips = fake_tool_round_trips(kits, Path(workdir), rounds)
    labels = list(kits)
    ops = sorted({op for _, op in trips})
    rows = [[op, *(f"{1000 * trips[(label, op)]:.2f}" for label in labels),
             *([f"{trips[(labels[-1], op)] / trips[(labels[0], op)]:.2f}x"] if len(labels) > 1 else [])]
            for op in ops]
    print("\nthe kit's cost per request: a round trip through the CLI adapter to a fake tool "
          f"(ms, median of {rounds}, interleaved)")
    print(tabulate(rows, headers=["op", *labels, *(["after / before"] if len(labels) > 1 else [])],
                   tablefmt="simple"))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", metavar="FILE", type=Path, help="CLI adapter configuration (default: toymemo's)")
    add_selection_options(parser)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    parser.add_argument("--baseline", metavar="DIR", type=Path,
                        help="another checkout of the kit: its CLI adapter (and toymemo) too, for before/after ratios")
    parser.add_argument("--breakdown", action="store_true",
                        help="first: requests per vector, the tool's start, the kit's cost per request")
    parser.add_argument("--rounds", type=int, default=30, help="repetitions of each --breakdown timing (default 30)")
    parser.add_argument("--chunks", type=int, default=4,
                        help="run the vectors in this many parts, each configuration in turn on each part "
                             "(interleaved; each part starts the adapters anew; default 4)")
    args = parser.parse_args(argv)

    vectors = selected_vectors(args)
    if isinstance(vectors, str):
        print(vectors, file=sys.stderr)
        return 2
    baseline_kit = args.baseline.resolve() if args.baseline else None
    for kit in filter(None, (KIT, baseline_kit)):
        # As an installed tool has it: else, where PYTHONDONTWRITEBYTECODE is set, every run of
        # toymemo would compile the reference model again, and the tool's start would be mismeasured.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(kit / "conformance")], check=True)
    with tempfile.TemporaryDirectory(prefix="memoir-bench-bin-") as bin_dir:
        if args.cli is None:
            put_toymemo_on_path(Path(bin_dir))
        config = args.cli or TOYMEMO / "toymemo.toml"
        loaded = load(config)
        if isinstance(loaded, list):
            print("\n".join(loaded), file=sys.stderr)
            return 2
        kits = {"before": baseline_kit, "after": KIT} if baseline_kit else {"this kit": KIT}
        if args.breakdown:
            toymemos = {} if args.cli else {label: kit / TOYMEMO_PATH for label, kit in kits.items()}
            breakdown(vectors, config, kits, toymemos, args.rounds)
        runs = [("reference adapter", "", default_adapter(), None, 1)]
        for jobs in (1, 2):
            if jobs > 1:
                runs.append(("reference adapter", "", default_adapter(), None, jobs))
            if baseline_kit is None:
                runs.append((f"--cli {config.name}", "", adapter_command(config, args.timeout), None, jobs))
                continue
            tools = [("before", baseline_kit, baseline_kit)]
            if args.cli is None:   # toymemo: this kit's adapter on the old toymemo, then on its own
                tools.append(("after", KIT, baseline_kit))
            tools.append(("after", KIT, KIT))
            for label, kit, toymemo_kit in tools:
                tool = "" if args.cli else ("toymemo as it was" if toymemo_kit == baseline_kit else "toymemo now")
                runs.append((f"--cli {config.name}, kit {label}", tool, cli_command(kit, config, args.timeout),
                             toymemo_kit, jobs))
        # Interleaved: the vectors in `--chunks` parts, every configuration on a part before the next
        # part, in alternating order, so that a change of the machine's load weighs on each alike.
        chunks = [vectors[index::args.chunks] for index in range(min(args.chunks, len(vectors)))]
        elapsed = [0.0] * len(runs)
        outcomes: list[dict] = [{} for _ in runs]
        for number, chunk in enumerate(chunks, start=1):
            order = list(enumerate(runs))
            for index, (label, tool, command, toymemo_kit, jobs) in order if number % 2 else reversed(order):
                if toymemo_kit is not None and args.cli is None:
                    put_toymemo_on_path(Path(bin_dir), toymemo_kit / TOYMEMO_PATH)   # rewrites the wrapper
                print(f"part {number}/{len(chunks)}: {label} {tool} -j {jobs}: {len(chunk)} vectors ...",
                      file=sys.stderr, flush=True)
                measured = run_configuration(command, chunk, False, jobs, args.timeout)
                if isinstance(measured, str):
                    print(f"cannot start the adapter: {measured}", file=sys.stderr)
                    return 2
                elapsed[index] += measured[0]
                outcomes[index].update(measured[1])
        rows = []
        for index, (label, tool, _command, _toymemo_kit, jobs) in enumerate(runs):
            reference = next(elapsed[other] for other, run in enumerate(runs) if run[0] == "reference adapter"
                             and run[4] == jobs)
            passed = sum(outcome == "pass" for outcome in outcomes[index].values())
            rows.append([label, tool, jobs, f"{elapsed[index]:.2f}", f"{len(vectors) / elapsed[index]:.1f}",
                         f"{1000 * elapsed[index] / len(vectors):.1f}", f"{elapsed[index] / elapsed[0]:.1f}x",
                         f"{elapsed[index] / reference:.1f}x", f"{passed}/{len(outcomes[index])}"])
    headers = ["implementation", "tool", "jobs", "wall s", "vectors/s", "ms/vector", "vs reference -j 1",
               "vs reference, same -j", "passed"]
    if not any(row[1] for row in rows):
        headers.pop(1)
        rows = [row[:1] + row[2:] for row in rows]
    print(tabulate(rows, headers=headers, tablefmt="simple"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
