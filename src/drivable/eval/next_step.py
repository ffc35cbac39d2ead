"""The next call an answer names, read as a model reads it: structured first, else in its words.

One reader for every persona and for the scorer's "rejections naming the next call", so a server
that names its next call in prose ("Use get_room with the day to see free times") gets the credit a
model gives it, and a drivable server gets no more than its envelope earns.

Structured: an error envelope's `repair` or a result's `next_call`, `{"tool", "arguments"}`, whose
tool is in the catalog (tools/list).

In words (the envelope's `hint` then its `message`, or a plain error's text), by these rules:

- a **mention** is a catalog tool's exact name, not part of a longer identifier (`get_rooms`,
  `get_roomArguments` and `my_get_room` mention no `get_room`);
- a mention **names the next call** when a cue word (use, call, try, run, retry, resend, see,
  "did you mean", ...) stands before it in the same sentence and no negation (not, never, n't,
  ...) stands next to the cue or between it and the name; the first such mention is the next call
  (later ones come after it);
- its **arguments** are what the words after it, up to the end of the sentence or the next
  mention, give: a call written out (`get_room(room_id="room_7")`, `get_room {"room_id": ...}`),
  `name=value` pairs, a property named without a value ("with the day", "the room id": the value
  the agent already has for it), and a value after for / with / on that is not a word
  ("for room_7": the property whose name it starts like, else the tool's one required property
  still unset);
- a value the words only name comes from what the agent knows: the arguments of the call the
  answer is to, else the step's own values by name; with none, it is left out (nobody invents it);
- the named tool is the call the answer is to: its other arguments are kept (a model resends its
  call, changing what the words name); another tool: its required properties the agent has a value
  for are filled, nothing else.

Measured: docs/decisions/0020-personas-read-next-steps-in-prose.md.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.eval.agents.guesses import properties_of, types_of
from drivable.eval.turns import Observation, ToolCall

Source = Literal["structured", "prose"]

# Words before a tool's name that make the name the next thing to do, and words that undo them.
CUES = frozenset(
    {
        "use", "using", "call", "calling", "try", "trying", "run", "invoke", "retry", "see",
        "consult", "send", "resend", "repeat", "mean", "meant",
    }
)  # fmt: skip
NEGATIONS = frozenset({"not", "never", "cannot", "don't", "doesn't", "didn't", "can't", "won't"})
# Words after "with"/"for" that are never a value nor a property ("with the day").
_FILLER = frozenset(
    {"a", "an", "the", "its", "your", "same", "this", "that", "these", "those", "and", "or", "to"}
)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:'[a-z]+)?")
_PAIR = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*"
    r"(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|`([^`]*)`|([^\s,;)\]}]+))"
)
# a bare value after for/with/on: quoted, or a token that carries a digit, `_` or `-` (not a word)
_VALUE_AFTER = re.compile(
    r"\b(?:for|with|on)\s+(?:\"([^\"]+)\"|'([^']+)'|`([^`]+)`|([A-Za-z0-9][\w.:\-]*))"
)
_TOKENISH = re.compile(r"[0-9_\-]")


@dataclass(frozen=True)
class NextCall:
    tool: str
    arguments: dict[str, Any]
    source: Source

    def call(self) -> ToolCall:
        return ToolCall(self.tool, dict(self.arguments))


@dataclass(frozen=True)
class Known:
    """What the agent knows as it reads the answer."""

    last: ToolCall | None = None  # the call the answer is to
    values: Mapping[str, Any] = field(default_factory=dict)  # the step's values, by property name


def read(obs: Observation, catalog: Mapping[str, dict[str, Any]], known: Known) -> NextCall | None:
    """The next call an answer names, structured first, else in its words; None when it names none."""
    payload = obs.payload()
    found = structured(payload, catalog)
    if found is not None:
        return found
    env = obs.envelope()
    texts = [str(env.get("hint") or ""), str(env.get("message") or "")] if env else [obs.text]
    for text in texts:
        found = in_words(text, catalog, known)
        if found is not None:
            return found
    return None


def structured(payload: Any, catalog: Mapping[str, Any]) -> NextCall | None:
    """An envelope's `repair`, else a `next_call`, naming a tool of the catalog."""
    if not isinstance(payload, dict):
        return None
    for key in ("repair", "next_call"):
        spec = payload.get(key)
        if isinstance(spec, dict) and isinstance(spec.get("tool"), str) and spec["tool"] in catalog:
            arguments = spec.get("arguments")
            args = dict(arguments) if isinstance(arguments, dict) else {}
            return NextCall(str(spec["tool"]), args, "structured")
    return None


