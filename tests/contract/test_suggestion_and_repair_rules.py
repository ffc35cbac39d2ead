"""Two rules of the next steps a refusal names (docs/runtime.md, "Next steps keep the caller's
intent"), over generated near misses of a booking server's property and tool names:

- a suggestion is the same name spelled another way (`tests.spelling_oracle`), never another name
  close in characters ("court" is not "country", "search_nodes" not search_notes);
- a repair keeps every argument the caller sent, under its own name or the one it was renamed to,
  except those the refusal names with a true reason (no declared property means it, or its cursor
  was refused): "seats" on a tool with min_seats and max_seats is never dropped.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract.stages.resolve import NAMESPACE_WORDS, VERB_SYNONYMS
from tests.contract.booking_server import contract
from tests.spelling_oracle import counterparts, same_value, words_of

TOOLS = sorted(contract.tools)
DECLARED = {name: sorted(spec.input_model.model_fields) for name, spec in contract.tools.items()}
# A value each property takes, so a repair that renames onto it can validate.
VALUES: dict[str, Any] = {
    "query": "room",
    "day": "2026-03-02",
    "min_seats": 4,
    "max_seats": 12,
    "country": "CZ",
    "slot": "09:30",
    "date_from": "2026-03-01",
    "date_to": "2026-03-31",
    "limit": 3,
    "room_id": "room_3",
    "seats": 4,
    "note": "by the window",
}
OTHER_WORDS = ["court", "country", "color", "seat", "room", "name", "date", "from", "price", "max"]


def _respelled(name: str, way: int) -> str:
    parts = name.split("_")
    return [
        name.upper(),
        "".join([parts[0], *(p.capitalize() for p in parts[1:])]),
        name.replace("_", "-"),
        name.replace("_", " "),
        "_".join(reversed(parts)),
        name + "s" if not name.endswith("s") else name[:-1],
        parts[-1],
    ][way % 7]


def _near(name: str, data: st.DataObject) -> str:
    at = data.draw(st.integers(0, len(name) - 1))
    letters = data.draw(st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=3))
    return data.draw(
        st.sampled_from(
            [
                name[:at] + letters + name[at:],
                name[: max(1, at)],
                name[:at] + name[at + 1 : at + 2] + name[at : at + 1] + name[at + 2 :],
                f"{name}_{data.draw(st.sampled_from(OTHER_WORDS))}",
                data.draw(st.sampled_from(OTHER_WORDS)),
            ]
        )
    )


def unknown_name(tool: str, data: st.DataObject) -> str:
    source = data.draw(st.sampled_from(DECLARED[tool]))
    if data.draw(st.booleans()):
        name = _respelled(source, data.draw(st.integers(0, 6)))
    else:
        name = _near(source, data)
    return name


def _quoted_names(message: str) -> list[str]:
    return re.findall(r"'([^']+)'", message.split(" Allowed:")[0])


settings_ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@settings_
@given(tool=st.sampled_from(["find_rooms", "schedule_room"]), data=st.data())
async def test_every_property_suggestion_is_the_same_name_spelled_another_way(
    tool: str, data: st.DataObject
) -> None:
    name = unknown_name(tool, data)
    if name in DECLARED[tool] or not name.strip():
        return
    sent = {"room_id": "room_3", "seats": 2} if tool == "schedule_room" else {}
    sent = {k: v for k, v in sent.items() if k != name} | {
        name: data.draw(st.sampled_from([4, "x"]))
    }
    env = (await contract.call(tool, sent)).structured
    issue = next(i for i in env["issues"] if i["path"] == name)
    assert issue["code"] == "unknown_property"
    said = [n for n in _quoted_names(issue["message"]) if n in DECLARED[tool]]
    meant = counterparts(name, DECLARED[tool])
    assert set(said) <= set(meant), (name, issue["message"])
    repair = env.get("repair")
    if repair is not None and repair["tool"] == tool:
        for key in set(repair["arguments"]) - set(sent):
            assert key in meant, (name, key)


def _tool_meant(sent: str, tool: str) -> bool:
    """The oracle for tool names: the same name spelled another way, once a host's namespace
    before it is gone, or with its verb read through the declared synonyms."""
    words = [min(w) for w in words_of(sent)]
    bodies = [sent]
    for at in range(1, len(words)):
        if not set(words[:at]) <= NAMESPACE_WORDS | {"booking"}:
            break
        bodies.append("_".join(words[at:]))
    for body in bodies:
        if same_value(body, tool):
            return True
        head, _, rest = body.partition("_")
        # the declared synonyms, both ways ("find" may mean list, so "list" may mean find)
        verbs = set(VERB_SYNONYMS.get(head.lower(), ()))
        verbs |= {k for k, meant in VERB_SYNONYMS.items() if head.lower() in meant}
        if any(same_value(f"{verb}_{rest}", tool) for verb in verbs):
            return True
    return False


@settings_
@given(data=st.data())
async def test_every_tool_suggestion_is_the_same_name_spelled_another_way(
    data: st.DataObject,
) -> None:
    tool = data.draw(st.sampled_from(TOOLS))
    name = data.draw(
        st.sampled_from(
            [
                _respelled(tool, data.draw(st.integers(0, 5))),
                _near(tool, data),
                f"mcp__booking__{tool}",
                tool.replace(tool.split("_")[0], data.draw(st.sampled_from(sorted(VERB_SYNONYMS)))),
                "search_nodes",
            ]
        )
    )
    if name in contract.tools:
        return
    env = (await contract.call(name, {})).structured
    assert env["code"] == "unknown_tool"
    # the list of every tool names none of them in particular; what comes before it does
    before = re.split(r"Tools:|Call one of:", env["hint"])[0]
    named = [t for t in TOOLS if re.search(rf"\b{t}\b", before)]
    repair = env.get("repair")
    if repair is not None:
        named.append(repair["tool"])
    for suggested in named:
        if f"{suggested}'s description says it does that" in env["hint"]:
            # decision 0037: its own name and first sentence hold every word of the name sent
            said = contract.tools[suggested].description.split(". ")[0]
            target = words_of(f"{suggested} {said}")
            sent = words_of(name)
            while len(sent) > 1 and min(sent[0]) in NAMESPACE_WORDS | {"booking"}:
                sent.pop(0)
            assert all(any(w & t for t in target) for w in sent), env["hint"]
            continue
        assert _tool_meant(name, suggested), (name, suggested, env["hint"])


def _arguments(tool: str, data: st.DataObject) -> dict[str, Any]:
    keep = data.draw(st.lists(st.sampled_from(DECLARED[tool]), max_size=3, unique=True))
    sent = {k: VALUES[k] for k in keep if k in VALUES}
    if tool == "schedule_room":
        sent = {"room_id": "room_3", "seats": 2} | sent
    for _ in range(data.draw(st.integers(1, 2))):
        source = data.draw(st.sampled_from(DECLARED[tool]))
        if source == "cursor":
            continue
        name = (
            _respelled(source, data.draw(st.integers(0, 6)))
            if data.draw(st.booleans())
            else _near(source, data)
        )
        if name not in DECLARED[tool] and name.strip():
            sent[name] = VALUES.get(source, "x")
    if tool == "find_rooms" and data.draw(st.booleans()):
        sent["cursor"] = data.draw(st.sampled_from(["2", "page2", "next", "0", "start"]))
    return sent


@settings_
@given(tool=st.sampled_from(["find_rooms", "schedule_room"]), data=st.data())
async def test_a_repair_keeps_every_argument_the_caller_sent(
    tool: str, data: st.DataObject
) -> None:
    sent = _arguments(tool, data)
    out = await contract.call(tool, sent)
    if not out.is_error:
        return
    env = out.structured
    repair = env.get("repair")
    if repair is None or repair["tool"] != tool:
        return
    contract.validate(tool, repair["arguments"])  # literally callable
    renamed = {k: v for k, v in repair["arguments"].items() if k not in sent}
    issues = {i["path"]: i for i in env["issues"]}
    for key, value in sent.items():
        if repair["arguments"].get(key, object()) == value or _same_read(key, value, repair):
            continue
        if any(v == value and k in counterparts(key, DECLARED[tool]) for k, v in renamed.items()):
            continue
        if key == "cursor" and env["code"] in ("invalid_cursor", "cursor_expired"):
            continue  # the refusal is about it: the same query from its first page
        issue = issues.get(key)
        assert issue is not None and issue["code"] in ("unknown_property", "invalid_cursor"), (
            f"{key!r} left out of the repair with no issue naming it: {env}"
        )
        if issue["code"] == "unknown_property":
            # the reason stated must be true: no declared property means it
            assert not counterparts(key, DECLARED[tool]), (key, env)
            assert key in env["hint"], env


def _same_read(key: str, value: Any, repair: dict[str, Any]) -> bool:
    """The same value respelled by its kind (a date written another way)."""
    got = repair["arguments"].get(key)
    if isinstance(value, str) and isinstance(got, str):
        try:
            return datetime.date.fromisoformat(got) == datetime.date.fromisoformat(value)
        except ValueError:
            return False
    return False


async def test_the_reported_cases() -> None:
    court = (await contract.call("find_rooms", {"court": "Prague"})).structured
    assert "country" not in court["issues"][0]["message"].split(" Allowed:")[0]
    assert "country" not in court.get("repair", {}).get("arguments", {})
    seats = (await contract.call("find_rooms", {"seats": 4, "day": "2026-03-02"})).structured
    assert "repair" not in seats  # min_seats or max_seats: the caller chooses, nothing dropped
    assert "'max_seats', 'min_seats'" in seats["issues"][0]["message"]
    only = (await contract.call("schedule_room", {"room_id": "room_1", "Seats": 3})).structured
    assert only["repair"]["arguments"] == {"room_id": "room_1", "seats": 3}
    order = (await contract.call("find_rooms", {"from_date": "2026-03-01"})).structured
    assert order["repair"]["arguments"] == {"date_from": "2026-03-01"}
