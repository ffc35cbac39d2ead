"""`drivable audit` and `drivable rules`."""

from __future__ import annotations

import json
import logging
import shutil
import sys
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console
from rich.table import Table

from drivable.audit.baseline import BaselineError, apply_baseline, write_baseline
from drivable.audit.config import ConfigError, load_config
from drivable.audit.model import SEVERITIES, at_least
from drivable.audit.report import FORMATS, render
from drivable.audit.report.sarif import write_snapshot
from drivable.audit.rules import all_rules, get
from drivable.audit.rules.docs import render_rules_markdown
from drivable.audit.runner import AuditCannotRun, AuditOptions, audit_file, audit_target
from drivable.options import BearerToken, Env, PassEnv, ServerCommand, Url
from drivable.target import Target

EXIT_CLEAN, EXIT_FOUND, EXIT_CANNOT_RUN = 0, 1, 2


def _fail(message: str) -> typer.Exit:
    typer.echo(f"drivable audit: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def audit(
    server_command: ServerCommand = None,
    url: Url = None,
    bearer_token: BearerToken = None,
    env: Env = None,
    pass_env: PassEnv = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from-file", help="An offline tools/list dump: static rules only."),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="auto (text on a terminal, else json), " + ", ".join(FORMATS)
        ),
    ] = "auto",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.")
    ] = None,
    fail_on: Annotated[
        str,
        typer.Option(
            help="Exit 1 when a finding is at least this severe: "
            + ", ".join(SEVERITIES)
            + " (default: fail-on in [tool.drivable.audit], else major)",
            show_default=False,
        ),
    ] = "",
    baseline: Annotated[
        Path | None,
        typer.Option(help="Leave out findings accepted in this baseline file."),
    ] = None,
    write_baseline_to: Annotated[
        Path | None,
        typer.Option("--write-baseline", help="Accept every current finding into this file."),
    ] = None,
    snapshot: Annotated[
        Path | None,
        typer.Option(
            help="Write the collected surface here (SARIF points into it; default for SARIF: "
            "beside --output, or ./drivable-audit.surface.json)."
        ),
    ] = None,
    allow_writes: Annotated[
        bool, typer.Option(help="Also probe tools annotated or named as mutating.")
    ] = False,
    allow_network: Annotated[
        bool,
        typer.Option(help="Also probe open-world tools (openWorldHint, URL parameters)."),
    ] = False,
    probes: Annotated[bool, typer.Option(help="Run the dynamic probes (off: static only).")] = True,
    legacy: Annotated[
        bool, typer.Option(help="Speak only the handshake era (2025-11-25).")
    ] = False,
    other_era: Annotated[
        bool,
        typer.Option(
            help="Also speak the other era in a second connection (off for servers that cannot "
            "run twice at once)."
        ),
    ] = True,
    timeout: Annotated[float, typer.Option(help="Seconds per probe call.")] = 10.0,
    max_probe_tools: Annotated[int, typer.Option(help="Probe at most this many tools.")] = 50,
) -> None:
    """Audit an MCP server against the agent-friendly checklist (static rules and probe calls).

    Exit 0: nothing at or above --fail-on; 1: something was; 2: the audit could not run.
    """
    try:
        config = load_config()
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    fail_on = fail_on or config.fail_on or "major"
    if fail_on not in SEVERITIES:
        raise _fail(f"--fail-on takes one of {', '.join(SEVERITIES)}")
    if fmt not in (*FORMATS, "auto"):
        raise _fail(f"--format takes one of auto, {', '.join(FORMATS)}")
    # The SDK logs unparseable server lines with a traceback; the report carries them as evidence.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    chosen = ("text" if sys.stdout.isatty() else "json") if fmt == "auto" else fmt
    given = sum(1 for x in (server_command, url, from_file) if x)
    if given != 1:
        raise _fail("give exactly one target: `-- CMD ARGS...`, --url URL, or --from-file FILE")
    try:
        if from_file is not None:
            report = audit_file(from_file)
        else:
            target = Target.from_cli(
                server_command or (),
                url=url,
                env_pairs=env or (),
                pass_env=pass_env or (),
                bearer_token=bearer_token,
                mode="legacy" if legacy else "auto",
            )
            options = AuditOptions(
                allow_writes=allow_writes,
                allow_network=allow_network,
                timeout=timeout,
                max_probe_tools=max_probe_tools,
                probes=probes,
                other_era=other_era and not legacy,
            )
            err = Console(stderr=True)
            if err.is_terminal:
                with err.status("auditing") as status:
                    report = anyio.run(lambda: audit_target(target, options, status.update))
            else:
                report = anyio.run(lambda: audit_target(target, options))
    except AuditCannotRun as exc:
        raise _fail(str(exc)) from None
    except ValueError as exc:
        raise _fail(str(exc)) from None
    report.findings = config.filter(report.findings)
    accepted = 0
    baseline = baseline or (Path(config.baseline) if config.baseline else None)
    try:
        if write_baseline_to is not None:
            write_baseline(write_baseline_to, report.findings)
        elif baseline is not None:
            report.findings, accepted = apply_baseline(baseline, report.findings)
    except (BaselineError, OSError) as exc:
        raise _fail(str(exc)) from None
    if accepted:
        report.target["baseline"] = {
            "path": baseline.name if baseline else "",
            "accepted": accepted,
        }
    if snapshot is None and chosen == "sarif" and report.artifact is None:
        snapshot = (
            output.with_name(output.stem + ".surface.json")
            if output
            else Path("drivable-audit.surface.json")
        )
    if snapshot is not None:
        write_snapshot(report, snapshot)
    # COLUMNS first, then the terminal; piped output keeps 120 columns
    columns = shutil.get_terminal_size((120, 24)).columns
    text = render(report, chosen, color=output is None and sys.stdout.isatty(), width=columns)
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    failing = [f for f in report.findings if at_least(f.severity, fail_on)]
    raise typer.Exit(EXIT_FOUND if failing else EXIT_CLEAN)


