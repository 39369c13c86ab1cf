"""The protocol's ops as a CLI template sees them: which placeholders each one offers.

Every op argument of docs/adapter-protocol.md becomes a placeholder named
after it. How its value is spelled depends on its kind:

- `path`: an absolute path (`{store}`, and `{local}`/`{remote}`/`{out}` of
  `merge_stores`);
- `text`: the string itself, and `{NAME_file}`, a file holding it;
- `json`: the value as compact JSON text, and `{NAME_file}`, a file holding it;
- `flag`: `true` or `false` (and the condition of an `if` table);
- `session`: a replica's `session.json` text (`merge_sessions`): `{NAME}` is
  a file holding it, `{NAME_text}` the text itself.

`{out}` is also offered by every op without an `out` argument: a fresh path,
not yet created, where a command may write its result (`result = "file"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

Kind = Literal["path", "text", "json", "flag", "session"]


@dataclass(frozen=True)
class Arg:
    name: str
    kind: Kind
    required: bool = True


def _args(*specs: str) -> tuple[Arg, ...]:
    """`"why:text?"` -> Arg("why", "text", required=False)."""
    parsed = []
    for spec in specs:
        name, kind = spec.rstrip("?").split(":")
        parsed.append(Arg(name, kind, required=not spec.endswith("?")))
    return tuple(parsed)


_STORE_TEXT = _args("store:path", "text:text")

OP_ARGS: Mapping[str, tuple[Arg, ...]] = {
    "read_store": _args("store:path"),
    "add_goal": _STORE_TEXT,
    "complete_goal": _STORE_TEXT,
    "add_next_action": _STORE_TEXT,
    "complete_next_action": _STORE_TEXT,
    "add_question": _STORE_TEXT,
    "add_decision": _args("store:path", "text:text", "why:text?", "rejected:text?"),
    "hide_decision": _args("store:path", "text:text", "purge:flag"),
    "record_session": _args("store:path", "summary:text", "session_id:text?"),
    "write_entry": _args("store:path", "link:text", "frontmatter:json", "body:text"),
    "update_entry": _args("store:path", "link:text", "set:json", "unset:json"),
    "merge_sessions": _args("local:session", "remote:session"),
    "merge_stores": _args("local:path", "remote:path", "out:path"),
}

# The ops whose result the runner needs from the command (the others it
# reads back from the store or the `out` directory).
RESULT_OPS = ("read_store", "merge_sessions")


def placeholders(op: str) -> dict[str, Arg | None]:
    """Every placeholder name `op` offers, with the argument it spells (None: `{out}`)."""
    names: dict[str, Arg | None] = {}
    for arg in OP_ARGS[op]:
        names[arg.name] = arg
        if arg.kind in ("text", "json"):
            names[f"{arg.name}_file"] = arg
        elif arg.kind == "session":
            names[f"{arg.name}_text"] = arg
    names.setdefault("out", None)
    return names
