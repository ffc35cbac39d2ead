"""The scorer's definitions, the workflow format, the statistics and the model-reply parser."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from drivable.eval.agents._chat import calls_before_cut, parse_tool_calls
from drivable.eval.agents.guesses import example_of, parse_date_guess, respell
from drivable.eval.report import rate, regressions, wilson, z_drop
from drivable.eval.scorer import Tracker, call_matches, same
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import CallSpec, bundled, bundled_sets, loads

WF = """
name: two-steps
goal: Find and read.
facts: {words: budget}
steps:
  - name: found
    ask: Search.
    done: {call: {tool: search, arguments: {query: budget}}}
  - name: read
    ask: Read.
    done: {tool: read}
"""
TOOLS = [{"name": "search"}, {"name": "read"}]


def obs(tool: str, args: dict[str, object], error: dict[str, object] | None = None) -> Observation:
    if error is None:
        return Observation(ToolCall(tool, args), False, {"ok": True}, '{"ok": true}')
    return Observation(ToolCall(tool, args), True, error, json.dumps(error))


ENV: dict[str, object] = {
    "code": "invalid_arguments",
    "message": "m",
    "hint": "Fix query and call search again.",
}


def test_first_call_and_first_repair() -> None:
    t = Tracker(loads(WF), TOOLS)
    t.observe(obs("search", {"query": "x"}))  # succeeds, wrong argument: not done
    t.observe(obs("search", {"q": "budget"}, ENV))  # the step's first error
    t.observe(obs("search", {"query": "budget"}))  # next call done: resolved in one hop
    t.observe(obs("read", {}))
    v = t.verdict()
    found, read = v["steps"]
    assert found["first_call"] is False and found["first_repair"] is True
    assert found["attempt"] == 3 and found["errors_naming_next_call"] == 1
    assert read["first_call"] is True and read["first_repair"] is None
    assert v["completed"] and v["tool_calls"] == 4


def test_identical_resend_is_a_resend_not_an_attempt_and_breaks_first_repair() -> None:
    t = Tracker(loads(WF), TOOLS)
    bad = obs("search", {"q": "budget"}, ENV)
    t.observe(bad)
    t.observe(bad)
    t.observe(obs("search", {"query": "budget"}))
    found = t.verdict()["steps"][0]
    assert found["resends"] == 1 and found["attempt"] == 2 and found["first_repair"] is False


def test_an_unrecovered_error_is_a_failed_repair() -> None:
    t = Tracker(loads(WF), TOOLS)
    t.observe(obs("search", {"q": 1}, {"code": "x", "message": "m", "hint": "nothing"}))
    v = t.verdict()
    assert v["steps"][0]["first_repair"] is False and v["steps"][0]["errors_naming_next_call"] == 0
    assert not v["completed"]


def test_a_normalizer_is_the_handlers_reading() -> None:
    t = Tracker(loads(WF), TOOLS, normalize=lambda tool, a: {"query": str(a["q"]).lower()})
    t.observe(obs("search", {"q": "BUDGET"}))
    assert t.verdict()["steps"][0]["first_call"] is True


def test_same_is_a_partial_pattern() -> None:
    assert same({"a": 1}, {"a": "1", "b": 2})
    assert not same({"a": 1}, {"b": 1})
    assert same([{"id": "x"}], [{"id": "x", "t": 1}])
    assert not same("2026-02-01", "2026-01-02")


def test_workflow_format_refuses_what_it_cannot_score() -> None:
    with pytest.raises(ValidationError):
        loads(WF.replace("done: {tool: read}", "done: {}"))
    with pytest.raises(ValidationError):
        loads(WF + "forced_errors: [{step: nope, error: {code: unavailable}}]\n")
    with pytest.raises(ValidationError):
        loads(WF + "surprise: 1\n")
    wf = loads(WF)
    assert "1. Search." in wf.prompt() and "- words: budget" in wf.prompt()


def test_bundled_sets_load_and_cover_the_fixture_types() -> None:
    assert "example" in bundled_sets()
    fixtures = {w.fixture for w in bundled("example")}
    assert {
        "cold-start",
        "wrong-tool",
        "invalid-argument",
        "pagination",
        "retry-after-timeout",
        "version-change",
        "auth-failure",
    } <= fixtures


def test_wilson_and_the_gate() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    lo, hi = wilson(10, 10)
    assert 0.72 < lo < 0.73 and hi == 1.0
    assert (
        z := z_drop({"k": 9, "n": 10}, {"k": 8, "n": 10})
    ) is not None and z > -1.645  # one trial: noise
    assert (z := z_drop({"k": 40, "n": 40}, {"k": 20, "n": 40})) is not None and z < -1.645

    def run(fc: tuple[int, int]) -> dict[str, object]:
        r = rate(*fc)
        return {"summary": {"overall": {"first_call": r, "first_repair": r}, "workflows": {}}}

    assert regressions(run((40, 40)), run((20, 40)))
    assert not regressions(run((20, 40)), run((40, 40)))
    assert not regressions(run((9, 10)), run((8, 10)))


def test_reply_parser_native_then_fenced_then_bare() -> None:
    native = '<tool_call>\n{"name": "search", "arguments": {"query": "a"}}\n</tool_call>'
    assert parse_tool_calls(native) == ([ToolCall("search", {"query": "a"})], "native")
    fenced = 'Sure:\n```json\n{"name": "read", "arguments": {"id": "1"}}\n```'
    assert parse_tool_calls(fenced) == ([ToolCall("read", {"id": "1"})], "fenced")
    bare = 'I will call {"name": "read", "parameters": {"id": "2"}} now.'
    assert parse_tool_calls(bare) == ([ToolCall("read", {"id": "2"})], "bare")
    assert parse_tool_calls("All done.") == ([], "none")
    # JSON lines: the whole plan, so the agent can pass over the part already done
    lines = '{"name": "find", "arguments": {"a": 1}}\n{"name": "refund", "arguments": {"b": 2}}'
    assert parse_tool_calls(lines) == (
        [ToolCall("find", {"a": 1}), ToolCall("refund", {"b": 2})],
        "bare",
    )


def test_persona_spelling_helpers() -> None:
    import random

    rng = random.Random(0)
    assert respell("limit", {"type": "integer"}, 4000, rng) == "4 000"
    assert respell("date_from", {"format": "date"}, "2026-10-01", rng) == "1. 10. 2026"
    assert respell("locale", {"type": "string"}, "cs-CZ", rng) == "cs_CZ"
    assert respell("flag", {"type": "boolean"}, True, rng) in ("ano", "yes")
    assert parse_date_guess("01/02/2026") == "2026-01-02"  # a guesser reads it the US way
    assert parse_date_guess("1. 10. 2026") == "2026-10-01"
    assert example_of('Find. Example: {"query": "budget"}.') == {"query": "budget"}


TWO_STEP = """
name: two-step
goal: Delete it.
steps:
  - name: deleted
    ask: Delete note_5.
    via:
      - {tool: delete, arguments: {note_id: note_5, dry_run: true}}
    done:
      call: {tool: delete, arguments: {note_id: note_5}}
      result_contains: '"status":"deleted"'