def rules(
    rule_id: Annotated[
        str | None, typer.Argument(help="Explain one rule, e.g. 3.closed-schemas.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or markdown")] = "text",
    automated: Annotated[bool, typer.Option(help="Only the rules drivable checks.")] = False,
) -> None:
    """List every rule, or explain one: what it checks, why it matters to a model, an example, the fix."""
    if rule_id is not None:
        rule = get(rule_id)
        if rule is None:
            typer.echo(
                f"drivable rules: no rule {rule_id!r}; run `drivable rules` for the list", err=True
            )
            raise typer.Exit(EXIT_CANNOT_RUN)
        data = {
            "id": rule.id,
            "section": rule.section,
            "requirement": rule.requirement,
            "check_key": rule.check_key,
            "severity": rule.severity,
            "how": rule.how,
            "levels": [{"severity": sev, "when": why} for sev, why in rule.levels],
            "question": rule.question,
        }
        if rule.doc:
            data.update(
                what=rule.doc.what, why=rule.doc.why, example=rule.doc.example, fix=rule.doc.fix
            )
        if fmt == "json":
            typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
            return
        lines = [
            f"{rule.id}  ({'§' + str(rule.section) if rule.section else 'drivable'}, default severity "
            f"{rule.severity}, checked: {rule.how}, checklist key {rule.check_key})",
            "",
            f"Requirement: {rule.requirement}",
        ]
        if rule.doc:
            lines += [
                "",
                f"What drivable checks: {rule.doc.what}",
                "",
                f"Why it matters to a model: {rule.doc.why}",
                "",
                f"Example: {rule.doc.example}",
                "",
                f"Fix: {rule.doc.fix}",
                *[f"\n{sev.capitalize()} when {why}." for sev, why in rule.doc.levels],
            ]
        else:
            lines += [
                "",
                "drivable does not check this rule automatically: it needs human judgement.",
                "",
                f"Reviewer's question: {rule.question}",
            ]
        typer.echo("\n".join(lines))
        return
    if fmt == "markdown":
        sys.stdout.write(render_rules_markdown())
        return
    selected = [r for r in all_rules() if r.doc or not automated]
    if fmt == "json":
        typer.echo(
            json.dumps(
                [
                    {"id": r.id, "severity": r.severity, "how": r.how, "requirement": r.requirement}
                    for r in selected
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    table = Table(title=f"{len(selected)} rules", expand=True)
    for col in ("id", "severity", "checked", "requirement"):
        table.add_column(col, no_wrap=col != "requirement")
    for r in selected:
        table.add_row(r.id, r.severity if r.doc else "-", r.how, r.requirement)
    Console(width=140 if not sys.stdout.isatty() else None).print(table)


def register(app: typer.Typer) -> None:
    app.command(
        "audit",
        context_settings={"allow_interspersed_args": False},
    )(audit)
    app.command("rules")(rules)
