"""The anthropic agent over real HTTP against a scripted Messages-API server."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivable.eval.solver import run_trial
from drivable.eval.workflow import bundled
from tests.eval.evalkit import drivable_target
from tests.eval.scripted_llm import ScriptedLLM

pytest.importorskip("anthropic", reason="the anthropic extra is not installed")

from drivable.eval.agents.anthropic import AnthropicAgent

DATA = Path(__file__).parent / "data"


async def test_anthropic_agent_drives_the_workflow_over_real_http(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DRIVABLE_TEST_KEY", "sk-ant-test")
    wf = next(w for w in bundled("example") if w.name == "cold-start")
    with ScriptedLLM(DATA / "anthropic_cold_start.json") as llm:
        agent = AnthropicAgent(
            model="scripted-model", base_url=llm.root_url, api_key_env="DRIVABLE_TEST_KEY"
        )
        result = await run_trial(drivable_target(), wf, agent)
    # "22" is read as note_22 by the contract: the eval judges through the handler's reading
    assert result.verdict["completed"], result.verdict
    headers = llm.headers[0]
    assert "sk-ant-test" in (headers.get("x-api-key", "") + headers.get("authorization", ""))
    first = llm.requests[0]
    assert {t["name"] for t in first["tools"]} >= {"search_notes", "get_note"}
    assert all("input_schema" in t for t in first["tools"])
    tool_result = llm.requests[1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    assert result.usage["input_tokens"] == 1300 + 1600
