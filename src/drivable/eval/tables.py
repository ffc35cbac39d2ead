"""A run read by a person: its tables on the console, and the before/after Markdown a PR wants."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _pct(r: dict[str, Any] | None) -> str:
    if not r or not r.get("n"):
        return "–"
    lo, hi = r["ci95"]
    return f"{r['rate'] * 100:.0f}% [{lo * 100:.0f}–{hi * 100:.0f}]"


def _yes(flag: Any) -> str:
    return "–" if flag is None else ("yes" if flag else "no")


# the rates a split is reported with, in the tables and the side by side's Markdown
SPLIT_METRICS = (
    ("completed", "completed"),
    ("completed_within_two", "within 2 attempts a step"),
    ("first_repair", "first repair"),
    ("errors_naming_next_call", "naming next call"),
    ("errors_naming_next_call_structured", "structured"),
    ("errors_naming_next_call_prose", "prose"),
    ("pass_k", "pass^k"),
    ("unasked_changes", "a change no step asked for"),
)
SPLIT_COLUMNS = ("split", *(label for _, label in SPLIT_METRICS))


def _naming_counts(step: dict[str, Any]) -> str:
    """A step's rejections and how many named the next call, structured and in prose."""
    named = f"{step['errors']} ({step['errors_naming_next_call']} name next"
    if "errors_naming_next_call_prose" not in step:  # a run of before the split
        return named + ")"
    return (
        f"{named}: {step['errors_naming_next_call_structured']} structured, "
        f"{step['errors_naming_next_call_prose']} prose)"
    )


def _naming_parts(scope: dict[str, Any], show: Any) -> str:
    if scope.get("errors_naming_next_call_prose") is None:
        return ""
    return (
        f" (structured {show(scope['errors_naming_next_call_structured'])}, "
        f"prose {show(scope['errors_naming_next_call_prose'])})"
    )


def wide_console() -> Console:
    """Tables stay readable when stdout is a file or a CI log (rich would assume 80 columns)."""
    plain = Console()
    return plain if plain.is_terminal else Console(width=140)


def print_run(doc: dict[str, Any], console: Console | None = None) -> None:
    console = console or wide_console()
    summary = doc["summary"]
    for name, wf in summary["workflows"].items():
        if "steps" not in wf:
            console.print(f"[yellow]{name}[/]: skipped ({wf.get('skipped')})")
            continue
        disc = wf.get("discovery") or {}
        table = Table(
            title=(
                f"{name} ({wf['fixture']}"
                + (f", {wf['split']}" if wf.get("split") else "")
                + f") — completed {_pct(wf['completed'])} n={wf['trials']}, "
                f"pass^k {_yes(wf.get('pass_k'))}; "
                f"calls/task {wf['tool_calls_per_completed']}, tokens/task "
                f"{wf['tokens_per_completed']}"
                + (
                    f" (model-reported {wf['model_tokens_per_completed']})"
                    if wf.get("model_tokens_per_completed") is not None
                    else ""
                )
                + f"; tools/list {disc.get('bytes')} B / "
                f"{disc.get('tokens')} tok"
            ),
            title_justify="left",
        )
        for col in ("step", "n", "passed", "1st call", "1st repair", "attempt", "errors"):
            table.add_column(col, no_wrap=True)
        for step, s in wf["steps"].items():
            table.add_row(
                step,
                str(s["passed"]["n"]),
                _pct(s["passed"]),
                _pct(s["first_call"]),
                _pct(s["first_repair"]),
                f"{s['mean_attempt']}/{s['max_attempt']}",
                _naming_counts(s),
            )
        console.print(table)
        refused = wf.get("refused")
        if refused:
            http = refused.get("http_refusal") or {}
            env = http.get("envelope") or {}
            console.print(
                f"  [red]{refused['trials']} trial(s) never reached a tool[/]: "
                f"{refused['connect_error']}"
                + (
                    f"; HTTP {http.get('status')} {env.get('code', '')}: {env.get('hint', '')}"
                    if http
                    else ""
                )
            )
    agents = summary.get("by_agent") or {}
    if len(agents) > 1:
        table = Table(title="by agent", title_justify="left")
        for col in ("agent", "completed", "1st call", "1st repair"):
            table.add_column(col, no_wrap=True)
        for agent, a in agents.items():
            table.add_row(
                agent, _pct(a["completed"]), _pct(a["first_call"]), _pct(a["first_repair"])
            )
        console.print(table)
    splits = summary.get("splits") or {}
    if splits:
        table = Table(title="by split (tune: studied; holdout: decides)", title_justify="left")
        for col in SPLIT_COLUMNS:
            table.add_column(col, no_wrap=True)
        for split, scope in splits.items():
            table.add_row(split, *(_pct(scope.get(key)) for key, _ in SPLIT_METRICS))
        console.print(table)
    o = summary["overall"]
    console.print(
        f"[bold]overall[/]: completed {_pct(o['completed'])}; pass^k {_pct(o.get('pass_k'))}; "
        f"first call {_pct(o['first_call'])}; first repair {_pct(o['first_repair'])}; "
        f"rejections naming the next call {_pct(o['errors_naming_next_call'])}"
        + _naming_parts(o, _pct)
        + f"; trials with a change no step asked for {_pct(o.get('unasked_changes'))}"
    )
    if doc.get("note"):
        console.print(f"[italic]{doc['note']}[/]")


