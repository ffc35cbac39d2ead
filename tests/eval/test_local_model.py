"""Slow tier: a real small model (Qwen2.5-Coder 0.5B, llama-cpp-python, CPU) drives one workflow.

Skipped unless DRIVABLE_SLOW=1, and skipped with the install line when the `[local]` extra or the
pinned model parts are missing. Nothing downloads at run time. The per-step table is printed
(-s shows it) and written to DRIVABLE_EVAL_ARTIFACTS when set.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

from drivable.eval.report import print_run, run_document
from drivable.eval.solver import run_trial
from drivable.eval.workflow import bundled
from tests.eval.evalkit import drivable_target

pytestmark = pytest.mark.slow


def _require_local() -> None:
    from drivable.eval.agents.local import PACKS, install_hint

    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed: pip install 'drivable[local]'")
    if importlib.util.find_spec(PACKS["0.5b"].module.format(n=1)) is None:
        pytest.skip(f"the 0.5B model parts are not installed: {install_hint(PACKS['0.5b'])}")


async def test_local_model_drives_cold_start_end_to_end() -> None:
    _require_local()
    from drivable.eval.agents.local import LocalAgent, shared_model

    model = shared_model("0.5b")
    wf = next(w for w in bundled("example") if w.name == "cold-start")
    started = time.perf_counter()
    result = await run_trial(drivable_target(), wf, LocalAgent(model, max_turns=6))
    seconds = time.perf_counter() - started
    doc = run_document(
        [result],
        target={"transport": "in-process", "contract": "notes-example"},
        agent="local",
        personas=[""],
        trials=1,
        seed=0,
        seconds=seconds,
    )
    print_run(doc)
    calls = result.verdict["tool_calls"]
    print(f"local 0.5B: {seconds:.1f} s wall, {calls} calls, parse paths {result.usage}")
    artifacts = os.environ.get("DRIVABLE_EVAL_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        (Path(artifacts) / "local-0.5b-cold-start.json").write_text(json.dumps(doc, indent=2))
    # a smoke run: the model made real calls through the real client and every turn was parsed
    assert calls >= 1
    assert result.usage["reported"] and sum(result.usage["parse_paths"].values()) >= 1
    # the model's side of every turn is kept: raw reply, finish reason, tokens, latency
    turns = result.usage["turns"]
    assert turns and all(
        t["finish_reason"] and t["completion_tokens"] >= 0 and t["latency_ms"] > 0 for t in turns
    )
    # a cut reply is never the final answer, and a cap is never the agent's own decision
    stopped = result.verdict["stopped_by"]
    assert stopped in (None, "turn_cap", "call_cap", "identical_resends", "reply_cut")
    assert not (stopped and result.verdict["finished_by_agent"])


def test_the_reply_limit_fits_the_longest_legal_call_of_every_reference_tool() -> None:
    _require_local()
    import anyio

    from drivable.eval.agents.local import MAX_REPLY, longest_call, reply_limit, shared_model
    from drivable.eval.surfaces import load
    from drivable.serve.mount import build_server
    from tests.eval.test_model_facing import _tools

    model = shared_model("0.5b")

    def tokenize(b: bytes) -> list[int]:
        return list(model.llama.tokenize(b, add_bos=False, special=False))

    for name in ("example", "caselaw"):
        tools = anyio.run(_tools, build_server(load(name)))
        limit = reply_limit(tokenize, tools)
        longest = max(len(tokenize(longest_call(t).encode())) for t in tools)
        assert longest < limit <= MAX_REPLY, name


def test_the_side_by_side_runs_each_side_in_a_process_of_its_own(tmp_path: Path) -> None:
    """`make eval-local` on two cores: one model process a side, one thread each, joined into one
    run document, Markdown and trace (the 0.5B model on one workflow)."""
    _require_local()
    from drivable.eval.sidebyside import main

    out, trace, md = tmp_path / "run.json", tmp_path / "trace.jsonl", tmp_path / "eval.md"
    code = main(
        ["--model", "0.5b", "--trials", "1", "--set", "example", "--workflow", "cold-start",
         "--processes", "2", "--out", str(out), "--trace", str(trace), "--markdown", str(md)]
    )  # fmt: skip
    assert code == 0
    run = json.loads(out.read_text(encoding="utf-8"))
    assert run["partial"] is None and run["processes"] == 2
    (section,) = run["runs"].values()  # a section per model
    assert section["threads"] == 1
    sides = section["sets"]["example"]
    assert set(sides) == {"naive", "drivable"}
    for doc in sides.values():
        (trial,) = doc["trials"]
        assert trial["workflow"] == "cold-start" and trial["usage"]["turns"]
    runs = {json.loads(line)["run"] for line in trace.read_text().splitlines()}
    assert runs == {"0.5b-example-naive", "0.5b-example-drivable"}
    assert "| example | naive |" in md.read_text() and "| example | drivable |" in md.read_text()
