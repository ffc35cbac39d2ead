"""The side by side's run document: a section per model (or the personas), the parts of a run made
in parallel merged into one, and its Markdown between the markers of docs/eval.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivable.eval import report
from drivable.eval.tables import rate_cell
from drivable.eval.workflow import SPLITS

TEMPERATURE = 0.3
BEGIN, END = "<!-- eval-local:begin -->", "<!-- eval-local:end -->"
RUN_FORMAT = 2  # a section per model under "runs"; format 1 had one model's sets at the top


def runs_of(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The runs of a side by side's document, by model (or "personas"): a document of before
    several models (one run, its sets at the top) is read as the one run it is."""
    if "runs" in doc:
        return dict(doc["runs"])
    return {str(doc.get("model") or "run"): doc}


def _scopes(sides: list[dict[str, Any]]) -> list[str]:
    """Both splits, side by side (one not measured shows "–"); "all" for runs of before the
    splits."""
    if any("splits" in d["summary"] for d in sides):
        return list(SPLITS)
    return ["all"]


def _scope(doc: dict[str, Any], split: str) -> dict[str, Any]:
    summary = doc["summary"]
    if split == "all":
        return dict(summary["overall"])
    return dict((summary.get("splits") or {}).get(split) or {})


def _naming(scope: dict[str, Any]) -> str:
    both = rate_cell(scope.get("errors_naming_next_call"))
    structured = scope.get("errors_naming_next_call_structured")
    prose = scope.get("errors_naming_next_call_prose")
    if not structured or not prose or not structured.get("n"):
        return both
    return f"{both}: {structured['k']} + {prose['k']}"


SPLIT_TABLE = (
    ("completed", "completed"),
    ("completed_within_two", "within 2 attempts a step"),
    ("first_repair", "first repair"),
    ("errors_naming_next_call", "rejections naming next call (structured + prose)"),
    ("pass_k", "pass^k"),
    ("unasked_changes", "trials with a change no step asked for"),
)


def _split_cell(doc: dict[str, Any], key: str, scope: str) -> str:
    rates = _scope(doc, scope)
    return _naming(rates) if key == "errors_naming_next_call" else rate_cell(rates.get(key))


def _split_table(run: dict[str, Any]) -> list[str]:
    """Per set and side, each rate for tune and for holdout side by side."""
    docs = [d for sides in run["sets"].values() for d in sides.values() if d]
    scopes = _scopes(docs)
    head = "| set | side | " + " | ".join(
        label if scope == "all" else f"{label} {scope}"
        for _, label in SPLIT_TABLE
        for scope in scopes
    )
    lines = [head + " |", "|---|---|" + "---|" * (len(SPLIT_TABLE) * len(scopes))]
    for name, sides in run["sets"].items():
        for side in ("naive", "drivable"):
            doc = sides.get(side)
            if doc:
                cells = [_split_cell(doc, key, scope) for key, _ in SPLIT_TABLE for scope in scopes]
                lines.append(f"| {name} | {side} | " + " | ".join(cells) + " |")
    return lines


def _partial(run: dict[str, Any]) -> str:
    """Why a run is partial (a run of round 12 says only `true`, and why in its note)."""
    said = run.get("partial")
    return said if isinstance(said, str) else str(run.get("note") or "stopped early")


