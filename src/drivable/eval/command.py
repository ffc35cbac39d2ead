"""`drivable eval`: run workflows against a server with an agent, print tables, compare, gate."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from drivable.eval import report
from drivable.eval.agents import BACKENDS, factory
from drivable.eval.agents.simulated import PERSONAS
from drivable.eval.solver import EvalTarget, Job, TrialResult, run_jobs
from drivable.eval.trace import TraceWriter
from drivable.eval.unanswered import describe_error, unanswered
from drivable.eval.workflow import SPLITS, Workflow, bundled, bundled_sets, load
from drivable.options import BearerToken, Env, PassEnv, Url
from drivable.target import Target

EXIT_OK, EXIT_REGRESSED, EXIT_CANNOT_RUN = 0, 1, 2


def _fail(message: str) -> typer.Exit:
    typer.echo(f"drivable eval: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def eval_command(
    command: Annotated[
        list[str] | None,
        typer.Argument(metavar="[-- CMD ARGS...]", help="A stdio server command, after `--`."),
    ] = None,
    workflows: Annotated[
        list[Path] | None,
        typer.Option("--workflow", "-w", help="A workflow YAML file or folder (repeatable)."),
    ] = None,
    workflow_set: Annotated[
        str | None,
        typer.Option(
            "--set", help="A bundled workflow set: example, caselaw (default: by target)."
        ),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            help="Only this split of the workflows: tune or holdout (default: both, reported apart)."
        ),
    ] = None,
    contract: Annotated[
        str | None,
        typer.Option(
            help="MODULE:ATTR of a drivable Contract (or a reference server's name, e.g. caselaw): "
            "served in process, or, with -- CMD / --url, only used to judge arguments through "
            "the handler's own schema objects."
        ),
    ] = None,
    url: Url = None,
    bearer_token: BearerToken = None,
    env: Env = None,
    pass_env: PassEnv = None,
    agent: Annotated[str, typer.Option(help=f"One of: {', '.join(BACKENDS)}.")] = "simulated",
    persona: Annotated[
        list[str] | None,
        typer.Option(help=f"Simulated persona (repeatable; default all): {', '.join(PERSONAS)}."),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Model name (openai/anthropic) or local size 0.5b/1.5b.")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible or Anthropic endpoint base URL.")
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per workflow (and persona).")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the first trial.")] = 0,
    concurrency: Annotated[int, typer.Option(min=1, help="Trials run at once.")] = 4,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write RUN.json here.")] = None,
    trace: Annotated[Path | None, typer.Option(help="Write the JSONL trace here.")] = None,
    baseline: Annotated[
        Path | None, typer.Option(help="A previous RUN.json: print the before/after table.")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Write the before/after Markdown here (with --baseline).")
    ] = None,
    gate: Annotated[
        bool,
        typer.Option(
            help="Exit 1 when first-call or first-repair correctness regressed beyond noise."
        ),
    ] = False,
    legacy: Annotated[
        bool, typer.Option(help="Speak only the handshake era (2025-11-25).")
    ] = False,
    server_log: Annotated[
        Path | None,
        typer.Option(help="Where a stdio server's stderr goes (default: discarded)."),
    ] = None,
    capability: Annotated[
        list[str] | None,
        typer.Option(
            help="Capabilities the target has, for workflows that require them (http-auth)."
        ),
    ] = None,
    connect_timeout: Annotated[
        float,
        typer.Option(
            min=0.1, help="Seconds the target has to answer a first tools/list (else exit 2)."
        ),
    ] = 45.0,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="text (the tables) or html (one self-contained page with charts, on stdout).",
        ),
    ] = "text",
    from_run: Annotated[
        list[Path] | None,
        typer.Option(
            "--from-run",
            help="Show a saved RUN.json (or a side by side's) instead of running (repeatable: "
            "the last is shown, all of them as a history, oldest first).",
        ),
    ] = None,
) -> None:
    """Drive an agent through workflows against a server; score every step.

    Targets: `--contract MODULE:ATTR|caselaw` (in process), `-- CMD ARGS...` (stdio) or `--url`.
    """
    if fmt not in report.FORMATS:
        raise _fail(f"--format takes one of {', '.join(report.FORMATS)}")
    console = Console(stderr=True)
    if from_run:
        given = [command, contract, url, workflows, workflow_set, out, trace]
        if any(given):
            raise _fail(
                "--from-run shows saved runs: it takes no target, workflows, --out or --trace"
            )
        try:
            saved = [(path.stem, report.load_saved(path)) for path in from_run]
        except (OSError, ValueError) as error:
            raise _fail(str(error)) from None
        if baseline is not None and report.is_side_by_side(saved[-1][1]):
            raise _fail(
                "--baseline compares runs of `drivable eval`; a side by side holds its own "
                "before (naive) and after (drivable)"
            )
        before = _baseline(baseline, gate)
        if fmt == "text":
            _print_text(saved[-1][1])
        _compare(saved, before, markdown, gate, fmt, console)
        return
    before = _baseline(baseline, gate)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target = _target(
            command or [], contract, url, bearer_token, env or [], pass_env or [], legacy
        )
        chosen = _workflows(workflows or [], workflow_set, contract, split)
    except (ValueError, LookupError, TypeError, ImportError) as error:
        raise _fail(str(error)) from None
    if not chosen:
        raise _fail("no workflows to run" + (f" in the {split} split" if split else ""))
    personas = list(persona or (list(PERSONAS) if agent == "simulated" else [""]))
    for p in personas:
        if agent == "simulated" and p not in PERSONAS:
            raise _fail(f"unknown persona {p!r}; have: {', '.join(PERSONAS)}")
    options: dict[str, Any] = {"model": model, "base_url": base_url}
    try:
        makers = {
            p: factory(agent, persona=p, **options)
            if agent == "simulated"
            else factory(agent, **options)
            for p in personas
        }
        for make in makers.values():
            make(seed)  # a missing key or extra is said now, not as a failed task later
    except (ValueError, RuntimeError) as error:
        raise _fail(str(error)) from None
    jobs = [
        Job(wf, f"{agent}:{p}" if p else agent, makers[p], trial, seed + trial)
        for wf in chosen
        for p in personas
        for trial in range(trials)
    ]
    caps = set(capability or [])
    log_file = (server_log or Path(os.devnull)).open("a", encoding="utf-8")
    target.errlog = log_file
    if target.target.kind == "in-process":
        logging.getLogger("drivable").setLevel(logging.CRITICAL)  # check_failure-style tracebacks
    # a target that never answers is said now, with its stderr, not as "completed 0%" later
    why = anyio.run(unanswered, target, connect_timeout)
    if why is not None:
        raise _fail(why)
    started = time.perf_counter()
    results: list[TrialResult] = []
    with (
        TraceWriter(trace) as writer,
        Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("trials", total=len(jobs))

        def done(res: TrialResult) -> None:
            progress.advance(task)

        async def main() -> list[TrialResult]:
            return await run_jobs(
                target,
                jobs,
                concurrency=concurrency,
                trace=writer,
                on_done=done,
                capabilities=caps,
            )

        try:
            results = anyio.run(main)
        except Exception as error:
            raise _fail(f"the run failed: {describe_error(error)}") from None
    doc = report.run_document(
        results,
        target=target.describe(),
        agent=agent,
        personas=personas,
        trials=trials,
        seed=seed,
        seconds=time.perf_counter() - started,
    )
    if fmt == "text":
        _print_text(doc)
    if out is not None:
        import json

        out.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
        console.print(f"run written to {out}")
    never = _never_answered(results)
    if never is not None:
        raise _fail(f"no trial reached the target: {never}")
    _compare(
        [(out.stem if out is not None else "this run", doc)], before, markdown, gate, fmt, console
    )


def _print_text(doc: dict[str, Any]) -> None:
    if report.is_side_by_side(doc):
        from drivable.eval.sidebyside import markdown

        typer.echo(markdown(doc))
    else:
        report.print_run(doc, report.wide_console())


def _baseline(baseline: Path | None, gate: bool) -> dict[str, Any] | None:
    """The --baseline run, read before any work is done; --gate needs one."""
    if baseline is None:
        if gate:
            raise _fail("--gate needs --baseline RUN.json")
        return None
    try:
        return report.load_run(baseline)
    except (OSError, ValueError) as error:
        raise _fail(str(error)) from None


def _compare(
    runs: list[tuple[str, dict[str, Any]]],
    before: dict[str, Any] | None,
    markdown: Path | None,
    gate: bool,
    fmt: str,
    console: Console,
) -> None:
    """The last run against the baseline (the table, the gate), and the page when --format html."""
    doc = runs[-1][1]
    if fmt == "html":
        from drivable.eval.html import render_html

        sys.stdout.write(render_html(runs, before))
    if before is None:
        return
    table = report.markdown_before_after(before, doc)
    if fmt == "text":
        typer.echo("")
        typer.echo(table)
    if markdown is not None:
        markdown.write_text(table + "\n", encoding="utf-8")
    found = report.regressions(before, doc)
    for line in found:
        console.print(f"[red]regressed[/]: {line}")
    if gate and found:
        raise typer.Exit(EXIT_REGRESSED)


def _target(
    command: list[str],
    contract: str | None,
    url: str | None,
    bearer_token: str | None,
    env: list[str],
    pass_env: list[str],
    legacy: bool,
) -> EvalTarget:
    given = sum(1 for x in (bool(command), url is not None) if x)
    if given > 1 or (given == 0 and contract is None):
        raise ValueError("name exactly one target: --contract MODULE:ATTR, --url URL or -- CMD")
    mode: Any = "legacy" if legacy else None
    loaded = None
    if contract is not None:
        from drivable.serve.http import load_contract
        from drivable.servers import import_path

        loaded = load_contract(import_path(contract))
    if loaded is not None and given == 0:
        from drivable.serve.mount import build_server

        # in process, serialized: JSON-RPC messages over memory streams, as a client sends them
        return EvalTarget(
            Target(server=build_server(loaded), mode="legacy"),
            contract=loaded,
            mode="legacy",
            label=contract or "",
        )
    t = Target.from_cli(
        command, url=url, env_pairs=env, pass_env=pass_env, bearer_token=bearer_token
    )
    # with --contract too, the wire is the command or URL and the judging uses the contract
    return EvalTarget(t, contract=loaded, mode=mode, label=url or " ".join(command))


def _never_answered(results: list[TrialResult]) -> str | None:
    """The connect error, when every trial that ran failed to reach the target (an HTTP refusal
    is an answer)."""
    ran = [r for r in results if r.skipped is None]
    errors = [r.verdict.get("connect_error") for r in ran]
    refused = [r for r in ran if (r.verdict.get("http_refusal") or {}).get("status")]
    if ran and all(errors) and not refused:
        return str(errors[0])
    return None


def _workflows(
    paths: list[Path], workflow_set: str | None, contract: str | None, split: str | None = None
) -> list[Workflow]:
    if split is not None and split not in SPLITS:
        raise ValueError(f"--split takes {' or '.join(SPLITS)}, not {split!r}")
    # a workflow file in a tune/ or holdout/ folder belongs to that split
    found = [
        w
        if w.split is not None or p.parent.name not in SPLITS
        else w.model_copy(update={"split": p.parent.name})
        for p, w in _with_paths(paths)
    ]
    if workflow_set is not None:
        found += bundled(workflow_set)
    elif not found:
        name = (contract or "").strip().casefold()
        if name in bundled_sets():
            found = bundled(name)
        else:
            raise ValueError(
                f"name workflows with --workflow or --set ({', '.join(bundled_sets())})"
            )
    return [w for w in found if split is None or w.split == split]


def _with_paths(paths: list[Path]) -> list[tuple[Path, Workflow]]:
    files = [
        f
        for raw in paths
        for f in (sorted([*raw.glob("*.yaml"), *raw.glob("*.yml")]) if raw.is_dir() else [raw])
    ]
    return [(f, load(f)) for f in files]


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
