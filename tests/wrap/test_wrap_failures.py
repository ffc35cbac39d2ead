"""Upstream failure texts read into the envelope, over whole classes of messages."""

from __future__ import annotations

import json
import zoneinfo
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drivable.contract.validation import MAX_RECEIVED_CHARS
from drivable.kinds import read
from drivable.kinds._reading import jsonable
from drivable.kinds.timezone import _by_place
from drivable.wrap.failures import (
    MAX_NAME,
    MIN_QUOTED,
    RESPELL_STEP,
    Finder,
    finder_of,
    refusal,
    validation_issues,
)
from drivable.wrap.schema import stated_forms

FIELD = st.from_regex(r"[a-z][a-zA-Z]{0,9}", fullmatch=True)
PATHS = st.lists(FIELD | st.integers(0, 9), min_size=1, max_size=3)
MESSAGES = (
    st.text("abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=40).map(str.strip).filter(bool)
)
SECRET = st.from_regex(r"[a-z_]{4,12}\.py", fullmatch=True)


@given(st.lists(st.tuples(PATHS, MESSAGES), min_size=1, max_size=4))
def test_a_zod_issue_list_names_each_path(items: list[tuple[list[Any], str]]) -> None:
    issues = [{"code": "invalid_type", "path": p, "message": m} for p, m in items]
    text = f"MCP error -32602: Invalid arguments for tool x: {json.dumps(issues, indent=2)}"
    read = validation_issues(text)
    assert [i.path for i in read] == [".".join(str(x) for x in p) for p, _ in items]


@given(st.lists(st.tuples(PATHS, MESSAGES), min_size=1, max_size=4))
def test_a_pydantic_message_names_each_location(items: list[tuple[list[Any], str]]) -> None:
    body = "\n".join(
        f"{'.'.join(str(x) for x in p)}\n  {m} [type=value_error, input_value=1, input_type=int]"
        for p, m in items
    )
    text = f"{len(items)} validation errors for call[tool]\n{body}"
    read = validation_issues(text)
    assert [i.path for i in read] == [".".join(str(x) for x in p) for p, _ in items]
    assert refusal(text, tool="t", lookups=[]).code == "invalid_arguments"


@given(FIELD)
def test_a_jsonschema_required_message_names_the_property(name: str) -> None:
    text = f"'{name}' is a required property\n\nFailed validating 'required' in schema"
    assert [(i.path, i.code) for i in validation_issues(text)] == [(name, "missing_property")]


@given(MESSAGES, SECRET, st.sampled_from(["py", "js"]))
def test_a_trace_is_never_passed_on(words: str, module: str, language: str) -> None:
    trace = (
        f'Traceback (most recent call last):\n  File "/srv/{module}", line 3, in go\nKeyError: x'
        if language == "py"
        else f"Error: {words}\n    at handler (/srv/{module}:10:5)"
    )
    error = refusal(f"{words}\n{trace}", tool="t", lookups=[])
    said = f"{error.message} {error.hint} {[i.to_dict() for i in error.issues]}"
    assert error.code == "internal_error"
    assert module not in said and "Traceback" not in said


@given(
    st.dictionaries(FIELD, st.from_regex(r"[a-z0-9/._-]{2,12}", fullmatch=True), max_size=4),
    st.data(),
)
def test_an_issue_names_the_one_argument_a_refusal_quotes(
    sent: dict[str, str], data: st.DataObject
) -> None:
    quoted = data.draw(st.lists(st.sampled_from(sorted(sent)), unique=True)) if sent else []
    text = "Access denied: " + ", ".join(f"'{sent[k]}'" for k in quoted)
    error = refusal(text, tool="t", lookups=[], sent=sent)
    in_text = [k for k, v in sent.items() if v in text]
    if len(in_text) == 1:
        assert [(i.path, i.code) for i in error.issues] == [(in_text[0], "refused_value")]
    else:
        assert error.issues == ()


DIRS = st.lists(st.from_regex(r"[A-Za-z0-9_.-]{1,10}", fullmatch=True), min_size=1, max_size=4)


@given(MESSAGES, DIRS, st.from_regex(r"[a-z]{1,8}\.[a-z]{2,4}", fullmatch=True), st.booleans())
def test_where_the_server_keeps_its_files_is_never_passed_on(
    words: str, dirs: list[str], name: str, windows: bool
) -> None:
    where = ("C:\\" + "\\".join(dirs) + "\\" + name) if windows else "/" + "/".join([*dirs, name])
    error = refusal(f"{words}: open '{where}'", tool="read_file", lookups=[])
    said = f"{error.message} {error.hint} {[i.to_dict() for i in error.issues]}"
    assert where not in said and name in said  # the file the caller named, not its place
    assert all(f"/{d}/" not in said and f"\\{d}\\" not in said for d in dirs)


@given(
    st.dictionaries(
        FIELD,
        st.lists(st.from_regex(r"[a-z0-9/._-]{2,12}", fullmatch=True), min_size=1, max_size=3),
        min_size=1,
        max_size=3,
    ),
    st.data(),
)
def test_a_quoted_entry_of_a_list_is_named_at_its_index(
    sent: dict[str, list[str]], data: st.DataObject
) -> None:
    path = data.draw(st.sampled_from(sorted(sent)))
    at = data.draw(st.integers(0, len(sent[path]) - 1))
    text = f"fatal: pathspec '{sent[path][at]}' did not match any files"
    error = refusal(text, tool="git_add", lookups=["git_status"], sent=sent)
    assert error.code == "not_found" and "git_status" in error.hint
    quoted = [(p, v) for p, vs in sent.items() for i, v in enumerate(vs) if v in text]
    if len(quoted) == 1:
        assert [(i.path, i.received) for i in error.issues] == [(f"{path}.{at}", sent[path][at])]
    else:
        assert error.issues == ()


# a read-only tool's listed name and inputSchema: its verb, how many required properties, and
# the required one's type
VERBS = st.sampled_from(["search", "find", "query", "get", "open", "list", "read", "lookup"])
TYPES = st.sampled_from(["string", "integer", "array", "object"])
TOOLS = st.lists(
    st.tuples(VERBS, FIELD, st.lists(FIELD, min_size=0, max_size=2, unique=True), TYPES),
    max_size=5,
    unique_by=lambda t: (t[0], t[1]),
)


def _schema(required: list[str], kind: str) -> dict[str, Any]:
    properties = {name: {"type": kind} for name in required}
    return {"type": "object", "properties": properties, "required": required}


@given(TOOLS)
def test_the_search_is_the_one_search_verb_tool_taking_one_required_string(
    tools: list[tuple[str, str, list[str], str]],
) -> None:
    listed = [(f"{verb}_{noun}", _schema(req, kind)) for verb, noun, req, kind in tools]
    qualifies = [
        Finder(f"{verb}_{noun}", req[0])
        for verb, noun, req, kind in tools
        if verb in ("search", "find", "query") and len(req) == 1 and kind == "string"
    ]
    assert finder_of(listed) == (qualifies[0] if len(qualifies) == 1 else None)


NESTED = st.recursive(
    st.from_regex(r"[A-Z][a-z]{2,9}", fullmatch=True),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(FIELD, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)


def _leaves(value: Any, path: str, depth: int) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if depth == 0:
        return []
    items = enumerate(value) if isinstance(value, list) else value.items()
    return [leaf for key, item in items for leaf in _leaves(item, f"{path}.{key}", depth - 1)]


@given(st.dictionaries(FIELD, NESTED, min_size=1, max_size=3), st.data(), st.booleans())
def test_a_not_found_quoting_one_value_sent_repairs_to_the_search_for_it(
    sent: dict[str, Any], data: st.DataObject, searchable: bool
) -> None:
    # decision 0059: the value the message quotes (at any depth up to an item's field) is what
    # the caller meant to name; the server's search, sent that value as it was, is the repair
    leaves = [leaf for key, value in sent.items() for leaf in _leaves(value, key, 2)]
    assume(leaves)
    path, value = data.draw(st.sampled_from(leaves))
    finder = Finder("search_nodes", "query") if searchable else None
    error = refusal(
        f"Entity with name {value} not found",
        tool="add_observations",
        lookups=["open_nodes", "search_nodes"],
        sent=sent,
        finder=finder,
    )
    assert error.code == "not_found"
    quoted = [p for p, v in leaves if v in f"Entity with name {value} not found"]
    if len(quoted) == 1 and finder is not None:
        assert [(i.path, i.received) for i in error.issues] == [(path, value)]
        assert error.repair is not None
        assert (error.repair.tool, error.repair.arguments) == ("search_nodes", {"query": value})
        assert "search_nodes" in error.hint and json.dumps(value) in error.hint
    else:
        assert error.repair is None and "open_nodes" in error.hint


@given(st.integers(MIN_QUOTED, 3 * MAX_NAME), st.sampled_from("Zqé"))
def test_only_a_value_of_a_names_length_is_searched_for(length: int, letter: str) -> None:
    # decision 0059: a value longer than a name (an echoed payload) is no name to search for,
    # and the message is read in one pass however long the word it echoes
    value = letter * length
    error = refusal(
        f"Entity with name {value} not found",
        tool="add_observations",
        lookups=["search_nodes"],
        sent={"observations": [{"entityName": value, "contents": ["x"]}]},
        finder=Finder("search_nodes", "query"),
    )
    assert error.code == "not_found"
    assert (error.repair is not None) == (length <= MAX_NAME)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(MIN_QUOTED, 200_000),
    st.sampled_from(["Entity with name {} not found", "Cannot store {}: refused"]),
    st.booleans(),
)
def test_a_refused_value_is_echoed_short_however_long_it_was(
    length: int, message: str, searchable: bool
) -> None:
    # the issue quotes what was received as any refused value is quoted (at most
    # MAX_RECEIVED_CHARS); a 100 kB name came back whole, twice the size of the call; the
    # search repair still carries a name-length value unchanged (decision 0059)
    value = "q" * length
    error = refusal(
        message.format(value),
        tool="add_observations",
        lookups=["search_nodes"],
        sent={"observations": [{"entityName": value, "contents": ["x"]}]},
        finder=Finder("search_nodes", "query") if searchable else None,
    )
    [issue] = error.issues
    assert issue.path == "observations.0.entityName"
    assert len(issue.received) <= MAX_RECEIVED_CHARS
    assert issue.received == value or length > MAX_RECEIVED_CHARS
    said = json.dumps([error.message, error.hint, [i.to_dict() for i in error.issues]])
    assert len(said) < 2_000
    if error.repair is not None:
        assert error.repair.arguments == {"query": value}


FLAGS = st.from_regex(r"--[a-z]{3,8}", fullmatch=True)


@given(
    st.sampled_from(["git", "npm", "hg"]),
    st.lists(FLAGS, min_size=1, max_size=3, unique=True),
    MESSAGES,
    st.integers(1, 255),
    st.sampled_from(["gitpython", "node", "subprocess"]),
)
def test_a_failed_command_passes_on_what_it_said_never_its_command_line(
    program: str, flags: list[str], said: str, status: int, library: str
) -> None:
    """A server that ran a command and reports its failure in its process library's words: the
    envelope says what the command wrote on stderr, and nothing of the command line (its flags,
    its paths) reaches the caller."""
    cmdline = " ".join([program, *flags, "/srv/data/repo"])
    text = {
        "gitpython": (
            f"Cmd('{program}') failed due to: exit code({status})\n  cmdline: {cmdline}\n"
            f"  stderr: 'error: {said}'"
        ),
        "node": f"Command failed with exit code {status}: {cmdline}\nerror: {said}",
        "subprocess": f"Command '{cmdline.split()}' returned non-zero exit status {status}.",
    }[library]
    error = refusal(f"Error executing tool t: {text}", tool="t", lookups=[])
    shown = f"{error.message} {error.hint} {[i.to_dict() for i in error.issues]}"
    assert all(flag not in shown for flag in flags) and "/srv/data" not in shown
    if library == "subprocess":  # the command said nothing the message carries: only its status
        assert f"exit status {status}" in error.message
    else:
        assert " ".join(said.split()) in error.message


# A refused value whose form the schema states (decision 0068): the same value spelled so.
ZONES = sorted(zoneinfo.available_timezones())
CONVERT = {
    "type": "object",
    "properties": {
        "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
        "target_timezone": {"type": "string", "description": "Target IANA timezone name"},
        "note": {"type": "string", "description": "Free text"},
    },
}
FORMS = stated_forms(CONVERT)


def _spellings(zone: str) -> st.SearchStrategy[str]:
    """Spellings of `zone` a person writes: another case, spaces for underscores."""
    return st.sampled_from([zone.lower(), zone.upper(), zone.replace("_", " "), zone])


TIMES = st.builds(
    lambda h, m, form: {
        "am_pm": f"{(h % 12) or 12}:{m:02d} {'am' if h < 12 else 'pm'}",
        "dot": f"{h}.{m:02d}",
        "colon": f"{h}:{m:02d}",
        "hours": f"{h}h" if m == 0 else f"{h}:{m:02d}",
    }[form],
    st.integers(0, 23),
    st.integers(0, 59),
    st.sampled_from(["am_pm", "dot", "colon", "hours"]),
)


def test_a_zone_and_a_time_of_day_are_forms_a_schema_states() -> None:
    assert FORMS == {"source_timezone": "timezone", "time": "time", "target_timezone": "timezone"}


@settings(max_examples=300)
@given(
    st.sampled_from(["source_timezone", "target_timezone", "time"]),
    st.data(),
    st.sampled_from(["quoted", "named"]),
)
def test_a_refused_value_is_repaired_only_to_the_same_value_in_the_stated_form(
    at: str, data: st.DataObject, said: str
) -> None:
    """For every value of a property whose schema states a form (a zone, a time of day), refused
    upstream: the repair, if any, is the same tool with every argument as sent except values
    spelled in their stated form, each of which reads as the very value that was sent."""
    sent = {
        "source_timezone": data.draw(st.sampled_from(ZONES).flatmap(_spellings)),
        "time": data.draw(TIMES),
        "target_timezone": data.draw(st.sampled_from(ZONES).flatmap(_spellings)),
        "note": data.draw(MESSAGES),
    }
    text = {
        "quoted": f"Invalid value: '{sent[at]}'",
        "named": f"Invalid {at.replace('_', ' ')} format.",
    }[said]
    assume(said == "quoted" or sum(k.replace("_", " ") in text for k in sent) == 1)
    assume(sum(v in text for v in sent.values()) == (1 if said == "quoted" else 0))
    error = refusal(text, tool="convert_time", lookups=[], sent=sent, forms=FORMS)
    assert [i.path for i in error.issues] == [at]
    first = read(FORMS[at], sent[at])
    if error.repair is None:
        # no other spelling: the value is already canonical, or the kind asks or refuses
        assert first.outcome != "value" or str(jsonable(first.value)) == sent[at]
        return
    assert error.repair.tool == "convert_time" and error.repair.next_step == RESPELL_STEP
    repaired = dict(error.repair.arguments)
    assert repaired.keys() == sent.keys() and repaired["note"] == sent["note"]
    assert repaired[at] != sent[at]
    for path, value in repaired.items():
        if value != sent[path]:
            assert path in FORMS
            assert read(FORMS[path], value).value == read(FORMS[path], sent[path]).value


@given(st.text(min_size=1, max_size=30))
def test_a_value_its_form_does_not_read_as_one_value_gets_no_repair(value: str) -> None:
    """Whatever the caller wrote: a repair is only ever the value the kind reads, never a near
    miss (an unknown city, a time of no clock, an ambiguous place)."""
    sent = {"source_timezone": value, "time": "09:00", "target_timezone": "Asia/Tokyo"}
    error = refusal(
        f"No time zone found with key {value}",
        tool="convert_time",
        lookups=[],
        sent=sent,
        forms=FORMS,
    )
    reading = read("timezone", value)
    if reading.outcome != "value":
        assert error.repair is None
    elif error.repair is not None:
        assert read("timezone", error.repair.arguments["source_timezone"]).value == reading.value


@given(st.lists(FIELD, min_size=1, max_size=4, unique=True), st.data())
def test_a_message_naming_one_argument_names_it(names: list[str], data: st.DataObject) -> None:
    """A refusal that quotes no value sent names the one argument it says by name; naming none
    or several, it names none."""
    sent = {name: "x" * 12 for name in names}
    said = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=2))
    text = "Invalid " + " and ".join(said) + " given" if said else "Invalid input"
    error = refusal(text, tool="t", lookups=[], sent=sent)
    named = [n for n in names if f" {n.casefold()} " in f" {text.casefold()} "]
    assert [i.path for i in error.issues] == (named if len(named) == 1 else [])


