"""The Markdown of a CI run: the verdict, findings by severity, the eval's completion per workflow,
then the audit's own Markdown report folded under a `<details>`.

One text serves the job summary and the pull-request comment; a hidden marker names the server, so
a later run finds its own comment and updates it. A text over the place's limit (65,536 characters
for a comment, 1 MiB for a job summary) is cut at a heading of the audit report, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from drivable.audit.model import SEVERITIES
from drivable.ci.verdict import NEVER, Verdict, percent

COMMENT_LIMIT = 65_536
SUMMARY_LIMIT = 1_048_576
HEADING = re.compile(r"^(#{1,4}) ", re.MULTILINE)


def marker(key: str) -> str:
    """The hidden line that finds this server's comment again (nothing in it can end the comment)."""
    return f"<!-- drivable-ci: {re.sub(r'[^A-Za-z0-9._/:@-]+', '-', key)} -->"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _verdict_line(verdict: Verdict) -> str:
    if verdict.reasons:
        text = "**Gate failed**: " + "; ".join(verdict.reasons) + "."
    elif verdict.fail_on == NEVER:
        text = "**Gate passed**: findings are reported, never gated (fail-on: none)."
    else:
        text = f"**Gate passed**: no finding at or above {verdict.fail_on}."
    if verdict.completed is not None:
        k, n = verdict.completed
        floor = verdict.min_completion
        threshold = f", threshold {percent(floor)}" if floor is not None else ""
        text += f" Eval: {k} of {n} trials completed ({percent(verdict.completion)}{threshold})."
    return text


def _severity_table(verdict: Verdict) -> list[str]:
    counts = verdict.counts()
    return [
        "| " + " | ".join(SEVERITIES) + " |",
        "|" + "---:|" * len(SEVERITIES),
        "| " + " | ".join(str(counts[s]) for s in SEVERITIES) + " |",
    ]


def _eval_section(run: Mapping[str, Any]) -> list[str]:
    summary = run["summary"]
    done = summary["overall"]["completed"]
    lines = [
        f"### Eval ({run.get('agent')}, {run.get('trials_per_workflow')} trials per workflow and "
        f"persona)",
        "",
        f"Completed {done['k']} of {done['n']} trials ({percent(done['rate'])}).",
        "",
        "| workflow | split | completed | every trial | tool calls per completed task |",
        "|---|---|---:|:---:|---:|",
    ]
    for name, wf in summary["workflows"].items():
        if "completed" not in wf:
            lines.append(f"| {_cell(name)} | {wf.get('split') or ''} | skipped | | |")
            continue
        rate = wf["completed"]
        lines.append(
            f"| {_cell(name)} | {wf.get('split') or ''} | {rate['k']}/{rate['n']} "
            f"({percent(rate['rate'])}) | {'yes' if wf.get('pass_k') else 'no'} | "
            f"{wf.get('tool_calls_per_completed') if wf.get('tool_calls_per_completed') is not None else ''} |"
        )
    return lines


def _demoted(markdown: str) -> str:
    """The audit report's headings two levels down, under this summary's own."""
    return HEADING.sub(lambda m: "#" * min(len(m.group(1)) + 2, 6) + " ", markdown.strip())


def _fit(details: str, budget: int) -> str:
    """`details` cut at its last heading that fits `budget` bytes, saying how much was left out."""
    if len(details.encode()) <= budget:
        return details
    cuts = [
        m.start()
        for m in HEADING.finditer(details)
        if len(details[: m.start()].encode()) < budget - 200
    ]
    kept = details[: cuts[-1]] if cuts else ""
    left = len(HEADING.findall(details[len(kept) :]))
    return kept + (
        f"\n\n*… {left} more sections left out to stay under this page's size limit; the report "
        "files written by the run hold all of it.*"
    )


def render(
    verdict: Verdict,
    *,
    name: str,
    audit_markdown: str,
    links: Mapping[str, str] | None = None,
    limit: int = SUMMARY_LIMIT,
) -> str:
    head = [
        marker(name),
        f"## drivable: {name}",
        "",
        _verdict_line(verdict),
        "",
        f"### Audit: {len(verdict.findings)} findings",
        "",
        *_severity_table(verdict),
    ]
    if verdict.run is not None:
        head += ["", *_eval_section(verdict.run)]
    foot = [""]
    if links:
        foot += [" · ".join(f"[{label}]({url})" for label, url in links.items()), ""]
    opening = "\n".join([*head, "", "<details><summary>The audit report</summary>", "", ""])
    closing = "\n".join(["", "", "</details>", *foot])
    budget = limit - len(opening.encode()) - len(closing.encode())
    return opening + _fit(_demoted(audit_markdown), budget) + closing
