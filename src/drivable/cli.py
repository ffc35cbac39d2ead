"""The `drivable` command line: one sub-command group per capability, each registered by its owner."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="drivable",
    help="Make MCP servers drivable by language models, and measure that they are.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Make MCP servers drivable by language models, and measure that they are."""


def _register_all() -> None:
    # Each capability owns its commands in its own package (`<package>/command.py`).
    import drivable.kinds.command as kinds_command

    kinds_command.register(app)
    import drivable.contract.command as contract_command

    contract_command.register(app)
    import drivable.audit.command as audit_command

    audit_command.register(app)
    import drivable.surface.command as surface_command

    surface_command.register(app)
    import drivable.serve.command as serve_command

    serve_command.register(app)
    import drivable.servers.caselaw.command as caselaw_command

    caselaw_command.register(app)
    import drivable.eval.command as eval_command

    eval_command.register(app)
    import drivable.reliability.command as reliability_command

    reliability_command.register(app)


_register_all()


def main() -> None:
    app()
