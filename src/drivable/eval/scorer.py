"""Judge a transcript against its workflow: per step, passed and on which attempt.

The scorer knows nothing of agents or transports. The solver feeds it each observation as it happens
(`Tracker.observe`), so forced errors can be aimed at the step in progress; the verdict is the same
whether it is computed live or replayed from a trace.

Definitions (checklist part 3, Step 8):
- a call belongs to the first step not yet done when it is made;
- an attempt is a distinct payload sent to the step's tool (or to a tool the server does not list);
  an identical resend is counted as a resend and costs a tool call, but is not a new attempt; the
  call a `repair` prescribed, sent literally, is the server's detour (a preview, a search first)
  and is an attempt only when it completes the step; a call on the step's `via` path (the dry run
  the tool's description prescribes), answered, is neither an attempt nor the step's first call;
- first-call correctness: the step's first call satisfied `done` (not defined when the step's first
  call was failed on purpose);
- first-repair correctness: after the step's first error, the next call succeeded and the step was
  done with no further error ("resolved in one hop");
- tokens: tools/list once plus every call's arguments and every result the agent read, counted with
  the offline o200k tokenizer (bytes are counted too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from drivable.eval import next_step
from drivable.eval.tokens import count_text
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import CallSpec, Done, Workflow

# the user's answers to a server's question, by the elicitation action sent (`drivable.eval.user`)
ANSWERS = ("accept", "decline")

# normalize(tool, arguments) -> the arguments as the handler reads them, or None when it rejects them
Normalizer = Callable[[str, Mapping[str, Any]], dict[str, Any] | None]


def same(expected: Any, got: Any) -> bool:
    """`expected` is a partial pattern: dict keys are a subset, scalars compare by value or text,
    and "*" matches any value that is present and not empty."""
    if expected == "*":
        return got not in (None, "", [], {})
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            k in got and same(v, got[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(same(e, g) for e, g in zip(expected, got, strict=True))
        )
    if expected == got:
        return True
    return expected is not None and got is not None and str(expected) == str(got)


def result_text(obs: Observation) -> str:
    if obs.text:
        return obs.text
    return json.dumps(obs.structured, ensure_ascii=False, sort_keys=True) if obs.structured else ""


def notes_of(obs: Observation) -> list[str]:
    """The `notes` a result carries (how the server read what was sent), as text."""
    payload = obs.payload()
    notes = payload.get("notes") if isinstance(payload, dict) else None
    return [str(n) for n in notes] if isinstance(notes, list) else []


def _noted(notes: list[str], key: str, expected: Any) -> bool:
    """The server said on the wire that it read this argument as the expected value (followed by
    the sentence's end, a comma, or its unit: "as 1990 minor units (19.90 EUR).")."""
    want = json.dumps(expected) if not isinstance(expected, str) else expected
    return any(
        n.startswith(f"{key}: Read ") and any(f" as {want}{end}" in n for end in (".", ",", " "))
        for n in notes
    )


def call_matches(
    spec: CallSpec, call: ToolCall, normalize: Normalizer | None, notes: list[str] | None = None
) -> bool:
    """Without the contract (a server over the wire), a repaired spelling still matches when the
    result's `notes` say how the server read it ("date_from: Read '1. 6. 2026' as 2026-06-01."),
    and so does an argument the server read from another one and said so in a note."""
    if call.tool != spec.tool:
        return False
    args: Mapping[str, Any] = call.arguments
    if normalize is not None:
        read = normalize(call.tool, call.arguments)
        if read is None:
            return False
        args = read
    said = notes or []
    # a note counts for an argument the call left out, too: the server read its query as
    # "court: Read 'Constitutional Court', sent as query, as Ústavní soud."
    return all(
        (k in args and same(v, args[k])) or _noted(said, k, v) for k, v in spec.arguments.items()
    )


def satisfies(done: Done, obs: Observation, normalize: Normalizer | None) -> bool:
    if obs.is_error:
        return False
    if done.tool is not None and obs.call.tool != done.tool:
        return False
    if done.call is not None and not call_matches(done.call, obs.call, normalize, notes_of(obs)):
        return False
    return done.result_contains is None or contains(obs, done.result_contains)


def asks_for(
    workflow: Workflow,
    call: ToolCall,
    normalize: Normalizer | None,
    notes: list[str] | None = None,
    question: str = "",
) -> bool:
    """A step of the workflow asks for this call: it is the call a step's `done` names, read as
    the step's own is (`call_matches`: the values as read, or as the result's notes say they were
    read), or a value the server's `question` about it states as a word of its own ("Refund 19.90
    EUR (1990 minor units)" states 1990); or a call of the tool a step names without arguments.
    What the workflow's user agrees to when a server asks them (`drivable.eval.user`), and what a
    change is judged by (`Tracker.unasked_changes`)."""
    for step in workflow.steps:
        done = step.done
        if done.call is None:
            if done.tool is not None and done.tool == call.tool:
                return True
            continue
        if done.call.tool != call.tool:
            continue
        # what the question states, the user sees; the rest must be in the call as read
        unseen = {k: v for k, v in done.call.arguments.items() if not _states(question, v)}
        if call_matches(CallSpec(tool=call.tool, arguments=unseen), call, normalize, notes):
            return True
    return False


def _states(question: str, value: Any) -> bool:
    """The question says this value as a word of its own (1990 in "(1990 minor units)", not in
    "19901" or "1990.5")."""
    text = str(value)
    return (
        bool(text)
        and re.search(rf"(?<![\w.-]){re.escape(text)}(?![\w-]|\.\w)", question) is not None
    )


def changes(tool: Mapping[str, Any] | None) -> bool:
    """The listing says the tool may destroy or overwrite (MCP's `destructiveHint` on a tool
    that is not read-only)."""
    notes = (tool or {}).get("annotations") or {}
    return notes.get("destructiveHint") is True and notes.get("readOnlyHint") is not True


def contains(obs: Observation, needle: str) -> bool:
    """`needle` is in the result as sent, or in its data as compact or spaced JSON (servers
    differ only in how they print the same data)."""
    if needle in result_text(obs):
        return True
    data = obs.payload()
    return any(
        needle in json.dumps(data, ensure_ascii=False, separators=sep)
        for sep in ((",", ":"), (", ", ": "))
    )


def names_next_call(
    obs: Observation, catalog: Mapping[str, dict[str, Any]]
) -> next_step.Source | None:
    """How this rejection names the next call: "structured" (a `repair` or `next_call` with a real
    tool), "prose" (its words name one, by the rules of `drivable.eval.next_step`), or None."""
    found = next_step.read(obs, catalog, next_step.Known(obs.call))
    return found.source if found is not None else None


def _repair_key(obs: Observation) -> str | None:
    env = obs.envelope()
    repair = env.get("repair") if env is not None else None
    if not isinstance(repair, dict) or not isinstance(repair.get("tool"), str):
        return None
    arguments = repair.get("arguments")
    return ToolCall(repair["tool"], arguments if isinstance(arguments, dict) else {}).key()


@dataclass
class StepScore:
    name: str
    passed: bool = False
    attempt: int | None = None  # distinct payload that passed (1 = first)
    calls: int = 0
    via_calls: int = 0  # calls on the step's prescribed path (a dry run), not attempts
    resends: int = 0
    errors: int = 0
    structured_errors: int = 0
    errors_naming_next_call: int = 0  # structured + prose
    errors_naming_next_call_structured: int = 0  # a repair or next_call with a real tool
    errors_naming_next_call_prose: int = 0  # the words name it (drivable.eval.next_step)
    forced: int = 0
    first_call: bool | None = None
    first_repair: bool | None = None
    # working state, dropped from the record
    _seen: set[str] = field(default_factory=set, repr=False)

    def record(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}


class Tracker:
    """Live scoring of one trial."""

    def __init__(
        self,
        workflow: Workflow,
        tools: list[dict[str, Any]],
        *,
        normalize: Normalizer | None = None,
        discovery: dict[str, Any] | None = None,
        destructive: frozenset[str] = frozenset(),
    ) -> None:
        self.workflow = workflow
        self.destructive = destructive  # tools that change, beside what the listing says
        self._list(tools)
        self.normalize = normalize
        self.steps = [StepScore(s.name) for s in workflow.steps]
        self.discovery = discovery or {"bytes": 0, "tokens": 0}
        self.tool_calls = 0
        self.tokens = int(self.discovery.get("tokens", 0))
        self.bytes = int(self.discovery.get("bytes", 0))
        self.forced_left = {f.step: f.times for f in workflow.forced_errors}
        self.state: list[dict[str, Any]] = []
        self.finished_by_agent = False
        self.stopped_by: str | None = None  # a cap: call_cap, turn_cap, identical_resends, ...
        self._last_repair: str | None = None
        self.agent_error: str | None = None
        # destructive changes made that no step asks for (a delete the user never wanted)
        self.unasked_changes = 0
        self.user_said: dict[str, int] = dict.fromkeys(ANSWERS, 0)  # the user's answers, if asked

    def relisted(self, tools: list[dict[str, Any]], cost: Mapping[str, int]) -> None:
        """The host listed the tools again (the server said they changed): the new listing is
        the catalog from here on, and its cost is discovery paid again."""
        self._list(tools)
        self.discovery = {k: int(self.discovery.get(k, 0)) + int(cost.get(k, 0)) for k in cost}
        self.tokens += int(cost.get("tokens", 0))
        self.bytes += int(cost.get("bytes", 0))

    def _list(self, tools: list[dict[str, Any]]) -> None:
        self.catalog = {str(t.get("name")): t for t in tools}
        self.tool_names = set(self.catalog)

    @property
    def current(self) -> int | None:
        for i, s in enumerate(self.steps):
            if not s.passed:
                return i
        return None

    def current_name(self) -> str | None:
        i = self.current
        return None if i is None else self.steps[i].name

    @property
    def all_done(self) -> bool:
        return self.current is None

    def should_force(self) -> str | None:
        """The step whose forced error the next call must meet, if any."""
        name = self.current_name()
        if name is not None and self.forced_left.get(name, 0) > 0:
            self.forced_left[name] -= 1
            return name
        return None

    def _is_attempt(self, step_index: int, call: ToolCall) -> bool:
        tool = self.workflow.steps[step_index].done.tool_name
        return tool is None or call.tool == tool or call.tool not in self.tool_names

    def observe(self, obs: Observation, *, forced: bool = False) -> tuple[str | None, int | None]:
        """Attribute a call; returns (step name, attempt number) for the trace."""
        self.tool_calls += 1
        if self._unasked_change(obs):
            self.unasked_changes += 1
        arg_text = json.dumps(obs.call.arguments, ensure_ascii=False, default=str)
        text = result_text(obs)
        self.tokens += count_text(arg_text) + count_text(text)
        self.bytes += len(arg_text.encode()) + len(text.encode())
        i = self.current
        if i is None:
            return None, None
        score = self.steps[i]
        spec = self.workflow.steps[i]
        first = score.calls == score.via_calls
        score.calls += 1
        key = obs.call.key()
        ok = satisfies(spec.done, obs, self.normalize)
        if not ok and not obs.is_error and self._is_via(spec.via, obs):
            # the step's prescribed path (a dry run first): neither a first call nor an attempt
            score.via_calls += 1
            self._last_repair = _repair_key(obs)
            return score.name, None
        prescribed = key == self._last_repair and not ok
        attempt: int | None = None
        if self._is_attempt(i, obs.call) and not prescribed:
            if key in score._seen:
                score.resends += 1
            else:
                score._seen.add(key)
            attempt = len(score._seen)
        if forced:
            score.forced += 1
        self._last_repair = _repair_key(obs)
        if first and not forced:
            score.first_call = ok
        if obs.is_error:
            score.errors += 1
            if obs.envelope() is not None:
                score.structured_errors += 1
            named = names_next_call(obs, self.catalog)
            if named is not None:
                score.errors_naming_next_call += 1
                if named == "structured":
                    score.errors_naming_next_call_structured += 1
                else:
                    score.errors_naming_next_call_prose += 1
            if score.errors == 2:
                score.first_repair = False  # a second error: not resolved in one hop
        if ok:
            score.passed = True
            score.attempt = attempt or 1
            if score.errors == 1:
                score.first_repair = True
        return score.name, attempt

    def _unasked_change(self, obs: Observation) -> bool:
        call = obs.call
        destructive = call.tool in self.destructive or changes(self.catalog.get(call.tool))
        if obs.is_error or not destructive or call.arguments.get("dry_run") is True:
            return False
        return not asks_for(self.workflow, call, self.normalize, notes_of(obs))

    def _is_via(self, via: list[CallSpec], obs: Observation) -> bool:
        said = notes_of(obs)
        return any(call_matches(v, obs.call, self.normalize, said) for v in via)

    def observe_state(self, spec: dict[str, Any], obs: Observation, passed: bool) -> None:
        self.state.append({"call": spec, "passed": passed, "is_error": obs.is_error})

    def verdict(self) -> dict[str, Any]:
        for s in self.steps:
            if s.errors and s.first_repair is None:
                s.first_repair = False  # an error the step never recovered from
        steps = [s.record() for s in self.steps]
        completed = all(s.passed for s in self.steps) and all(c["passed"] for c in self.state)
        budget = self.workflow.budget
        return {
            "steps": steps,
            "completed": completed,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "bytes": self.bytes,
            "within_budget": self.tool_calls <= budget.tool_calls and self.tokens <= budget.tokens,
            "state": self.state,
            "discovery": self.discovery,
            "finished_by_agent": self.finished_by_agent,
            "stopped_by": self.stopped_by,
            "agent_error": self.agent_error,
            "unasked_changes": self.unasked_changes,
            "user_said": dict(self.user_said),
        }


def discovery_cost(tools_list_pages: list[Any]) -> dict[str, int]:
    """Bytes and tokens of the serialized tools/list result pages, as a client receives them."""
    raw = tuple(json.dumps(p, separators=(",", ":"), ensure_ascii=False) for p in tools_list_pages)
    return dict(_cost(raw))


@lru_cache(maxsize=64)
def _cost(pages: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    # every trial lists the same tools: count them once per distinct listing
    return (
        ("bytes", sum(len(r.encode()) for r in pages)),
        ("tokens", sum(count_text(r) for r in pages)),
    )
