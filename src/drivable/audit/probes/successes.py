"""Judging a success: does an answer the server accepted keep what the tool advertised, and should
it have been a refusal (an error told as a success, a placeholder taken, a typo that found nothing)?
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.probes.call import UNKNOWN_PROPERTY, ProbeCall, answer_text, text_blocks
from drivable.audit.probes.envelope import error_text_of_success
from drivable.audit.probes.state import ProbeState


def check_error_as_success(call: ProbeCall, state: ProbeState, subject: str) -> bool:
    """An error the client was told is a success: a finding, and never a success later on."""
    text = error_text_of_success(call)
    if text is None:
        return False
    call.error_as_success = True
    state.add(
        "6.tool-errors",
        "major",
        subject,
        f"The `{call.probe}` probe got an error with `isError: false`: {text[:120]!r}.",
        call.evidence(),
        f"Return `isError: true` from `{call.tool}` when the call failed, with the error "
        "envelope as JSON in the first text block, so clients and models do not take it for a "
        "result.",
        key=f"{subject}:error-as-success",
    )
    return True


def _output_kind(call: ProbeCall) -> str:
    result = call.result or {}
    if result.get("structuredContent") is not None:
        return "structured"
    blocks = text_blocks(call)
    if not blocks:
        return "other"
    try:
        parsed = json.loads(blocks[0])
    except ValueError:
        return "prose"
    return "json" if isinstance(parsed, (dict, list)) else "prose"


def check_success(
    call: ProbeCall,
    tool: dict[str, Any],
    state: ProbeState,
    subject: str,
    baseline: ProbeCall | None,
) -> None:
    name = str(tool.get("name"))
    result = call.result or {}
    if call.probe == "baseline":
        state.observe(name, "output", _output_kind(call))
    out_schema = tool.get("outputSchema")
    if isinstance(out_schema, dict):
        sc = result.get("structuredContent")
        problem = None
        if sc is None:
            problem = "no structuredContent although an outputSchema is declared"
        else:
            try:
                jsonschema.validate(sc, out_schema)
            except jsonschema.ValidationError as exc:
                problem = f"structuredContent violates the outputSchema at `/{'/'.join(map(str, exc.absolute_path))}`: {exc.message[:200]}"
            except jsonschema.SchemaError as exc:
                problem = f"the outputSchema itself is invalid: {exc.message[:200]}"
        if problem:
            state.add(
                "3.output-schema",
                "major",
                subject,
                f"Success answer breaks the advertised output: {problem}.",
                call.evidence(schema=out_schema),
                f"Make `{name}` return structuredContent that validates against its outputSchema "
                "(or fix the schema).",
            )
    schema = h.input_schema(tool)
    if call.probe == "unknown-property":
        state.observe(name, "unknown-property", "accepted")
    if call.probe == "unknown-property" and sch.is_closed(schema):
        state.add(
            "3.closed-schemas",
            "major",
            subject,
            f"Schema says `additionalProperties: false`, yet `{UNKNOWN_PROPERTY}` was accepted.",
            call.evidence(),
            f"Reject unknown properties in `{name}` with the field named "
            f'(`issues: [{{path: "{UNKNOWN_PROPERTY}", code: "unknown_property"}}]`).',
        )
    if call.probe == "placeholders" and call.field:
        sc_text = json.dumps(result.get("structuredContent"), default=str)
        if call.field not in sc_text:
            state.add(
                "3.strict-types",
                "major",
                subject,
                f"Enum `{call.field}` accepted the placeholder "
                f"{json.dumps(call.arguments.get(call.field))} silently.",
                call.evidence(schema=sch.properties(schema).get(call.field)),
                f"Enforce the advertised enum of `{call.field}` in `{name}`: reject other values "
                f"with the field named and the allowed values in `expected`.",
            )
    if call.probe == "ambiguous-date":
        sc_text = json.dumps(result.get("structuredContent"), default=str).lower()
        noted = (
            call.field
            and call.field.lower() in sc_text
            and ("note" in sc_text or "warning" in sc_text or "ambig" in sc_text)
        )
        if not noted:
            state.add(
                "dv.ambiguous-date",
                "major",
                subject,
                f'`{call.field}: "01/02/2026"` was accepted with no note of how it was read.',
                call.evidence(),
                f"Ask on ambiguous dates in `{name}`: return `ambiguous_date` naming `{call.field}` "
                'with `readings: ["2026-01-02", "2026-02-01"]`, or a note saying which was read.',
            )
    if call.probe in ("invented-cursor", "damaged-cursor") and not read_as_no_cursor(call, result):
        state.add(
            "dv.cursor-validation",
            "minor",
            subject,
            f"An {call.probe.replace('-', ' ')} for `{call.field}` was accepted as if valid.",
            call.evidence(),
            f"Reject unknown cursors in `{name}` with `invalid_cursor` naming `{call.field}` and "
            f"a repair that calls `{name}` again without it.",
        )


def read_as_no_cursor(call: ProbeCall, result: dict[str, Any]) -> bool:
    """An invented cursor outside the token class may read as no cursor, if the answer says so.

    The conventions (seed 000, rule 13) read a value the server could never have issued ("0",
    "start", a made-up word) as "no cursor" with a note; only a damaged real token must be refused.
    """
    if call.probe != "invented-cursor" or not call.field:
        return False
    structured = result.get("structuredContent")
    notes = structured.get("notes") if isinstance(structured, dict) else None
    return isinstance(notes, list) and any(isinstance(n, str) and call.field in n for n in notes)


NO_RESULTS = re.compile(
    r"^\s*(no (results?|matches|\w+ (were )?found)|nothing (was )?found|0 results)\b", re.I
)
COUNT_KEYS = frozenset({"total", "count", "total_count", "hits", "matches"})


def empty_answer(call: ProbeCall) -> bool:
    """A success that found nothing: every list in it empty (and any count 0), `[]`, or prose
    that says no results."""
    data = (call.result or {}).get("structuredContent")
    if data is None:
        blocks = text_blocks(call)
        try:
            data = json.loads(blocks[0]) if blocks else None
        except ValueError:
            text = " ".join(blocks).strip()
            return text in ("", "[]") or bool(NO_RESULTS.match(text))
    if isinstance(data, list):
        return not data
    if not isinstance(data, dict):
        return False
    lists = [v for v in data.values() if isinstance(v, list)]
    counts = [v for k, v in data.items() if k in COUNT_KEYS and isinstance(v, int)]
    return bool(lists) and not any(lists) and not any(counts)


def check_typo(
    control: ProbeCall | None,
    typo: ProbeCall,
    tool: dict[str, Any],
    state: ProbeState,
    subject: str,
) -> None:
    """A value the description lists found something; the same with a typo found nothing and
    said nothing about it: a model reports "none" where it misspelled."""
    name = str(tool.get("name"))
    if not typo.succeeded:
        state.observe(name, "typo", "refused")
        return
    if control is None or not control.succeeded or empty_answer(control):
        state.observe(name, "typo", "inconclusive")  # the listed value finds nothing either
        return
    sent = typo.arguments.get(str(typo.field))
    spelled = sent[0] if isinstance(sent, list) and sent else sent
    text = answer_text(typo)
    told = str(spelled) in text or (typo.field is not None and typo.field in text)
    if not empty_answer(typo) or told:
        state.observe(name, "typo", "told")
        return
    state.observe(name, "typo", "silent")
    state.add(
        "3.strict-types",
        "major",
        subject,
        f"`{typo.field}` took the typo {json.dumps(sent)} (for {typo.listed!r}, a value its "
        "description lists) and found nothing, saying nothing: the model reports no results "
        "where it misspelled.",
        {"listed_value": control.evidence(), **typo.evidence()},
        f"Make `{typo.field}`"
        + (" an array whose `items` are" if isinstance(sent, list) else "")
        + " an `enum` of the listed values, and refuse any other value with an issue naming "
        f"`{typo.field}` and the allowed values.",
        key=f"{subject}:typo",
    )


def check_keys(
    calls: list[ProbeCall], tool: dict[str, Any], state: ProbeState, subject: str
) -> None:
    """The placeholder word and the megabyte sent as idempotency keys: each must be refused."""
    name = str(tool.get("name"))
    taken = [c for c in calls if c.succeeded]
    state.observe(name, "keys", "accepted" if taken else "refused")
    if not taken:
        return
    field = str(taken[0].field)
    what = {
        "placeholder-key": 'the word "uuid" (copied from "a key, e.g. a uuid")',
        "long-key": "a 1,000,000-character string",
    }
    state.add(
        "3.idempotency-key",
        "major",
        subject,
        f"`{name}` took {' and '.join(what[c.probe] for c in taken)} as `{field}`: every model "
        "that copies the word shares one key, and nothing bounds what a key costs to store.",
        {"probes": [c.evidence() for c in taken]},
        f"Refuse placeholder words (`uuid`, `key`, `string`) and keys over a bound (128 "
        f"characters is plenty for a UUID) with an issue naming `{field}`; advertise the bound "
        "(`minLength: 8`, `maxLength: 128`).",
        key=f"{subject}:key-bounds",
    )