def rate_cell(r: dict[str, Any] | None) -> str:
    if not r or not r.get("n"):
        return "–"
    return f"{r['rate'] * 100:.0f}% ({r['k']}/{r['n']})"


def _num(x: Any) -> str:
    return "–" if x is None else str(x)


def markdown_before_after(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The per-workflow, per-step table a PR description wants."""
    b, a = before["summary"], after["summary"]
    lines = [
        "| workflow | step | passed before | passed after | first call before | first call after "
        "| first repair before | first repair after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = list(dict.fromkeys([*b["workflows"], *a["workflows"]]))
    for wf in names:
        bw, aw = b["workflows"].get(wf, {}), a["workflows"].get(wf, {})
        steps = list(dict.fromkeys([*bw.get("steps", {}), *aw.get("steps", {})]))
        for step in steps:
            bs, as_ = bw.get("steps", {}).get(step, {}), aw.get("steps", {}).get(step, {})
            lines.append(
                f"| {wf} | {step} | {rate_cell(bs.get('passed'))} | {rate_cell(as_.get('passed'))} | "
                f"{rate_cell(bs.get('first_call'))} | {rate_cell(as_.get('first_call'))} | "
                f"{rate_cell(bs.get('first_repair'))} | {rate_cell(as_.get('first_repair'))} |"
            )
    lines += [
        "",
        "| workflow | split | completed before | completed after | pass^k before | pass^k after "
        "| calls/task before | calls/task after "
        "| tokens/task before | tokens/task after | tools/list tokens before | after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for wf in names:
        bw, aw = b["workflows"].get(wf, {}), a["workflows"].get(wf, {})
        lines.append(
            f"| {wf} | {aw.get('split') or bw.get('split') or '–'} | "
            f"{rate_cell(bw.get('completed'))} | {rate_cell(aw.get('completed'))} | "
            f"{_yes(bw.get('pass_k'))} | {_yes(aw.get('pass_k'))} | "
            f"{_num(bw.get('tool_calls_per_completed'))} | "
            f"{_num(aw.get('tool_calls_per_completed'))} | "
            f"{_num(bw.get('tokens_per_completed'))} | {_num(aw.get('tokens_per_completed'))} | "
            f"{(bw.get('discovery') or {}).get('tokens', '–')} | "
            f"{(aw.get('discovery') or {}).get('tokens', '–')} |"
        )
    agents = list(dict.fromkeys([*(b.get("by_agent") or {}), *(a.get("by_agent") or {})]))
    if agents:
        lines += [
            "",
            "| agent | completed before | completed after | first call before | first call after "
            "| first repair before | first repair after |",
            "|---|---|---|---|---|---|---|",
        ]
        for agent in agents:
            ba = (b.get("by_agent") or {}).get(agent, {})
            aa = (a.get("by_agent") or {}).get(agent, {})
            lines.append(
                f"| {agent} | {rate_cell(ba.get('completed'))} | {rate_cell(aa.get('completed'))} | "
                f"{rate_cell(ba.get('first_call'))} | {rate_cell(aa.get('first_call'))} | "
                f"{rate_cell(ba.get('first_repair'))} | {rate_cell(aa.get('first_repair'))} |"
            )
    splits = list(dict.fromkeys([*(b.get("splits") or {}), *(a.get("splits") or {})]))
    if splits:
        lines += [
            "",
            "| split | "
            + " | ".join(f"{label} before | after" for _, label in SPLIT_METRICS)
            + " |",
            "|---|" + "---|---|" * len(SPLIT_METRICS),
        ]
        for split in splits:
            bs = (b.get("splits") or {}).get(split, {})
            as_ = (a.get("splits") or {}).get(split, {})
            lines.append(
                f"| {split} | "
                + " | ".join(
                    f"{rate_cell(bs.get(key))} | {rate_cell(as_.get(key))}"
                    for key, _ in SPLIT_METRICS
                )
                + " |"
            )
    ob, oa = b["overall"], a["overall"]
    lines += [
        "",
        f"Overall: completed {rate_cell(ob['completed'])} → {rate_cell(oa['completed'])}; pass^k "
        f"{rate_cell(ob.get('pass_k'))} → {rate_cell(oa.get('pass_k'))}; first call "
        f"{rate_cell(ob['first_call'])} → {rate_cell(oa['first_call'])}; first repair "
        f"{rate_cell(ob['first_repair'])} → {rate_cell(oa['first_repair'])}; rejections naming the next "
        f"call {rate_cell(ob.get('errors_naming_next_call'))} → "
        f"{rate_cell(oa.get('errors_naming_next_call'))} (structured "
        f"{rate_cell(ob.get('errors_naming_next_call_structured'))} → "
        f"{rate_cell(oa.get('errors_naming_next_call_structured'))}, prose "
        f"{rate_cell(ob.get('errors_naming_next_call_prose'))} → "
        f"{rate_cell(oa.get('errors_naming_next_call_prose'))}).",
    ]
    if after.get("note"):
        lines += ["", f"_{after['note']}_"]
    return "\n".join(lines)
