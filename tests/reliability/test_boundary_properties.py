"""Properties of the value boundary over any JSON-like value: it never raises, and whatever it
lets through can be encoded by every backend (UTF-8, no NUL, 64-bit integers, bounded nesting);
whatever it refuses is an envelope that itself encodes. The fast path never passes what the
walk would refuse."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract import boundary

TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(["\x00", "\ud800", "\udfff", "\U0001f4a9", "é", "\\", '"']),
    ),
    max_size=12,
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=20,
)
ARGUMENTS = st.dictionaries(TEXT, VALUES, max_size=4)


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, dict):
            stack += [(v, level + 1) for v in node.values()]
        elif isinstance(node, list):
            stack += [(v, level + 1) for v in node]
    return deepest


def _scalars(value: Any) -> list[Any]:
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out += list(node)
            stack += list(node.values())
        elif isinstance(node, list):
            stack += node
        else:
            out.append(node)
    return out


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


@settings(max_examples=400, deadline=None)
@given(ARGUMENTS, st.integers(min_value=0, max_value=60))
def test_what_passes_every_backend_can_keep(arguments: dict[str, Any], extra: int) -> None:
    arguments = {**arguments, "deep": _nested(extra, "x")} if extra else arguments
    refused = boundary.refusal("tool", arguments, 4096)
    if refused is None:
        text = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        assert "\x00" not in text
        assert len(text.encode("utf-8")) <= 4096 * 2  # counted, never skipped
        assert _depth(arguments) <= boundary.MAX_DEPTH + 1
        for leaf in _scalars(arguments):
            if isinstance(leaf, int) and not isinstance(leaf, bool):
                assert boundary.INT_MIN <= leaf <= boundary.INT_MAX
            if isinstance(leaf, float):
                assert math.isfinite(leaf)
    else:
        json.dumps(refused.to_dict(), ensure_ascii=False).encode("utf-8")
        assert refused.code in ("invalid_arguments", "payload_too_large")
        if refused.code == "invalid_arguments":
            assert refused.issues and all(i.path for i in refused.issues)


@settings(max_examples=400, deadline=None)
@given(ARGUMENTS)
def test_the_fast_path_never_passes_what_the_walk_refuses(arguments: dict[str, Any]) -> None:
    if boundary._clean_fast(arguments, 4096):
        walk = boundary._Walk(4096)
        boundary._walk(walk, arguments)
        assert not walk.issues and walk.deep is None and walk.size <= 4096 + 64


def test_depth_beyond_any_recursion_limit_is_refused_without_recursing() -> None:
    refused = boundary.refusal("tool", {"x": _nested(200_000, "x")}, 1 << 30)
    assert refused is not None and refused.issues[0].code == "nesting_too_deep"


@given(st.text(max_size=50))
def test_safe_text_always_encodes(text: str) -> None:
    boundary.safe_text(text + "\ud800\x00").encode("utf-8")
