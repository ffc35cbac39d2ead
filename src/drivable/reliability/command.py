"""`drivable reliability run|canary`: the campaign, and the canary in a fresh process."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from drivable import settings

reliability_app = typer.Typer(
    name="reliability",
    help="Fuzz, load, faults, access and canary checks against real served processes on loopback.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@reliability_app.command("run")
def run_command(
    tier: Annotated[
        str, typer.Option(help="short (CI, minutes) or full (the slow tier).")
    ] = "short",
    out: Annotated[Path | None, typer.Option(help="Write the Markdown report here.")] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the raw results here.")
    ] = None,
    server: Annotated[
        list[str] | None,
        typer.Option(help="Fuzz these servers (default: reference servers and the probe)."),
    ] = None,
    part: Annotated[
        list[str] | None,
        typer.Option(
            help="Run only these parts (fuzz, load, reads, soak, faults, access, canary); the "
            "page says which were left out."
        ),
    ] = None,
) -> None:
    """Run every campaign at TIER; exit 1 when a promise was broken."""
    _needs_extra()
    from drivable.reliability.campaign import PARTS, TIERS, run_campaign
    from drivable.reliability.report import render

    if tier not in TIERS:
        typer.echo(f"unknown tier {tier!r}: one of {', '.join(TIERS)}", err=True)
        raise typer.Exit(2)

    def say(text: str) -> None:
        typer.echo(f"reliability: {text}", err=True)

    unknown = [p for p in part or () if p not in PARTS]
    if unknown:
        typer.echo(f"unknown part(s) {', '.join(unknown)}: of {', '.join(PARTS)}", err=True)
        raise typer.Exit(2)
    parts = tuple(part) if part else PARTS
    results = anyio.run(
        lambda: run_campaign(TIERS[tier], servers=server or None, say=say, parts=parts)
    )
    data = results.to_dict()
    data["passed"] = results.passed
    chosen = "".join(f" --server {name}" for name in server or ())
    chosen += "".join(f" --part {name}" for name in part or ())
    data["command"] = f"drivable reliability run --tier {tier}{chosen}"
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    page = render(data)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page)
        say(f"wrote {out}")
    else:
        typer.echo(page)
    raise typer.Exit(0 if results.passed else 1)


@reliability_app.command("fuzz")
def fuzz_command(
    target: Annotated[
        str,
        typer.Argument(
            help="A reference server (caselaw, billing), a contract MODULE:ATTR (served on "
            "loopback with --insecure), cmd:COMMAND (a stdio server, any language), or an "
            "http:// URL of a running server."
        ),
    ],
    calls: Annotated[
        int, typer.Option(min=1, help="Fuzzed calls in all (split over the legs).")
    ] = 1000,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the result here.")] = None,
) -> None:
    """Fuzz one server over every store, era and transport it runs in; exit 1 on a broken promise."""
    from drivable.reliability.campaign import fuzz_server

    _needs_extra()
    with tempfile.TemporaryDirectory(prefix="drivable-fuzz-") as tmp:
        data = anyio.run(lambda: fuzz_server(target, calls, Path(tmp)))
    broken = {
        k: data.get(k, 0)
        for k in ("internal_errors", "leaks", "unnamed_fields", "malformed_envelopes", "no_answer",
                  "liveness_failures", "canary_in_log")
        if data.get(k, 0)
    }  # fmt: skip
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if json_out is not None:
        json_out.write_text(text + "\n")
    else:
        typer.echo(text)
    typer.echo(f"reliability: {data.get('calls', 0)} calls, broken: {broken or 'none'}", err=True)
    raise typer.Exit(1 if broken else 0)


def _needs_extra() -> None:
    """The campaigns need hypothesis and the OpenTelemetry SDK: say how to get them."""
    import importlib.util

    missing = [
        m for m in ("hypothesis", "opentelemetry.sdk") if importlib.util.find_spec(m) is None
    ]
    if missing:
        typer.echo(
            f"reliability needs {', '.join(missing)}: pip install 'drivable[reliability]'", err=True
        )
        raise typer.Exit(2)


@reliability_app.command("render")
def render_command(
    json_in: Annotated[Path, typer.Option("--json", help="Results a run wrote with --json.")],
    out: Annotated[Path, typer.Option(help="Write the Markdown report here.")],
) -> None:
    """Regenerate the Markdown report from a run's results (no new measurement)."""
    from drivable.reliability.report import render

    out.write_text(render(json.loads(json_in.read_text())))
    typer.echo(f"reliability: wrote {out}", err=True)


@reliability_app.command("canary")
def canary_command(
    calls: Annotated[int, typer.Option(min=1, help="Fuzzed calls per server.")] = 100,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the result here.")] = None,
) -> None:
    """Fuzz caselaw, billing and the probe in process with a canary in every argument (and every
    error path: NUL, lone surrogates, overflow, nesting, size); exit 1 if it shows."""
    from drivable.contract import Contract
    from drivable.reliability import probe
    from drivable.reliability.canary import canary_campaign
    from drivable.servers.caselaw.server import contract as caselaw

    with tempfile.TemporaryDirectory(prefix="drivable-canary-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'probe.sqlite'}"
        probe.prepare_store(url)
        settings.RELIABILITY_STORE.hand_down(url)
        settings.hand_down("store", f"sqlite:///{Path(tmp) / 'billing.sqlite'}")
        from drivable.servers.billing.server import contract as billing

        contracts: list[tuple[str, Contract, tuple[str, dict[str, Any]]]] = [
            ("caselaw", caselaw, ("list_courts", {})),
            ("billing", billing, ("list_customers", {})),
            ("probe", probe.make(), ("check_alive", {})),
        ]
        report = anyio.run(lambda: canary_campaign(contracts, calls_per_server=calls))
    data = report.to_dict()
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if json_out is not None:
        json_out.write_text(text + "\n")
    else:
        typer.echo(text)
    raise typer.Exit(0 if report.passed else 1)


def register(app: typer.Typer) -> None:
    app.add_typer(reliability_app, name="reliability")


if __name__ == "__main__":
    reliability_app()
