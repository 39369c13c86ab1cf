"""Benchmark of `memoir-conform validate` on generated stores.

Generates stores of 100 (a pre-commit run), 10,000 and 100,000 entries (every type, both frontmatter
dialects, legacy vocabularies, bare files, CRLF, non-ASCII text, wikilinks,
and about one file in twenty with a defect), validates each with the real
command line in a fresh process, and reports the wall time, files per second,
the CPU seconds of the main process and of its workers (on a shared machine
the fairer measure), the peak resident memory of the main process and of the
largest worker, and how time grows with store size. It checks that the output
is byte-identical whatever the number of workers, and says whether the goals
are met.

Beside this checkout it runs, in the same run and interleaved (so that both
see the same machine), `--baseline DIR` (another checkout of the kit, for
before/after ratios) and memoir-cli's own validator (`memoir validate STORE`,
the `memoir` executable on PATH or `--memoir CMD`) when it is installed; it
says so when it is not.

    python benchmarks/validate_bench.py                     # 100, 10k and 100k; -j 1, 2 and the default
    python benchmarks/validate_bench.py --sizes 10000 --jobs 1 0 --formats json human
    python benchmarks/validate_bench.py --baseline ../old-checkout --repeat 3
    python benchmarks/validate_bench.py --keep DIR          # keep the stores (100k is 400 MB)

Goals (issues 15 and 22): 100,000 entries in under 6 s with the default -j on
2 cores, peak memory under 150 MiB, output identical across -j; at most 0.25x
the wall time and the CPU time of `memoir validate` at 10k and 100k entries.
Other engineers may load the machine: compare the CPU seconds, and the ratios
of one run, and run it again when the machine is quieter.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TYPES = ("fact", "preference", "decision", "lesson", "goal", "next_action")
WORDS = ("cache", "merge", "deploy", "review", "schema", "token", "retry", "index", "staging", "backup",
         "Straße", "통과", "迁移", "ทดสอบ", "café")


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def entry_text(rng: random.Random, index: int, links: list[str]) -> tuple[str, str]:
    """(link name, file text) of one generated entry."""
    kind = rng.random()
    entry_type = TYPES[index % len(TYPES)]
    link = f"{entry_type}_entry-{index:06d}"
    body = f"{_words(rng, 40)}\n\nSee [[{rng.choice(links)}]] and [[missing-{index % 97}]].\n"
    if kind < 0.05:  # a bare legacy file
        return f"note-{index:06d}", f"# Note {index}\n\n{body}"
    if kind < 0.25:  # the nested legacy dialect
        legacy = rng.choice(("feedback", "project", "reference", "user"))
        return f"{legacy}_entry-{index:06d}", (
            f"---\nname: {legacy}-{index}\ndescription: {_words(rng, 8)}\nmetadata: \n  node_type: memory\n"
            f"  type: {legacy}\n  originSessionId: {hashlib.md5(str(index).encode()).hexdigest()}\n---\n"
            f"{body}\n**Why:** {_words(rng, 10)}\n\n**How to apply:** {_words(rng, 10)}\n")
    lines = [f"type: {entry_type}", f"name: Entry {index}: {_words(rng, 3)}" if kind < 0.3 else f"name: Entry {index}",
             f"description: {_words(rng, 8)}", f"created: 2026-0{1 + index % 9}-1{index % 9}"]
    if entry_type == "decision":
        lines += [f"date: 2026-05-0{1 + index % 9}", f"why: {_words(rng, 6)}", f"rejected: {_words(rng, 6)}"]
    elif entry_type == "lesson":
        lines += [f"trigger: {_words(rng, 5)}", f"how_to_apply: {_words(rng, 5)}"]
    elif entry_type == "goal":
        lines += ["set_on: 2026-06-01"]
    elif entry_type == "next_action":
        lines += [f"added: 2026-06-12T09:{index % 60:02d}:00Z"]
    lines += ["tags:", f"  - {rng.choice(WORDS)}", f"  - {rng.choice(WORDS)}"]
    if kind > 0.95:  # some invalid entries
        lines.append(rng.choice(("base: &a x", "why: |", "created: not-a-date", "origin:\n  a:\n    b: c",
                                 "tags: [a, b]", "name: again")))
    text = "---\n" + "\n".join(lines) + "\n---\n" + body
    if kind > 0.9 and kind <= 0.95:
        text = text.replace("\n", "\r\n")
    return link, text


def session_text(rng: random.Random) -> str:
    actions = [{"text": f"action {i}", "machine_id": "m", "added": f"2026-06-{1 + i % 28:02d}T10:00:00Z"}
               for i in range(8)]
    return json.dumps({
        "version": 1, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-06-30T00:00:00Z",
        "machines": {"m": {"label": "laptop", "last_seen": "2026-06-30T00:00:00Z"}},
        "current": {"goals": [{"text": "ship", "set_on": "2026-06-01"}], "next_actions": actions,
                    "open_questions": [], "decisions": [{"text": "use sqlite", "date": "2026-05-01"}],
                    "completed_actions": [{"text": "action 0", "done_at": "2026-07-01T00:00:00Z"}]},
        "history": [],
    }, indent=2)


def generate_store(root: Path, size: int, seed: int = 6) -> Path:
    rng = random.Random(seed)
    store = root / f"store-{size}"
    memory = store / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    links = [f"{TYPES[i % 6]}_entry-{i:06d}" for i in range(min(size, 500))]
    for index in range(size):
        link, text = entry_text(rng, index, links)
        (memory / f"{link}.md").write_text(text, encoding="utf-8", newline="")
    (store / "session.json").write_text(session_text(rng), encoding="utf-8")
    return store


# Runs the command line in a fresh interpreter and reports, on stderr, the
# CPU seconds and peak resident set of the process and of its workers.
_CHILD = """
import resource, sys
from conformance.cli import main
code = main(sys.argv[1:])
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"\\nBENCH {own.ru_utime + own.ru_stime} {kids.ru_utime + kids.ru_stime} "
                 f"{own.ru_maxrss} {kids.ru_maxrss}\\n")