def test_without_a_stated_form_a_refusal_names_the_property_to_fix() -> None:
    """No form stated, no repair: the refusal names the property to fix, as before."""
    sent = {"source_timezone": "tokyo", "time": "09:00", "target_timezone": "Asia/Tokyo"}
    error = refusal("No time zone found with key tokyo", tool="c", lookups=[], sent=sent)
    assert error.repair is None and error.hint.startswith("Fix source_timezone")


@given(
    MESSAGES,
    st.integers(-200, 200),
    st.sampled_from(["Errno", "WinError"]),
    st.sampled_from(["", "Invalid timezone: ", "Error executing tool t: "]),
)
def test_an_os_errors_number_is_never_passed_on(
    words: str, number: int, kind: str, before: str
) -> None:
    """An OSError printed by the server ("[Errno 36] File name too long") is exception text:
    its words reach the caller, its number does not."""
    error = refusal(f"{before}[{kind} {number}] {words}", tool="t", lookups=[])
    assert f"[{kind}" not in error.message and " ".join(words.split()) in error.message


# Places in several zones: what the timezone kind asks about.
_SEVERAL = sorted(name for name, zones in _by_place().items() if len(zones) > 1)


@settings(max_examples=200)
@given(
    st.sampled_from(["source_timezone", "time"]),
    st.one_of(st.sampled_from(_SEVERAL), st.text(min_size=1, max_size=30)),
)
def test_a_value_its_form_reads_several_ways_or_none_is_answered_with_what_the_form_says(
    at: str, value: str
) -> None:
    """For every value refused upstream at an argument whose schema states a form, which that
    form's kind does not read as one value: no repair; the hint names every reading when the
    kind reads several (the caller asks which was meant) and says the form when it reads none.
    The upstream's own words stay the message."""
    sent = {"source_timezone": "Asia/Tokyo", "time": "09:00", "target_timezone": "Asia/Tokyo"}
    sent[at] = value
    assume(sum(1 for v in sent.values() if v == value) == 1 and len(value.strip()) >= 2)
    text = f"Invalid value: '{value}'"
    error = refusal(text, tool="convert_time", lookups=[], sent=sent, forms=FORMS)
    reading = read(FORMS[at], value)
    assume([i.path for i in error.issues] == [at])
    if reading.outcome == "value":
        return
    assert error.repair is None
    for each in reading.readings:
        assert json.dumps(jsonable(each), ensure_ascii=False) in error.hint
    if not reading.readings:
        assert reading.hint.rstrip(".") in error.hint
    assert "convert_time" in error.hint