def in_words(
    text: str, catalog: Mapping[str, dict[str, Any]], known: Known = Known()
) -> NextCall | None:
    """The next call the words name (the rules in the module's docstring), or None."""
    mentions = _mentions(text, catalog)
    for index, (start, end, tool) in enumerate(mentions):
        if not _cued(text[_sentence_start(text, start) : start]):
            continue
        stop = mentions[index + 1][0] if index + 1 < len(mentions) else len(text)
        return NextCall(tool, _arguments(text, end, stop, catalog[tool], known, tool), "prose")
    return None


def _mentions(text: str, catalog: Mapping[str, Any]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for tool in catalog:
        pattern = rf"(?<![A-Za-z0-9_\-/]){re.escape(tool)}(?![A-Za-z0-9_\-])"
        found += [(m.start(), m.end(), tool) for m in re.finditer(pattern, text)]
    found.sort()
    # a longer name that contains a shorter one at the same place is the one meant
    kept: list[tuple[int, int, str]] = []
    for mention in found:
        if kept and mention[0] < kept[-1][1]:
            if mention[1] - mention[0] > kept[-1][1] - kept[-1][0]:
                kept[-1] = mention
            continue
        kept.append(mention)
    return kept


def _sentence_start(text: str, at: int) -> int:
    start = 0
    for m in _SENTENCE_END.finditer(text, 0, at):
        start = m.end()
    return start


def _cued(before: str) -> bool:
    words = [w.lower() for w in _WORD.findall(before)]
    cues = [i for i, w in enumerate(words) if w in CUES]
    if not cues:
        return False
    # "do not use X", "never call X", "use X" after "can't": a negation next to the cue, or
    # between the cue and the name, undoes it
    near = words[max(0, cues[-1] - 3) :]
    return not any(w in NEGATIONS or w.endswith("n't") for w in near)


def _sentence_end(text: str, at: int, stop: int) -> int:
    m = _SENTENCE_END.search(text, at, stop)
    return m.start() if m else stop


def _arguments(
    text: str, at: int, stop: int, tool: dict[str, Any], known: Known, name: str
) -> dict[str, Any]:
    props = properties_of(tool)
    given: dict[str, Any] = {}
    at, written = _written_call(text, at, stop)
    for key, value in written.items():
        prop = _property(key, props)
        if prop is not None:
            given[prop] = _typed(props[prop], value)
    span = text[at : _sentence_end(text, at, stop)]
    for m in _PAIR.finditer(span):
        prop = _property(m.group(1), props)
        if prop is None or prop in given:
            continue
        raw = next(g for g in m.groups()[1:] if g is not None)
        quoted = m.group(5) is None
        given[prop] = _typed(props[prop], raw if quoted else _literal(raw.rstrip(".")))
    bare = _PAIR.sub(" ", span)
    named = [p for p in _named(bare, props) if p not in given]
    for m in _VALUE_AFTER.finditer(bare):
        value = next(g for g in m.groups() if g is not None)
        if m.group(4) is not None:
            value = value.rstrip(".:")
            if not _TOKENISH.search(value) or _property(value, props) is not None:
                continue
        prop = _bind(value, props, tool, {*given, *named})
        if prop is not None:
            given[prop] = _typed(props[prop], value)
    last = known.last
    args: dict[str, Any] = dict(last.arguments) if last is not None and last.tool == name else {}
    for prop in named:
        value = _known(prop, known)
        if value is not None:
            args[prop] = value
    args.update(given)
    if last is None or last.tool != name:
        for prop in _required(tool):
            if prop not in args and prop in props:
                value = _known(prop, known)
                if value is not None:
                    args[prop] = value
    return args


def _written_call(text: str, at: int, stop: int) -> tuple[int, dict[str, Any]]:
    """A call written out right after the name: `(k=v, ...)` or a JSON object (optionally after
    `with` or a colon). Returns where the words go on and the arguments it gave."""
    m = re.compile(r"\s*(?::\s*|with\s+)?").match(text, at)
    here = m.end() if m else at
    if text.startswith("(", at):
        close = _closing(text, at, "(", ")")
        if close is not None and close <= stop:
            return close, _call_arguments(text[at + 1 : close - 1])
    if here < stop and text.startswith("{", here):
        try:
            value, end = json.JSONDecoder().raw_decode(text, here)
        except ValueError:
            return at, {}
        if isinstance(value, dict):
            inner = value.get("arguments")
            return end, dict(inner) if isinstance(inner, dict) else value
    return at, {}


def _closing(text: str, at: int, open_: str, close: str) -> int | None:
    depth, quote = 0, ""
    for i in range(at, len(text)):
        c = text[i]
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _call_arguments(inner: str) -> dict[str, Any]:
    """`k=v, ...` as Python or JSON literals; a lone object is the arguments themselves."""
    if not inner.strip():
        return {}
    try:
        node = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Call):
        out: dict[str, Any] = {}
        try:
            for kw in node.keywords:
                if kw.arg is not None:
                    out[kw.arg] = _node_value(kw.value)
            if not node.keywords and len(node.args) == 1:
                lone = _node_value(node.args[0])
                if isinstance(lone, dict):
                    return {str(k): v for k, v in lone.items()}
        except ValueError:
            return {}
        return out
    try:
        lone = json.loads(inner)
    except ValueError:
        return {}
    return lone if isinstance(lone, dict) else {}


