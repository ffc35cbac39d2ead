"""`make eval-local`: a real model on every bundled set, naive twin against drivable server.

For each bundled set (example, caselaw, billing, ...) the local model runs every workflow that needs no HTTP
auth and no tasks extension against the naive twin (`drivable.eval.baselines`) and against the drivable server (without
test tools), each over stdio so every trial gets a fresh server process. Trials run one at a time
on one shared model: all of one side's trials in a row, so the tool-list prefix stays cached.

Trial 0 decodes greedily; trial t > 0 samples at TEMPERATURE with seed `seed + t`, so trials
differ and are still reproducible (greedy trials would only repeat each other).

The run JSON is rewritten after every trial, so a run stopped early keeps what it measured; the
Markdown (the before/after table per set plus the model's cost) goes between the markers in
docs/eval.md.

    python -m drivable.eval.sidebyside --model 1.5b --trials 3 --out var/eval-local/run.json \
        --markdown docs/eval.md [--set example] [--workflow cold-start]
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

from drivable.eval import report
from drivable.eval.solver import EvalTarget, TrialResult, run_trial
from drivable.eval.trace import TraceWriter
from drivable.eval.workflow import Workflow, bundled, bundled_sets, workflow_set
from drivable.target import Target

SETS = tuple(bundled_sets())
TEMPERATURE = 0.3
BEGIN, END = "<!-- eval-local:begin -->", "<!-- eval-local:end -->"


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


def runnable(name: str, only: list[str]) -> list[Workflow]:
    """The set's workflows both sides can run. A long-running one (`tasks: true`) has no naive
    counterpart (the naive twin serves no tasks extension): it runs only when named."""
    return [
        w
        for w in bundled(name)
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


def markdown(run: dict[str, Any]) -> str:
    lines = [
        f"Measured {run['started']} on this machine: {run['model']}, {run['threads']} thread(s), "
        f"trials per workflow {run['trials']} (seed {run['seed']}; "
        + (
            f"{run['processes']} processes in parallel, one model each; "
            if run.get("processes")
            else ""
        )
        + f"trial 0 greedy, others temperature {TEMPERATURE}); wall {run['wall_seconds']:.0f} s"
        + (" — **partial run**: " + run["partial"] if run.get("partial") else "")
        + ".",
        "",
        "| set | side | completed | within 2 attempts a step | first call | first repair "
        "| rejections naming next call "
        "| tools/list tokens (o200k) | model turns | prompt tok | completion tok | model s "
        "| tok/s | stopped by |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, sides in run["sets"].items():
        for side in ("naive", "drivable"):
            doc = sides.get(side)
            if not doc:
                continue
            o, m = doc["summary"]["overall"], doc["model"]
            discovery = next(
                (
                    w["discovery"]["tokens"]
                    for w in doc["summary"]["workflows"].values()
                    if w.get("discovery")
                ),
                "–",
            )
            caps = ", ".join(f"{k} {v}" for k, v in sorted(m["stopped_by"].items()))
            lines.append(
                f"| {name} | {side} | {report._cell(o['completed'])} | "
                f"{report._cell(o.get('completed_within_two'))} | "
                f"{report._cell(o['first_call'])} | {report._cell(o['first_repair'])} | "
                f"{report._cell(o['errors_naming_next_call'])} | {discovery} | {m['turns']} | "
                f"{m['prompt_tokens']} | {m['completion_tokens']} | {m['model_seconds']} | "
                f"{m['tok_per_s']} | {caps} |"
            )
    for name, sides in run["sets"].items():
        if sides.get("naive") and sides.get("drivable"):
            lines += [
                "",
                f"**{name}**, naive (before) vs drivable (after):",
                "",
                report.markdown_before_after(sides["naive"], sides["drivable"]),
            ]
    return "\n".join(lines)


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
    """One run document from runs of disjoint sets or sides made at the same time.

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
    partial = [p["partial"] for p in parts if p.get("partial")]
    run["partial"] = "; ".join(partial) if partial else None
    return run


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


