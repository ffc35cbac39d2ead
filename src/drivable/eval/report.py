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
from fractions import Fraction
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from drivable.eval.solver import TrialResult
from drivable.eval.tokens import ENCODING
from drivable.eval.workflow import SPLITS

RUN_FORMAT = 1
FORMATS: tuple[str, ...] = ("text", "html")
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


NAMING = (
    "errors_naming_next_call",  # structured + prose
    "errors_naming_next_call_structured",  # a repair or next_call with a real tool
    "errors_naming_next_call_prose",  # the words name it (drivable.eval.next_step)
)


def _scope(ran: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rates of a set of trials that ran (overall, a split): completion, within two attempts a
    step, first call, first repair, rejections naming the next call (structured, prose, both), and
    pass^k (the share of workflows every trial of which passed)."""
    steps = [s for t in ran for s in t["steps"]]
    fc = [s["first_call"] for s in steps if s["first_call"] is not None]
    fr = [s["first_repair"] for s in steps if s["first_repair"] is not None]
    errors = sum(s["errors"] for s in steps)
    by_wf: dict[str, list[bool]] = defaultdict(list)
    for t in ran:
        by_wf[t["workflow"]].append(bool(t["completed"]))
    out = {
        "completed": rate(sum(1 for t in ran if t["completed"]), len(ran)),
        "completed_within_two": rate(
            sum(1 for t in ran if t["completed"] and _within_attempts(t, 2)), len(ran)
        ),
        "first_call": rate(sum(fc), len(fc)),
        "first_repair": rate(sum(fr), len(fr)),
    }
    for key in NAMING:
        out[key] = rate(sum(s.get(key, 0) for s in steps), errors)
    out["pass_k"] = rate(sum(1 for passed in by_wf.values() if all(passed)), len(by_wf))
    return out


def summarize(results: Iterable[TrialResult | dict[str, Any]]) -> dict[str, Any]:
    trials = [r.to_dict() if isinstance(r, TrialResult) else r for r in results]
    by_wf: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in trials:
        by_wf[t["workflow"]].append(t)
    workflows: dict[str, Any] = {}
    for name, ts in by_wf.items():
        ran = [t for t in ts if not t.get("skipped")]
        if not ran:
            workflows[name] = {
                "skipped": ts[0].get("skipped"),
                "fixture": ts[0].get("fixture"),
                "split": ts[0].get("split"),
            }
            continue
        steps: dict[str, Any] = {}
        order = [s["name"] for s in ran[0]["steps"]]
        for step in order:
            rows = [s for t in ran for s in t["steps"] if s["name"] == step]
            passed = sum(1 for s in rows if s["passed"])
            fc = [s["first_call"] for s in rows if s["first_call"] is not None]
            fr = [s["first_repair"] for s in rows if s["first_repair"] is not None]
            attempts = [s["attempt"] for s in rows if s["passed"] and s["attempt"]]
            steps[step] = {
                "passed": rate(passed, len(rows)),
                "first_call": rate(sum(fc), len(fc)),
                "first_repair": rate(sum(fr), len(fr)),
                "mean_attempt": _mean(attempts),
                "max_attempt": max(attempts) if attempts else None,
                "errors": sum(s["errors"] for s in rows),
                **{key: sum(s.get(key, 0) for s in rows) for key in NAMING},
                "resends": sum(s["resends"] for s in rows),
            }
        completed = [t for t in ran if t["completed"]]
        within_two = [t for t in completed if _within_attempts(t, 2)]
        refused = [t for t in ran if t.get("connect_error")]
        workflows[name] = {
            "fixture": ran[0].get("fixture"),
            "split": ran[0].get("split"),
            "trials": len(ran),
            "completed": rate(len(completed), len(ran)),
            "completed_within_two": rate(len(within_two), len(ran)),
            # pass^k: every one of the workflow's k trials passed
            "pass_k": len(completed) == len(ran),
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
    ran_all = [t for t in trials if not t.get("skipped")]
    return {
        "workflows": workflows,
        "by_agent": by_agent,
        "overall": _scope(ran_all),
        # tune and holdout apart (docs/eval.md, "Tuning and testing"); trials of workflows
        # outside a bundled set's splits count only in `overall`
        "splits": {
            split: _scope([t for t in ran_all if t.get("split") == split])
            for split in SPLITS
            if any(t.get("split") == split for t in ran_all)
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


def _side_by_side_runs(data: dict[str, Any]) -> dict[str, Any] | None:
    """The runs of a side by side's document by model: `runs` (format 2), one model's `sets` at
    the top (format 1), or runs keyed by set as some reruns were saved."""
    if isinstance(data.get("runs"), dict):
        return dict(data["runs"])
    if "sets" in data:
        return {str(data.get("model") or "run"): data}
    if data and all(isinstance(v, dict) and "sets" in v for v in data.values()):
        return dict(data)
    return None


def load_saved(path: str | Path) -> dict[str, Any]:
    """A saved run of either kind: `drivable eval --out` (its summary at the top), or a side by
    side (`python -m drivable.eval.sidebyside`), returned as `{"runs": {model: run}, ...}`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "summary" in data:
        return data
    runs = _side_by_side_runs(data) if isinstance(data, dict) else None
    sides = [
        doc
        for run in (runs or {}).values()
        for by_side in (run.get("sets") or {}).values()
        for doc in (by_side or {}).values()
    ]
    if not runs or not sides or not all(isinstance(d, dict) and "summary" in d for d in sides):
        raise ValueError(f"{path} is not a drivable eval run (no summary, no side by side)")
    extra = {k: v for k, v in data.items() if k in ("started", "note", "partial", "wall_seconds")}
    return {**extra, "runs": runs}


def is_side_by_side(doc: dict[str, Any]) -> bool:
    return "summary" not in doc and "runs" in doc


# -- printing ------------------------------------------------------------------------------------


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
        "| workflow | split | completed before | completed after | pass^k before | pass^k after "
        "| calls/task before | calls/task after "
        "| tokens/task before | tokens/task after | tools/list tokens before | after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for wf in names:
        bw, aw = b["workflows"].get(wf, {}), a["workflows"].get(wf, {})
        lines.append(
            f"| {wf} | {aw.get('split') or bw.get('split') or '–'} | "
            f"{_cell(bw.get('completed'))} | {_cell(aw.get('completed'))} | "
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
                f"| {agent} | {_cell(ba.get('completed'))} | {_cell(aa.get('completed'))} | "
                f"{_cell(ba.get('first_call'))} | {_cell(aa.get('first_call'))} | "
                f"{_cell(ba.get('first_repair'))} | {_cell(aa.get('first_repair'))} |"
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
                    f"{_cell(bs.get(key))} | {_cell(as_.get(key))}" for key, _ in SPLIT_METRICS
                )
                + " |"
            )
    ob, oa = b["overall"], a["overall"]
    lines += [
        "",
        f"Overall: completed {_cell(ob['completed'])} → {_cell(oa['completed'])}; pass^k "
        f"{_cell(ob.get('pass_k'))} → {_cell(oa.get('pass_k'))}; first call "
        f"{_cell(ob['first_call'])} → {_cell(oa['first_call'])}; first repair "
        f"{_cell(ob['first_repair'])} → {_cell(oa['first_repair'])}; rejections naming the next "
        f"call {_cell(ob.get('errors_naming_next_call'))} → "
        f"{_cell(oa.get('errors_naming_next_call'))} (structured "
        f"{_cell(ob.get('errors_naming_next_call_structured'))} → "
        f"{_cell(oa.get('errors_naming_next_call_structured'))}, prose "
        f"{_cell(ob.get('errors_naming_next_call_prose'))} → "
        f"{_cell(oa.get('errors_naming_next_call_prose'))}).",
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


# -- do the personas and the model agree on the order? --------------------------------------

SIDES = ("naive", "drivable")


def _ran(doc: dict[str, Any], split: str | None = None) -> list[dict[str, Any]]:
    return [
        t
        for t in doc.get("trials") or []
        if not t.get("skipped") and (split is None or t.get("split") == split)
    ]


def _order(naive: Fraction, drivable: Fraction) -> str:
    return "drivable" if drivable > naive else "naive" if naive > drivable else "tie"


def order_agreement(
    personas: dict[str, dict[str, dict[str, Any]]], model: dict[str, dict[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """For every pair of servers both runs compared (naive and drivable of a set, per split),
    which one completed more under the personas and under the model, and whether they agree.

    `personas` and `model` map a set to its sides' run documents (`{"naive": doc, "drivable":
    doc}`, as a side by side's run has them). Only the workflows all four documents ran are
    compared, so both orders are over the same work; per split when every trial says its split
    (runs of before the splits are compared as one, "all"). A tie agrees only with a tie."""
    pairs: list[dict[str, Any]] = []
    for name in [n for n in personas if n in model]:
        found = [runs[name].get(side) for runs in (personas, model) for side in SIDES]
        docs = [d for d in found if d]
        if len(docs) < len(found):
            continue
        trials = [t for d in docs for t in _ran(d)]
        scopes: list[str | None] = (
            [s for s in SPLITS if all(_ran(d, s) for d in docs)]
            if all(t.get("split") for t in trials)
            else [None]
        )
        for split in scopes:
            common = set.intersection(*({t["workflow"] for t in _ran(d, split)} for d in docs))
            if not common:
                continue
            rates = []
            for d in docs:
                mine = [t for t in _ran(d, split) if t["workflow"] in common]
                rates.append(Fraction(sum(1 for t in mine if t["completed"]), len(mine)))
            pn, pd, mn, md = rates
            by_personas, by_model = _order(pn, pd), _order(mn, md)
            pairs.append(
                {
                    "set": name,
                    "split": split or "all",
                    "workflows": len(common),
                    "personas": {"naive": float(pn), "drivable": float(pd), "order": by_personas},
                    "model": {"naive": float(mn), "drivable": float(md), "order": by_model},
                    "agree": by_personas == by_model,
                }
            )
    return pairs


def markdown_agreement(pairs: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| set | split | workflows | personas naive | personas drivable | model naive "
        "| model drivable | personas' order | model's order | agree |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pairs:
        ps, ms = p["personas"], p["model"]
        lines.append(
            f"| {p['set']} | {p['split']} | {p['workflows']} | {ps['naive'] * 100:.0f}% | "
            f"{ps['drivable'] * 100:.0f}% | {ms['naive'] * 100:.0f}% | {ms['drivable'] * 100:.0f}% "
            f"| {ps['order']} | {ms['order']} | {'yes' if p['agree'] else '**no**'} |"
        )
    return "\n".join(lines)