def _node_value(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[node.id]
    return ast.literal_eval(node)


def _literal(raw: str) -> Any:
    """An unquoted value as JSON reads it (5, true, null), else the text itself."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _typed(prop: dict[str, Any], value: Any) -> Any:
    """A scalar the schema takes only as a string is sent as one (`room_id=7` is "7")."""
    types = types_of(prop)
    if types == {"string"} and isinstance(value, bool | int | float):
        return json.dumps(value)
    return value


def _property(key: str, props: Mapping[str, Any]) -> str | None:
    """The property a name in the words means: itself, its spaced spelling, or the one property
    whose name has it as a word ("room" for room_id)."""
    key = key.strip().lower().replace(" ", "_").replace("-", "_")
    if key in props:
        return key
    for name in props:
        if name.lower() == key:
            return name
    if len(key) < 3 or key in _FILLER:
        return None
    holders = [name for name in props if key in name.lower().split("_")]
    return holders[0] if len(holders) == 1 else None


def _named(span: str, props: Mapping[str, Any]) -> list[str]:
    """Properties the words name without a value ("with the day", "the room id")."""
    words = [w.lower().split("'")[0] for w in _WORD.findall(span)]
    found: list[str] = []
    i = 0
    while i < len(words):
        pair = f"{words[i]}_{words[i + 1]}" if i + 1 < len(words) else ""
        if pair and pair in props:
            found.append(pair)
            i += 2
            continue
        prop = _property(words[i], props) if words[i] not in _FILLER else None
        if prop is not None and prop not in found:
            found.append(prop)
        i += 1
    return found


def _bind(
    value: str, props: Mapping[str, Any], tool: dict[str, Any], taken: set[str]
) -> str | None:
    """The property a bare value is for: the one whose name it starts like (room_7 -> room_id),
    else the tool's one required property still unset."""
    stem = re.split(r"[_\-.:0-9]", value.lower(), maxsplit=1)[0]
    if len(stem) >= 2:
        like = [p for p in props if p not in taken and p.lower().split("_")[0].startswith(stem)]
        if len(like) == 1:
            return like[0]
    open_ = [p for p in _required(tool) if p in props and p not in taken]
    return open_[0] if len(open_) == 1 else None


def _required(tool: dict[str, Any]) -> list[str]:
    required = (tool.get("inputSchema") or {}).get("required") or []
    return [str(r) for r in required]


def _known(prop: str, known: Known) -> Any:
    if known.last is not None and known.last.arguments.get(prop) not in (None, ""):
        return known.last.arguments[prop]
    value = known.values.get(prop)
    return value if value not in (None, "") else None
