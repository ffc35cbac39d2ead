"""Simulated agents: deterministic personas that behave as models are documented to behave.

Each persona has one habit (the `mixed` persona draws several per trial from its seed):

- copier: starts every call from the `Example: {...}` in the tool's description, then adds its own
  values on top (example values it did not replace stay in the call);
- filler: fills every property the schema shows (the default, an example, the first enum value,
  else "" / null / 0 / false / []);
- resender: after an error, first resends the very same call once;
- speller: spells values the way its training data did (4 000, ano, 1. 10. 2026, cs_CZ, a
  fact's `spelled` form such as a court's English name), written by `drivable.kinds.writing`, the
  inverse of the kinds (it never reads a value itself: guesses after an error read through the
  kinds too);
- cursor_inventor: on a first page, fills a cursor property with an invented value ("0", "start");
- skimmer: reads a `repair` top-down and calls the first name it meets, a habit the real 1.5B
  model showed (docs/decisions/0024-how-a-next-step-is-said.md, 1);
- literal: no habit beyond the one every persona shares.

Shared by all: after an error, read its next step with `drivable.eval.next_step`, as a model
would: follow `repair` (or `next_call`) literally when the error carries one, else fix what
`issues`/`hint` name (the first reading offered, the nearest allowed value, a renamed property),
else call what the error's words name as the next call ("Use get_room with the day"), and when
nothing in it can be used, guess (the nearest tool name, the value the text mentions coerced to the
schema's type, else resend once). A success whose warning says a filter emptied the page
(no_hits_filtered) is heeded once: the values it names are omitted and not filled again. A poll
of a task still working is made again. They read only what discovery exposes: tools/list (names,
descriptions, schemas) and the results; the workflow gives them the user's words (`draft`, facts),
never the server's internals, and a fact goes out as the model's prompt shows it until the wire has
shown the server's form for it (`shown`). A contract that works for them is not proof that it works for a model;
one that fails them fails models too.
"""

from __future__ import annotations

import copy
import json
import random
import re
import uuid
from typing import Any

from drivable.eval.agents.guesses import (
    example_of,
    get_path,
    is_cursor,
    properties_of,
    respell,
    types_of,
)
from drivable.eval.agents.recovery import ErrorReader
from drivable.eval.agents.shown import Shown
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import CallSpec, Step, Workflow

