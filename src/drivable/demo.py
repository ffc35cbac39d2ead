"""`drivable demo`: the main job. Serve the caselaw reference server, audit it, evaluate it.

Each part runs as the user would run it, over the real wire: the audit and the eval each start
`python -m drivable.servers.caselaw` over stdio with the official SDK client. The eval uses the
offline default agent (the simulated personas), so the demo needs no key and no network.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console
from rich.table import Table

SERVER = [sys.executable, "-m", "drivable.servers.caselaw"]


def _drivable(*args: str) -> list[str]:
    return [sys.executable, "-m", "drivable", *args]


def _run(console: Console, title: str, command: list[str]) -> tuple[int, float]:
    console.rule(f"[bold]{title}")
    console.print("$ " + " ".join(Path(c).name if i == 0 else c for i, c in enumerate(command)))
    started = time.monotonic()
    code = subprocess.call(command)
    return code, time.monotonic() - started


def _audit(console: Console, keep: Path) -> tuple[int, float]:
    """The audit as `drivable audit -- python -m drivable.servers.caselaw` runs it."""
    from drivable.audit.model import at_least
    from drivable.audit.report import render
    from drivable.audit.runner import AuditCannotRun, AuditOptions, audit_target
    from drivable.target import Target

    console.rule("[bold]1. Audit (static rules and probe calls, both protocol eras)")
    console.print("$ drivable audit -- python -m drivable.servers.caselaw")
    started = time.monotonic()
    try:
        report = anyio.run(audit_target, Target(command=tuple(SERVER)), AuditOptions())
    except AuditCannotRun as exc:
        console.print(f"[red]the audit could not run: {exc}")
        return 2, time.monotonic() - started
    console.print(render(report, "text", color=console.is_terminal, width=console.width))
    keep.write_text(render(report, "json"), encoding="utf-8")
    failing = [f for f in report.findings if at_least(f.severity, "major")]
    return (1 if failing else 0), time.monotonic() - started


def demo_command(
    trials: Annotated[int, typer.Option(help="Trials per workflow and persona.")] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", help="Keep the audit and eval JSON here.")
    ] = None,
) -> None:
    """Serve caselaw, audit it against the checklist, and evaluate it with simulated agents."""
    console = Console()
    folder = out or Path(tempfile.mkdtemp(prefix="drivable-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    audit_json = folder / "audit.json"
    eval_json = folder / "eval.json"

    console.rule("[bold]drivable demo: the caselaw reference server")
    console.print(
        "The first start builds 5,000 generated court decisions into a local SQLite file "
        "(a few seconds, once)."
    )
    build = subprocess.run(
        [sys.executable, "-c", "from drivable.servers.caselaw.store import Store; Store.open()"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        console.print("[yellow]Could not prebuild the data; the server will build it on start.")

    audit_code, audit_s = _audit(console, audit_json)
    eval_code, eval_s = _run(
        console,
        "2. Eval (bundled caselaw workflows, simulated personas, over stdio)",
        _drivable(
            "eval",
            "--set",
            "caselaw",
            "--contract",
            "caselaw",
            "--trials",
            str(trials),
            "--out",
            str(eval_json),
            "--",
            *SERVER,
        ),
    )
    _summary(console, audit_json, audit_code, audit_s, eval_json, eval_code, eval_s, folder)
    if audit_code == 2 or eval_code not in (0, 1):
        raise typer.Exit(1)


def _summary(
    console: Console,
    audit_json: Path,
    audit_code: int,
    audit_s: float,
    eval_json: Path,
    eval_code: int,
    eval_s: float,
    folder: Path,
) -> None:
    console.rule("[bold]Summary")
    table = Table(show_header=True)
    table.add_column("part")
    table.add_column("result")
    table.add_column("time")
    if audit_json.exists():
        report = json.loads(audit_json.read_text(encoding="utf-8"))
        counts: dict[str, int] = {}
        for finding in report.get("findings", []):
            counts[finding["severity"]] = counts.get(finding["severity"], 0) + 1
        text = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("critical", "major", "minor", "nit"))
        table.add_row("audit", f"{text} (exit {audit_code})", f"{audit_s:.0f} s")
    else:
        table.add_row("audit", f"did not run (exit {audit_code})", f"{audit_s:.0f} s")
    if eval_json.exists():
        run = json.loads(eval_json.read_text(encoding="utf-8"))
        overall = run.get("summary", {}).get("overall", {})
        table.add_row("eval", _overall(overall) + f" (exit {eval_code})", f"{eval_s:.0f} s")
    else:
        table.add_row("eval", f"did not run (exit {eval_code})", f"{eval_s:.0f} s")
    console.print(table)
    console.print(f"Reports: {folder}")


def _overall(overall: dict[str, object]) -> str:
    parts = []
    for key in ("completed", "first_call", "first_repair", "errors_naming_next_call"):
        value = overall.get(key)
        if isinstance(value, dict) and value.get("rate") is not None:
            parts.append(f"{key.replace('_', ' ')} {float(value['rate']):.0%}")
    return "; ".join(parts) or "see the tables above"


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_command)
