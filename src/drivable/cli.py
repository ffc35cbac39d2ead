"""The `drivable` command line: a small dispatcher that imports only the command it runs.

Each capability owns its commands in its own module (`register(app)` adds them to a Typer app);
`COMMANDS` names the module and the one-line help of each, so `drivable --help` and
`drivable --version` import nothing but this module, and `drivable read` imports the kinds only
(a test keeps the table in step with the commands' own help). Every failure is one line on
stderr and exit 2; usage errors name the command's `--help`. DRIVABLE_DEBUG=1 shows the traceback
of an unexpected failure instead.
"""

from __future__ import annotations

import sys

# `typing`, `difflib` and `collections.abc` are imported by no line `--help` runs: with them, `re`,
# `enum` and `functools` came along, a third of the start-up above the bare interpreter's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import typer

PROG = "drivable"
HELP = "Make MCP servers drivable by language models, and measure that they are."
HELP_OPTIONS = ["-h", "--help"]


class Command:
    """One command: its name, the module that registers it, its one-line help."""

    __slots__ = ("help", "module", "name")

    def __init__(self, name: str, module: str, help: str) -> None:
        self.name, self.module, self.help = name, module, help

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.module!r})"


# In help order. `help` is the first line of the command's own docstring (checked by a test).
COMMANDS: tuple[Command, ...] = (
    Command(
        "demo",
        "drivable.demo",
        "Serve caselaw, audit it against the checklist, and evaluate it with simulated agents.",
    ),
    Command(
        "audit",
        "drivable.audit.command",
        "Audit an MCP server against the agent-friendly checklist (static rules and probe calls).",
    ),
    Command(
        "rules",
        "drivable.audit.command",
        "List every rule, or explain one: what it checks, why it matters to a model, an "
        "example, the fix.",
    ),
    Command(
        "eval",
        "drivable.eval.command",
        "Drive an agent through workflows against a server; score every step.",
    ),
    Command(
        "ci",
        "drivable.ci.command",
        "Audit a server for CI, and optionally evaluate it: SARIF, Markdown, step outputs, one "
        "gate.",
    ),
    Command(
        "snapshot",
        "drivable.surface.command",
        "Write the canonical, sorted JSON of everything an agent sees of a server.",
    ),
    Command(
        "diff",
        "drivable.surface.command",
        "Classify every change from OLD to NEW: breaking, routing, additive, cosmetic.",
    ),
    Command(
        "serve",
        "drivable.serve.command",
        "Serve the contract at MODULE:ATTR over stdio (default) or streamable HTTP at /mcp.",
    ),
    Command(
        "wrap",
        "drivable.wrap.command",
        "Serve an MCP server's tools through drivable's contract (stdio, or HTTP with --http).",
    ),
    Command(
        "import-decisions",
        "drivable.servers.caselaw.command",
        "Import court decisions from JSONL into a caselaw database; report bad lines by number.",
    ),
    Command("read", "drivable.kinds.command", "Print what drivable makes of VALUE read as KIND."),
    Command(
        "codes",
        "drivable.contract.command",
        "List every code drivable servers emit, or explain one.",
    ),
    Command(
        "reliability",
        "drivable.reliability.command",
        "Fuzz, load, faults, access and canary checks against real served processes on loopback.",
    ),
)
_BY_NAME = {c.name: c for c in COMMANDS}


def version() -> str:
    from drivable import __version__

    return __version__


def usage() -> str:
    width = max(len(c.name) for c in COMMANDS)
    lines = [
        f"Usage: {PROG} [-h] [-V] COMMAND [ARGS]...",
        "",
        HELP,
        "",
        "Commands:",
        *(f"  {c.name:<{width}}  {c.help}" for c in COMMANDS),
        "",
        "Options:",
        "  -h, --help     Show this message and exit.",
        "  -V, --version  Print the version and exit.",
        "",
        f"`{PROG} COMMAND -h` describes a command. Settings: docs/settings.md.",
    ]
    return "\n".join(lines)


def fail(message: str, *, command: str | None = None) -> int:
    """One line on stderr; exit status 2."""
    where = f"{PROG} {command}" if command else PROG
    text = " ".join(message.split())
    print(f"{where}: error: {text}", file=sys.stderr)
    return 2


def typer_app(modules: Sequence[str]) -> typer.Typer:
    """A Typer app with the commands of `modules` registered (each module once)."""
    import importlib

    import typer

    app = typer.Typer(
        name=PROG,
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        # Plain help: rendering it with rich costs more than the rest of a command's start-up.
        rich_markup_mode=None,
        context_settings={"help_option_names": HELP_OPTIONS},
    )

    @app.callback()
    def _root() -> None:
        """Make MCP servers drivable by language models, and measure that they are."""

    for name in dict.fromkeys(modules):
        importlib.import_module(name).register(app)
    return app


def run(argv: Sequence[str] | None = None) -> int:
    """Run one command line; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(usage(), file=sys.stderr)
        return 2
    first = args[0]
    if first in HELP_OPTIONS:
        print(usage())
        return 0
    if first in ("-V", "--version"):
        print(f"{PROG} {version()}")
        return 0
    command = _BY_NAME.get(first)
    if command is None:
        import difflib

        near = difflib.get_close_matches(first, list(_BY_NAME), n=1)
        guess = f"did you mean '{near[0]}'? " if near else ""
        what = "option" if first.startswith("-") else "command"
        return fail(f"no {what} {first!r}; {guess}`{PROG} --help` lists the commands")
    return _invoke(command, args[1:])


def _invoke(command: Command, args: list[str]) -> int:
    import typer
    from typer._click import Context
    from typer._click.exceptions import ClickException, UsageError

    try:
        group = typer.main.get_group(typer_app([command.module]))
        found = group.get_command(Context(group), command.name)
        assert found is not None, f"{command.module} does not register {command.name}"
        found.context_settings = {"help_option_names": HELP_OPTIONS, **found.context_settings}
        status = found.main(args, prog_name=f"{PROG} {command.name}", standalone_mode=False)
    except UsageError as error:
        return fail(f"{error.format_message()} (`{PROG} {command.name} -h`)", command=command.name)
    except ClickException as error:
        return fail(error.format_message(), command=command.name)
    except typer.Abort:
        return fail("interrupted", command=command.name)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        # Imported on a failure only: a command that reads no settings (`drivable read`) does not
        # pay for importing them.
        from drivable import settings

        if isinstance(error, settings.SettingsError):
            return fail(str(error), command=command.name)
        if settings.DEBUG.get():
            raise
        return fail(describe(error), command=command.name)
    return status if isinstance(status, int) and not isinstance(status, bool) else 0


def describe(error: BaseException) -> str:
    """An unexpected failure in one line: what it is, never a traceback."""
    text = str(error).strip() or type(error).__name__
    if isinstance(error, ModuleNotFoundError) and error.name:
        return f"cannot import {error.name!r} (is the current directory or PYTHONPATH right?)"
    return f"{text} ({type(error).__name__}; DRIVABLE_DEBUG=1 shows the traceback)"


def main() -> None:
    sys.exit(run())


def __getattr__(name: str) -> Any:
    # `from drivable.cli import app`: the whole Typer app, every command registered (tests use it
    # with typer's CliRunner); the command line itself never builds it.
    if name == "app":
        return typer_app([c.module for c in COMMANDS])
    raise AttributeError(name)