sys.exit(code)
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    main_cpu: float
    workers_cpu: float
    main_kib: int
    worker_kib: int  # the largest worker
    digest: str      # sha256 of the output

    @property
    def cpu(self) -> float:
        return self.main_cpu + self.workers_cpu

    @property
    def peak_mib(self) -> float:
        return max(self.main_kib, self.worker_kib) / 1024


def run_validate(store: Path, jobs: int, output_format: str = "json", kit: Path = REPO) -> Run:
    """One run of validate on `store` with `jobs` workers (0: the default), with the kit at `kit`."""
    command = [sys.executable, "-c", _CHILD, "validate", "--format", output_format, str(store)]
    if jobs:
        command[4:4] = ["-j", str(jobs)]
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, cwd=kit, env={**os.environ, "PYTHONPATH": str(kit)})
    seconds = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        raise SystemExit(f"validate failed ({completed.returncode}): {completed.stderr.decode()[-2000:]}")
    main_cpu, workers_cpu, main_kib, worker_kib = completed.stderr.decode().rsplit("BENCH ", 1)[-1].split()
    return Run(seconds, float(main_cpu), float(workers_cpu), int(main_kib), int(worker_kib),
               hashlib.sha256(completed.stdout).hexdigest())


def run_memoir(memoir: list[str], store: Path) -> Run:
    """One run of memoir-cli's validator; CPU and peak memory of it and its children, from wait4."""
    start = time.perf_counter()
    process = subprocess.Popen([*memoir, "validate", str(store)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = process.stdout.read()
    _pid, _status, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped here, not by Popen
    seconds = time.perf_counter() - start
    return Run(seconds, usage.ru_utime + usage.ru_stime, 0.0, usage.ru_maxrss, 0,
               hashlib.sha256(output).hexdigest())


def memoir_command(given: str | None) -> tuple[list[str] | None, str]:
    """memoir-cli's command and its version, or None and why it is not run."""
    found = shlex.split(given) if given else ([shutil.which("memoir")] if shutil.which("memoir") else None)
    if not found:
        return None, "memoir-cli is not installed (no `memoir` on PATH; npm install -g memoir-cli): not compared"
    try:
        version = subprocess.run([*found, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
        version = version.splitlines()[0] if version else ""
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"memoir-cli cannot be run ({error}): not compared"
    return found, f"memoir-cli {version or '(version unknown)'}"


GOAL_SIZE, GOAL_SECONDS, GOAL_MIB, GOAL_RATIO = 100_000, 6.0, 150, 0.25


def _best(values: list[float]) -> float:
    """The best of the repeated runs: on a shared machine other work only ever adds time."""
    return min(values)


def _row(label: str, size: int, jobs: str, runs: list[Run]) -> str:
    seconds, cpu = _best([run.seconds for run in runs]), _best([run.cpu for run in runs])
    main_cpu, workers_cpu = _best([run.main_cpu for run in runs]), _best([run.workers_cpu for run in runs])
    main_mib = max(run.main_kib for run in runs) / 1024
    worker_mib = max(run.worker_kib for run in runs) / 1024
    return (f"{label:>9} {size:>8} {jobs:>7} {seconds:>8.2f} {size / seconds:>8.0f} {main_cpu:>8.2f} "
            f"{workers_cpu:>11.2f} {cpu:>8.2f} {main_mib:>8.1f} {worker_mib:>10.1f}  {runs[0].digest[:16]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 10000, 100000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 0], help="0: the default (one per idle CPU)")
    parser.add_argument("--formats", nargs="+", default=["json"], choices=("json", "human", "sarif", "junit"))
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration, interleaved (the best of them is shown)")
    parser.add_argument("--baseline", type=Path, help="another checkout of the kit, run beside this one")
    parser.add_argument("--memoir", help="memoir-cli's command (default: `memoir` on PATH)")
    parser.add_argument("--keep", type=Path, help="generate the stores here and keep them")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="memoir-bench-"))
    memoir, memoir_note = memoir_command(args.memoir)
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}; {memoir_note}")
    print(f"{'kit':>9} {'entries':>8} {'jobs':>7} {'seconds':>8} {'files/s':>8} {'main cpu':>8} {'workers cpu':>11} "
          f"{'cpu':>8} {'main MiB':>8} {'worker MiB':>10}  output digest")
    kits = [("this", REPO)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    for _label, kit in kits:
        # As an installed package has it: else, where PYTHONDONTWRITEBYTECODE is set, every run
        # would compile the kit's modules again (about 0.1 s of CPU) and the start would be mismeasured.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(kit / "conformance")], check=True)
    previous: tuple[int, float] | None = None
    met = None
    failed = False
    for size in args.sizes:
        store = root / f"store-{size}"
        if not store.exists():
            generate_store(root, size)
        best = None
        for output_format in args.formats:
            runs: dict[tuple[str, int], list[Run]] = {}
            others: list[Run] = []
            for _round in range(args.repeat):  # interleaved: every configuration sees the same machine
                for jobs in args.jobs:
                    for label, kit in kits:
                        runs.setdefault((label, jobs), []).append(run_validate(store, jobs, output_format, kit))
                if memoir is not None:
                    others.append(run_memoir(memoir, store))
            print(f"  {output_format} output, {size} entries:")
            for (label, jobs), found in runs.items():
                print(_row(label, size, str(jobs or "default"), found))
            if others:
                print(_row("memoir", size, "-", others))
            digests = {found[0].digest for (label, _jobs), found in runs.items() if label == "this"}
            if len(digests) != 1:
                print(f"  output DIFFERS with the number of workers at {size} entries", file=sys.stderr)
                failed = True
            else:
                print(f"  output identical for -j {' '.join(str(jobs or 'default') for jobs in args.jobs)}")
            if args.baseline:
                # A speed-up must not change a byte of the report: the baseline's is the reference.
                before = {found[0].digest for (label, _jobs), found in runs.items() if label == "baseline"}
                if before == digests:
                    print("  output identical to the baseline's")
                else:
                    print(f"  output DIFFERS from the baseline's at {size} entries", file=sys.stderr)
                    failed = True
            for jobs in args.jobs:
                mine = runs[("this", jobs)]
                seconds, cpu = _best([run.seconds for run in mine]), _best([run.cpu for run in mine])
                best = seconds if best is None else min(best, seconds)
                if ("baseline", jobs) in runs:
                    theirs = runs[("baseline", jobs)]
                    print(f"  -j {jobs or 'default'}: this / baseline = "
                          f"{seconds / _best([run.seconds for run in theirs]):.2f}x wall, "
                          f"{cpu / _best([run.cpu for run in theirs]):.2f}x CPU, "
                          f"peak {max(run.peak_mib for run in mine):.0f} vs "
                          f"{max(run.peak_mib for run in theirs):.0f} MiB")
                if others:
                    wall_ratio = seconds / _best([run.seconds for run in others])
                    cpu_ratio = cpu / _best([run.cpu for run in others])
                    print(f"  -j {jobs or 'default'}: this / memoir validate = {wall_ratio:.2f}x wall, "
                          f"{cpu_ratio:.2f}x CPU (goal: at most {GOAL_RATIO}x each)")
                if size == GOAL_SIZE and jobs == 0:
                    peak = max(run.peak_mib for run in mine)
                    met = (met is not False) and seconds < GOAL_SECONDS and peak < GOAL_MIB
        if previous is not None and best is not None:
            ratio = (best / previous[1]) / (size / previous[0])
            print(f"  time grew {best / previous[1]:.1f}x for {size / previous[0]:.0f}x the entries "
                  f"({'linear' if ratio < 1.5 else 'worse than linear'}: {ratio:.2f} per unit of growth)")
        if best is not None:
            previous = (size, best)
    if met is not None:
        print(f"goal ({GOAL_SIZE:,} entries in under {GOAL_SECONDS:g} s with the default -j, peak under "
              f"{GOAL_MIB} MiB): {'met' if met else 'NOT met'}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
