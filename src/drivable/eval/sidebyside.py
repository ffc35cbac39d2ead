"""`make eval-local`: a real model on every bundled set, naive twin against drivable server.

For each bundled set (example, caselaw, billing, ...) the local model runs every workflow that needs no HTTP
auth and no tasks extension against the naive twin (`drivable.eval.baselines`) and against the drivable server (without
test tools), each over stdio so every trial gets a fresh server process. Trials run one at a time
on one shared model: all of one model's trials of a side in a row, so its tool-list prefix stays
cached. `--model` repeats (`--model 1.5b --model 0.5b`): one run document, a section per model.
`--agent simulated` runs the personas over the same sets, sides and workflows instead, so their
order can be checked against the model's (`--agree PERSONAS_RUN MODEL_RUN`).

Trial 0 decodes greedily; trial t > 0 samples at TEMPERATURE with seed `seed + t`, so trials
differ and are still reproducible (greedy trials would only repeat each other).

The run JSON is rewritten after every trial, so a run stopped early keeps what it measured; the
Markdown (the before/after table per set plus the model's cost) goes between the markers in
docs/eval.md.

    python -m drivable.eval.sidebyside --model 1.5b --model 0.5b --trials 3 \
        --out var/eval-local/run.json --markdown docs/eval.md [--set example] [--split holdout] \
        [--workflow cold-start]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from drivable import settings
from drivable.eval import report
from drivable.eval.solver import EvalTarget, Job, TrialResult, run_jobs, run_trial
from drivable.eval.trace import TraceWriter
from drivable.eval.workflow import SPLITS, Split, Workflow, bundled, bundled_sets, workflow_set
from drivable.target import Target

SETS = tuple(bundled_sets())
TEMPERATURE = 0.3
BEGIN, END = "<!-- eval-local:begin -->", "<!-- eval-local:end -->"
RUN_FORMAT = 2  # a section per model under "runs"; format 1 had one model's sets at the top


def targets(name: str, scratch: Path) -> dict[str, EvalTarget]:
    """naive and drivable targets of a set, both over stdio, judged through the contract."""
    from drivable.eval.surfaces import load

    spec = workflow_set(name)
    contract = load(name)
    python = sys.executable

    def store(side: str) -> list[str]:
        # each side its own scratch store: what one side changes never shows on the other
        if spec.store_env is None:
            return []
        return [f"{spec.store_env}=sqlite:///{scratch / f'{name}-{side}.sqlite'}"]

    pass_env = ["PYTHONPATH", "HOME", "XDG_CACHE_HOME", "DRIVABLE_CASELAW_DB"]
    naive = Target.from_cli(
        [python, "-m", spec.naive], url=None, env_pairs=store("naive"), pass_env=pass_env
    )
    drivable = Target.from_cli(
        [python, "-m", "drivable.eval.surfaces", name],
        url=None,
        env_pairs=store("drivable"),
        pass_env=pass_env,
    )
    return {
        "naive": EvalTarget(naive, label=f"naive {name} (stdio)"),
        "drivable": EvalTarget(drivable, contract=contract, label=f"drivable {name} (stdio)"),
    }


def runnable(name: str, only: list[str], split: Split | None = None) -> list[Workflow]:
    """The set's workflows both sides can run (of one split, when named). A long-running one
    (`tasks: true`) has no naive counterpart (the naive twin serves no tasks extension): it runs
    only when named."""
    return [
        w
        for w in bundled(name, split)
        if "http-auth" not in w.requires and (w.name in only if only else not w.tasks)
    ]


def _model_cost(results: list[TrialResult]) -> dict[str, Any]:
    turns = [t for r in results for t in r.usage.get("turns", [])]
    seconds = sum(t["latency_ms"] for t in turns) / 1000
    out_tokens = sum(t["completion_tokens"] for t in turns)
    return {
        "turns": len(turns),
        "prompt_tokens": sum(t["prompt_tokens"] for t in turns),
        "completion_tokens": out_tokens,
        "model_seconds": round(seconds, 1),
        "tok_per_s": round(out_tokens / seconds, 2) if seconds else None,
        "cut_replies": sum(1 for t in turns if t["finish_reason"] == "length"),
        "reasked": sum(1 for t in turns if t.get("reasked")),
        "trial_seconds": round(sum(r.seconds for r in results), 1),
        "stopped_by": _count(r.verdict.get("stopped_by") for r in results),
        "parse_paths": _count(t["parse_path"] for t in turns),
    }


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        key = str(v) if v is not None else "agent_or_done"
        out[key] = out.get(key, 0) + 1
    return out


def side_document(
    results: list[TrialResult], target: EvalTarget, model: Any, trials: int, seed: int
) -> dict[str, Any]:
    doc = report.run_document(
        results,
        target=target.describe(),
        agent=f"local:{model.name}",
        personas=[""],
        trials=trials,
        seed=seed,
        seconds=sum(r.seconds for r in results),
    )
    doc["model"] = {
        "label": model.label,
        "threads": model.threads,
        "n_ctx": model.n_ctx,
        "temperature": f"trial 0: 0 (greedy); others {TEMPERATURE}",
        **_model_cost(results),
    }
    return doc


# -- the run document: one section per model (or the personas) ----------------------------------


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
    both = report._cell(scope.get("errors_naming_next_call"))
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
)


def _split_cell(doc: dict[str, Any], key: str, scope: str) -> str:
    rates = _scope(doc, scope)
    return _naming(rates) if key == "errors_naming_next_call" else report._cell(rates.get(key))


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
                f"| {name} | {side} | {report._cell(o['completed'])} | "
                f"{report._cell(o.get('pass_k'))} | "
                f"{report._cell(o.get('completed_within_two'))} | "
                f"{report._cell(o['first_call'])} | {report._cell(o['first_repair'])} | "
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


def usable_cores() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, cores or 1)


# What one trial of a side costs the model, relative (model seconds of round 5 at one thread):
# the costliest cells start first, so the last to finish is a short one.
COST = {
    ("caselaw", "drivable"): 9,
    ("billing", "drivable"): 3,
    ("caselaw", "naive"): 2.5,
    ("example", "drivable"): 2.5,
    ("billing", "naive"): 2,
    ("example", "naive"): 1.5,
}
# and per model, relative to the 1.5B (the 0.5B decodes about three times as fast)
MODEL_COST = {"1.5b": 1.0, "0.5b": 0.35}

Cell = tuple[str, str, str]  # model, set, side


def in_parallel(args: argparse.Namespace, cells: list[Cell], processes: int) -> int:
    """Each (model, set, side) in a child process of its own with one model thread, at most
    `processes` at a time, costliest first; the parent joins the children's run JSONs into --out
    and the Markdown after each child ends (partial until the last), and their traces into
    --trace.

    One model on two threads is slower than two on one each: ggml's workers wait for each other,
    and a loaded machine starves them (docs/eval.md, "threads")."""
    import subprocess

    parts_dir = args.out.parent / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    queue = sorted(cells, key=lambda c: -COST.get((c[1], c[2]), 1) * MODEL_COST.get(c[0], 1.0))
    threads = max(1, usable_cores() // processes)
    env = settings.child_environment({settings.LOCAL_THREADS.name: str(threads)})
    running: dict[subprocess.Popen[bytes], Cell] = {}
    finished: list[Path] = []
    failed: list[str] = []
    started = time.time()

    def child(model: str, name: str, side: str) -> subprocess.Popen[bytes]:
        stem = f"{model}-{name}-{side}"
        command = [
            sys.executable, "-m", "drivable.eval.sidebyside", "--processes", "1",
            "--model", model, "--trials", str(args.trials), "--seed", str(args.seed),
            "--max-turns", str(args.max_turns), "--set", name, "--side", side,
            "--out", str(parts_dir / f"{stem}.json"), "--trace", str(parts_dir / f"{stem}.jsonl"),
        ]  # fmt: skip
        if args.split:
            command += ["--split", args.split]
        for wf in args.workflow:
            command += ["--workflow", wf]
        print(f"started {model}/{name}/{side} ({threads} thread(s))", flush=True)
        return subprocess.Popen(command, env=env)

    def join() -> None:
        # sections in the order the models were given, whichever finished first
        order = {"-".join(c): i for i, c in enumerate(cells)}
        finished.sort(key=lambda p: order.get(p.stem, len(order)))
        parts = [json.loads(p.read_text(encoding="utf-8")) for p in finished]
        run = merge_runs(parts)
        run["wall_seconds"] = round(time.time() - started, 1)
        run["processes"] = processes  # at a time; the parts ran in turn
        left = ["/".join(c) for c in [*running.values(), *queue]]
        run["partial"] = (
            "; ".join(
                ([f"not yet measured: {', '.join(left)}"] if left else [])
                + ([f"failed: {', '.join(failed)}"] if failed else [])
            )
            or None
        )
        args.out.write_text(json.dumps(run, indent=2, ensure_ascii=False), encoding="utf-8")
        if args.markdown is not None:
            write_markdown(args.markdown, markdown(run))
        with args.trace.open("w", encoding="utf-8") as out:
            for part in finished:
                trace = part.with_suffix(".jsonl")
                if trace.exists():
                    out.write(trace.read_text(encoding="utf-8"))

    while queue or running:
        while queue and len(running) < processes:
            cell = queue.pop(0)
            running[child(*cell)] = cell
        time.sleep(1)
        for proc, cell in list(running.items()):
            code = proc.poll()
            if code is None:
                continue
            del running[proc]
            part = parts_dir / f"{'-'.join(cell)}.json"
            if code == 0 and part.exists():
                finished.append(part)
            else:
                failed.append(f"{'/'.join(cell)} (exit {code})")
            if finished:
                join()
    if finished:
        print(markdown(json.loads(args.out.read_text(encoding="utf-8"))))
    return 1 if failed else 0


def _sides(args: argparse.Namespace) -> list[tuple[str, list[Workflow]]]:
    found = [(name, runnable(name, args.workflow, args.split)) for name in args.sets or SETS]
    return [(name, workflows) for name, workflows in found if workflows]


def _chosen_sides(args: argparse.Namespace) -> list[str]:
    return [side for side in ("naive", "drivable") if not args.sides or side in args.sides]


def _one_run(
    label: str, threads: int, load_seconds: float, args: argparse.Namespace
) -> dict[str, Any]:
    return {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "model": label,
        "threads": threads,
        "load_seconds": load_seconds,
        "trials": args.trials,
        "seed": args.seed,
        "wall_seconds": 0.0,
        "partial": "running",
        "sets": {},
    }


def run_models(args: argparse.Namespace, models: list[str]) -> int:
    """Every model in turn in this process, each over every set and side, all of one model's
    trials of a side in a row (its tool-list prefix stays cached)."""
    import logging

    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    from drivable.eval.agents.local import LocalAgent, shared_model

    scratch = Path(tempfile.mkdtemp(prefix="drivable-eval-local-"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # the servers' own stderr (a naive server's tracebacks) goes to a file, not the progress lines
    server_log = (args.out.parent / "servers.log").open("a", encoding="utf-8")
    started = time.perf_counter()
    doc: dict[str, Any] = {
        "format": RUN_FORMAT,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "wall_seconds": 0.0,
        "trials": args.trials,
        "seed": args.seed,
        "partial": "running",
        "runs": {},
    }

    def save() -> None:
        doc["wall_seconds"] = round(time.perf_counter() - started, 1)
        for run in doc["runs"].values():
            run["wall_seconds"] = doc["wall_seconds"]
        args.out.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
        if args.markdown is not None:
            write_markdown(args.markdown, markdown(doc))

    with TraceWriter(args.trace) as trace:
        for key in models:
            model = shared_model(key)
            run = doc["runs"][key] = _one_run(
                model.label, model.threads, round(model.seconds_to_load, 1), args
            )
            for name, workflows in _sides(args):
                for side, target in targets(name, scratch).items():
                    if side not in _chosen_sides(args):
                        continue
                    target.errlog = server_log
                    results: list[TrialResult] = []
                    for wf in workflows:
                        for trial in range(args.trials):
                            seed = args.seed + trial
                            agent = LocalAgent(
                                model,
                                seed=seed,
                                max_turns=args.max_turns,
                                temperature=0.0 if trial == 0 else TEMPERATURE,
                            )

                            async def one(
                                target: EvalTarget = target,
                                wf: Workflow = wf,
                                agent: LocalAgent = agent,
                                trial: int = trial,
                                seed: int = seed,
                                run_id: str = f"{key}-{name}-{side}",
                            ) -> TrialResult:
                                return await run_trial(
                                    target, wf, agent, trial=trial, seed=seed, run_id=run_id,
                                    trace=trace,
                                )  # fmt: skip

                            result = anyio.run(one)
                            results.append(result)
                            v = result.verdict
                            print(
                                f"{key}/{name}/{side}/{wf.name}#{trial}: "
                                f"{'completed' if v['completed'] else 'FAILED'} "
                                f"calls={v.get('tool_calls')} stopped_by={v.get('stopped_by')} "
                                f"{result.seconds:.0f}s",
                                flush=True,
                            )
                            run["sets"].setdefault(name, {})[side] = side_document(
                                results, target, model, args.trials, args.seed
                            )
                            save()
            run["partial"] = None
    doc["partial"] = None
    save()
    print(markdown(doc))
    return 0


def run_personas(args: argparse.Namespace) -> int:
    """The simulated personas over the same sets, sides and workflows as the model, trials run
    `--concurrency` at a time: a run whose order `--agree` checks against a model's."""
    from drivable.eval.agents.simulated import PERSONAS, make

    personas = list(args.persona or PERSONAS)
    scratch = Path(tempfile.mkdtemp(prefix="drivable-eval-personas-"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run = _one_run("personas", 0, 0.0, args)
    run["personas"] = personas
    doc: dict[str, Any] = {"format": RUN_FORMAT, "runs": {"personas": run}}
    for key in ("started", "trials", "seed"):
        doc[key] = run[key]
    with (
        TraceWriter(args.trace) as trace,
        (args.out.parent / "servers.log").open("a", encoding="utf-8") as server_log,
    ):
        for name, workflows in _sides(args):
            for side, target in targets(name, scratch).items():
                if side not in _chosen_sides(args):
                    continue
                jobs = [
                    Job(wf, f"simulated:{p}", make(p), t, args.seed + t)
                    for wf in workflows
                    for p in personas
                    for t in range(args.trials)
                ]

                async def side_run(
                    target: EvalTarget = target, jobs: list[Job] = jobs
                ) -> list[TrialResult]:
                    return await run_jobs(target, jobs, concurrency=args.concurrency, trace=trace)

                target.errlog = server_log
                results = anyio.run(side_run)
                side_doc = report.run_document(
                    results,
                    target=target.describe(),
                    agent="simulated",
                    personas=personas,
                    trials=args.trials,
                    seed=args.seed,
                    seconds=sum(r.seconds for r in results),
                )
                run["sets"].setdefault(name, {})[side] = side_doc
                o = side_doc["summary"]["overall"]
                print(
                    f"personas/{name}/{side}: completed {report._cell(o['completed'])}", flush=True
                )
    doc["wall_seconds"] = run["wall_seconds"] = round(time.perf_counter() - started, 1)
    doc["partial"] = run["partial"] = None
    args.out.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    if args.markdown is not None:
        write_markdown(args.markdown, markdown(doc))
    print(markdown(doc))
    return 0


def agree(personas_path: Path, model_path: Path) -> int:
    """Print whether the personas order every pair of servers as each model of the other run
    does; 1 when they disagree anywhere."""
    personas = runs_of(json.loads(personas_path.read_text(encoding="utf-8")))
    models = runs_of(json.loads(model_path.read_text(encoding="utf-8")))
    ours = next(iter(personas.values()))["sets"]
    disagree = 0
    for key, run in models.items():
        pairs = report.order_agreement(ours, run["sets"])
        print(f"personas against {run.get('model') or key}:\n")
        print(report.markdown_agreement(pairs) + "\n")
        disagree += sum(1 for p in pairs if not p["agree"])
    return 1 if disagree else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drivable.eval.sidebyside")
    parser.add_argument(
        "--model",
        action="append",
        help="a local model, repeatable (1.5b, 0.5b; default 1.5b): one run, a section each",
    )
    parser.add_argument("--agent", choices=("local", "simulated"), default="local")
    parser.add_argument("--persona", action="append", help="with --agent simulated (default all)")
    parser.add_argument("--concurrency", type=int, default=4, help="personas' trials at once")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", dest="sets", action="append", choices=SETS)
    parser.add_argument("--side", dest="sides", action="append", choices=("naive", "drivable"))
    parser.add_argument("--split", choices=SPLITS, help="one split only (default: both)")
    parser.add_argument("--workflow", action="append", default=[])
    parser.add_argument("--out", type=Path, default=Path("var/eval-local/run.json"))
    parser.add_argument("--trace", type=Path, default=Path("var/eval-local/trace.jsonl"))
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument(
        "--processes",
        type=int,
        default=None,
        help="model processes at once, one thread each (0 or unset: one per usable core); each "
        "runs one model on one side of a set and the parent joins their run JSONs",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="RUN_JSON",
        help="join run JSONs of disjoint cells (made in parallel) into --out and --markdown",
    )
    parser.add_argument(
        "--agree",
        nargs=2,
        type=Path,
        metavar=("PERSONAS_RUN", "MODEL_RUN"),
        help="check that the personas order every pair of servers as the model does (exit 1 if not)",
    )
    args = parser.parse_args(argv)
    if args.agree:
        return agree(*args.agree)
    if args.merge:
        merged = merge_runs([json.loads(p.read_text(encoding="utf-8")) for p in args.merge])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(merged, indent=2, ensure_ascii=False), encoding="utf-8")
        if args.markdown is not None:
            write_markdown(args.markdown, markdown(merged))
        print(markdown(merged))
        return 0
    if args.agent == "simulated":
        return run_personas(args)

    models = list(dict.fromkeys(args.model or ["1.5b"]))
    cells = plan(args, models)
    processes = min(args.processes or usable_cores(), len(cells))
    if processes > 1:
        return in_parallel(args, cells, processes)
    return run_models(args, models)


def plan(args: argparse.Namespace, models: list[str]) -> list[Cell]:
    """Every (model, set, side) to measure, each one model's trials of one side in a row."""
    return [
        (model, name, side)
        for model in models
        for name, _ in _sides(args)
        for side in _chosen_sides(args)
    ]


if __name__ == "__main__":
    settings.PYTHONPATH.hand_down(os.getcwd(), overwrite=False)
    raise SystemExit(main())
