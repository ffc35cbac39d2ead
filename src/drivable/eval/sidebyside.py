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

`--workflow` takes a workflow's name or its file; a name no chosen set has is refused (exit 2).
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
from drivable.eval.sidebyside_document import (
    RUN_FORMAT,
    TEMPERATURE,
    write_markdown,
)
from drivable.eval.sidebyside_document import markdown as markdown
from drivable.eval.sidebyside_document import merge as merge
from drivable.eval.sidebyside_document import merge_runs as merge_runs
from drivable.eval.sidebyside_document import runs_of as runs_of
from drivable.eval.sidebyside_parallel import Cell, in_parallel, usable_cores
from drivable.eval.sides import TWINS, targets
from drivable.eval.solver import EvalTarget, Job, TrialResult, run_jobs, run_trial
from drivable.eval.tables import rate_cell
from drivable.eval.trace import TraceWriter
from drivable.eval.workflow import (
    SPLITS,
    Split,
    Workflow,
    bundled,
    bundled_sets,
    load,
)

SETS = tuple(bundled_sets())


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


def workflow_names(values: list[str]) -> list[str]:
    """`--workflow` values as workflow names: a path to a workflow file is read for its name."""
    return [
        load(v).name if v.endswith((".yaml", ".yml")) and Path(v).is_file() else v for v in values
    ]


def unknown_workflows(names: list[str], sets: list[str]) -> list[str]:
    """The names no workflow of `sets` has, in either split."""
    known = {w.name for name in sets for w in bundled(name)}
    return [n for n in names if n not in known]


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
        "distractors": list(args.distractors),
        "catalog": args.catalog,
        "user": args.user,
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
                for side, target in targets(
                    name, scratch, args.distractors, args.catalog, args.user
                ).items():
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
            for side, target in targets(
                name, scratch, args.distractors, args.catalog, args.user
            ).items():
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
                print(f"personas/{name}/{side}: completed {rate_cell(o['completed'])}", flush=True)
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
    parser.add_argument(
        "--distractors",
        action="append",
        default=[],
        choices=TWINS,
        metavar="SET",
        help="list this set's naive twin's tools beside every target's (repeatable; a set is "
        "never its own distractor)",
    )
    parser.add_argument(
        "--catalog",
        type=int,
        metavar="N",
        help="serve the drivable side among tools of other domains, N tools in all on one server "
        "(a large catalog, listed through its entry tools)",
    )
    parser.add_argument(
        "--user",
        action="store_true",
        help="each side's client declares elicitation, and the workflow's user answers a "
        "server's question: yes to a change a step asks for, no to any other",
    )
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
    args.workflow = workflow_names(args.workflow)
    unknown = unknown_workflows(args.workflow, args.sets or list(SETS))
    if unknown:
        print(
            f"sidebyside: no workflow named {', '.join(unknown)} in the sets chosen "
            f"({', '.join(args.sets or SETS)}); pass a workflow's name or its file",
            file=sys.stderr,
        )
        return 2
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
