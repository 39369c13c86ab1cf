"""How a fuzz run is shown: a console summary with each counterexample as a readable diff, and JSON."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Sequence

from conformance import SPEC_VERSION, __version__
from conformance.fuzz.engine import ERROR, FAILED, PASSED, SKIPPED, FuzzRun, PropertyResult
from conformance.fuzz.export import Saved
from conformance.protocol.messages import Describe

MARK = {PASSED: "ok", FAILED: "FAIL", SKIPPED: "skip", ERROR: "ERROR"}
INPUT_LINES = 80


def property_line(result: PropertyResult) -> str:
    mark = MARK[result.status]
    if result.status == FAILED:
        what = f"counterexample after {result.examples} examples, shrunk in {result.shrink_steps} steps"
    elif result.status == PASSED:
        what = f"{result.examples} examples"
    else:
        what = ""
    timing = f", {result.duration:.1f} s" if result.status in (PASSED, FAILED) else ""
    note = f"({result.note})" if result.note else ""
    return f"  {mark:<5} {result.name:<22} " + " ".join(part for part in (what + timing, note) if part)


def compact_json(value: object, indent: int = 0) -> str:
    """JSON for reading: objects that hold structure open up, list items one per line."""
    pad = " " * (indent + 2)
    if isinstance(value, dict) and any(isinstance(v, (dict, list)) and v for v in value.values()):
        entries = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {compact_json(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(entries) + "\n" + " " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        entries = [pad + json.dumps(v, ensure_ascii=False) for v in value]
        return "[\n" + ",\n".join(entries) + "\n" + " " * indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _shown(value: object) -> str:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return repr(value) if len(value) < 400 else repr(value[:400]) + " ..."
        return compact_json(parsed)
    return compact_json(value)


def _indented(text: str, limit: int = INPUT_LINES) -> str:
    lines = text.splitlines() or [""]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    " + line for line in lines)


def counterexample_block(result: PropertyResult, reproduce: str) -> str:
    found = result.counterexample
    lines = [f"=== {result.name}: {result.title}",
             f"violated: {found.requirement} (spec {found.section})"
             + (f"; see also {', '.join(found.requirements[1:])}" if len(found.requirements) > 1 else ""),
             found.message]
    if result.note:
        lines.append(f"note: {result.note}")
    for name, value in found.inputs.items():
        if name == "steps" and isinstance(value, list):
            lines.append("steps:")
            lines.extend(f"    {index + 1}. {step['op']} {json.dumps(step['args'], ensure_ascii=False)}"
                         for index, step in enumerate(value))
        elif value is None:
            lines.append(f"{name}: (none)")
        else:
            lines.append(f"{name}:")
            lines.append(_indented(_shown(value)))
    diff = found.diff()
    if diff:
        lines.append(diff)
    lines.append(f"reproduce: {reproduce}")
    return "\n".join(lines)


def reproduce_command(target: Sequence[str], run: FuzzRun, name: str, differential: bool, oneshot: bool) -> str:
    """`target`: the options that name the implementation (`--adapter CMD`, `--cli FILE`, or none)."""
    parts = ["memoir-conform", "fuzz", *target]
    if oneshot:
        parts.append("--oneshot")
    parts += ["--seed", str(run.seed), "--examples", str(run.examples), "--property", name]
    if not differential:
        parts.append("--no-differential")
    return shlex.join(parts)


def render(run: FuzzRun, label: str, described: Describe, caps: dict, saved: dict[str, Saved],
           target: Sequence[str], differential: bool, oneshot: bool) -> str:
    head = [f"memoir-conform fuzz: {label}",
            f"  implementation: {described.name} {described.version}, spec {described.spec}",
            f"  caps: {', '.join(f'{k} {v}' for k, v in caps.items())}",
            f"  seed {run.seed}, up to {run.examples} examples per property"
            + (f", at most {run.max_seconds:g} s" if run.max_seconds else "")
            + ("" if differential else ", differential check off"),
            ""]
    body = [property_line(result) for result in run.results]
    blocks = []
    for result in run.results:
        if result.status == FAILED and result.counterexample is not None:
            block = counterexample_block(result, reproduce_command(target, run, result.name, differential, oneshot))
            if result.name in saved:
                block += f"\nvector: {saved[result.name].message}"
            blocks.append(block)
        elif result.status == ERROR:
            blocks.append(f"=== {result.name}: error\n{result.note}")
    failed = sum(result.status == FAILED for result in run.results)
    summary = (f"\n{failed} of {len(run.results)} properties found a counterexample" if failed
               else f"\nno counterexample in {len(run.results)} properties")
    summary += f" ({run.duration:.1f} s)"
    return "\n".join(head + body + [""] + ["\n\n".join(blocks)] * bool(blocks) + [summary]).replace("\n\n\n", "\n\n")


def to_json(run: FuzzRun, label: str, described: Describe, caps: dict, saved: dict[str, Saved],
            differential: bool) -> dict:
    results = []
    for result in run.results:
        data = result.to_json()
        if result.name in saved:
            entry = saved[result.name]
            data["vector"] = {"id": entry.vector_id, "path": str(entry.path) if entry.path else None,
                              "reference": entry.reference_outcome, "implementation": entry.implementation_outcome,
                              "message": entry.message}
        results.append(data)
    return {
        "tool": "memoir-conform fuzz", "kit_version": __version__, "spec": SPEC_VERSION,
        "implementation": label, "described": described.to_json(), "caps": caps,
        "seed": run.seed, "examples": run.examples, "max_seconds": run.max_seconds, "differential": differential,
        "duration": round(run.duration, 3), "counterexamples": len(run.failed), "properties": results,
    }


def write_json(path: Path, document: dict) -> None:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
