"""`drivable ci`: one audit (and optionally one eval) of a server, the reports, and one gate."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from drivable import settings
from drivable.audit.config import ConfigError, load_config
from drivable.audit.model import CoverageRow, Finding, Report
from drivable.audit.report import render as render_report
from drivable.audit.report.sarif import server_label
from drivable.ci import github
from drivable.ci.summary import COMMENT_LIMIT, SUMMARY_LIMIT, marker
from drivable.ci.summary import render as render_summary
from drivable.ci.verdict import FAIL_ON, Verdict

EXIT_PASSED, EXIT_FAILED, EXIT_CANNOT_RUN = 0, 1, 2


def _fail(message: str) -> typer.Exit:
    typer.echo(f"drivable ci: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def _run(argv: list[str]) -> int:
    """A drivable command in this process, as its command line would run it."""
    from drivable.cli import run

    return run(argv)


def _report(data: Mapping[str, Any], snapshot: Path) -> Report:
    """The audit's JSON report back as a Report, pointing at the snapshot the audit wrote."""
    return Report(
        target=dict(data["target"]),
        findings=[Finding(**f) for f in data["findings"]],
        coverage=[CoverageRow(**c) for c in data["coverage"]],
        artifact=str(snapshot),
    )


def _links(environ: Mapping[str, str]) -> dict[str, str]:
    server, repository, run_id = (
        environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    if not (server and repository and run_id):
        return {}
    return {
        "the run": f"{server}/{repository}/actions/runs/{run_id}",
        "code scanning": f"{server}/{repository}/security/code-scanning?query=tool%3Adrivable-audit",
    }


def _comment(body: str, key: str, environ: Mapping[str, str]) -> str:
    """Post or update the pull request's comment; say what happened (never fails the run)."""
    number = github.pull_request_number(environ.get("GITHUB_EVENT_PATH"))
    token, repository = environ.get("GITHUB_TOKEN"), environ.get("GITHUB_REPOSITORY")
    if number is None:
        return "not a pull request: no comment"
    if not token or not repository:
        return "no GITHUB_TOKEN or GITHUB_REPOSITORY: no comment"
    try:
        done = github.upsert_comment(
            api=environ.get("GITHUB_API_URL", "https://api.github.com"),
            repository=repository,
            number=number,
            token=token,
            body=body,
            marker=marker(key),
        )
    except github.CommentFailed as error:
        # a fork's pull request gets a read-only token: the summary and the gate still stand
        return f"::warning title=drivable ci::could not comment on #{number} ({error})"
    return f"comment {done} on #{number}"


def ci(
    server_command: Annotated[
        list[str] | None,
        typer.Argument(metavar="[-- CMD ARGS...]", help="A stdio server command, after `--`."),
    ] = None,
    url: Annotated[str | None, typer.Option(help="A streamable HTTP endpoint.")] = None,
    contract: Annotated[
        str | None,
        typer.Option(
            help="MODULE:ATTR or FILE.py:ATTR of a drivable Contract: audited as `drivable serve` "
            "serves it, evaluated in process."
        ),
    ] = None,
    env: Annotated[
        list[str] | None, typer.Option("--env", help="KEY=VALUE for the stdio server (repeatable).")
    ] = None,
    fail_on: Annotated[
        str,
        typer.Option(
            help=f"Fail on a finding at least this severe: {', '.join(FAIL_ON)} (default: "
            "fail-on in [tool.drivable.audit], else major).",
            show_default=False,
        ),
    ] = "",
    audit_args: Annotated[
        str, typer.Option(help="More options for `drivable audit`, as one shell-quoted string.")
    ] = "",
    eval_set: Annotated[
        str | None, typer.Option(help="Also evaluate: a bundled workflow set.")
    ] = None,
    eval_workflow: Annotated[
        list[Path] | None,
        typer.Option(help="Also evaluate: a workflow YAML file or folder (repeatable)."),
    ] = None,
    persona: Annotated[
        list[str] | None,
        typer.Option(help="Simulated persona of the eval (repeatable; default all)."),
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Eval trials per workflow and persona.")] = 3,
    min_completion: Annotated[
        float | None,
        typer.Option(
            min=0.0, max=1.0, help="Fail when the eval completes a smaller share of its trials."
        ),
    ] = None,
    out_dir: Annotated[
        Path,
        typer.Option(
            help="Where the reports go; keep it inside the checkout (SARIF points at files by "
            "their path from the working directory)."
        ),
    ] = Path(".drivable"),
    name: Annotated[
        str | None,
        typer.Option(help="This server's name in the summary and comment (default: its own)."),
    ] = None,
    summary: Annotated[
        Path | None,
        typer.Option(envvar="GITHUB_STEP_SUMMARY", help="Append the Markdown summary here."),
    ] = None,
    github_output: Annotated[
        Path | None,
        typer.Option(envvar="GITHUB_OUTPUT", help="Append step outputs (key=value) here."),
    ] = None,
    comment: Annotated[
        bool,
        typer.Option(
            help="Post the summary as one pull-request comment, updated in place (needs "
            "GITHUB_TOKEN and a pull_request event)."
        ),
    ] = False,
    fail: Annotated[
        bool,
        typer.Option(help="Exit 1 when the gate fails (off: say so in the outputs only)."),
    ] = True,
) -> None:
    """Audit a server for CI, and optionally evaluate it: SARIF, Markdown, step outputs, one gate.

    Exit 0: the gate passed; 1: it failed; 2: the audit or the eval could not run.
    """
    environ = settings.environment()
    # read once and kept from the code this run imports (a contract evaluated in process)
    settings.withdraw("GITHUB_TOKEN")
    given = sum(1 for x in (server_command, url, contract) if x)
    if given != 1:
        raise _fail("give exactly one target: `-- CMD ARGS...`, --url URL, or --contract PATH")
    try:
        fail_on = fail_on or load_config().fail_on or "major"
        options = shlex.split(audit_args)
    except (ConfigError, ValueError) as error:
        raise _fail(str(error)) from None
    if fail_on not in FAIL_ON:
        raise _fail(f"--fail-on takes one of {', '.join(FAIL_ON)}")
    evaluate = bool(eval_set or eval_workflow)
    if min_completion is not None and not evaluate:
        raise _fail("--min-completion needs an eval: --eval-set or --eval-workflow")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        k: out_dir / f
        for k, f in {
            "report": "audit.json",
            "snapshot": "audit.surface.json",
            "sarif": "audit.sarif",
            "audit-markdown": "audit.md",
            "markdown": "summary.md",
            "eval": "eval.json",
        }.items()
    }
    envs = [a for pair in env or [] for a in ("--env", pair)]
    if contract:
        stdio = [sys.executable, "-m", "drivable", "serve", contract]
    else:
        stdio = list(server_command or [])
    target = ["--url", url] if url else ["--", *stdio]
    severity = ["--fail-on", fail_on] if fail_on != "none" else []
    status = _run(
        [
            *("audit", "--format", "json", "--output", str(paths["report"])),
            *("--snapshot", str(paths["snapshot"]), *severity, *envs, *options, *target),
        ]
    )
    if status == EXIT_CANNOT_RUN:
        raise _fail("the audit could not run (its reason is above)")
    data = json.loads(paths["report"].read_text(encoding="utf-8"))
    report = _report(data, paths["snapshot"])
    paths["sarif"].write_text(render_report(report, "sarif") + "\n", encoding="utf-8")
    audit_markdown = render_report(report, "markdown")
    paths["audit-markdown"].write_text(audit_markdown, encoding="utf-8")
    run = None
    if evaluate:
        chosen = [*(["--set", eval_set] if eval_set else [])] + [
            a for w in eval_workflow or [] for a in ("--workflow", str(w))
        ]
        who = [a for p in persona or [] for a in ("--persona", p)]
        where = ["--contract", contract] if contract else [*envs, *target]
        status = _run(
            [
                *("eval", "--agent", "simulated", "--trials", str(trials)),
                *("--out", str(paths["eval"]), *chosen, *who, *where),
            ]
        )
        if status == EXIT_CANNOT_RUN:
            raise _fail("the eval could not run (its reason is above)")
        from drivable.eval.report import load_run

        run = load_run(paths["eval"])
    verdict = Verdict(data, fail_on, run, min_completion)
    key = name or server_label(report)
    links = _links(environ)

    def text(limit: int) -> str:
        return render_summary(
            verdict, name=key, audit_markdown=audit_markdown, links=links, limit=limit
        )

    paths["markdown"].write_text(text(SUMMARY_LIMIT), encoding="utf-8")
    if summary is not None:
        github.append_summary(summary, text(SUMMARY_LIMIT))
    if comment:
        typer.echo(_comment(text(COMMENT_LIMIT), key, environ), err=True)
    if github_output is not None:
        github.write_outputs(
            github_output,
            {
                **{k: str(paths[k]) for k in ("sarif", "markdown", "report", "snapshot")},
                "eval": str(paths["eval"]) if run is not None else "",
                "findings": str(len(verdict.findings)),
                "failing": str(len(verdict.failing)),
                "completion": (
                    f"{float(verdict.completion):.4f}" if verdict.completion is not None else ""
                ),
                "passed": "true" if verdict.passed else "false",
                "reason": "; ".join(verdict.reasons),
            },
        )
    said = "; ".join(verdict.reasons) or f"{len(verdict.findings)} findings, none failing"
    typer.echo(f"drivable ci: {'passed' if verdict.passed else 'failed'}: {said}", err=True)
    raise typer.Exit(EXIT_FAILED if fail and not verdict.passed else EXIT_PASSED)


def register(app: typer.Typer) -> None:
    app.command("ci", context_settings={"allow_interspersed_args": False})(ci)
