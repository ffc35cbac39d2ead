"""How a persona reads an error and picks its next call (`SimulatedAgent` inherits it): follow the
error's `repair` or `next_call` literally, else fix what its `issues` or `hint` name, else call
what its words name, else guess from the words and the schema, as a model would."""

from __future__ import annotations

import copy
import difflib
import re
from typing import Any

from drivable.eval import next_step
from drivable.eval.agents.guesses import (
    coerce_guess,
    del_path,
    get_path,
    parse_date_guess,
    properties_of,
    set_path,
    words_of,
)
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Workflow

_AS_VALUE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_.]*) as \"([^\"]*)\"")


class ErrorReader:
    """The recovery half of a persona: what it reads in an error, and the call it makes next."""

    # the persona's state the recovery reads and moves (SimulatedAgent sets it in begin())
    habits: frozenset[str]
    workflow: Workflow
    tools: dict[str, dict[str, Any]]
    aliases: dict[str, str]
    resent: set[str]
    step_index: int
    target_tool: str | None
    pending_repeat: tuple[ToolCall, str] | None

    def _resolve(self, value: Any, tool: str | None = None, prop: str | None = None) -> Any:
        """The user's words with their facts and earlier results put in (SimulatedAgent's)."""
        raise NotImplementedError

    def _fact(self, name: str, tool: str | None, prop: str | None) -> Any:
        """A fact as this persona sends it to `prop` of `tool` (SimulatedAgent's)."""
        raise NotImplementedError

    def _recover(self, last: Observation) -> ToolCall | None:
        call = last.call
        key = call.key()
        if "resend" in self.habits and key not in self.resent:
            self.resent.add(key)
            return call
        env = last.envelope()
        if env is not None:
            return self._follow(call, env)
        return self._follow_words(call, last.text) or self._guess(call, last.text)

    def _known(self, call: ToolCall) -> next_step.Known:
        """What the persona knows as it reads an answer: the call it made, and the step's values
        by property name (the user's words as its draft puts them, then the facts by name), each
        written as the persona would send it (decision 0038)."""
        values: dict[str, Any] = {k: self._fact(k, call.tool, k) for k in self.workflow.facts}
        step = self.workflow.steps[min(self.step_index, len(self.workflow.steps) - 1)]
        if step.draft is not None:
            drafted = self._resolve(dict(step.draft.arguments), call.tool)
            values.update({k: v for k, v in drafted.items() if v is not None})
        return next_step.Known(call, values)

    def _follow_words(self, call: ToolCall, text: str) -> ToolCall | None:
        """The next call the words name (drivable.eval.next_step), when it is not the call that
        just failed: a model does what an error tells it to."""
        found = next_step.in_words(text, self.tools, self._known(call))
        if found is None or found.call().key() == call.key():
            return None
        if call.tool not in self.tools:
            self.aliases[call.tool] = found.tool
            self.target_tool = found.tool
        return found.call()

    def _follow(self, call: ToolCall, env: dict[str, Any]) -> ToolCall | None:
        repair = env.get("repair")
        found = next_step.structured(env, self.tools)
        if found is None and isinstance(repair, dict) and isinstance(repair.get("tool"), str):
            # a repair naming a tool the listing does not show is followed literally all the same
            found = next_step.NextCall(repair["tool"], _arguments_of(repair), "structured")
        if found is not None:
            tool = found.tool
            if "skim" in self.habits and isinstance(repair, dict) and repair.get("tool"):
                tool = next(v for v in repair.values() if isinstance(v, str))
            if call.tool not in self.tools and tool in self.tools:
                self.aliases[call.tool] = tool
                self.target_tool = tool
            if tool == call.tool and "repeat" in str(env.get("hint") or ""):
                self.pending_repeat = (call, str(env.get("hint")))
            return ToolCall(tool, dict(found.arguments))
        if env.get("temporary"):
            return call  # retry later: the same call is the right one
        args = copy.deepcopy(call.arguments)
        props = properties_of(self.tools.get(call.tool))
        issues = [i for i in env.get("issues") or [] if isinstance(i, dict)]
        removed: list[Any] = []
        changed = False
        for issue in issues:
            if issue.get("code") == "unknown_property" and issue.get("path"):
                parts = str(issue["path"]).split(".")
                value = del_path(args, parts)
                allowed = str(issue.get("expected") or "").removeprefix("one of:").split(",")
                name = parts[-1]
                kin = [
                    a.strip()
                    for a in allowed
                    if a.strip() and (a.strip().startswith(name) or name.startswith(a.strip()))
                ]
                if len(kin) == 1 and len(parts) == 1:
                    args[kin[0]] = value  # `q` meant `query`, `court_name` meant `court`
                else:
                    removed.append(value)
                changed = True
        for issue in issues:
            path = str(issue.get("path") or "")
            if not path or issue.get("code") == "unknown_property":
                continue
            parts = path.split(".")
            now = get_path(args, parts)
            if now not in (None, "") and ("received" not in issue or now != issue["received"]):
                continue  # already set by a rename above
            value = self._fixed_value(call.tool, parts, issue, props, removed)
            if value is _DROP:
                del_path(args, parts)
                changed = True
            elif value is not _KEEP:
                set_path(args, parts, value)
                changed = True
        if not changed:
            for name, value in _AS_VALUE.findall(str(env.get("hint") or "")):
                set_path(args, name.split("."), value)
                changed = True
        if not changed and call.tool not in self.tools:
            hint = str(env.get("hint") or "")
            named = sorted((t for t in self.tools if t in hint), key=hint.index)
            if named:
                return self._switch(call, self._pick(call.tool, named))
        if not changed:  # nothing structured to fix: what the hint's words say to call
            for text in (str(env.get("hint") or ""), str(env.get("message") or "")):
                words = self._follow_words(call, text)
                if words is not None:
                    return words
        return ToolCall(call.tool, args)

    def _pick(self, wrong: str, candidates: list[str]) -> str:
        """The candidate that fits the step's words best (ties: the order offered)."""
        step = self.workflow.steps[min(self.step_index, len(self.workflow.steps) - 1)]
        want = words_of(step.ask) | words_of(wrong)
        scores = [
            (len(want & words_of(f"{t} {self.tools[t].get('description') or ''}")), -i, t)
            for i, t in enumerate(candidates)
        ]
        return max(scores)[2]

    def _switch(self, call: ToolCall, tool: str) -> ToolCall:
        self.aliases[call.tool] = tool
        self.target_tool = tool
        return ToolCall(tool, call.arguments)

    def _fixed_value(
        self,
        tool: str,
        parts: list[str],
        issue: dict[str, Any],
        props: dict[str, dict[str, Any]],
        removed: list[Any],
    ) -> Any:
        name = parts[-1]
        prop = props.get(parts[0], {}) if len(parts) == 1 else {}
        readings = issue.get("readings")
        if isinstance(readings, list) and readings:
            return readings[0]  # literal: the first reading named
        received = issue.get("received")
        if issue.get("code") == "missing_property" or received in (None, ""):
            if removed:
                return removed.pop(0)  # the model meant the property it misnamed
            if name in self.workflow.facts:
                return self._fact(name, tool, parts[0])
            return _KEEP
        expected = str(issue.get("expected") or "")
        if expected.startswith("one of:"):
            choices = [c.strip() for c in expected[len("one of:") :].split(",") if c.strip()]
            near = difflib.get_close_matches(str(received), choices, n=1, cutoff=0.0)
            return near[0] if near else (choices[0] if choices else _KEEP)
        if "YYYY-MM-DD" in expected and isinstance(received, str):
            guess = parse_date_guess(received)
            return guess if guess is not None else _DROP
        if received is not None:
            return coerce_guess(name, prop, received)
        return _KEEP

    def _guess(self, call: ToolCall, text: str) -> ToolCall | None:
        """No structure: guess from the words of the error and the schema, as a model would."""
        if call.tool not in self.tools:
            near = difflib.get_close_matches(call.tool, sorted(self.tools), n=3, cutoff=0.3)
            return self._switch(call, self._pick(call.tool, near)) if near else None
        props = properties_of(self.tools[call.tool])
        required = (self.tools[call.tool].get("inputSchema") or {}).get("required") or []
        args = dict(call.arguments)
        changed = False
        lowered = text.lower()
        strays = [k for k in args if props and k not in props]
        for name in required:
            if args.get(name) in (None, "") and name.lower() in lowered and strays:
                args[name] = args.pop(strays.pop(0))  # the model meant the property it misnamed
                changed = True
        for name in strays:
            del args[name]
            changed = True
        if changed:
            return ToolCall(call.tool, args)
        for name, value in call.arguments.items():
            mentioned = name.lower() in lowered or (
                isinstance(value, str) and value and value.lower() in lowered
            )
            if not mentioned:
                continue
            prop = props.get(name, {})
            fixed = coerce_guess(name, prop, value)
            if fixed == value and name not in required:
                del args[name]  # an optional value the server did not like: leave it out
                changed = True
            elif fixed != value:
                args[name] = fixed
                changed = True
        if changed:
            return ToolCall(call.tool, args)
        key = call.key()
        if key not in self.resent:
            self.resent.add(key)
            return call  # what models do with an error that says nothing: the same call again
        return None


def _arguments_of(repair: Any) -> dict[str, Any]:
    arguments = repair.get("arguments") if isinstance(repair, dict) else None
    return dict(arguments) if isinstance(arguments, dict) else {}


class _Marker:
    pass


_DROP: Any = _Marker()
_KEEP: Any = _Marker()
