"""Judging a rejection: the envelope a failure carries, where it travels, the field it names, the
repair it offers; and, over the whole run, what every envelope lacks.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import jsonschema

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.probes.call import UNKNOWN_PROPERTY, ProbeCall, answer_text, text_blocks
from drivable.audit.probes.envelope import envelope_of, mentions_field, named_fields
from drivable.audit.probes.state import ProbeState
from drivable.audit.safety import judge


def _as_failed_baseline(call: ProbeCall, state: ProbeState) -> bool:
    """The unknown-property probe got the failed baseline's answer word for word: the property
    was never looked at (a schema that forbids it is checked before the tool runs)."""
    baseline = next((c for c in state.calls if c.tool == call.tool and c.probe == "baseline"), None)
    if baseline is None or baseline.outcome != "error-result" or call.tool in state.mutated:
        return False
    return text_blocks(baseline) == text_blocks(call) and bool(text_blocks(call))


def _asks_about(field: str, envelope: dict[str, Any] | None) -> bool:
    """The envelope asks which day `field` meant: an issue at it that names its readings."""
    issues = (envelope or {}).get("issues")
    return isinstance(issues, list) and any(
        isinstance(i, dict) and i.get("path") == field and len(i.get("readings") or ()) >= 2
        for i in issues
    )


def check_envelope(call: ProbeCall, tool: dict[str, Any], state: ProbeState, subject: str) -> None:
    name = str(tool.get("name"))
    envelope, carrier = envelope_of(call)
    text = answer_text(call)
    if call.probe == "unknown-property":
        # Refused only if the rejection is about the unknown property; a rejection for another
        # reason (state a write changed, a bad baseline) shows nothing about the schema.
        named = mentions_field(UNKNOWN_PROPERTY, envelope, text)
        state.observe(
            name,
            "unknown-property",
            "refused"
            if named
            else "ignored"
            if _as_failed_baseline(call, state)
            else "inconclusive",
        )
    if call.probe == "ambiguous-date" and call.field and _asks_about(call.field, envelope):
        state.observe(name, f"date-read:{call.field}", "asked")
    _check_error_carrier(call, tool, state, subject)
    if not envelope or not isinstance(envelope.get("code"), str):
        prose = " ".join(text_blocks(call)).strip()
        state.add(
            "6.symbolic-codes",
            # Prose that says what went wrong lets a model recover; only a bare "error" stops it.
            "minor" if len(prose) >= 20 else "major",
            subject,
            f"Rejection of the `{call.probe}` probe is unstructured: no symbolic code in its "
            "text content.",
            call.evidence(),
            f"Answer every failure of `{name}` with `isError: true` and the envelope "
            '`{"code": ..., "message": ..., "hint": ..., "issues": [...]}` as JSON in the first '
            "text block (every client reads that; add `structuredContent` on errors only if it "
            "validates against the tool's outputSchema).",
        )
    # With every property a placeholder, naming any one of them is a fair first answer. A probe
    # built on a baseline the server already refused is not attributable: its field is not checked.
    derived = call.probe not in ("empty-call", "placeholders", "baseline")
    # After a write succeeded, the server's state changed: a later rejection may be about that
    # state ("already exists"), not about the field the probe varied.
    attributable = not (
        derived and (not state.baseline_ok.get(name, True) or name in state.mutated)
    )
    candidates = list(call.arguments) if call.probe == "placeholders" else [str(call.field)]
    # A megabyte refused as too large is refused whole: no one field is at fault.
    if (
        call.field
        and attributable
        and call.probe != "long-key"
        and not any(mentions_field(c, envelope, text) for c in candidates)
    ):
        state.add(
            "6.field-feedback",
            "major",
            subject,
            f"Rejection of the `{call.probe}` probe does not name the failing field `{call.field}`.",
            call.evidence(),
            f'Add `issues: [{{path: "{call.field}", code: ..., expected: ...}}]` to `{name}`\'s '
            "error envelope.",
        )
    if envelope is None:
        return
    if carrier != "text":
        state.add(
            "6.degraded-carrier",
            "minor",
            subject,
            f"The error envelope travels only in {carrier}; the text block a model and every "
            "client read does not hold it.",
            call.evidence(),
            f"Put the envelope JSON in the first text block of `{name}`'s error results.",
        )
    hint = envelope.get("hint")
    repair = envelope.get("repair")
    if not (isinstance(hint, str) and hint.strip()) and not isinstance(repair, dict):
        state.add(
            "6.repair-hints",
            "minor",
            subject,
            f"Rejection of the `{call.probe}` probe names no next step (no hint, no repair).",
            call.evidence(),
            f"Add `hint` naming the call to make next (e.g. `Call {name} with ...`) and a "
            "`repair` object when the fix is known.",
        )
    if repair is not None and not isinstance(repair, dict):
        state.add(
            "6.repair-callable",
            "minor",
            subject,
            "`repair` is not a single object.",
            call.evidence(),
            "Make `repair` one object `{next_step, tool, arguments}`, or omit it.",
        )
    if isinstance(repair, dict):
        target = repair.get("tool")
        if target is not None and target not in state.tools:
            state.add(
                "6.repair-callable",
                "major",
                subject,
                f"`repair.tool` names `{target}`, which is not a tool of this server.",
                call.evidence(),
                f"Name a real tool in `repair.tool` (one of {', '.join(sorted(state.tools)[:5])}).",
            )
        elif isinstance(target, str):
            args = repair.get("arguments")
            target_schema = h.input_schema(state.tools[target])
            try:
                jsonschema.validate(args if args is not None else {}, target_schema)
            except jsonschema.ValidationError as exc:
                state.add(
                    "6.repair-callable",
                    "major",
                    subject,
                    f"`repair.arguments` do not validate against `{target}`'s inputSchema: "
                    f"{exc.message[:160]}.",
                    call.evidence(schema=target_schema),
                    f"Give literal arguments that `{target}` accepts.",
                )
            except jsonschema.SchemaError:
                pass
            else:
                if state.first_repair is None and (
                    judge(
                        state.tools[target],
                        allow_writes=state.allow_writes,
                        allow_network=state.allow_network,
                    ).callable
                ):
                    state.first_repair = {"from": call, "tool": target, "arguments": args or {}}
    if "recoverable" in envelope:
        state.add(
            "6.no-recoverable",
            "minor",
            subject,
            "The envelope carries a `recoverable` flag.",
            call.evidence(),
            "Replace `recoverable` with `temporary` + `retry_after_ms` and a `repair`.",
        )
    if "temporary" not in envelope:
        state.envelope_gaps.setdefault("temporary", []).append(name)
    if "request_id" not in envelope:
        state.envelope_gaps.setdefault("request_id", []).append(name)
    nulls = [k for k, v in envelope.items() if k != "retry_after_ms" and v in (None, {}, "")]
    if nulls:
        state.envelope_gaps.setdefault("null optional fields", []).append(name)
    paths = named_fields(envelope)
    published = set(sch.properties(h.input_schema(tool))) | {UNKNOWN_PROPERTY, ""}
    stray = sorted(p for p in paths if p.split(".")[0] not in published and not p.isdigit())
    if stray:
        state.add(
            "6.details-field",
            "minor",
            subject,
            f"The error names fields the inputSchema does not have: {', '.join(stray[:3])}.",
            call.evidence(),
            "Name fields by their published inputSchema path.",
        )


def _check_error_carrier(
    call: ProbeCall, tool: dict[str, Any], state: ProbeState, subject: str
) -> None:
    """structuredContent on an error must validate against the outputSchema: TypeScript SDK 1.x
    clients validate it even when isError is true, and throw when it does not."""
    sc = (call.result or {}).get("structuredContent")
    out_schema = tool.get("outputSchema")
    if sc is None or not isinstance(out_schema, dict):
        return
    try:
        jsonschema.validate(sc, out_schema)
    except jsonschema.ValidationError as exc:
        state.add(
            "dv.error-shape",
            "major",
            subject,
            f"The error result of the `{call.probe}` probe carries structuredContent that breaks "
            f"the tool's outputSchema ({exc.message[:120]}): TypeScript SDK 1.x clients throw "
            "instead of showing the error.",
            call.evidence(schema=out_schema),
            f"Send `{call.tool}`'s errors with no structuredContent: the envelope as JSON in "
            "the first text block (drivable does this; FastMCP/Python SDK: raise ToolError or "
            "return CallToolResult(isError=True, content=[TextContent(...)]) without "
            "structured_content).",
        )
    except jsonschema.SchemaError:
        return


EXCLUSIVE_ANSWER = re.compile(
    r"\b(both|together|simultaneous(ly)?|mutually exclusive|only one of|at most one|exactly one|"
    r"cannot be (used|combined|specified|given)|not both|either|conflicts? with)\b",
    re.I,
)
SCHEMA_CHOICE = ("oneOf", "anyOf", "not", "allOf", "dependentRequired", "dependentSchemas")


def check_exclusive(
    call: ProbeCall,
    together: tuple[str, ...],
    tool: dict[str, Any],
    state: ProbeState,
    subject: str,
) -> None:
    """Optionals refused together, naming each other, while the schema allows them together."""
    schema = h.input_schema(tool)
    if any(k in schema for k in SCHEMA_CHOICE):
        return
    text = answer_text(call)
    named = [p for p in together if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text)]
    if len(named) < 2 or not EXCLUSIVE_ANSWER.search(text):
        return
    pair = " and ".join(f"`{p}`" for p in named[:3])
    state.add(
        "3.required-optional",
        "minor",
        subject,
        f"{pair} exclude each other, but only the server says so, when they are sent together: "
        "the schema accepts both.",
        call.evidence(schema=schema),
        f"Encode the choice in `{tool.get('name')}`'s schema (a `oneOf` whose branches each "
        "allow one of them, or `not: {required: [...]}`) and say it in the parameters' "
        "descriptions.",
        key=f"{subject}:exclusive",
    )


def summarise_gaps(state: ProbeState) -> None:
    gaps = state.envelope_gaps
    if gaps.get("temporary"):
        tools = sorted(set(gaps["temporary"]))
        state.add(
            "6.retryability",
            "minor",
            "server",
            f"Error envelopes of {len(tools)} tools do not say whether retrying helps.",
            {"tools": tools[:10]},
            "Add `temporary` (bool) and `retry_after_ms` (int or null) to every envelope.",
        )
    if gaps.get("request_id"):
        tools = sorted(set(gaps["request_id"]))
        state.add(
            "6.correlation",
            "minor",
            "server",
            f"Error envelopes of {len(tools)} tools carry no `request_id`.",
            {"tools": tools[:10]},
            "Add `request_id` to every error envelope.",
        )
    if gaps.get("null optional fields"):
        tools = sorted(set(gaps["null optional fields"]))
        state.add(
            "6.presence",
            "nit",
            "server",
            "Error envelopes carry null or empty optional fields.",
            {"tools": tools[:10]},
            "Omit optional envelope fields that have no value.",
        )


def compare_field_feedback(state: ProbeState) -> None:
    """A tool whose wrong-type rejection names no field, among tools whose rejections name
    theirs: the server knows how, this tool does not. Said in the finding."""
    named = sorted(n for n, seen in state.observed.items() if seen.get("wrong-type") == "named")
    if not named:
        return
    for i, f in enumerate(state.findings):
        probe = f.evidence.get("probe") if isinstance(f.evidence, dict) else None
        if f.rule == "6.field-feedback" and probe == "wrong-type":
            others = ", ".join(f"`{n}`" for n in named[:5])
            state.findings[i] = replace(
                f,
                summary=f"{f.summary} {len(named)} other tool(s) of this server name the field "
                f"they refuse ({others}): this one does not.",
                evidence={**f.evidence, "tools_naming_the_field": named},
            )
