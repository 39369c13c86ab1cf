"""The CLI adapter's configuration file: TOML in, a checked `CliConfig` out.

`load(path)` reads the file and checks all of it before anything runs:
every problem is reported at once, each naming the key it is about and
what is wrong (`mytool.toml: ops.add_goal.command: unknown placeholder
{txt}; ...`). Problems are values (a list of strings), never exceptions.
The file's format is documented in docs/cli-adapter.md; `memoir-conform
init cli` writes a commented example.
"""

from __future__ import annotations

import difflib
import os
import shlex
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from conformance import SPEC_VERSION, patterns
from conformance.cli_adapter.ops import OP_ARGS, RESULT_OPS, placeholders
from conformance.cli_adapter.templates import (
    Item,
    TemplateError,
    Text,
    conditions_of,
    fields_of,
    iterated_of,
    parse_argv,
    pipelines,
    quoted_fields,
    shell_braces,
)
from conformance.model.session import DEFAULT_CAPS
from conformance.protocol.messages import LEVELS, OPS_FOR_LEVEL

RESULT_MODES = ("json", "exit-code", "file")
# Placeholders every template may use, whatever its op.
COMMON_PLACEHOLDERS = ("config_dir",)

_SHARED_KEYS = ("shell", "cwd", "env", "timeout", "invalid_input", "unsupported", "usage_error",
                "invalid_input_stderr", "usage_error_stderr")
# A usage message on stderr (argparse, click, getopt...) means the template built a wrong command
# line, whatever the exit code: not a refusal of the input. `usage_error_stderr = []` turns it off.
DEFAULT_USAGE_PATTERNS = (r"(?im)^usage: ",)
_OP_KEYS = ("command", "stdin", "result", "pointer", "file", *_SHARED_KEYS)
_DESCRIBE_KEYS = ("name", "version", "version_command", "spec", "claims", "caps", "reports")
# The optional read_store reports a tool may declare (docs/adapter-protocol.md, E15).
KNOWN_REPORTS = ("entry_live",)
_TOP_KEYS = ("describe", "defaults", "ops")


@dataclass(frozen=True)
class Invocation:
    """How to run one command: the template, where, with what, and how to read its result."""

    key: str                              # "ops.add_goal": where it came from, for messages
    argv: tuple[Item, ...] = ()           # the command, unless `shell`
    shell_command: Text | None = None     # the command, when `shell = true`
    stdin: Text | None = None
    result: str = "exit-code"
    pointer: str = ""
    file: Text | None = None
    cwd: Text | None = None
    env: Mapping[str, Text] = field(default_factory=dict)
    timeout: float | None = None
    invalid_input: frozenset[int] = frozenset()
    unsupported: frozenset[int] = frozenset()
    usage_error: frozenset[int] = frozenset()                  # exit codes: the command line is wrong
    invalid_input_stderr: tuple[patterns.Pattern, ...] = ()          # stderr patterns: the input was refused
    usage_error_stderr: tuple[patterns.Pattern, ...] = tuple(patterns.compile(p) for p in DEFAULT_USAGE_PATTERNS)


@dataclass(frozen=True)
class CliConfig:
    path: Path                            # absolute
    name: str
    version: str
    version_command: Invocation | None
    spec: str
    claims: tuple[str, ...]
    caps: Mapping[str, int]
    ops: Mapping[str, Invocation]
    notes: tuple[str, ...] = ()
    reports: tuple[str, ...] = ()         # the read_store command's output carries these (E15)

    @property
    def config_dir(self) -> Path:
        return self.path.parent

    def describe(self, version: str | None = None) -> dict:
        """The `describe` result this configuration stands for."""
        return {
            "name": self.name,
            "version": version or self.version,
            "protocols": [1],
            "spec": self.spec,
            "claims": list(self.claims),
            "ops": list(self.ops),
            "caps": dict(self.caps),
            **({"reports": list(self.reports)} if self.reports else {}),
        }

    def longest_timeout(self) -> float | None:
        timeouts = [op.timeout for op in (*self.ops.values(), self.version_command) if op and op.timeout]
        return max(timeouts, default=None)