"""


def _result(tool: str, args: dict[str, object], data: dict[str, object]) -> Observation:
    # a naive server prints its JSON spaced, a drivable one compact: the scorer reads both
    return Observation(ToolCall(tool, args), False, data, json.dumps(data, indent=2))


@settings(deadline=None)  # the shared machine is loaded; nothing here is timed
@given(
    st.lists(st.sampled_from(["dry", "wrong"]), max_size=3),
    st.sampled_from([None, (",", ":"), (", ", ": ")]),
)
def test_the_prescribed_dry_run_is_the_path_not_a_failed_first_call(
    before: list[str], separators: tuple[str, str] | None
) -> None:
    t = Tracker(loads(TWO_STEP), [{"name": "delete"}])
    for kind in before:
        if kind == "dry":
            t.observe(
                _result("delete", {"note_id": "note_5", "dry_run": True}, {"status": "would"})
            )
        else:
            t.observe(_result("delete", {"note_id": "note_9"}, {"status": "deleted"}))
    done = {"status": "deleted"}
    text = json.dumps(done, separators=separators) if separators else json.dumps(done, indent=2)
    t.observe(Observation(ToolCall("delete", {"note_id": "note_5"}), False, None, text))
    step = t.verdict()["steps"][0]
    assert step["passed"] and step["via_calls"] == before.count("dry")
    # only a wrong call before the real one makes the first call wrong; dry runs never do
    assert step["first_call"] is ("wrong" not in before)
    assert step["attempt"] == 1 + len(set(k for k in before if k == "wrong"))


def test_a_state_check_can_ask_for_an_error() -> None:
    wf = loads(
        TWO_STEP
        + "state:\n  - call: {tool: delete, arguments: {note_id: note_5}}\n    error: true\n"
    )
    assert wf.state[0].error is True and wf.state[0].result_contains is None
    with pytest.raises(ValidationError):
        loads(TWO_STEP + "state:\n  - call: {tool: delete, arguments: {}}\n")


class _Capped:
    """An agent that makes one call and is then stopped by a limit (as the local agent is)."""

    name = "capped"

    def __init__(self, cap: str | None) -> None:
        from drivable.eval.turns import Usage

        self.cap, self.usage, self.sent = cap, Usage(), False

    async def begin(self, workflow: object, tools: object) -> None:
        return None

    def relisted(self, tools: object) -> None:
        return None

    async def act(self, last: object) -> object:
        from drivable.eval.turns import Finish

        if not self.sent:
            self.sent = True
            return ToolCall("search_notes", {"query": "budget"})
        return Finish("", cap=self.cap)


@pytest.mark.parametrize("cap", [None, "identical_resends", "turn_cap"])
async def test_a_cap_is_reported_as_a_cap_never_as_the_agents_finish(cap: str | None) -> None:
    from drivable.eval.solver import run_trial
    from tests.eval.evalkit import drivable_target

    wf = next(w for w in bundled("example") if w.name == "cold-start")
    result = await run_trial(drivable_target(), wf, _Capped(cap))  # type: ignore[arg-type]
    assert result.verdict["stopped_by"] == cap
    assert result.verdict["finished_by_agent"] is (cap is None)


call_lines = st.lists(
    st.builds(
        ToolCall,
        st.sampled_from(["list_notes", "get_note", "search_notes"]),
        st.dictionaries(
            st.sampled_from(["cursor", "name", "filter", "limit"]),
            st.recursive(
                st.none() | st.integers() | st.text(max_size=8),
                lambda inner: st.dictionaries(st.sampled_from(["name", "x"]), inner, max_size=2),
                max_leaves=4,
            ),
            max_size=3,
        ),
    ),
    min_size=1,
    max_size=4,
)


@given(calls=call_lines, cut=st.floats(0, 1))
def test_a_cut_reply_keeps_exactly_the_calls_it_finished(calls: list[ToolCall], cut: float) -> None:
    """Cut anywhere, a reply of one call per line yields the calls whose lines were finished,
    in order, and never a call made of a broken one's insides (its arguments may hold "name")."""
    lines = [json.dumps({"name": c.tool, "arguments": c.arguments}) for c in calls]
    text = "```json\n" + "\n".join(lines) + "\n```"
    at = int(len(text) * cut)
    cut_text = text[:at]
    got = calls_before_cut(cut_text)
    finished, start = 0, len("```json\n")
    for line in lines:  # a line counts as finished when its last character was written
        if start + len(line) <= at:
            finished += 1
        start += len(line) + 1
    assert [(c.tool, c.arguments) for c in got] == [(c.tool, c.arguments) for c in calls[:finished]]


