"""`drivable import-decisions FILE.jsonl [--db PATH]`: load real decisions into a caselaw database.

Each line is one decision in the shape the generator makes (`data.Record.to_dict()`); each line is
read on its own through `drivable.kinds` (dates, courts, locales, ELI references), the good ones
are stored and every bad one is reported by its line number. Re-importing a line replaces the
decision with the same decision_id (derived from court and case number when the line has none).
Exit 0 when every line was imported, 1 when some were not, 2 when nothing could be read.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import typer
from pydantic import Field, ValidationError

from drivable.kinds import Kind, KindModel, validate
from drivable.kinds.eli import Eli
from drivable.servers.caselaw.case_number import CaseNumberField
from drivable.servers.caselaw.courts import BY_VALUE, COURT_VOCABULARY
from drivable.servers.caselaw.data import Record, Subject, decision_id_for, ecli_for
from drivable.servers.caselaw.store import create, default_path

MAX_LINE_CHARS = 2_000_000


class DecisionLine(KindModel):
    """One JSONL line: the court must be one the server knows; the rest is read leniently."""

    decision_id: Annotated[str, Kind("identifier", prefix="dec_")] | None = None
    court: Annotated[str, Kind("vocabulary", vocabulary=COURT_VOCABULARY, strict=True)]
    case_number: CaseNumberField
    ecli: str | None = Field(None, max_length=120)
    decided_on: datetime.date
    decision_type: Literal["judgment", "order"] = "judgment"
    subject: Subject
    locale: Annotated[str, Kind("locale")]
    headline: str = Field(min_length=1, max_length=500)
    summary: str = Field(min_length=1, max_length=5000)
    statutes: list[Eli] = Field(default_factory=list, max_length=50)
    text: str = Field(min_length=1, max_length=MAX_LINE_CHARS)


def read_lines(path: Path) -> Iterator[tuple[int, Record | None, str]]:
    """(line number, record or None, what was wrong) for every non-blank line of `path`."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if len(line) > MAX_LINE_CHARS:
                yield number, None, "the line is longer than 2,000,000 characters"
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError:
                yield number, None, "not a JSON object (the line does not parse as JSON)"
                continue
            if not isinstance(raw, dict):
                yield number, None, "not a JSON object"
                continue
            try:
                line_value = validate(DecisionLine, raw, intent="write").value
            except ValidationError as error:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'line'}: {e['msg']}"
                    for e in error.errors()
                )
                yield number, None, problems
                continue
            yield number, _record(line_value), ""


def _record(line: DecisionLine) -> Record:
    court = BY_VALUE[line.court]
    decided = line.decided_on
    return Record(
        decision_id=line.decision_id or decision_id_for(line.court, line.case_number),
        court=line.court,
        case_number=line.case_number.strip(),
        ecli=line.ecli or ecli_for(court, decided.year, line.case_number, 1),
        decided_on=decided.isoformat(),
        decision_type=line.decision_type,
        subject=line.subject,
        locale=line.locale,
        headline=line.headline.strip(),
        summary=line.summary.strip(),
        text=line.text,
        statutes=tuple(dict.fromkeys(line.statutes)),
    )


def import_decisions(path: Path, db_path: Path) -> tuple[int, list[tuple[int, str]]]:
    """Import `path` into `db_path` (created empty if missing); (imported, [(line, problem)])."""
    from drivable.servers.caselaw.store import Store

    if not db_path.exists():
        db_path.parent.mkdir(parents=True, exist_ok=True)
        create(db_path).close()
    store = Store(db_path)
    good: list[Record] = []
    bad: list[tuple[int, str]] = []
    for number, record, problem in read_lines(path):
        if record is None:
            bad.append((number, problem))
        else:
            good.append(record)
    imported = store.upsert(good)
    return imported, bad


def import_command(
    file: Annotated[Path, typer.Argument(help="A JSONL file: one decision per line.")],
    db: Annotated[
        Path | None,
        typer.Option(help="The database to import into (default: the one `serve caselaw` uses)."),
    ] = None,
) -> None:
    """Import court decisions from JSONL into a caselaw database; report bad lines by number."""
    target = db or default_path()
    if not file.is_file():
        typer.echo(f"drivable import-decisions: cannot read {file}: not a file", err=True)
        raise typer.Exit(2)
    try:
        imported, bad = import_decisions(file, target)
    except (OSError, sqlite3.Error) as error:
        typer.echo(f"drivable import-decisions: cannot import into {target}: {error}", err=True)
        raise typer.Exit(2) from None
    for number, problem in bad:
        typer.echo(f"line {number}: {problem}", err=True)
    typer.echo(f"imported {imported} decisions into {target}; {len(bad)} lines rejected")
    if bad:
        raise typer.Exit(1 if imported else 2)


def register(app: typer.Typer) -> None:
    app.command("import-decisions")(import_command)


__all__ = ["DecisionLine", "import_command", "import_decisions", "read_lines", "register"]
