"""`drivable ci`'s parts, over whole classes of input: the gate, the summary's size, the action's
inputs as options, step outputs, and the one pull-request comment."""

from __future__ import annotations

import json
import shlex
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.audit.model import SEVERITIES
from drivable.ci import github
from drivable.ci.action import options
from drivable.ci.summary import COMMENT_LIMIT, marker, render
from drivable.ci.verdict import FAIL_ON, Verdict
from tests.ci.github_api import Api, serving

severity = st.sampled_from(SEVERITIES)


def _audit(severities: list[str]) -> dict[str, Any]:
    findings = [
        {
            "rule": "3.descriptions",
            "severity": s,
            "subject": f"tool:t{i}",
            "summary": "s",
            "evidence": {},
            "remediation": "r",
        }
        for i, s in enumerate(severities)
    ]
    return {"target": {}, "findings": findings, "coverage": []}


def _run(k: int, n: int) -> dict[str, Any]:
    done = {"k": k, "n": n, "rate": k / n if n else None, "ci95": [0, 1]}
    return {
        "agent": "simulated",
        "trials_per_workflow": 1,
        "summary": {"overall": {"completed": done}, "workflows": {"w": {"completed": done}}},
    }


@given(st.lists(severity, max_size=12), st.sampled_from(FAIL_ON))
def test_findings_fail_the_gate_at_or_above_fail_on_and_never_with_none(
    found: list[str], fail_on: str
) -> None:
    verdict = Verdict(_audit(found), fail_on)
    rank: dict[str, int] = {s: i for i, s in enumerate(SEVERITIES)}
    expected = [] if fail_on == "none" else [s for s in found if rank[s] <= rank[fail_on]]
    assert [f["severity"] for f in verdict.failing] == expected
    assert verdict.passed is (not expected)
    assert sum(verdict.counts().values()) == len(found)


@given(
    st.integers(0, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.integers(0, 100).map(lambda p: p / 100),
)
def test_completion_passes_exactly_at_the_threshold_as_a_fraction(
    counted: tuple[int, int], threshold: float
) -> None:
    k, n = counted
    verdict = Verdict(_audit([]), "major", _run(k, n), threshold)
    expected = n > 0 and Fraction(k, n) >= Fraction(str(threshold))
    assert verdict.passed is expected, (k, n, threshold, verdict.reasons)


def test_a_gate_refuses_what_it_cannot_judge() -> None:
    with pytest.raises(ValueError, match="fail-on"):
        Verdict(_audit([]), "serious")
    with pytest.raises(ValueError, match="share"):
        Verdict(_audit([]), "major", _run(1, 1), 1.5)


@given(
    st.integers(0, 3000),
    st.sampled_from([2_000, 10_000, COMMENT_LIMIT]),
    st.text(min_size=1, max_size=40),
)
def test_the_summary_fits_its_page_and_says_what_it_left_out(
    groups: int, limit: int, name: str
) -> None:
    audit_markdown = "# drivable audit\n\n## Findings\n\n" + "".join(
        f"### F{i} `3.descriptions` — tool:t{i}\n\n- **Summary:** {'x' * 60}\n\n"
        for i in range(groups)
    )
    verdict = Verdict(_audit(["minor"] * 3), "major", _run(3, 4), 0.5)
    text = render(verdict, name=name, audit_markdown=audit_markdown, limit=limit)
    whole = render(verdict, name=name, audit_markdown=audit_markdown, limit=10**9)
    assert len(text.encode()) <= limit
    assert text.startswith(marker(name) + "\n")
    assert text.count("<details>") == text.count("</details>") == 1
    if len(whole.encode()) <= limit:
        assert text == whole
    else:
        assert "left out" in text and "left out" not in whole
    # the marker is one HTML comment whatever the name holds
    assert marker(name).count("-->") == 1 and marker(name).endswith("-->")


words = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x00"),
    min_size=1,
    max_size=12,
)


