"""What the wire has shown a persona, and so which spelling of the user's value it may send.

A model is shown the user's words (a fact as `Workflow.prompt` writes it: its `spelled` form when
it has one), the listing and the answers it received; never a fact's canonical `value`. A persona
sends a user's value as the user said it, and in the canonical form only once the wire has shown
that form or that value: the property is in the tool's `Example: {...}`, its schema carries a
format, pattern, enum, const or examples, a number goes to a property typed as one, or the value
itself stands in the prompt, the listing or an answer received.
Evidence: docs/decisions/0038-a-persona-sends-what-it-was-shown.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from drivable.eval.agents.guesses import example_of, properties_of, types_of
from drivable.eval.turns import Observation
from drivable.eval.workflow import Fact

# schema keywords that show how a property's value is written
_FORM_KEYWORDS = ("format", "pattern", "enum", "const", "examples")
_TYPE_OF = {bool: "boolean", int: "integer", float: "number"}


class Shown:
    """Everything one trial has shown the persona so far: the prompt, the listing, the answers."""

    def __init__(self, prompt: str, tools: Mapping[str, dict[str, Any]]) -> None:
        self.tools = tools
        listing = json.dumps(list(tools.values()), ensure_ascii=False)
        self._texts: list[str] = [prompt, listing]

    def relisted(self, tools: Mapping[str, dict[str, Any]]) -> None:
        self.tools = tools
        self._texts.append(json.dumps(list(tools.values()), ensure_ascii=False))

    def saw(self, obs: Observation) -> None:
        self._texts.append(obs.text)
        if obs.structured is not None:
            self._texts.append(json.dumps(obs.structured, ensure_ascii=False))

    def has(self, value: Any) -> bool:
        """The value, written as it is, stands on the wire (not inside a longer token)."""
        if not isinstance(value, str) or not value.strip():
            return False
        pattern = re.compile(rf"(?<![\w\-]){re.escape(value)}(?![\w\-])")
        return any(pattern.search(text) for text in self._texts)

    def form_of(self, tool: str | None, prop: str | None, value: Any) -> bool:
        """The listing shows how `prop` of `tool` is written, for a value like this one."""
        listed = self.tools.get(tool) if tool is not None else None
        if listed is None or prop is None:
            return False
        example = example_of(str(listed.get("description") or ""))
        if example is not None and prop in example:
            return True
        schema = properties_of(listed).get(prop, {})
        if any(k in schema for k in _FORM_KEYWORDS) or any(
            isinstance(alt, dict) and any(k in alt for k in _FORM_KEYWORDS)
            for alt in schema.get("anyOf") or schema.get("oneOf") or []
        ):
            return True
        kind = _TYPE_OF.get(type(value))
        return kind is not None and kind in types_of(schema)

    def written(self, fact: Fact, tool: str | None, prop: str | None) -> Any:
        """The fact as this persona sends it to `prop` of `tool`: the user's words, or the
        canonical value once the wire has shown its form or the value itself."""
        if fact.spelled is None:
            return fact.value
        if self.form_of(tool, prop, fact.value) or self.has(fact.value):
            return fact.value
        return fact.spelled
