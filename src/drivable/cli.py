"""The `drivable` command line: one sub-command group per capability, each registered by its owner."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="drivable",
    help="Make MCP servers drivable by language models, and measure that they are.",
    no_args_is_help=True,
    add_completion=False,
)


def _register_all() -> None:
    # Each capability owns its commands in its own package (`<package>/command.py`).
    from drivable.kinds import command as kinds_command

    kinds_command.register(app)


_register_all()


def main() -> None:
    app()