@given(
    st.lists(words, min_size=1, max_size=6),
    st.lists(words.filter(lambda w: "=" not in w), max_size=3),
)
def test_the_actions_inputs_become_the_same_words_on_the_command_line(
    command: list[str], keys: list[str]
) -> None:
    env = "\n".join(f"{k.strip() or 'K'}=v {i}" for i, k in enumerate(keys))
    argv = options(
        {
            "INPUT_COMMAND": shlex.join(command),
            "INPUT_ENV": env,
            "INPUT_FAIL_ON": "minor",
            "INPUT_EVAL_PERSONAS": "literal, copier speller",
            "INPUT_COMMENT": "true",
        }
    )
    assert argv[argv.index("--") + 1 :] == command
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--env"] == [
        line.strip() for line in env.splitlines() if line.strip()
    ]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--persona"] == [
        "literal",
        "copier",
        "speller",
    ]
    assert argv[:2] == ["ci", "--no-fail"] and "--comment" in argv


def test_an_input_that_is_not_a_boolean_is_refused() -> None:
    with pytest.raises(ValueError, match="comment"):
        options({"INPUT_COMMENT": "sometimes"})


def _read_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: key=value lines and key<<DELIMITER blocks."""
    out: dict[str, str] = {}
    lines = iter(text.split("\n")[:-1])
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, end = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == end:
                    break
                block.append(inner)
            out[key] = "\n".join(block)
        else:
            key, _, value = line.partition("=")
            out[key] = value
    return out


@given(st.dictionaries(st.from_regex(r"[a-z][a-z_-]{0,10}", fullmatch=True), st.text(max_size=40)))
def test_step_outputs_read_back_as_written(values: dict[str, str]) -> None:
    import tempfile

    values = {k: v.replace("\r", "") for k, v in values.items()}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out"
        github.write_outputs(path, values)
        assert _read_outputs(path.read_text()) == values


def _event(tmp: Path, number: int | None) -> Path:
    event = tmp / f"event-{number}.json"
    event.write_text(json.dumps({"pull_request": {"number": number}} if number else {"ref": "x"}))
    return event


def test_one_comment_per_server_found_by_its_marker_and_edited_in_place(tmp_path: Path) -> None:
    with serving(Api(token="t0ken")) as api:
        for i in range(150):  # the marker's comment lands on the second page
            api.add(f"unrelated {i}")
        kwargs: dict[str, Any] = {
            "api": api.url,
            "repository": "o/r",
            "number": 7,
            "token": "t0ken",
        }
        first = github.upsert_comment(body=marker("a") + "\nrun 1", marker=marker("a"), **kwargs)
        other = github.upsert_comment(body=marker("b") + "\nrun 1", marker=marker("b"), **kwargs)
        again = github.upsert_comment(body=marker("a") + "\nrun 2", marker=marker("a"), **kwargs)
    assert (first, other, again) == ("created", "created", "updated")
    mine = [c["body"] for c in api.comments if c["body"].startswith("<!-- drivable-ci")]
    assert mine == [marker("a") + "\nrun 2", marker("b") + "\nrun 1"]
    assert ("PATCH", f"/repos/o/r/issues/comments/{api.comments[150]['id']}") in api.requests


def test_a_refused_comment_is_a_warning_that_never_shows_the_token(tmp_path: Path) -> None:
    from drivable.ci.command import _comment

    with serving(Api(token="s3cret-value", refuse_writes=True)) as api:
        environ = {
            "GITHUB_EVENT_PATH": str(_event(tmp_path, 3)),
            "GITHUB_TOKEN": "s3cret-value",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_API_URL": api.url,
        }
        said = _comment("body", "srv", environ)
        assert said.startswith("::warning") and "HTTP 403" in said and "s3cret" not in said
        wrong = _comment("body", "srv", {**environ, "GITHUB_TOKEN": "other"})
        assert "HTTP 401" in wrong and "other" not in wrong
    assert _comment("b", "srv", {**environ, "GITHUB_EVENT_PATH": str(_event(tmp_path, None))}) == (
        "not a pull request: no comment"
    )
    assert "no GITHUB_TOKEN" in _comment("b", "srv", {**environ, "GITHUB_TOKEN": ""})
