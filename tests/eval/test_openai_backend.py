"""The openai agent over real HTTP against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drivable.eval.solver import run_trial
from drivable.eval.trace import TraceWriter
from drivable.eval.workflow import bundled
from tests.eval.evalkit import drivable_target
from tests.eval.scripted_llm import ScriptedLLM

pytest.importorskip("openai", reason="the openai extra is not installed")

from drivable.eval.agents.openai import OpenAIAgent

DATA = Path(__file__).parent / "data"


async def test_openai_agent_drives_the_workflow_over_real_http(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DRIVABLE_TEST_KEY", "sk-test-not-real")
    wf = next(w for w in bundled("example") if w.name == "cold-start")
    target = drivable_target()
    with ScriptedLLM(DATA / "openai_cold_start.json") as llm:
        agent = OpenAIAgent(
            model="scripted-model", base_url=llm.base_url, api_key_env="DRIVABLE_TEST_KEY"
        )
        trace = TraceWriter(None)
        result = await run_trial(target, wf, agent, trace=trace)
    assert result.verdict["completed"], result.verdict
    assert [s["first_call"] for s in result.verdict["steps"]] == [True, True]
    assert result.usage["reported"] and result.usage["input_tokens"] == 1410 + 1702
    assert [r["arguments"] for r in trace.records] == [
        {"query": "budget", "date_from": "1. 6. 2026"},
        {"note_id": "note_22"},
    ]
    # the key came from the environment; the schemas went out exactly as tools/list gave them
    assert llm.headers[0]["authorization"] == "Bearer sk-test-not-real"
    first = llm.requests[0]
    from drivable.target import connect

    async with connect(target.target, mode="legacy") as client:
        listed = await client.list_tools()
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in first["tools"]}
    assert sent == {t.name: t.input_schema for t in listed.tools}
    assert first["messages"][1]["content"].startswith("Find the user's notes")
    # the tool result went back as a tool message answering the call id
    second = llm.requests[1]["messages"]
    tool_msg = second[-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1"
    assert json.loads(tool_msg["content"])["results"][0]["id"] == "note_22"
    # the workflow was done after two calls: the agent was not asked for a third turn
    assert len(llm.requests) == 2


def test_openai_agent_needs_a_key_without_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RuntimeError, match="OPENAI_API_KEY"):
        OpenAIAgent()