@given(st.lists(st.integers(0, 4), min_size=1, max_size=8))
def test_completed_within_two_attempts_counts_trials_whose_every_step_took_at_most_two(
    wrong_first: list[int],
) -> None:
    """The issue's bar: a trial counts when every step passed on its first or second distinct
    payload. Each trial here sends `n` distinct wrong searches before the right one."""
    from drivable.eval.report import summarize

    trials = []
    for n in wrong_first:
        tracker = Tracker(loads(WF), TOOLS)
        for k in range(n):
            tracker.observe(obs("search", {"query": f"wrong {k}"}, ENV))
        tracker.observe(obs("search", {"query": "budget"}))
        tracker.observe(obs("read", {"id": "1"}))
        trials.append(
            {
                "workflow": "two-steps",
                "agent": "a",
                "fixture": "other",
                "tool_calls": n + 2,
                "tokens": 0,
                **tracker.verdict(),
            }
        )
    overall = summarize(trials)["overall"]
    assert overall["completed"]["k"] == len(wrong_first)
    assert overall["completed_within_two"]["k"] == sum(1 for n in wrong_first if n <= 1)
    assert overall["completed_within_two"]["n"] == len(wrong_first)


@given(calls=call_lines, cut=st.floats(0, 1))
def test_a_cut_plan_in_prose_keeps_the_calls_of_its_closed_blocks(
    calls: list[ToolCall], cut: float
) -> None:
    """A plan in prose, one fenced block per call, cut anywhere: the calls of the blocks closed
    before the cut, in order (seen: the whole search the step wanted, then a cut third block)."""
    blocks = [
        f"{i}. Call it:\n```json\n"
        + json.dumps({"name": c.tool, "arguments": c.arguments}, indent=2)
        + "\n```\n"
        for i, c in enumerate(calls, 1)
    ]
    text = "To do this, I'll follow these steps:\n\n" + "".join(blocks)
    at = int(len(text) * cut)
    got = calls_before_cut(text[:at])
    closed, end = 0, len("To do this, I'll follow these steps:\n\n")
    for block in blocks:  # a block counts as closed when its closing fence was written
        if end + len(block.rstrip("\n")) <= at:
            closed += 1
        end += len(block)
    assert [(c.tool, c.arguments) for c in got] == [(c.tool, c.arguments) for c in calls[:closed]]