def load(path: Path | str, *, check_programs: bool = True) -> CliConfig | list[str]:
    """The checked configuration, or every problem found, as `FILE: KEY: what is wrong` lines."""
    shown = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{shown}: no such file"]
    except (OSError, UnicodeDecodeError) as error:
        return [f"{shown}: cannot read it: {error}"]
    except tomllib.TOMLDecodeError as error:
        return [f"{shown}: not valid TOML: {error}"]
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        return [f"{shown}: not valid TOML here: arrays or tables nested too deeply to read"]
    reader = _Reader(Path(path).resolve(), check_programs)
    config = reader.config(data)
    if reader.problems:
        return [f"{shown}: {key}: {message}" if key else f"{shown}: {message}" for key, message in reader.problems]
    return config


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


class _Reader:
    """Walks the parsed TOML, collecting (key, problem) pairs as it goes."""

    def __init__(self, path: Path, check_programs: bool):
        self.path = path
        self.check_programs = check_programs
        self.problems: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.missing: dict[str, list[int]] = {}  # program -> [index of its problem, commands], reported once

    def problem(self, key: str, message: str) -> None:
        if (key, message) not in self.problems:  # a bad [defaults] value is met once per op
            self.problems.append((key, message))

    # -- typed getters -------------------------------------------------------

    def table(self, data: Mapping, key: str, where: str, allowed: tuple[str, ...]) -> dict:
        value = data.get(key, {})
        full = f"{where}.{key}" if where else key
        if not isinstance(value, dict):
            self.problem(full, f"must be a table, not {type(value).__name__}")
            return {}
        for name in value:
            if allowed and name not in allowed:
                self.problem(f"{full}.{name}", f"unknown key{_suggest(name, allowed)}; known keys: {', '.join(allowed)}")
        return value

    def string(self, data: Mapping, key: str, where: str) -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            self.problem(f"{where}.{key}", f"must be a string, not {type(value).__name__}")
            return None
        return value

    def text(self, data: Mapping, key: str, where: str) -> Text | None:
        value = self.string(data, key, where)
        if value is None:
            return None
        try:
            return Text.parse(value)
        except TemplateError as error:
            self.problem(f"{where}.{key}", str(error))
            return None

    def codes(self, data: Mapping, key: str, where: str) -> frozenset[int]:
        value = data.get(key, [])
        values = value if isinstance(value, list) else [value]
        if not all(type(code) is int and 1 <= code <= 255 for code in values):
            self.problem(f"{where}.{key}", f"exit codes are whole numbers from 1 to 255, or a list of them; found {value!r}")
            return frozenset()
        return frozenset(values)

    def stderr_patterns(self, data: Mapping, key: str, where: str,
                        default: tuple[str, ...] = ()) -> tuple[patterns.Pattern, ...]:
        value = data.get(key, list(default))
        values = value if isinstance(value, list) else [value]
        compiled = []
        for pattern in values:
            if not isinstance(pattern, str):
                self.problem(f"{where}.{key}", f"a regular expression (a string), or a list of them; found {pattern!r}")
                continue
            try:
                compiled.append(patterns.compile(pattern))
            except patterns.error as error:
                self.problem(f"{where}.{key}", f"{pattern!r} is not a regular expression: {error}")
        return tuple(compiled)

    # -- sections --------------------------------------------------------------

    def config(self, data: dict) -> CliConfig | None:
        for name in data:
            if name not in _TOP_KEYS:
                self.problem(name, f"unknown table{_suggest(name, _TOP_KEYS)}; the tables are: {', '.join(_TOP_KEYS)}")
        defaults = self.table(data, "defaults", "", _SHARED_KEYS)
        ops_table = self.table(data, "ops", "", ())
        ops: dict[str, Invocation] = {}
        for op, table in ops_table.items():
            key = f"ops.{op}"
            if op not in OP_ARGS:
                why = ("describe is answered from the [describe] table" if op == "describe"
                       else f"not a protocol op{_suggest(op, OP_ARGS)}; the ops are: {', '.join(OP_ARGS)}")
                self.problem(key, why)
            elif not isinstance(table, dict):
                self.problem(key, "must be a table")
            else:
                self.table(ops_table, op, "ops", _OP_KEYS)
                invocation = self.invocation(op, key, table, defaults)
                if invocation is not None:
                    ops[op] = invocation
        if not ops_table:
            self.problem("ops", "no [ops.NAME] table: map at least one protocol op to a command")
        describe = self.table(data, "describe", "", _DESCRIBE_KEYS)
        name = self.string(describe, "name", "describe") or self.path.stem
        version = self.string(describe, "version", "describe")
        version_command = None
        if "version_command" in describe:
            if version is not None:
                self.problem("describe.version_command", "give version or version_command, not both")
            version_command = self.invocation(None, "describe.version_command",
                                              {"command": describe["version_command"]}, defaults)
        spec = self.string(describe, "spec", "describe") or SPEC_VERSION
        # An op whose table has problems is reported there, not again as a missing table.
        claims = self.claims(describe, {**{op: None for op in ops_table if op in OP_ARGS}, **ops})
        caps = self.caps(describe)
        reports = self.reports(describe)
        if self.problems:
            return None
        return CliConfig(self.path, name, version or "unknown", version_command, spec, claims, caps, ops,
                         tuple(self.notes), reports)

    def reports(self, describe: Mapping) -> tuple[str, ...]:
        reports = describe.get("reports", [])
        if not (isinstance(reports, list) and all(report in KNOWN_REPORTS for report in reports)):
            self.problem("describe.reports", f"a list of {', '.join(KNOWN_REPORTS)} (the read_store output carries "
                                             f"`live` on every entry); found {reports!r}")
            return ()
        return tuple(dict.fromkeys(reports))

    def claims(self, describe: Mapping, ops: Mapping[str, Invocation]) -> tuple[str, ...]:
        if "claims" not in describe:
            earned = [level for level in LEVELS if all(op in ops for op in OPS_FOR_LEVEL[level])]
            return tuple(earned)
        claims = describe["claims"]
        if not isinstance(claims, list) or not all(claim in LEVELS for claim in claims):
            self.problem("describe.claims", f"a list of levels from {', '.join(LEVELS)}; found {claims!r}")
            return ()
        if claims:
            top = max(LEVELS.index(claim) for claim in claims)
            if sorted(set(claims), key=LEVELS.index) != list(LEVELS[: top + 1]):
                self.problem("describe.claims", f"levels are cumulative (spec 8): write {list(LEVELS[: top + 1])}")
            missing = [op for op in OPS_FOR_LEVEL[LEVELS[top]] if op not in ops]
            if missing:
                self.problem("describe.claims", f"claims {LEVELS[top]}, but these ops it needs have no [ops.NAME] "
                                                f"template: {', '.join(missing)}")
        return tuple(claims)

    def caps(self, describe: Mapping) -> dict[str, int]:
        caps = dict(DEFAULT_CAPS)
        for name, value in self.table(describe, "caps", "describe", tuple(DEFAULT_CAPS)).items():
            if type(value) is not int or value < 1:
                self.problem(f"describe.caps.{name}", f"a cap is a whole number of at least 1; found {value!r}")
            elif name in caps:
                caps[name] = value
        return caps

    # -- one op ------------------------------------------------------------------

    def invocation(self, op: str | None, key: str, table: Mapping, defaults: Mapping) -> Invocation | None:
        """One command template with the [defaults] applied; `op` None is the version command."""
        merged = {**defaults, **table}

        def origin(name: str) -> str:
            """Where a value came from: this op's table or [defaults]."""
            return key if name in table else "defaults"

        count = len(self.problems)
        shell = merged.get("shell", False)
        if not isinstance(shell, bool):
            self.problem(f"{origin('shell')}.shell", "must be true or false")
            shell = False
        argv, shell_command = self.command(key, table.get("command"), shell, op is None)
        result = table.get("result", "json" if op in RESULT_OPS else "exit-code")
        if op is not None and result not in RESULT_MODES:
            self.problem(f"{key}.result", f"{result!r} is not a result mode; choose {', '.join(RESULT_MODES)}")
        elif op in RESULT_OPS and result == "exit-code":
            self.problem(f"{key}.result", f"{op} answers with data, so its result is read from stdout (json) "
                                          "or from a file (file), not from the exit code alone")
        pointer = self.string(table, "pointer", key) or ""
        if pointer and not pointer.startswith("/"):
            self.problem(f"{key}.pointer", f"{pointer!r} is not a JSON Pointer (RFC 6901): it starts with '/'")
        if "pointer" in table and result == "exit-code":
            self.problem(f"{key}.pointer", "a pointer is read only with result = \"json\" or \"file\"")
        file = self.text(table, "file", key)
        if file is not None and result != "file":
            self.problem(f"{key}.file", "file is read only with result = \"file\"")
        if file is None and result == "file":
            if op == "merge_stores":
                self.problem(f"{key}.file", "merge_stores's {out} is a directory: name the result file with `file`")
            file = Text.parse("{out}")
        env = {}
        for where, source in (("defaults", defaults), (key, table)):
            raw_env = source.get("env", {})
            if not isinstance(raw_env, dict):
                self.problem(f"{where}.env", "must be a table of NAME = \"value\"")
                continue
            for name in raw_env:
                value = self.text(raw_env, name, f"{where}.env")
                if value is not None:
                    env[name] = value
        timeout = merged.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            self.problem(f"{origin('timeout')}.timeout", f"seconds, a number more than 0; found {timeout!r}")
            timeout = None
        invalid_input = self.codes(merged, "invalid_input", origin("invalid_input"))
        unsupported = self.codes(merged, "unsupported", origin("unsupported"))
        usage_error = self.codes(merged, "usage_error", origin("usage_error"))
        for one, other, name in ((invalid_input, unsupported, "unsupported"), (invalid_input, usage_error, "usage_error"),
                                 (unsupported, usage_error, "usage_error")):
            both = sorted(one & other)
            if both:
                first = "invalid_input" if one is invalid_input else "unsupported"
                self.problem(key, f"exit code {both[0]} is listed under both {first} and {name}")
        invocation = Invocation(
            key=key, argv=argv, shell_command=shell_command, stdin=self.text(table, "stdin", key),
            result=result, pointer=pointer, file=file, cwd=self.text(merged, "cwd", origin("cwd")), env=env,
            timeout=float(timeout) if timeout else None, invalid_input=invalid_input, unsupported=unsupported,
            usage_error=usage_error,
            invalid_input_stderr=self.stderr_patterns(merged, "invalid_input_stderr", origin("invalid_input_stderr")),
            usage_error_stderr=self.stderr_patterns(merged, "usage_error_stderr", origin("usage_error_stderr"),
                                             DEFAULT_USAGE_PATTERNS),
        )
        if len(self.problems) > count:
            return None
        self.check_placeholders(op, invocation)
        if len(self.problems) == count and self.check_programs:
            self.check_program(invocation)
            self.check_cwd(invocation)
        return invocation if len(self.problems) == count else None

    def command(self, key: str, command: Any, shell: bool, version: bool) -> tuple[tuple[Item, ...], Text | None]:
        where = key if version else f"{key}.command"
        try:
            if command is None:
                self.problem(where, "missing: the command to run, a list of arguments or one string")
            elif shell:
                if not isinstance(command, str):
                    self.problem(where, "with shell = true the command is one string, run by /bin/sh")
                else:
                    template = Text.parse(shell_braces(command))
                    if pipelines(template) and "pipefail" not in command:
                        self.notes.append(
                            f"{where}: warning: a pipeline's exit status is its last command's, so your tool's "
                            "exit code (invalid_input, unsupported, usage_error) is lost; start the command with "
                            "`set -o pipefail;` if your /bin/sh has it, or map stderr patterns instead")
                    return (), template
            elif isinstance(command, str):
                try:
                    tokens = shlex.split(command)
                except ValueError as error:
                    self.problem(where, f"cannot split it into arguments: {error}")
                    return (), None
                return tuple(Text.parse(token) for token in tokens), None
            elif isinstance(command, list) and command:
                return parse_argv(command), None
            else:
                self.problem(where, "must be a non-empty list of arguments, or one string")
        except TemplateError as error:
            self.problem(where, str(error))
        return (), None

    def check_placeholders(self, op: str | None, invocation: Invocation) -> None:
        offered = dict(placeholders(op)) if op else {}
        offered.update({name: None for name in COMMON_PLACEHOLDERS})
        conditions = {arg.name for arg in OP_ARGS[op]} if op else set()
        parts: dict[str, set[str]] = {}
        used_conditions: set[str] = set()
        if invocation.shell_command is not None:
            parts["command"] = invocation.shell_command.fields
            for name in quoted_fields(invocation.shell_command):
                self.problem(f"{invocation.key}.command", f"{{{name}}} is inside quotes: with shell = true every "
                                                          "placeholder is quoted for you, so write it bare")
        else:
            parts["command"] = fields_of(invocation.argv)
            used_conditions = conditions_of(invocation.argv)
            repeatable = {arg.name for arg in OP_ARGS[op] if arg.kind == "json"} if op else set()
            for name in sorted(iterated_of(invocation.argv) - repeatable):
                self.problem(f"{invocation.key}.command", f"`each = \"{name}\"` names no object or list argument of "
                                                          f"{op or 'this command'}; it can repeat over: "
                                                          f"{', '.join(sorted(repeatable)) or 'none'}")
            for name in sorted(used_conditions - conditions):
                self.problem(f"{invocation.key}.command", f"`if = \"{name}\"` names no argument of {op or 'this command'}"
                                                          f"; its arguments: {', '.join(sorted(conditions)) or 'none'}")
        for part in ("stdin", "file", "cwd"):
            value = getattr(invocation, part)
            if value is not None:
                parts[part] = value.fields
        for name, value in invocation.env.items():
            parts[f"env.{name}"] = value.fields
        used = set(used_conditions) | iterated_of(invocation.argv)
        for part, names in parts.items():
            used |= names
            for name in sorted(names - set(offered)):
                choices = [f"{{{choice}}}" for choice in offered]
                self.problem(f"{invocation.key}.{part}", f"unknown placeholder {{{name}}}"
                             f"{_suggest(f'{{{name}}}', choices)}; this command offers {', '.join(choices)}")
        if op is not None:
            for arg in OP_ARGS[op]:
                if not any(offered.get(name) == arg for name in used) and arg.name not in used:
                    self.notes.append(f"{invocation.key}: no placeholder passes `{arg.name}`, so your tool never "
                                      f"sees it in {op} requests")

    def check_program(self, invocation: Invocation) -> None:
        """A program that cannot be found is reported now, not once per vector."""
        if not invocation.argv or not isinstance(invocation.argv[0], Text):
            return
        first = invocation.argv[0]
        if first.fields - set(COMMON_PLACEHOLDERS):
            return
        program = first.render({"config_dir": str(self.path.parent)})
        where = f"{invocation.key}.command" if invocation.key.startswith("ops.") else invocation.key
        if "/" in program or os.sep in program:
            if not os.path.isabs(program):
                cwd = self._static_cwd(invocation)
                if cwd is None:
                    self.problem(where, f"the relative program path {program!r} would be looked up in the scratch "
                                        "directory the adapter runs in: write {config_dir}/" + program.removeprefix("./"))
                    return
                program = str(cwd / program)
            if not (os.path.isfile(program) and os.access(program, os.X_OK)):
                self.problem(where, f"{program} is not an executable file")
            return
        path_value = invocation.env.get("PATH")
        if path_value is not None and path_value.fields - set(COMMON_PLACEHOLDERS):
            return
        search = (path_value.render({"config_dir": str(self.path.parent)}) if path_value is not None
                  else os.environ.get("PATH", os.defpath))
        if program in self.missing:
            seen = self.missing[program]
            seen[1] += 1
            self.problems[seen[0]] = (self.problems[seen[0]][0], f"program {program!r} not found on PATH "
                                                                 f"({seen[1] - 1} other commands run it too)")
        elif shutil.which(program, path=search) is None:
            self.missing[program] = [len(self.problems), 1]
            self.problem(where, f"program {program!r} not found on PATH")

    def _static_cwd(self, invocation: Invocation) -> Path | None:
        """The working directory when it does not depend on the request, else None."""
        if invocation.cwd is None or invocation.cwd.fields - set(COMMON_PLACEHOLDERS):
            return None
        return self.path.parent / invocation.cwd.render({"config_dir": str(self.path.parent)})

    def check_cwd(self, invocation: Invocation) -> None:
        cwd = self._static_cwd(invocation)
        if cwd is not None and not cwd.is_dir():
            self.problem(f"{invocation.key}.cwd", f"{cwd} is not a directory")

