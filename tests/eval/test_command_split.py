"""`drivable eval --split tune|holdout` runs one split of the workflows, and the run reports it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.eval.test_unanswered import QUICK, _eval


def test_split_runs_one_split_and_the_run_reports_it(tmp_path: Path) -> None:
    naive = Path(__file__).parent / "naive_notes_server.py"
    out = tmp_path / "run.json"
    common = ["--persona", "literal", "--trials", "1", "--out", str(out)]
    exit_code, said = _eval(
        *common, "--set", "example", "--split", "tune", "--", sys.executable, str(naive)
    )
    assert exit_code == 0, said
    doc = json.loads(out.read_text())
    assert list(doc["summary"]["splits"]) == ["tune"]
    assert {t["split"] for t in doc["trials"]} == {"tune"}
    assert "pass^k" in said and "by split" in said
    # a workflow file in a tune/ folder belongs to that split; another split has none of it
    exit_code, said = _eval(*QUICK, "--split", "holdout", "--", sys.executable, str(naive))
    assert exit_code == 2 and "no workflows to run in the holdout split" in said
    exit_code, said = _eval("--set", "example", "--split", "later", "--", "true")
    assert exit_code == 2 and "--split takes tune or holdout" in said