def in_parallel(args: argparse.Namespace, cells: list[tuple[str, str]], processes: int) -> int:
    """Each (set, side) in a child process of its own with one model thread, at most `processes`
    at a time, costliest first; the parent joins the children's run JSONs into --out and the
    Markdown after each child ends (partial until the last), and their traces into --trace.

    One model on two threads is slower than two on one each: ggml's workers wait for each other,
    and a loaded machine starves them (docs/eval.md, "threads")."""
    import subprocess

    parts_dir = args.out.parent / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    queue = sorted(cells, key=lambda c: -COST.get(c, 1))
    threads = max(1, usable_cores() // processes)
    env = {**os.environ, "DRIVABLE_LOCAL_THREADS": str(threads)}
    running: dict[subprocess.Popen[bytes], tuple[str, str]] = {}
    finished: list[Path] = []
    failed: list[str] = []
    started = time.time()

    def child(name: str, side: str) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-m", "drivable.eval.sidebyside", "--processes", "1",
            "--model", args.model, "--trials", str(args.trials), "--seed", str(args.seed),
            "--max-turns", str(args.max_turns), "--set", name, "--side", side,
            "--out", str(parts_dir / f"{name}-{side}.json"),
            "--trace", str(parts_dir / f"{name}-{side}.jsonl"),
        ]  # fmt: skip
        for wf in args.workflow:
            command += ["--workflow", wf]
        print(f"started {name}/{side} ({threads} thread(s))", flush=True)
        return subprocess.Popen(command, env=env)

    def join() -> None:
        parts = [json.loads(p.read_text(encoding="utf-8")) for p in finished]
        run = merge(parts)
        run["wall_seconds"] = round(time.time() - started, 1)
        run["processes"] = processes  # at a time; the parts ran in turn (merge counts parts)
        left = [f"{n}/{s}" for n, s in [*running.values(), *queue]]
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
        for proc, (name, side) in list(running.items()):
            code = proc.poll()
            if code is None:
                continue
            del running[proc]
            part = parts_dir / f"{name}-{side}.json"
            if code == 0 and part.exists():
                finished.append(part)
            else:
                failed.append(f"{name}/{side} (exit {code})")
            if finished:
                join()
    if finished:
        print(markdown(json.loads(args.out.read_text(encoding="utf-8"))))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drivable.eval.sidebyside")
    parser.add_argument("--model", default="1.5b")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", dest="sets", action="append", choices=SETS)
    parser.add_argument("--side", dest="sides", action="append", choices=("naive", "drivable"))
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
        "runs whole sides of sets and the parent joins their run JSONs",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="RUN_JSON",
        help="join run JSONs of disjoint sets (made in parallel) into --out and --markdown",
    )
    args = parser.parse_args(argv)
    if args.merge:
        merged = merge([json.loads(p.read_text(encoding="utf-8")) for p in args.merge])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(merged, indent=2, ensure_ascii=False), encoding="utf-8")
        if args.markdown is not None:
            write_markdown(args.markdown, markdown(merged))
        print(markdown(merged))
        return 0

    cells = [
        (name, side)
        for name in args.sets or list(SETS)
        for side in ("naive", "drivable")
        if (not args.sides or side in args.sides) and runnable(name, args.workflow)
    ]
    processes = min(args.processes or usable_cores(), len(cells))
    if processes > 1:
        return in_parallel(args, cells, processes)

    import logging

    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    from drivable.eval.agents.local import LocalAgent, shared_model

    model = shared_model(args.model)
    scratch = Path(tempfile.mkdtemp(prefix="drivable-eval-local-"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # the servers' own stderr (a naive server's tracebacks) goes to a file, not the progress lines
    server_log = (args.out.parent / "servers.log").open("a", encoding="utf-8")
    started = time.perf_counter()
    run: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "model": model.label,
        "threads": model.threads,
        "load_seconds": round(model.seconds_to_load, 1),
        "trials": args.trials,
        "seed": args.seed,
        "wall_seconds": 0.0,
        "partial": "running",
        "sets": {},
    }

    def save() -> None:
        run["wall_seconds"] = round(time.perf_counter() - started, 1)
        args.out.write_text(json.dumps(run, indent=2, ensure_ascii=False), encoding="utf-8")
        if args.markdown is not None:
            write_markdown(args.markdown, markdown(run))

    with TraceWriter(args.trace) as trace:
        for name in args.sets or list(SETS):
            workflows = runnable(name, args.workflow)
            if not workflows:
                continue
            for side, target in targets(name, scratch).items():
                if args.sides and side not in args.sides:
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
                            run_id: str = f"{name}-{side}",
                        ) -> TrialResult:
                            return await run_trial(
                                target,
                                wf,
                                agent,
                                trial=trial,
                                seed=seed,
                                run_id=run_id,
                                trace=trace,
                            )

                        result = anyio.run(one)
                        results.append(result)
                        v = result.verdict
                        print(
                            f"{name}/{side}/{wf.name}#{trial}: "
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
    save()
    print(markdown(run))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", os.getcwd())
    raise SystemExit(main())
