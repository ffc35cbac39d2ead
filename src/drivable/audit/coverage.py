"""The coverage table: per checklist section, what the audit checked, what it found, and how many
rules need a reviewer's judgement instead.
"""

from __future__ import annotations

from drivable.audit.model import CoverageRow, Finding
from drivable.audit.probes import ProbeState
from drivable.audit.rules import StaticContext, all_rules


def coverage(
    findings: list[Finding],
    ctx: StaticContext,
    *,
    probed: bool,
    offline: bool,
    extra: dict[str, list[str]],
    state: ProbeState | None = None,
) -> list[CoverageRow]:
    rows = []
    by_section: dict[int, list[Finding]] = {}
    for f in findings:
        if f.section is not None:
            by_section.setdefault(f.section, []).append(f)
    tools = len(ctx.tools)
    checked = {
        1: "identity, display metadata" + ("" if offline else ", stdout discipline (stdio)"),
        2: "capability summary, catalog size in bytes and tokens, pagination, completion",
        3: f"names, descriptions, schemas, annotations, effects on {tools} tools",
        4: "triage metadata, summaries, URIs, templates",
        5: "when-to-use, follow-up names, completion",
        6: "error envelopes of probe rejections",
        7: "task declarations against the advertised extension, duration in descriptions "
        "(progress, cancellation and running tasks are not probed)",
        8: "cursor pagination, detail toggle, response_format, cache hints",
        9: "fingerprint, listChanged, lifecycle metadata"
        + ("" if offline else ", deterministic order"),
    }
    reviewer = {
        n: sum(1 for r in all_rules() if r.section == n and r.doc is None) for n in range(1, 10)
    }
    for section in range(1, 10):
        notes = list(ctx.notes.get(section, [])) + extra.get(str(section), [])
        if reviewer[section]:
            extra_note = (
                f"{reviewer[section]} rules need a reviewer's judgement "
                "(`drivable rules ID` gives the question)"
            )
        else:
            extra_note = ""
        found = by_section.get(section, [])
        if section == 6 and (offline or not probed):
            rows.append(
                CoverageRow(
                    6,
                    "not-checked",
                    "no live server (--from-file)" if offline else "probes disabled (--no-probes)",
                )
            )
            continue
        if section == 6 and state is not None:
            notes.append(
                f"{len(state.calls)} probe calls on {len(state.tools) - len(state.skipped)} tools"
            )
            if state.skipped:
                notes.append(f"{len(state.skipped)} tools not probed (mutating or over the limit)")
        if section in (4, 5) and not found:
            count = (
                len(ctx.surface.get("resources") or [])
                + len(ctx.surface.get("resource_templates") or [])
                if section == 4
                else len(ctx.surface.get("prompts") or [])
            )
            if not count:
                rows.append(
                    CoverageRow(
                        section, "ok", f"no {'resources' if section == 4 else 'prompts'} published"
                    )
                )
                continue
        if found:
            rules = sorted({f.rule for f in found})
            text = f"{len(found)} finding{'s' if len(found) > 1 else ''}: {', '.join(rules)}"
            rows.append(
                CoverageRow(section, "findings", "; ".join(filter(None, [text, extra_note])))
            )
        else:
            parts = [f"checked {checked[section]}", *notes, extra_note]
            rows.append(CoverageRow(section, "ok", "; ".join(filter(None, parts))))
    return rows