@given(
    seed=st.integers(0, 10**6),
    workflows=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4, unique=True),
)
def test_each_completion_of_a_trial_samples_from_a_seed_of_its_own(
    seed: int, workflows: list[str]
) -> None:
    """llama.cpp restarts its random stream from the seed of each call: one seed for every call
    drew the same numbers in every turn of every workflow. The seed of a completion is fixed by
    the trial's seed, the workflow and its place in the trial, and differs for each of them."""
    from drivable.eval.agents.local import turn_seed

    places = [
        (w, turn, n) for w in workflows for turn in range(1, 4) for n in range(turn, turn + 2)
    ]
    seeds = [turn_seed(seed, w, turn, n) for w, turn, n in places]
    assert seeds == [turn_seed(seed, w, turn, n) for w, turn, n in places]  # reproducible
    assert len(set(seeds)) == len(seeds)  # and no two completions share a stream
    assert all(0 <= s < 2**31 for s in seeds)
    assert turn_seed(seed, workflows[0], 1, 1) != turn_seed(seed + 1, workflows[0], 1, 1)


PROPERTIES = {
    "find_invoices": ["state", "currency", "limit"],
    "get_invoice": ["invoice_id"],
    "search_notes": ["query", "limit"],
}


def arguments_of(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(
        st.sampled_from(PROPERTIES[tool]),
        st.one_of(
            st.sampled_from(["open", "EUR", "inv_30001", "náhrada škody"]), st.integers(1, 50)
        ),
    )


@st.composite
def advice(draw: st.DrawFn) -> tuple[str, list[ToolCall]]:
    """A reply written as advice, one step per tool, each with its object of arguments."""
    tools = draw(st.lists(st.sampled_from(sorted(PROPERTIES)), min_size=1, max_size=3))
    text, calls = "To do it, follow these steps:\n", []
    for number, tool in enumerate(tools, 1):
        arguments = draw(arguments_of(tool))
        body = json.dumps(arguments, ensure_ascii=False, indent=draw(st.sampled_from([None, 2])))
        block = f"```json\n{body}\n```" if draw(st.booleans()) else body
        text += f"{number}. Use the `{tool}` function with the following arguments:\n{block}\n"
        calls.append(ToolCall(tool, arguments))
    return text + "This returns what the user asked for.", calls


@given(reply=advice())
def test_a_reply_written_as_advice_is_the_calls_it_names(reply: tuple[str, list[ToolCall]]) -> None:
    """Seen from the 1.5B model at temperature 0.3, on both sides of a set: "To show the open USD
    invoices, you can use the `find_invoices` function with the following arguments:" and a fenced
    object of arguments, which the agent had read as a final answer."""
    text, calls = reply
    assert parse_tool_calls(text, PROPERTIES) == (calls, "named")
    assert parse_tool_calls(text) == ([], "none")  # no tools known: no call
    # a tool whose name only starts like one named is not named; an object with a key the tool
    # lacks is no call of it (a quoted result)
    renamed = {f"{name}_v2": props for name, props in PROPERTIES.items()}
    assert parse_tool_calls(text, renamed) == ([], "none")
    assert parse_tool_calls(
        'Call `get_invoice`; it returned {"invoice_id": "inv_1", "state": "paid"}.', PROPERTIES
    ) == ([], "none")


@given(
    value=st.integers(0, 10**7),
    unit=st.sampled_from(["", " minor units (19.90 EUR)", ", from the invoice's currency"]),
)
def test_a_note_credits_the_value_it_says_was_read_and_no_longer_one(value: int, unit: str) -> None:
    """A server's note says how it read a spelling ("amount_cents: Read '19.90 EUR' as 1990
    minor units (19.90 EUR)."): the value it names is credited, whatever follows it, and a value
    it only begins is not."""
    note = f"amount_cents: Read 'spelled' as {value}{unit}."
    call = ToolCall("refund_invoice", {"amount_cents": "spelled"})
    spec = CallSpec(tool="refund_invoice", arguments={"amount_cents": value})
    assert call_matches(spec, call, None, [note])
    longer = CallSpec(tool="refund_invoice", arguments={"amount_cents": value // 10})
    assert call_matches(longer, call, None, [note]) is (value < 10 and value // 10 == value)
