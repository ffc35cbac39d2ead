"""`drivable snapshot` and `drivable diff`: the surface guard on the command line.

Exit codes: 0 when nothing breaking was found (nor routing under `--strict`), 1 when something was,
2 when a side could not be read (a server that did not start, a file that is not a surface).
"""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, TextIO

import anyio
import typer

from drivable.options import BearerToken, Env, PassEnv, Url
from drivable.surface import diff as diff_mod
from drivable.surface import render, snapshot
from drivable.target import Target


def _say_target(target: Target, label: str = "") -> None:
    described = target.describe()
    where = " ".join(described.get("command", [])) or described.get("url", "")
    env = described.get("env_passed") or []
    prefix = f"{label}: " if label else ""
    typer.echo(
        f"{prefix}{described['transport']} {where}; server env passed: "
        f"{', '.join(env) if env else 'none beyond the SDK default'}",
        err=True,
    )


def _reason(exc: BaseException) -> str:
    """The innermost cause, out of the task groups the SDK wraps it in, said as a sentence (a
    command that does not exist reads "No such file or directory: 'x'", not an exception class)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename!r}" if exc.filename else exc.strerror
    return str(exc) or type(exc).__name__


def _take(target: Target) -> dict[str, Any]:
    """Snapshot a live server; its stderr is shown only when the snapshot fails."""

    async def run(errlog: TextIO) -> dict[str, Any]:
        return await snapshot.take(target, errlog=errlog)

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            return anyio.run(run, errlog)
        except Exception:
            errlog.seek(0)
            tail = errlog.read()[-4000:]
            if tail.strip():
                typer.echo(f"server stderr (last lines):\n{tail}", err=True)
            raise


def snapshot_command(
    command: Annotated[
        list[str] | None, typer.Argument(help="The server command, after `--`.")
    ] = None,
    url: Url = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
    env: Env = None,
    pass_env: PassEnv = None,
    bearer_token: BearerToken = None,
    legacy: Annotated[
        bool, typer.Option("--legacy", help="Speak the initialize-handshake era.")
    ] = False,
) -> None:
    """Write the canonical, sorted JSON of everything an agent sees of a server."""
    try:
        target = Target.from_cli(
            command or (),
            url=url,
            env_pairs=env or (),
            pass_env=pass_env or (),
            bearer_token=bearer_token,
            mode="legacy" if legacy else "auto",
        )
    except ValueError as exc:
        typer.echo(f"drivable snapshot: {exc}", err=True)
        raise typer.Exit(2) from None
    _say_target(target)
    try:
        snap = _take(target)
    except Exception as exc:
        typer.echo(f"drivable snapshot: could not read the server: {_reason(exc)}", err=True)
        raise typer.Exit(2) from None
    text = snapshot.dumps(snap)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output} ({snap['fingerprint']['value']})", err=True)


def _is_json_file(spec: str) -> bool:
    """A file whose text starts like JSON (an executable path is a command, not a surface)."""
    path = Path(spec)
    if not path.is_file():
        return False
    with path.open("rb") as fh:
        head = fh.read(64).lstrip()
    return head[:1] in (b"{", b"[")


def side(
    spec: str,
    env_pairs: Sequence[str],
    pass_env: Sequence[str],
    label: str,
    bearer_token: str | None = None,
) -> dict[str, Any]:
    """A snapshot from OLD or NEW: a file path, an http(s) URL, or a quoted server command."""
    if _is_json_file(spec):
        return snapshot.load(spec)
    if spec.startswith(("http://", "https://")):
        target = Target.from_cli(url=spec, bearer_token=bearer_token)
    else:
        argv = shlex.split(spec)
        if not argv:
            raise ValueError(f"{label}: empty command")
        target = Target.from_cli(argv, env_pairs=env_pairs, pass_env=pass_env)
    _say_target(target, label)
    return _take(target)


def diff_command(
    old: Annotated[
        str, typer.Argument(help="Old surface: a snapshot file, a URL, or a quoted command.")
    ],
    new: Annotated[
        str, typer.Argument(help="New surface: a snapshot file, a URL, or a quoted command.")
    ],
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or md.")] = "text",
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on routing changes too.")
    ] = False,
    env: Env = None,
    old_env: Annotated[
        list[str] | None, typer.Option("--old-env", help="KEY=VALUE for the old server only.")
    ] = None,
    new_env: Annotated[
        list[str] | None, typer.Option("--new-env", help="KEY=VALUE for the new server only.")
    ] = None,
    pass_env: PassEnv = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the report here too.")
    ] = None,
    bearer_token: Annotated[
        str | None,
        typer.Option(help="Bearer token for URL sides.", envvar="DRIVABLE_BEARER_TOKEN"),
    ] = None,
) -> None:
    """Classify every change from OLD to NEW: breaking, routing, additive, cosmetic."""
    if fmt not in ("text", "json", "md", "markdown"):
        typer.echo("drivable diff: --format is text, json or md", err=True)
        raise typer.Exit(2)
    try:
        # two live servers start side by side (each in its own thread and event loop)
        with ThreadPoolExecutor(max_workers=2) as pool:
            fa = pool.submit(
                side, old, [*(env or []), *(old_env or [])], pass_env or [], "old", bearer_token
            )
            fb = pool.submit(
                side, new, [*(env or []), *(new_env or [])], pass_env or [], "new", bearer_token
            )
            a, b = fa.result(), fb.result()
    except (ValueError, OSError, json.JSONDecodeError) as exc:
        typer.echo(f"drivable diff: {exc}", err=True)
        raise typer.Exit(2) from None
    except Exception as exc:
        typer.echo(f"drivable diff: could not read a server: {_reason(exc)}", err=True)
        raise typer.Exit(2) from None
    changes = diff_mod.diff(a, b)
    report = render.render(changes, fmt, a, b)
    sys.stdout.write(report)
    if output is not None:
        output.write_text(report, encoding="utf-8")
    n = diff_mod.counts(changes)
    if n["breaking"] or (strict and n["routing"]):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("snapshot")(snapshot_command)
    app.command("diff")(diff_command)
