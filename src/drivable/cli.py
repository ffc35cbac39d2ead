"""The `drivable` command line: one sub-command group per capability, each registered by its owner."""

from __future__ import annotations

import importlib

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


# Each capability owns its commands in its own package and registers them here, in help order.
COMMAND_MODULES = (
    "drivable.demo",
    "drivable.audit.command",
    "drivable.eval.command",
    "drivable.surface.command",
    "drivable.serve.command",
    "drivable.servers.caselaw.command",
    "drivable.reliability.command",
    "drivable.kinds.command",
    "drivable.contract.command",
)


def _register_all() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_all()


def main() -> None:
    app()
