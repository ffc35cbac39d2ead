"""A wrapped tool's effects over every combination of upstream hints, names and config."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.verbs import DESTRUCTIVE_VERBS, READ_VERBS
from drivable.wrap.config import PRESETS
from drivable.wrap.effects import effects_of

HINTS = st.fixed_dictionaries(
    {},
    optional={
        "readOnlyHint": st.booleans(),
        "destructiveHint": st.booleans(),
        "idempotentHint": st.booleans(),
        "openWorldHint": st.booleans(),
    },
)
VERB = st.sampled_from(sorted(DESTRUCTIVE_VERBS | READ_VERBS | {"create", "update", "frob"}))
NAMES = st.builds(
    lambda v, n, sep: f"{v}{sep}{n}",
    VERB,
    st.sampled_from(["note", "item"]),
    st.sampled_from(["_", "-"]),
)


@given(st.none() | HINTS, NAMES)
def test_effects_follow_the_hints_and_a_tool_without_them_is_a_write(
    hints: dict[str, Any] | None, name: str
) -> None:
    effects = effects_of(hints, None, name)
    given_hints = hints or {}
    assert effects.read_only is (given_hints.get("readOnlyHint") is True)
    if effects.read_only:
        assert not effects.destructive and effects.idempotent and effects.adds == ()
        return
    verb_destroys = name.replace("-", "_").split("_")[0] in DESTRUCTIVE_VERBS
    said = given_hints.get("destructiveHint")
    assert effects.destructive is (said is True or (said is None and verb_destroys))
    assert effects.idempotent is (given_hints.get("idempotentHint") is True)
    # a mutation a retry would repeat takes a key; a destructive one takes two steps
    assert ("idempotency_key" in effects.adds) is (not effects.idempotent)
    assert ({"dry_run", "confirm_token"} <= set(effects.adds)) is effects.destructive


@given(st.none() | HINTS, NAMES, st.sampled_from(sorted(PRESETS)))
def test_the_config_overrides_the_hints(
    hints: dict[str, Any] | None, name: str, preset: str
) -> None:
    effects = effects_of(hints, PRESETS[preset], name)
    chosen = PRESETS[preset]
    assert effects.read_only is chosen["read_only"]
    assert effects.destructive is chosen["destructive"]
    assert effects.idempotent is chosen["idempotent"]
