"""Hostile files against `memoir-conform validate`, each within a time budget.

Generates a store of adversarial files, each as large as the validator reads
(4 MiB): every secret pattern's prefix repeated (``sk-sk-sk-...``,
``eyJ-eyJ-...``), hundreds of thousands of ``[[links]]``, one 10 MB line, four
million line breaks, a session of 100,000 bad items, JSON nested to the limit,
and the like. Each file is validated alone, by the real command line in a fresh
process, and must finish within its budget; the script exits 1 if any does not
(issue 16: the secret scanner took 37 s on 400 KB of ``sk-`` and did not
finish 4 MB in ten minutes; 450,000 links did not finish either). Issue 24
added the three inputs whose patterns were not linear: a `# a` heading
followed by spaces and tabs, an index line of `.md#`, and (in a REME vault)
a line of backticks.

    python benchmarks/hostile_files_bench.py                  # every file, default budget
    python benchmarks/hostile_files_bench.py --budget 5 --only sk- links
    python benchmarks/hostile_files_bench.py --keep DIR       # keep the files

The budget is generous (the machine may be shared) and the same for every
file: what it catches is time growing with the square of the size, which
takes minutes, not seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIZE = 4 * 1024 * 1024
HEAD = "---\ntype: fact\nname: hostile\ndescription: d\ncreated: 2026-01-01\n---\n"
# The literal start of every secret pattern (conformance/validator/memoir/secrets.py), to be repeated.
SECRET_PREFIXES = ("sk-", "sk-ant-", "sk-proj-", "eyJ", "eyJ-", "eyJa.", "ghp_", "github_pat_", "glpat-", "xoxb-",
                   "AKIA", "AIza", "sk_live_", "npm_", "pypi-AgEIcHlwaS5vcmc", "hf_", "T3BlbkFJ",
                   "aws_secret_access_key ", "aws_secret_access_key=", "-----BEGIN ", "https://hooks.slack.com/services/T")


def _fill(unit: str, size: int = SIZE - len(HEAD)) -> str:
    return unit * (size // len(unit))


def hostile_files() -> dict[str, str]:
    """File name -> content."""
    files = {f"secret-{index:02d}.md": HEAD + _fill(prefix) for index, prefix in enumerate(SECRET_PREFIXES)}
    files["secret-sk-then-key.md"] = HEAD + _fill("sk-", SIZE // 2) + "sk-" + "a" * 48 + "\n"
    files["links-distinct.md"] = HEAD + "".join(f"[[l{index}]]" for index in range(450_000))[: SIZE - len(HEAD)]
    files["links-same.md"] = HEAD + _fill("[[a]] ")
    files["links-unclosed.md"] = HEAD + _fill("[[a ")
    files["brackets.md"] = HEAD + _fill("[")
    files["one-long-value.md"] = "---\ntype: fact\nname: " + "x" * (10 * 1024 * 1024) + "\n---\nbody\n"
    files["long-line-body.md"] = HEAD + _fill("x")
    files["line-breaks.md"] = HEAD + _fill("\n")
    files["crlf-breaks.md"] = HEAD.replace("\n", "\r\n") + _fill("\r\n")
    files["lone-cr.md"] = HEAD.replace("\n", "\r") + _fill("a\r")
    files["bare-index-like.md"] = _fill("- [a](a.md)\n", SIZE)
    files["bare-headings.md"] = _fill("\n", SIZE - 10) + "# Title\n"
    files["bare-how-to-apply.md"] = "---\ntype: feedback\nname: n\ndescription: d\n---\n" + _fill("*\n")
    files["frontmatter-lines.md"] = "---\n" + "".join(f"k{index}: v\n" for index in range(300_000)) + "---\n"
    files["frontmatter-nesting.md"] = "---\n" + "".join(" " * depth + f"k{depth}:\n" for depth in range(2000)) + "---\n"
    files["frontmatter-list.md"] = "---\ntype: fact\nname: n\ntags:\n" + _fill("  - t\n") + "---\n"
    files["frontmatter-comment.md"] = "---\ntype: fact\nname: n\ndescription: " + _fill(" #") + "\n---\n"
    files["frontmatter-colons.md"] = "---\ntype: fact\nname: " + _fill(": ") + "\n---\n"
    files["frontmatter-quotes.md"] = '---\ntype: fact\nname: "' + _fill('\\"') + '\n---\n'
    # Issue 24: inputs that took time growing with the square (or cube) of their size.
    files["bare-heading-spaces.md"] = "# a" + _fill(" \t", 256 * 1024) + "x\n"
    files["index-line-md-hash.md"] = "- [a](" + _fill(".md#", 255 * 1024) + "\n- [b](b.md)\n- [c](c.md)\n"
    files["not-utf8.md"] = HEAD + _fill("\udcff")  # written with surrogateescape: invalid bytes throughout
    return files


def hostile_sessions() -> dict[str, str]:
    items = [{"text": f"action {index}", "added": "not a date"} for index in range(60_000)]
    bad_items = json.dumps({"version": 1, "current": {"next_actions": items}, "history": []})
    duplicates = json.dumps({"version": 1, "current": {"decisions": [{"text": "same", "text_hash": "x"}] * 60_000}})
    return {
        "bad-items/session.json": bad_items,
        "duplicates/session.json": duplicates,
        "deep/session.json": "[" * 100_000 + "]" * 100_000,
        "deep-objects/session.json": '{"a":' * 60 + "1" + "}" * 60,
        "huge/session.json": json.dumps({"version": 1, "pad": "x" * (SIZE + 10)}),
    }


def hostile_vaults() -> dict[str, str]:
    """A REME vault (validated as a directory) per hostile topic file: vault-relative path -> content."""
    return {"backticks/topics/t/t.md": "# t\n\n" + "`" * 4096 + "\n"}


def generate(root: Path) -> list[Path]:
    store = root / "store" / "memory"
    store.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in hostile_files().items():
        path = store / name
        path.write_text(text, encoding="utf-8", errors="surrogateescape", newline="")
        paths.append(path)
    for name, text in hostile_sessions().items():
        path = root / "sessions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    for name, text in hostile_vaults().items():
        path = root / "vaults" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(root / "vaults" / name.split("/")[0])
    return paths


def run(path: Path) -> tuple[float, int, str]:
    """(wall seconds, exit code, last line of output) of validating one file."""
    start = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "conformance", "validate", "--format", "json", str(path)],
                               capture_output=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    seconds = time.perf_counter() - start
    summary = json.loads(completed.stdout)["summary"] if completed.returncode in (0, 1) else completed.stderr[-300:]
    return seconds, completed.returncode, str(summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=10.0, help="seconds allowed per file (default 10)")
    parser.add_argument("--only", nargs="+", default=[], help="only the files whose name contains one of these")
    parser.add_argument("--keep", type=Path, help="generate the files here and keep them")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="memoir-hostile-"))
    over = []
    print(f"{'file':42} {'seconds':>8} {'exit':>4}  summary")
    for path in generate(root):
        name = str(path.relative_to(root))
        if args.only and not any(part in name for part in args.only):
            continue
        seconds, code, summary = run(path)
        flag = "" if seconds <= args.budget and code in (0, 1) else "  <-- OVER BUDGET" if code in (0, 1) else "  <-- FAILED"
        print(f"{name:42} {seconds:8.2f} {code:>4}  {summary[:90]}{flag}")
        if flag:
            over.append(name)
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    if over:
        print(f"{len(over)} file(s) over the budget of {args.budget:g} s or failed: {', '.join(over)}", file=sys.stderr)
        return 1
    print(f"every file within the budget of {args.budget:g} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
