"""Which tools the audit may call with arguments, decided before any call is made.

A tool is called only when it is known not to mutate. Three witnesses are read together: the name
(a verb in any position: `delete_branch`, `branch_delete`, `git_push`), the annotations, and the
description. A strong mutating verb anywhere outside the object of a leading read verb outweighs a
`readOnlyHint: true` (the hint is then a lie, and lies are what hurt); a weak verb (`open`, `run`,
`check`) is settled by the annotations; when nothing settles it, the tool is not called without
`--allow-writes`. Tools that reach the outside world (`openWorldHint: true`, a URL parameter) are not
called without `--allow-network`. Every refusal carries its reason for the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from drivable.audit import heuristics as h
from drivable.schema import properties, types_of
from drivable.verbs import MUTATING_VERBS, READ_VERBS

Needs = Literal["writes", "network"]

# Verbs that mean a change of state in every reading; the rest of MUTATING_VERBS are weak: they
# also name reads (`open_nodes`, `check_status`, `run_query` on a read-only replica) or nouns.
WEAK_VERBS = frozenset(
    {
        "open",
        "close",
        "run",
        "start",
        "check",
        "mark",
        "label",
        "tag",
        "link",
        "order",
        "book",
        "message",
        "email",
        "post",
        "share",
        "pin",
        "star",
        "like",
        "block",
        "stage",
        "schedule",
        "format",
        "export",
        "download",
        "render",
        "switch",
        "lock",
        "apply",
        "sync",
        "import",
        "follow",
        "clone",
        "init",
        "toggle",
        "new",
        "make",
        "store",
        "change",
        "assign",
    }
)
CONJUNCTIONS = frozenset({"and", "then", "or"})
MUTATING_PROSE = re.compile(
    r"^\s*(?:this tool\s+|tool to\s+|use this to\s+)?(?:create|delete|remove|write|overwrite|"
    r"update|modify|edit|move|rename|send|push|commit|insert|drop|purge|append|replace|reset|"
    r"add|set|save|upload|execute|kill|stage|unstage|checkout|switch)s?\b",
    re.I,
)
HARM_PROSE = re.compile(
    r"\b(permanently|irreversib\w*|cannot be undone|will (delete|remove|overwrite|erase))\b", re.I
)
NETWORK_PROSE = re.compile(
    r"\b(internet|the web|web ?pages?|fetch(es)? (a |the )?url|https?://|remote (server|api|host)|"
    r"makes? (an? )?(http|network) requests?)\b",
    re.I,
)
URL_NAME = re.compile(r"(^|_)(url|uri|href|endpoint|link|website)s?$", re.I)


@dataclass(frozen=True)
class Verdict:
    """Whether the audit may call a tool, and why; `needs` names the flag that would allow it."""

    callable: bool
    needs: Needs | None
    reason: str
    mutating: bool


def name_effect(name: str) -> tuple[str | None, str | None]:
    """(strongest mutating verb found, read verb found) in any position of the name.

    A leading read verb owns the rest of the name as its object (`get_order`, `list_tags`) unless a
    conjunction starts a second clause (`get_and_delete`). Otherwise every word is a candidate, so
    `branch_delete` and `git_push` are found as well as `delete_branch`.
    """
    parts = h.words(name)
    if not parts:
        return None, None
    if parts[0] in READ_VERBS and parts[0] not in MUTATING_VERBS:
        clause = []
        for i, w in enumerate(parts):
            if w in CONJUNCTIONS:
                clause = parts[i + 1 :]
                break
        mut = next((w for w in clause if w in MUTATING_VERBS), None)
        return mut, parts[0]
    strong = next((w for w in parts if w in MUTATING_VERBS and w not in WEAK_VERBS), None)
    weak = next((w for w in parts if w in MUTATING_VERBS), None)
    read = next((w for w in parts if w in READ_VERBS), None)
    return strong or weak, read


def reaches_network(tool: dict[str, Any]) -> str | None:
    """Why the tool would reach outside the machine, or None."""
    ann = h.annotations_of(tool)
    if ann.get("openWorldHint") is True:
        return "annotated openWorldHint: true"
    if ann.get("openWorldHint") is False:
        return None
    schema = h.input_schema(tool)
    for pname, node in properties(schema).items():
        urlish = URL_NAME.search(pname) or node.get("format") in ("uri", "url")
        if urlish and ("string" in types_of(node) or not types_of(node)):
            return f"takes a URL (`{pname}`) and does not say openWorldHint: false"
    if NETWORK_PROSE.search(str(tool.get("description") or "")):
        return "its description speaks of the network and it does not say openWorldHint: false"
    return None


def judge(tool: dict[str, Any], *, allow_writes: bool, allow_network: bool) -> Verdict:
    mutating, reason = _mutation(tool)
    if mutating is not False and not allow_writes:
        return Verdict(False, "writes", reason, mutating is True)
    network = reaches_network(tool)
    if network and not allow_network:
        return Verdict(False, "network", f"open-world: {network}", mutating is True)
    return Verdict(True, None, reason, mutating is True)


def _mutation(tool: dict[str, Any]) -> tuple[bool | None, str]:
    """True: mutates; False: known not to; None: cannot tell (treated as mutating)."""
    name = str(tool.get("name") or "")
    ann = h.annotations_of(tool)
    desc = str(tool.get("description") or "")
    mut, read = name_effect(name)
    if ann.get("readOnlyHint") is False:
        return True, "annotated readOnlyHint: false"
    if ann.get("destructiveHint") is True and ann.get("readOnlyHint") is not True:
        return True, "annotated destructiveHint: true"
    if mut and mut not in WEAK_VERBS:
        claim = " although annotated readOnlyHint: true" if ann.get("readOnlyHint") else ""
        return True, f"its name holds the mutating verb `{mut}`{claim}"
    if MUTATING_PROSE.search(desc) or HARM_PROSE.search(desc):
        return None, "its description says it changes something"
    if ann.get("readOnlyHint") is True:
        return False, "annotated readOnlyHint: true, and name and description agree"
    if mut:
        return None, f"its verb `{mut}` can mutate and no annotation says it does not"
    if read:
        return False, f"its verb `{read}` reads and nothing says otherwise"
    return None, "nothing (name, annotations, description) says it is read-only"
