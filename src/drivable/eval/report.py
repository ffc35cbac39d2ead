"""Summaries of a run, its documents, and the regression gate (the tables a person reads are in
`tables`, the personas' and the model's agreement in `agreement`; both are re-exported here).

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

from drivable.eval.agreement import markdown_agreement as markdown_agreement
from drivable.eval.agreement import order_agreement as order_agreement
from drivable.eval.scorer import ANSWERS
from drivable.eval.solver import TrialResult
from drivable.eval.tables import SPLIT_METRICS as SPLIT_METRICS
from drivable.eval.tables import markdown_before_after as markdown_before_after
from drivable.eval.tables import print_run as print_run
from drivable.eval.tables import rate_cell
from drivable.eval.tables import wide_console as wide_console
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
    # trials that made a destructive change no step asks for (`Tracker.unasked_changes`)
    out["unasked_changes"] = rate(sum(1 for t in ran if t.get("unasked_changes")), len(ran))
    out["user_said"] = _said(ran)
    return out


def _said(ran: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The user's answers when a server asked them (`drivable.eval.user`), summed by action."""
    said = [t.get("user_said") or {} for t in ran]
    return {answer: sum(int(s.get(answer, 0)) for s in said) for answer in ANSWERS}


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
            "unasked_changes": sum(int(t.get("unasked_changes") or 0) for t in ran),
            "user_said": _said(ran),
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
                    f"{scope}: {metric} {rate_cell(b[metric])} → {rate_cell(a[metric])} (z = {z:.2f})"
                )
    return found