def _markdown_run(run: dict[str, Any]) -> list[str]:
    simulated = not run.get("threads")
    agent = "the simulated personas" if simulated else str(run.get("model"))
    lines = [
        f"Measured {run['started']} on this machine: {agent}"
        + ("" if simulated else f", {run['threads']} thread(s)")
        + f", trials per workflow {run['trials']} (seed {run['seed']}"
        + (
            ")"
            if simulated
            else "; "
            + (
                f"{run['processes']} processes in parallel, one model each; "
                if run.get("processes")
                else ""
            )
            + f"trial 0 greedy, others temperature {TEMPERATURE})"
        )
        + f"; wall {run['wall_seconds']:.0f} s"
        + (" — **partial run**: " + _partial(run) if run.get("partial") else "")
        + ".",
        "",
        *_split_table(run),
        "",
        "| set | side | completed | pass^k | within 2 attempts a step | first call | first repair "
        "| rejections naming next call (structured + prose) "
        "| tools/list tokens (o200k) | model turns | prompt tok | completion tok | model s "
        "| tok/s | stopped by |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, sides in run["sets"].items():
        for side in ("naive", "drivable"):
            doc = sides.get(side)
            if not doc:
                continue
            o, m = doc["summary"]["overall"], doc.get("model") or {}
            discovery = next(
                (
                    w["discovery"]["tokens"]
                    for w in doc["summary"]["workflows"].values()
                    if w.get("discovery")
                ),
                "–",
            )
            caps = ", ".join(f"{k} {v}" for k, v in sorted((m.get("stopped_by") or {}).items()))
            cost = [m.get(k, "–") for k in ("turns", "prompt_tokens", "completion_tokens")]
            cost += [m.get(k, "–") for k in ("model_seconds", "tok_per_s")]
            lines.append(
                f"| {name} | {side} | {rate_cell(o['completed'])} | "
                f"{rate_cell(o.get('pass_k'))} | "
                f"{rate_cell(o.get('completed_within_two'))} | "
                f"{rate_cell(o['first_call'])} | {rate_cell(o['first_repair'])} | "
                f"{_naming(o)} | {discovery} | " + " | ".join(str(c) for c in cost) + f" | {caps} |"
            )
    for name, sides in run["sets"].items():
        if sides.get("naive") and sides.get("drivable"):
            lines += [
                "",
                f"**{name}**, naive (before) vs drivable (after):",
                "",
                report.markdown_before_after(sides["naive"], sides["drivable"]),
            ]
    return lines


def markdown(doc: dict[str, Any]) -> str:
    """The side by side as Markdown: one section per model (or the personas)."""
    runs = runs_of(doc)
    if len(runs) == 1:
        return "\n".join(_markdown_run(next(iter(runs.values()))))
    lines: list[str] = []
    if doc.get("partial"):
        lines += [f"**Partial run**: {_partial(doc)}.", ""]
    for key, run in runs.items():
        lines += [f"#### {run.get('model') or key}", "", *_markdown_run(run), ""]
    return "\n".join(lines).rstrip("\n")


def write_markdown(path: Path, text: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in old and END in old:
        head, _, rest = old.partition(BEGIN)
        _, _, tail = rest.partition(END)
        new = head + block + tail
    else:
        new = (
            old.rstrip("\n")
            + "\n\n## Real model, side by side (`make eval-local`)\n\n"
            + block
            + "\n"
        )
    path.write_text(new, encoding="utf-8")


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One run from runs of one model over disjoint sets or sides made at the same time.

    One process and one model per set or side: on a shared machine each process gets its own
    share of the CPU. Wall time is the longest part's, since they overlapped."""
    if not parts:
        raise ValueError("nothing to merge")
    run = dict(parts[0])
    run["sets"] = {}
    for part in parts:
        for name, sides in part["sets"].items():
            into = run["sets"].setdefault(name, {})
            twice = set(into) & set(sides)
            if twice:
                raise ValueError(f"{name}: {sorted(twice)} measured twice")
            into.update(sides)
    run["started"] = min(p["started"] for p in parts)
    run["wall_seconds"] = max(p["wall_seconds"] for p in parts)
    run["trials"] = min(p["trials"] for p in parts)
    run["threads"] = max(p["threads"] for p in parts)
    run["processes"] = len(parts)
    partial = [_partial(p) for p in parts if p.get("partial")]
    run["partial"] = "; ".join(partial) if partial else None
    return run


def merge_runs(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One document from documents of disjoint (model, set, side) cells: each model's parts
    merged into its run (`merge`), a section per model in the order first met."""
    if not parts:
        raise ValueError("nothing to merge")
    grouped: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        for key, run in runs_of(part).items():
            grouped.setdefault(key, []).append(run)
    runs = {key: merge(group) for key, group in grouped.items()}
    partial = [_partial(r) for r in runs.values() if r.get("partial")]
    return {
        "format": RUN_FORMAT,
        "started": min(r["started"] for r in runs.values()),
        "wall_seconds": max(r["wall_seconds"] for r in runs.values()),
        "trials": min(r["trials"] for r in runs.values()),
        "seed": next(iter(runs.values()))["seed"],
        "processes": len(parts),
        "partial": "; ".join(partial) if partial else None,
        "runs": runs,
    }
