"""The side by side in parallel: each (model, set, side) in a child process of its own, costliest
first, their run JSONs and traces joined as each child ends."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from drivable import settings
from drivable.eval.sidebyside_document import markdown, merge_runs, write_markdown


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
        for other in args.distractors:
            command += ["--distractors", other]
        if args.catalog is not None:
            command += ["--catalog", str(args.catalog)]
        if args.user:
            command.append("--user")
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
