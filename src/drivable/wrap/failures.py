"""Every way an upstream call fails, as the envelope: a closed code and the next call.

| upstream                                         | code                 |
| ------------------------------------------------ | -------------------- |
| a validation message (pydantic, zod, jsonschema) | `invalid_arguments`, each field at fault an issue at its path |
| a message saying the record does not exist       | `not_found`, naming the tools whose results carry ids; quoting the one value sent, the server's search for it as the repair |
| a traceback, a place in the server's code, a JSON-RPC internal error | `internal_error`: nothing of it is passed on |
| a failed command's report (GitPython, Node, subprocess) | as any refusal, with only what the command said: never its command line |
| any other refusal (`isError`, a JSON-RPC error)  | `upstream_refused`, the upstream's own words, cut; the refused value spelled in the form its property states, as the repair |
| no answer within the timeout                     | `upstream_timeout` (retry with the same key) |
| the process ended, the connection closed         | `unavailable` with a retry (the wrapper restarts it) |

The classification reads the upstream's text through rules over whole classes of messages (a
pattern per validator), never a wording seen once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drivable.contract.codes import Code, Recovery
from drivable.contract.envelope import Issue, Repair, ToolError
from drivable.contract.validation import clip_received
from drivable.kinds import read
from drivable.kinds._reading import jsonable

UPSTREAM_REFUSED = Code(
    "upstream_refused",
    Recovery.FIX_INPUT,
    "The wrapped server refused the call; `message` is its own words (cut, with no trace). Fix "
    "what it names and call again, or use another tool.",
)
# The codes a wrapped tool can answer beside the runtime's own.
CODES = ("invalid_arguments", "not_found", "upstream_refused", "upstream_timeout", "unavailable")
RESTART_RETRY_MS = 1000
MAX_MESSAGE = 300
MAX_NAME = 200  # a longer value is no name to search for (decision 0059)
MIN_QUOTED = 2  # a one-character value is in most messages by chance

_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+File \".*\", line \d+|^\s+at .+:\d+:\d+\)?$",
    re.MULTILINE,
)
# a place in the server's own code ("/srv/app/notes.py:12", "prompts.py line 9", "index.js:40:7"):
# an exception's words, never passed on. Linear in the message: a match starts only where a
# path-like word starts, and such a word is at most 1,024 characters (unbounded, a long word an
# upstream echoed back took seconds per 20,000 characters: every start, every backtrack).
_CODE_AT = re.compile(
    r"(?<![\w./\\-])[\w./\\-]{1,1024}\.(?:py|js|mjs|cjs|ts|go|rs|java|rb)(?::\d+|\"?,? line \d+)",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(
    r"\b(not found|no such|does not exist|doesn't exist|not exist|unknown (id|entity|record)|"
    r"no \w+ (has|with|named|called|matches)|did not match any|matches nothing|ENOENT)\b",
    re.IGNORECASE,
)
_PYDANTIC_HEAD = re.compile(r"\d+ validation errors? for \S+", re.IGNORECASE)
_PYDANTIC_ITEM = re.compile(
    r"^(?P<loc>[^\s].*)\n\s+(?P<msg>.+?)(?: \[type=(?P<type>[\w.]+).*\])?$", re.M
)
_JSONSCHEMA_REQUIRED = re.compile(r"'(?P<name>[^']+)' is a required property")
_JSONSCHEMA_INSTANCE = re.compile(
    r"On instance\[(?P<path>(?:'[^']*'|\d+)(?:\]\[(?:'[^']*'|\d+))*)\]"
)
_RPC_PREFIX = re.compile(r"^(MCP error -?\d+:\s*|Error:\s*|Error executing tool \S+:\s*)+", re.I)


def text_of(content: Sequence[Any]) -> str:
    """The text blocks of an upstream result, joined."""
    parts = []
    for block in content:
        text = getattr(block, "text", None)
        if text is None and isinstance(block, dict):
            text = block.get("text")
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


@dataclass(frozen=True)
class Finder:
    """The wrapped server's search: the one read-only tool named for searching (search, find,
    query) whose one required property is a string, the text to find."""

    tool: str
    parameter: str


SEARCH_VERBS = ("search", "find", "query")


def finder_of(tools: Iterable[tuple[str, Mapping[str, Any]]]) -> Finder | None:
    """The search among read-only `tools` (listed name, inputSchema); None when none or several
    qualify (which one finds a value is then the caller's choice)."""
    found = []
    for name, schema in tools:
        required = schema.get("required") or []
        properties = schema.get("properties") or {}
        if name.lower().startswith(SEARCH_VERBS) and len(required) == 1:
            (parameter,) = required
            if (properties.get(parameter) or {}).get("type") == "string":
                found.append(Finder(name, parameter))
    return found[0] if len(found) == 1 else None


def refusal(
    text: str,
    *,
    tool: str,
    lookups: Sequence[str],
    sent: Mapping[str, Any] | None = None,
    internal: bool = False,
    finder: Finder | None = None,
    forms: Mapping[str, str] | None = None,
) -> ToolError:
    """The envelope of an upstream refusal whose words are `text` (an `isError` result's text or a
    JSON-RPC error's message) of a call that `sent` these arguments; `internal` when the upstream
    said it failed inside itself. A message quoting the value of exactly one argument names it as
    the issue's path (`refused_value`). A `not_found` quoting one value sent, where the server has
    a search (`finder`), carries that search for the value as its repair: the value is what the
    caller meant to name, the search is where names and ids are found (decision 0059). A message
    that quotes no value sent but names one argument (`time` in "Invalid time format") names
    that argument. Where the argument at fault states a form (`forms`: a property and the kind
    whose form its schema states) and the kind reads the value sent as one value of that form,
    spelled otherwise, the call with that spelling and every other argument as sent is the
    repair (decision 0068)."""
    if internal or _TRACE.search(text) or _CODE_AT.search(text):
        return ToolError(
            "internal_error",
            f"The wrapped server failed inside itself on {tool}; nothing of its failure is passed on.",
            hint="Retry once if the tool only reads; else tell the user the server failed.",
        )
    words = _clean(text)
    issues = validation_issues(text)
    if issues:
        fixed = respelled_call(issues, sent or {}, forms or {})
        return ToolError(
            "invalid_arguments",
            f"The wrapped server refused the arguments of {tool}: {words}",
            hint=(
                _respell_hint(tool, fixed)
                if fixed
                else form_said(issues, sent or {}, forms or {}, tool)
                or f"Fix the properties the issues name and call {tool} again."
            ),
            issues=issues,
            repair=_respelled(tool, sent or {}, fixed) if fixed else None,
        )
    found = quoted_value(text, sent or {})
    quoted = quoted_issue(found, words)
    if (
        _NOT_FOUND.search(text)
        and found is not None
        and len(found[1]) <= MAX_NAME
        and finder is not None
        and finder.tool != tool
    ):
        value = found[1]
        return ToolError(
            "not_found",
            words or f"{tool} found nothing of that name.",
            hint=(
                f"Nothing is named {json.dumps(value, ensure_ascii=False)}: find it with "
                f"{finder.tool} (the call in `repair`), then call {tool} again with the name or "
                "id it returns."
            ),
            issues=quoted,
            repair=Repair(finder.tool, {finder.parameter: value}, "look_the_id_up_first"),
        )
    if _NOT_FOUND.search(text):
        where = (
            f"Look it up first with {' or '.join(lookups[:3])}, then call {tool} with what it returns."
            if lookups
            else f"Check the name or id with the user, then call {tool} again."
        )
        return ToolError(
            "not_found", words or f"{tool} found nothing of that name.", hint=where, issues=quoted
        )
    if not any(len(v) >= MIN_QUOTED and v in text for _, v in _strings(sent or {})):
        quoted = named_issue(text, sent or {}, words)
    said = words or f"The wrapped server refused the call to {tool} without saying why."
    fixed = respelled_call(quoted, sent or {}, forms or {})
    if fixed is not None:
        return ToolError(
            "upstream_refused",
            said,
            hint=_respell_hint(tool, fixed),
            issues=quoted,
            repair=_respelled(tool, sent or {}, fixed),
        )
    fix_what = f"Fix {quoted[0].path}" if quoted else "Fix what the message names"
    return ToolError(
        "upstream_refused",
        said,
        hint=form_said(quoted, sent or {}, forms or {}, tool)
        or f"{fix_what} and call {tool} again, or use another tool.",
        issues=quoted,
    )


RESPELL_STEP = "resend_the_value_in_the_stated_form"


def _respelled(tool: str, sent: Mapping[str, Any], changes: Mapping[str, str]) -> Repair:
    """The call as sent, with `changes` in their stated form."""
    return Repair(tool, {**sent, **changes}, RESPELL_STEP)


def _respell_hint(tool: str, changes: Mapping[str, str]) -> str:
    said = " and ".join(
        f"{path} as {json.dumps(v, ensure_ascii=False)}" for path, v in changes.items()
    )
    same = "each the same value" if len(changes) > 1 else "the same value"
    return f"Send {said}: {same}, in the form {tool} states (the call in `repair`)."


def named_issue(text: str, sent: Mapping[str, Any], words: str) -> list[Issue]:
    """The issue at the one argument sent whose name the message says as a word (`time` in
    "Invalid time format"; `source_timezone` as itself or as "source timezone"); [] when it
    names none or several."""
    said = text.casefold()
    named = [
        name
        for name, value in sent.items()
        if isinstance(value, str)
        and any(
            re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", said)
            for spelling in {name.casefold(), name.casefold().replace("_", " ")}
        )
    ]
    return quoted_issue((named[0], sent[named[0]]), words) if len(named) == 1 else []


def respelled_call(
    issues: Sequence[Issue], sent: Mapping[str, Any], forms: Mapping[str, str]
) -> dict[str, str] | None:
    """Where the one argument at fault states a form and its kind reads the value sent as
    exactly one value (no question, no refusal) spelled otherwise: that spelling, and the same
    for every other argument sent whose form is stated (one call repairs them all). None when
    the fault is at no such argument, or its kind reads no other spelling."""
    if len(issues) != 1 or issues[0].path not in forms:
        return None
    spelled = {path: _spelled(forms[path], sent.get(path)) for path in forms}
    changes = {path: value for path, value in spelled.items() if value is not None}
    return changes if issues[0].path in changes else None


def form_said(
    issues: Sequence[Issue], sent: Mapping[str, Any], forms: Mapping[str, str], tool: str
) -> str | None:
    """Where the one argument at fault states a form whose kind does not read the value sent as
    one value: what that kind says of it, as the hint. A value that reads several ways is asked
    about with each reading named (a place with two zones), a value it cannot read is told the
    form (`HH:MM`); the upstream's words stay the message. None for any other refusal.
    docs/decisions/0070-what-the-form-says-of-a-value-it-does-not-read.md"""
    if len(issues) != 1 or issues[0].path not in forms:
        return None
    value = sent.get(issues[0].path)
    if not isinstance(value, str):
        return None
    reading = read(forms[issues[0].path], value)
    if reading.outcome == "value" or not reading.hint:
        return None
    if reading.readings:
        each = " or ".join(json.dumps(jsonable(r), ensure_ascii=False) for r in reading.readings)
        return (
            f"{reading.hint.rstrip('.')}: {each}. Call {tool} again with "
            f"{issues[0].path} set to the one meant."
        )
    return f"{reading.hint.rstrip('.')}; then call {tool} again."


def _spelled(kind: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    reading = read(kind, value)
    if reading.outcome != "value":
        return None
    spelled = jsonable(reading.value)
    return spelled if isinstance(spelled, str) and spelled != value else None


def quoted_value(text: str, sent: Mapping[str, Any]) -> tuple[str, str] | None:
    """The one argument, or entry or field inside one (`files.1`), whose string value the
    message quotes, with its path; None when none or several are quoted: the message then names
    no one field."""
    found = [
        (path, value)
        for path, value in _strings(sent)
        if len(value) >= MIN_QUOTED and value in text
    ]
    return found[0] if len(found) == 1 else None


def quoted_issue(found: tuple[str, str] | None, words: str) -> list[Issue]:
    """The issue at the quoted value's path; what was received is echoed as short as any
    refused value is (a 100 kB name was echoed whole)."""
    if found is None:
        return []
    path, value = found
    return [Issue(path, "refused_value", words, received=clip_received(value), has_received=True)]


def _strings(sent: Mapping[str, Any], depth: int = 3) -> list[tuple[str, str]]:
    """Each string argument with its path, down to `depth` levels of lists and objects (a
    string entry of a top-level list, `files.1`; a field of one item, `observations.0.entityName`)."""
    out: list[tuple[str, str]] = []

    def walk(path: str, value: Any, left: int) -> None:
        if isinstance(value, str):
            out.append((path, value))
        elif left > 0 and isinstance(value, list):
            for at, item in enumerate(value):
                walk(f"{path}.{at}", item, left - 1)
        elif left > 0 and isinstance(value, dict):
            for key, item in value.items():
                walk(f"{path}.{key}", item, left - 1)

    for path, value in sent.items():
        walk(path, value, depth - 1)
    return out


def validation_issues(text: str) -> list[Issue]:
    """The fields a validator's message names, each an issue at its path (pydantic's, zod's and
    jsonschema's forms); [] when the text is no validation message."""
    issues = _zod(text)
    if issues:
        return issues
    if _PYDANTIC_HEAD.search(text):
        body = text[_PYDANTIC_HEAD.search(text).end() :]  # type: ignore[union-attr]
        for match in _PYDANTIC_ITEM.finditer(body):
            loc = match.group("loc").strip()
            kind = match.group("type") or ""
            code = "missing_property" if kind.startswith("missing") else "invalid_value"
            if kind in ("extra_forbidden", "unexpected_keyword_argument"):
                code = "unknown_property"
            issues.append(Issue(loc, code, _cut(match.group("msg"))))
        return issues
    for match in _JSONSCHEMA_REQUIRED.finditer(text):
        issues.append(
            Issue(match.group("name"), "missing_property", f"{match.group('name')} is required.")
        )
    instance = _JSONSCHEMA_INSTANCE.search(text)
    if instance and not issues:
        path = ".".join(p.strip("'") for p in instance.group("path").split("]["))
        first = text.strip().splitlines()[0] if text.strip() else ""
        issues.append(Issue(path, "invalid_value", _cut(first)))
    return issues


def _zod(text: str) -> list[Issue]:
    """zod's issue list: a JSON array of objects with `path` and `message`."""
    start = text.find("[")
    while start != -1:
        try:
            found, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            start = text.find("[", start + 1)
            continue
        if (
            isinstance(found, list)
            and found
            and all(
                isinstance(i, dict) and isinstance(i.get("path"), list) and "message" in i
                for i in found
            )
        ):
            out = []
            for item in found:
                path = ".".join(str(p) for p in item["path"])
                zod_code = str(item.get("code", ""))
                missing = zod_code == "invalid_type" and "undefined" in str(
                    item.get("received", item.get("message", ""))
                )
                code = (
                    "missing_property"
                    if missing
                    else (
                        "unknown_property" if zod_code == "unrecognized_keys" else "invalid_value"
                    )
                )
                out.append(Issue(path, code, _cut(str(item["message"]))))
            return out
        start = text.find("[", start + 1)
    return []


# An absolute path in the upstream's words says where the server keeps its files: only its last
# part (the file the caller named) is passed on.
_ABSOLUTE = re.compile(
    r"(?<![\w.:/\\])(?:/[^/\s'\"`,;:()]+){2,}/?|[A-Za-z]:\\(?:[^\\\s'\"`]+\\)+[^\\\s'\"`,;]*"
)


def _last_part(found: re.Match[str]) -> str:
    parts = [p for p in re.split(r"[/\\]", found.group(0)) if p]
    return f"…/{parts[-1]}" if parts else "…"


# A failure of a command the server ran, as a process library words it: the command line is the
# server's insides (its flags, its paths, the caller's value spliced in), what the command said
# on stderr is the answer. GitPython (`Cmd('git') failed due to: exit code(129) cmdline: git ...
# stderr: '...'`), Node's child_process and execa (`Command failed: git ...` then stderr on the
# next lines), Python's subprocess (`Command '[...]' returned non-zero exit status 1.`).
_RAN = (
    re.compile(
        r"Cmd\('[^']*'\) failed(?: due to: (?:exit code\(-?\d+\)|[^\n]*?))?\s*"
        r"cmdline: .*?(?:\s+stdout: '(?P<out>.*?)')?\s+stderr: '(?P<said>.*)'\s*$",
        re.DOTALL,
    ),
    re.compile(r"\bCommand failed(?: with exit code \d+)?: [^\n]*\n(?P<said>.+)$", re.DOTALL),
    re.compile(r"Command '.*' returned non-zero exit status (?P<status>-?\d+)\.?", re.DOTALL),
)


def _what_ran_said(text: str) -> str:
    """`text`, or, where it is a failed command's report, only what the command said."""
    for form in _RAN:
        found = form.search(text)
        if found is None:
            continue
        said = (found.groupdict().get("said") or "").strip()
        if said:
            return said
        status = found.groupdict().get("status")
        return f"A command the server ran failed (exit status {status})." if status else ""
    return text


# An operating system error's number as Python prints an OSError ("[Errno 36] File name too
# long"): the exception's text, not the server's words; the words after it are passed on.
_OS_ERRNO = re.compile(r"\[(?:Errno|WinError) -?\d+\]\s*")


def _clean(text: str) -> str:
    """The upstream's words: the first lines before any trace, what a failed command said
    without the command line, without transport prefixes or an OS error's number, an absolute
    path cut to its last part."""
    head = _what_ran_said(_TRACE.split(text, maxsplit=1)[0])
    said = _OS_ERRNO.sub("", _RPC_PREFIX.sub("", " ".join(head.split())))
    return _cut(_ABSOLUTE.sub(_last_part, said))


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def timed_out(tool: str, seconds: float, keyed: bool) -> ToolError:
    again = "with the same idempotency_key" if keyed else "with the same arguments"
    return ToolError(
        "upstream_timeout",
        f"The wrapped server did not answer {tool} within {seconds:g} s; it may still finish.",
        hint=f"Call {tool} again {again}.",
    )


def unavailable(tool: str, keyed: bool) -> ToolError:
    again = "with the same idempotency_key" if keyed else "with the same arguments"
    return ToolError(
        "unavailable",
        f"The wrapped server stopped while answering {tool}; it is being restarted.",
        hint=f"Call {tool} again {again} in a moment.",
        retry_after_ms=RESTART_RETRY_MS,
    )