HABITS = ("copy", "fill", "resend", "spell", "invent_cursor", "skim")
PERSONAS: dict[str, frozenset[str]] = {
    "literal": frozenset(),
    "copier": frozenset({"copy"}),
    "filler": frozenset({"fill"}),
    "resender": frozenset({"resend"}),
    "speller": frozenset({"spell"}),
    "cursor_inventor": frozenset({"invent_cursor"}),
    "skimmer": frozenset({"skim"}),
    "mixed": frozenset(),  # drawn per trial from the seed
}
MAX_CALLS_PER_STEP = 5
INVENTED_CURSORS = ("0", "start", " ", "1")
_FACT = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_FACT_IN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SimulatedAgent(ErrorReader):
    """One persona, one trial. Deterministic for a given seed and the same server answers."""

    def __init__(self, persona: str = "literal", seed: int = 0) -> None:
        if persona not in PERSONAS:
            raise ValueError(f"unknown persona {persona!r}; have: {', '.join(PERSONAS)}")
        self.rng = random.Random(f"{persona}:{seed}")
        if persona == "mixed":
            habits = {h for h in HABITS if self.rng.random() < 0.5}
            self.habits = frozenset(habits)
        else:
            self.habits = PERSONAS[persona]
        self.persona = persona
        self.name = f"simulated:{persona}"
        self.usage = Usage()

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.workflow = workflow
        self.tools = {str(t["name"]): t for t in tools}
        self.shown = Shown(workflow.prompt(), self.tools)
        self.results: dict[str, Any] = {}
        self.aliases: dict[str, str] = {}
        self.avoid: dict[str, set[str]] = {}
        self.asked: dict[str, set[str]] = {}
        # "{unique}" in a draft: a fresh value per trial (an idempotency key a model would mint);
        # the one value that does not repeat with the seed, so a shared store never replays an
        # earlier trial's receipt
        self.unique = f"eval-{uuid.uuid4().hex[:16]}"
        self.step_index = 0
        self._reset_step()

    def _reset_step(self) -> None:
        self.target_tool: str | None = None
        self.calls_in_step = 0
        self.resent: set[str] = set()
        self.heeded = False
        self.pending_repeat: tuple[ToolCall, str] | None = None
        self.seen_tools: set[str] = set(getattr(self, "seen_tools", set()))

    # -- the turn -----------------------------------------------------------------------------

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        """The listing from now on; what it shows counts as shown."""
        self.tools = {str(t["name"]): t for t in tools}
        self.shown.relisted(self.tools)

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        nxt: ToolCall | None = None
        if last is not None:
            self.shown.saw(last)
            if last.is_error:
                nxt = self._recover(last)
                if nxt is None:  # nothing left to try: give the step up
                    self.step_index += 1
                    self._reset_step()
            else:
                self.results[last.call.tool] = last.payload()
                nxt = (
                    self._heed_warnings(last)
                    or self._repeat_after_repair(last)
                    or self._poll_again(last)
                )
                if nxt is None and last.call.tool == self.target_tool:
                    self.step_index += 1
                    self._reset_step()
        if self.calls_in_step >= MAX_CALLS_PER_STEP:
            self.step_index += 1  # give up this step
            self._reset_step()
            nxt = None
        if nxt is None:
            if self.step_index >= len(self.workflow.steps):
                return Finish("done")
            nxt = self._draft(self.workflow.steps[self.step_index])
            if nxt is None:
                self.step_index += 1
                self._reset_step()
                return await self.act(None)
        if self.target_tool is None:
            self.target_tool = nxt.tool
        self.calls_in_step += 1
        self.seen_tools.add(nxt.tool)
        return nxt

    # -- building a call from the user's words ------------------------------------------------

    def _resolve(self, value: Any, tool: str | None = None, prop: str | None = None) -> Any:
        """The user's words with their facts and earlier results put in; a fact is written as
        `tool`'s `prop` is shown to take it (`shown.Shown.written`)."""
        if isinstance(value, str):
            if value == "{unique}" and "unique" not in self.workflow.facts:
                return self.unique
            m = _FACT.match(value)
            if m and m.group(1) in self.workflow.facts:
                return copy.deepcopy(self._fact(m.group(1), tool, prop))
            if value.startswith("$"):
                ref, bar, fallback = value[1:].partition("|")
                source, _, path = ref.partition(".")
                source = self.aliases.get(source, source)
                found = get_path(self.results.get(source), path.split(".") if path else [])
                nested = self.results.get(source)
                if found is None and isinstance(nested, dict) and "result" in nested:
                    # `drivable wrap` answers the upstream's data under `result`, and a tool
                    # that returns JSON text is wrapped as `{"result": "<the text>"}` by its
                    # framework: a model reads the data in either, and so does the persona
                    found = get_path(_data(nested["result"]), path.split(".") if path else [])
                if found is None and bar:
                    return fallback
                return copy.deepcopy(found)
            return _FACT_IN.sub(
                lambda m: (
                    str(self._fact(m.group(1), tool, prop))
                    if m.group(1) in self.workflow.facts
                    else m.group(0)
                ),
                value,
            )
        if isinstance(value, dict):
            return {k: self._resolve(v, tool, prop or k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._resolve(v, tool, prop) for v in value]
        return value

    def _fact(self, name: str, tool: str | None, prop: str | None) -> Any:
        """A fact as this persona sends it: the speller as training data spells it, the others
        as the user said it until the wire has shown the server's form (decision 0038)."""
        fact = self.workflow.facts[name]
        if "spell" in self.habits:
            return fact.for_persona(True)
        return self.shown.written(fact, tool, prop)

    def _route(self, step: Step) -> CallSpec | None:
        """No draft: the tool whose name and description share most words with the step."""
        words = set(re.findall(r"[a-z]+", step.ask.lower()))
        best: tuple[int, str] | None = None
        for name, tool in sorted(self.tools.items()):
            text = f"{name.replace('_', ' ')} {tool.get('description') or ''}".lower()
            score = len(words & set(re.findall(r"[a-z]+", text)))
            if best is None or score > best[0]:
                best = (score, name)
        if best is None:
            return None
        props = properties_of(self.tools[best[1]])
        args = {k: f"{{{k}}}" for k in self.workflow.facts if k in props}
        return CallSpec(tool=best[1], arguments=args)

    def _draft(self, step: Step) -> ToolCall | None:
        spec = step.draft or self._route(step)
        if spec is None:
            return None
        tool = self.aliases.get(spec.tool, spec.tool)
        args = self._resolve(dict(spec.arguments), tool)
        args = {k: v for k, v in args.items() if v is not None}
        self.asked[tool] = set(args)  # what the user's words asked for
        schema_tool = self.tools.get(tool)
        props = properties_of(schema_tool)
        if "copy" in self.habits and schema_tool is not None:
            example = example_of(str(schema_tool.get("description") or ""))
            if example:
                args = {**example, **args}
        if "spell" in self.habits:
            args = {k: respell(k, props.get(k, {}), v, self.rng) for k, v in args.items()}
        if "fill" in self.habits:
            for name, prop in props.items():
                if name not in args and name not in self.avoid.get(tool, set()):
                    args[name] = self._fill(name, prop)
        if "invent_cursor" in self.habits:
            for name in props:
                if is_cursor(name) and not args.get(name):
                    args[name] = self.rng.choice(INVENTED_CURSORS)
        return ToolCall(tool, args)

    def _fill(self, name: str, prop: dict[str, Any]) -> Any:
        if "default" in prop:
            return prop["default"]
        examples = prop.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        enum = prop.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        types = types_of(prop)
        if "integer" in types or "number" in types:
            return 0
        if "boolean" in types:
            return False
        if "array" in types:
            return []
        if "object" in types:
            return {}
        return self.rng.choice(["", None])

    # -- after a success that warns, or that a repair asked to repeat -------------------------

    def _repeat_after_repair(self, last: Observation) -> ToolCall | None:
        """The repair was a preview of the same tool ("dry run, then repeat it with dry_run=false
        and the confirm_token in its next_call"): repeat the original call with what the result
        echoes, the confirm_token of its next_call included."""
        pending, self.pending_repeat = self.pending_repeat, None
        if pending is None or pending[0].tool != last.call.tool:
            return None
        original, hint = pending
        payload = last.payload()
        props = properties_of(self.tools.get(original.tool))
        if not isinstance(payload, dict):
            return None
        echoed = {
            k: v
            for k, v in payload.items()
            if k in props and k not in last.call.arguments and v not in (None, "")
        }
        token = _confirm_token_in(payload.get("next_call"), original.tool)
        if token is not None and "confirm_token" in props:
            echoed["confirm_token"] = token
        if not echoed:
            return None
        args = {**original.arguments, **echoed}
        for name, flag in re.findall(r"\b([a-z_]+)=(true|false)\b", hint.split("repeat", 1)[-1]):
            if name in props:
                args[name] = flag == "true"
        return ToolCall(original.tool, args)

    def _poll_again(self, last: Observation) -> ToolCall | None:
        """A poll of a task that is still working: the same poll again (the host waits the
        interval the server asked for)."""
        payload = last.payload()
        if not isinstance(payload, dict) or payload.get("status") != "working":
            return None
        task_id = payload.get("taskId")
        return last.call if task_id and last.call.arguments.get("taskId") == task_id else None

    def _heed_warnings(self, last: Observation) -> ToolCall | None:
        """A filter that emptied the page: do what the warning says (omit the values it names),
        once per step, and remember not to fill them again for this tool."""
        payload = last.payload()
        if not isinstance(payload, dict) or self.heeded:
            return None
        drop: set[str] = set()
        for w in payload.get("warnings") or []:
            if not isinstance(w, dict) or w.get("code") != "no_hits_filtered":
                continue
            words = set(re.findall(r"[A-Za-z_]+", str(w.get("message") or "")))
            drop |= {k for k in last.call.arguments if k == w.get("path") or k in words}
        # "omit filters one at a time": first the ones the user never asked for (filled, copied)
        mine = drop - self.asked.get(last.call.tool, set())
        drop = mine or drop
        if not drop:
            return None
        self.heeded = True
        self.avoid.setdefault(last.call.tool, set()).update(drop)
        return ToolCall(
            last.call.tool, {k: v for k, v in last.call.arguments.items() if k not in drop}
        )


def _confirm_token_in(next_call: Any, tool: str) -> str | None:
    """The confirm_token a preview's next_call carries for `tool` (a dry run's confirming call)."""
    if not isinstance(next_call, dict) or next_call.get("tool") != tool:
        return None
    arguments = next_call.get("arguments")
    token = arguments.get("confirm_token") if isinstance(arguments, dict) else None
    return token if isinstance(token, str) and token else None


def make(persona: str) -> Any:
    """An agent factory for the solver: seed -> a fresh agent of this persona."""

    def factory(seed: int) -> SimulatedAgent:
        return SimulatedAgent(persona, seed)

    return factory


def _data(value: Any) -> Any:
    """`value`, or the JSON a text value holds."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
