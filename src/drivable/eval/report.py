"""Summaries, tables, before/after Markdown and the regression gate.

Rates come with a 95 % Wilson score interval; the gate calls a drop a regression only when a
one-sided two-proportion z-test says it is beyond noise (z < -1.645), so one unlucky trial of a
model does not fail a PR, and a real drop over enough trials does.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from drivable.eval.solver import TrialResult
from drivable.eval.tokens import ENCODING

RUN_FORMAT = 1
Z95 = 1.959964
Z_GATE = -1.645

DISCLAIMER_SIMULATED = (
    "Simulated personas are deterministic stand-ins for documented model habits. A contract that "
    "works for them is not proof that it works for a model; a contract that fails them fails "
    "models too. Run a model agent (openai, anthropic, local) before claiming more."
)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": (k / n) if n else None, "ci95": [round(lo, 4), round(hi, 4)]}


def _mean(xs: Sequence[float]) -> float | None:
    return round(sum(xs) / len(xs), 2) if xs else None


def _caps(trials: Sequence[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in trials:
        cap = t.get("stopped_by")
        if cap:
            out[cap] = out.get(cap, 0) + 1
    return out


def _within_attempts(trial: dict[str, Any], most: int) -> bool:
    """Every step of the trial passed on one of its first `most` attempts (distinct payloads)."""
    return all(s["passed"] and (s["attempt"] or 1) <= most for s in trial["steps"])


def summarize(results: Iterable[TrialResult | dict[str, Any]]) -> dict[str, Any]:
    trials = [r.to_dict() if isinstance(r, TrialResult) else r for r in results]
    by_wf: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in trials:
        by_wf[t["workflow"]].append(t)
    workflows: dict[str, Any] = {}
    fc_all = [0, 0]
    fr_all = [0, 0]
    done_all = [0, 0]
    two_all = [0, 0]
    named_all = [0, 0]
    for name, ts in by_wf.items():
        ran = [t for t in ts if not t.get("skipped")]
        if not ran:
            workflows[name] = {"skipped": ts[0].get("skipped"), "fixture": ts[0].get("fixture")}
            continue
        steps: dict[str, Any] = {}
        order = [s["name"] for s in ran[0]["steps"]]
        for step in order:
            rows = [s for t in ran for s in t["steps"] if s["name"] == step]
            passed = sum(1 for s in rows if s["passed"])
            fc = [s["first_call"] for s in rows if s["first_call"] is not None]
            fr = [s["first_repair"] for s in rows if s["first_repair"] is not None]
            attempts = [s["attempt"] for s in rows if s["passed"] and s["attempt"]]
            errors = sum(s["errors"] for s in rows)
            named = sum(s["errors_naming_next_call"] for s in rows)
            steps[step] = {
                "passed": rate(passed, len(rows)),
                "first_call": rate(sum(fc), len(fc)),
                "first_repair": rate(sum(fr), len(fr)),
                "mean_attempt": _mean(attempts),
                "max_attempt": max(attempts) if attempts else None,
                "errors": errors,
                "errors_naming_next_call": named,
                "resends": sum(s["resends"] for s in rows),
            }
            fc_all[0] += sum(fc)
            fc_all[1] += len(fc)
            fr_all[0] += sum(fr)
            fr_all[1] += len(fr)
            named_all[0] += named
            named_all[1] += errors
        completed = [t for t in ran if t["completed"]]
        within_two = [t for t in completed if _within_attempts(t, 2)]
        refused = [t for t in ran if t.get("connect_error")]
        done_all[0] += len(completed)
        done_all[1] += len(ran)
        two_all[0] += len(within_two)
        two_all[1] += len(ran)
        workflows[name] = {
            "fixture": ran[0].get("fixture"),
            "trials": len(ran),
            "completed": rate(len(completed), len(ran)),
            "completed_within_two": rate(len(within_two), len(ran)),
            "within_budget": rate(sum(1 for t in ran if t.get("within_budget")), len(ran)),
            "tool_calls_per_completed": _mean([t["tool_calls"] for t in completed]),
            "tokens_per_completed": _mean([t["tokens"] for t in completed]),
            # what a model backend reported (prompt + completion, every turn), when it reports
            "model_tokens_per_completed": _mean(
                [
                    t["usage"]["input_tokens"] + t["usage"]["output_tokens"]
                    for t in completed
                    if (t.get("usage") or {}).get("reported")
                ]
            ),
            "discovery": ran[0].get("discovery"),
            # caps that ended trials (turn_cap, call_cap, identical_resends, ...), never the agent
            "stopped_by": _caps(ran),
            "steps": steps,
        }
        if refused:
            workflows[name]["refused"] = {
                "trials": len(refused),
                "connect_error": refused[0]["connect_error"],
                "http_refusal": refused[0].get("http_refusal"),
            }
    by_agent: dict[str, Any] = {}
    for agent in dict.fromkeys(t["agent"] for t in trials):
        mine = [t for t in trials if t["agent"] == agent and not t.get("skipped")]
        agent_steps: list[dict[str, Any]] = [s for t in mine for s in t["steps"]]
        fc = [s["first_call"] for s in agent_steps if s["first_call"] is not None]
        fr = [s["first_repair"] for s in agent_steps if s["first_repair"] is not None]
        by_agent[agent] = {
            "completed": rate(sum(1 for t in mine if t["completed"]), len(mine)),
            "first_call": rate(sum(fc), len(fc)),
            "first_repair": rate(sum(fr), len(fr)),
        }
    return {
        "workflows": workflows,
        "by_agent": by_agent,
        "overall": {
            "completed": rate(*done_all),
            "completed_within_two": rate(*two_all),
            "first_call": rate(*fc_all),
            "first_repair": rate(*fr_all),
            "errors_naming_next_call": rate(*named_all),
        },
    }


def run_document(
    results: Sequence[TrialResult],
    *,
    target: dict[str, Any],
    agent: str,
    personas: Sequence[str],
    trials: int,
    seed: int,
    seconds: float,
) -> dict[str, Any]:
    simulated = agent == "simulated"
    return {
        "format": RUN_FORMAT,
        "target": target,
        "agent": agent,
        "personas": list(personas),
        "trials_per_workflow": trials,
        "seed": seed,
        "seconds": round(seconds, 3),
        "tokenizer": ENCODING,
        "note": DISCLAIMER_SIMULATED if simulated else None,
        "summary": summarize(results),
        "trials": [r.to_dict() for r in results],
    }


def load_run(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or "summary" not in data:
        raise ValueError(f"{path} is not a drivable eval run (no summary)")
    return data


# -- printing ------------------------------------------------------------------------------------


def _pct(r: dict[str, Any] | None) -> str:
    if not r or not r.get("n"):
        return "–"
    lo, hi = r["ci95"]
    return f"{r['rate'] * 100:.0f}% [{lo * 100:.0f}–{hi * 100:.0f}]"


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
                f"{name} ({wf['fixture']}) — completed {_pct(wf['completed'])} "
                f"n={wf['trials']}; "
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
                f"{s['errors']} ({s['errors_naming_next_call']} name next)",
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
    o = summary["overall"]
    console.print(
        f"[bold]overall[/]: completed {_pct(o['completed'])}; first call {_pct(o['first_call'])}; "
        f"first repair {_pct(o['first_repair'])}; rejections naming the next call "
        f"{_pct(o['errors_naming_next_call'])}"
    )
    if doc.get("note"):
        console.print(f"[italic]{doc['note']}[/]")


def _cell(r: dict[str, Any] | None) -> str:
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
                f"| {wf} | {step} | {_cell(bs.get('passed'))} | {_cell(as_.get('passed'))} | "
                f"{_cell(bs.get('first_call'))} | {_cell(as_.get('first_call'))} | "
                f"{_cell(bs.get('first_repair'))} | {_cell(as_.get('first_repair'))} |"
            )
    lines += [
        "",
        "| workflow | completed before | completed after | calls/task before | calls/task after "
        "| tokens/task before | tokens/task after | tools/list tokens before | after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for wf in names:
        bw, aw = b["workflows"].get(wf, {}), a["workflows"].get(wf, {})
        lines.append(
            f"| {wf} | {_cell(bw.get('completed'))} | {_cell(aw.get('completed'))} | "
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
                f"| {agent} | {_cell(ba.get('completed'))} | {_cell(aa.get('completed'))} | "
                f"{_cell(ba.get('first_call'))} | {_cell(aa.get('first_call'))} | "
                f"{_cell(ba.get('first_repair'))} | {_cell(aa.get('first_repair'))} |"
            )
    ob, oa = b["overall"], a["overall"]
    lines += [
        "",
        f"Overall: completed {_cell(ob['completed'])} → {_cell(oa['completed'])}; first call "
        f"{_cell(ob['first_call'])} → {_cell(oa['first_call'])}; first repair "
        f"{_cell(ob['first_repair'])} → {_cell(oa['first_repair'])}.",
    ]
    if after.get("note"):
        lines += ["", f"_{after['note']}_"]
    return "\n".join(lines)


def z_drop(before: dict[str, Any], after: dict[str, Any]) -> float | None:
    """Two-proportion z statistic of after - before (negative: a drop)."""
    n1, n2 = before.get("n") or 0, after.get("n") or 0
    if not n1 or not n2:
        return None
    p1, p2 = before["k"] / n1, after["k"] / n2
    pooled = (before["k"] + after["k"]) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0 if p1 == p2 else (-math.inf if p2 < p1 else math.inf)
    return float((p2 - p1) / se)


def regressions(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """First-call or first-repair drops beyond noise, overall and per workflow."""
    found: list[str] = []
    scopes: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("overall", before["summary"]["overall"], after["summary"]["overall"])
    ]
    for wf, aw in after["summary"]["workflows"].items():
        bw = before["summary"]["workflows"].get(wf)
        if bw and "steps" in bw and "steps" in aw:
            for step, as_ in aw["steps"].items():
                bs = bw["steps"].get(step)
                if bs:
                    scopes.append((f"{wf}/{step}", bs, as_))
    for scope, b, a in scopes:
        for metric in ("first_call", "first_repair"):
            z = z_drop(b[metric], a[metric])
            if z is not None and z < Z_GATE:
                found.append(
                    f"{scope}: {metric} {_cell(b[metric])} → {_cell(a[metric])} (z = {z:.2f})"
                )
    return found
