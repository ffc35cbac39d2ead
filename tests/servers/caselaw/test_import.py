"""`drivable import-decisions`: each line read on its own, bad lines reported by number, re-runs idempotent."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from drivable.cli import app
from drivable.servers.caselaw.store import Filters, Store

GOOD = {
    "court": "NS",
    "case_number": "25 Cdo 77/2024",
    "decided_on": "1. 10. 2024",
    "subject": "civil",
    "locale": "cs_CZ",
    "headline": "Odpovědnost provozovatele dronu",
    "summary": "Nejvyšší soud posoudil škodu způsobenou dronem.",
    "statutes": ["zákon č. 89/2012 Sb."],
    "text": "Nejvyšší soud\n\n25 Cdo 77/2024\n\nI. Vymezení věci\n\nDron poškodil skleník.",
}


def test_good_lines_are_imported_and_bad_ones_named_by_line(tmp_path: Path) -> None:
    lines = [
        json.dumps(GOOD, ensure_ascii=False),
        json.dumps({**GOOD, "court": "Okresní soud v Kocourkově", "case_number": "1 C 1/2020"}),
        "not json",
        "",
        json.dumps({**GOOD, "case_number": "2 C 2/2020", "decided_on": "01/02/2021"}),
        json.dumps({**GOOD, "case_number": "Cdo", "decided_on": "2021-02-01"}),
    ]
    source = tmp_path / "decisions.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "mine.sqlite"
    runner = CliRunner()
    result = runner.invoke(app, ["import-decisions", str(source), "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert "imported 1 decisions" in result.stdout
    assert "line 2: court:" in result.stderr
    assert "line 3: not a JSON object" in result.stderr
    assert "line 5: decided_on:" in result.stderr
    assert "1 February 2021 (2021-02-01) if the day is written first" in result.stderr
    assert "line 6: case_number:" in result.stderr
    assert "line 4" not in result.stderr  # blank lines are skipped
    store = Store(db)
    (number,) = store.by_case_number("25cdo77/2024")
    decision = store.get(number["decision_id"])
    assert decision is not None
    assert decision["court"] == "Nejvyšší soud" and decision["decided_on"] == "2024-10-01"
    assert decision["locale"] == "cs-CZ"
    assert decision["statutes"] == ["https://eli.gov.cz/eli/cz/sb/2012/89"]
    again = runner.invoke(app, ["import-decisions", str(source), "--db", str(db)])
    assert again.exit_code == 1 and store.count() == 1  # a re-import replaces, never duplicates
    rows, _ = store.search("dronem", Filters(), 0, 5)
    assert [r["case_number"] for r in rows] == ["25 Cdo 77/2024"]


def test_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["import-decisions", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2
