"""Benchmark of `memoir-conform validate` on generated stores.

Generates stores of 1,000, 10,000 and 100,000 entries (every type, both
frontmatter dialects, legacy vocabularies, bare files, CRLF, non-ASCII text,
wikilinks, and about one file in twenty with a defect), validates each with
the real command line in a fresh process, and reports files per second,
CPU seconds (the run and its workers: on a shared machine the fairer
measure), peak memory (the largest resident set of the run or a worker) and
how time grows with store size. It also checks that the JSON output is identical with one
worker and with several.

    python benchmarks/validate_bench.py                 # 1k, 10k, 100k
    python benchmarks/validate_bench.py --sizes 1000 10000 --jobs 1 2
    python benchmarks/validate_bench.py --keep DIR      # keep the stores

Target (issue 6): 10,000 entries in under 2 seconds on a 2-core machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
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


# Runs the command line in a fresh interpreter and reports, on stderr, its
# peak resident set (the largest of the process and its worker processes) and
# the CPU seconds it and its workers used.
_CHILD = """
import resource, sys
from conformance.cli import main
code = main(sys.argv[1:])
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
sys.stderr.write(f"\\nBENCH {max(own.ru_maxrss, kids.ru_maxrss)} {cpu}\\n")
sys.exit(code)
"""


def run_validate(store: Path, jobs: int) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, peak resident KiB, sha256 of the JSON output) of one run."""
    command = [sys.executable, "-c", _CHILD, "validate", "--format", "json", "-j", str(jobs), str(store)]
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    seconds = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        raise SystemExit(f"validate failed ({completed.returncode}): {completed.stderr.decode()[-2000:]}")
    marker = completed.stderr.decode().rsplit("BENCH ", 1)[-1].split()
    return seconds, float(marker[1]), int(marker[0]), hashlib.sha256(completed.stdout).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", type=Path, help="generate the stores here and keep them")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="memoir-bench-"))
    print(f"{'entries':>8} {'jobs':>4} {'seconds':>8} {'cpu s':>7} {'files/s':>9} {'peak MiB':>9}  output digest")
    previous: tuple[int, float] | None = None
    for size in args.sizes:
        store = root / f"store-{size}"
        if not store.exists():
            generate_store(root, size)
        digests = set()
        best = None
        for jobs in args.jobs:
            seconds, cpu, peak_kib, digest = run_validate(store, jobs)
            digests.add(digest)
            best = seconds if best is None else min(best, seconds)
            print(f"{size:>8} {jobs:>4} {seconds:>8.2f} {cpu:>7.2f} {size / seconds:>9.0f} {peak_kib / 1024:>9.1f}  "
                  f"{digest[:16]}")
        if len(digests) != 1:
            print(f"  output DIFFERS with the number of workers at {size} entries", file=sys.stderr)
            return 1
        if previous is not None:
            ratio = (best / previous[1]) / (size / previous[0])
            print(f"  time grew {best / previous[1]:.1f}x for {size / previous[0]:.0f}x the entries "
                  f"({'linear' if ratio < 1.5 else 'worse than linear'}: {ratio:.2f} per unit of growth)")
        previous = (size, best)
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
