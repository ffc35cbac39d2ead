"""The local agent paging past its context window: seconds a turn with block trimming, against
trimming one result a turn (the baseline), on the same conversation, model and run.

The conversation is real: billing's drivable server over stdio, `find_invoices` for paid GBP
invoices and then each page's `next_call`, 10 pages (a trial that pages on, as round 13's refund
trial 2 did). Each turn appends the call and its page, fits the context under the policy, and asks
the model for one token, so a turn's time is the prompt the model has to read: what the cached
prefix does not cover. The system turn and the tool list are read once before either policy.
Needs the `[local]` extra and the 1.5B parts (DRIVABLE_BENCH_LOCAL=1); skipped, said so, otherwise.

    DRIVABLE_BENCH_LOCAL=1 python -m benchmarks.bench_context [--pages 10]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

PAGES = 10


async def _conversation(pages: int) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """billing's tools as listed, and (call, page) for each page of a search paged on."""
    from drivable.eval.sides import targets
    from drivable.target import connect

    target = targets("billing", Path(tempfile.mkdtemp()))["drivable"].target
    turns: list[tuple[str, str]] = []
    async with connect(target) as client:
        listed = (await client.list_tools()).tools
        tools = [json.loads(t.model_dump_json(by_alias=True, exclude_none=True)) for t in listed]
        arguments: dict[str, Any] = {"state": "paid", "currency": "GBP", "limit": 10}
        for _ in range(pages):
            result = await client.call_tool("find_invoices", arguments)
            text = "\n".join(getattr(part, "text", "") for part in result.content)
            call = json.dumps({"name": "find_invoices", "arguments": arguments}, ensure_ascii=False)
            turns.append((f"```json\n{call}\n```", text))
            arguments = json.loads(text)["next_call"]["arguments"]
    return tools, turns


def _workflow() -> Any:
    from drivable.eval.workflow import bundled

    return next(w for w in bundled("billing") if w.name == "refund-two-step")


def _policy(
    model: Any, tools: list[dict[str, Any]], turns: list[tuple[str, str]], headroom: int | None
) -> list[tuple[float, int, int]]:
    """(seconds, prompt tokens, results trimmed) for each turn under one trimming headroom."""
    from drivable.eval.agents.local import LocalAgent

    agent = LocalAgent(model, trim_headroom=headroom)
    anyio.run(agent.begin, _workflow(), tools)
    out: list[tuple[float, int, int]] = []
    for call, page in turns:
        agent.messages += [
            {"role": "assistant", "content": call},
            {"role": "tool", "content": page},
        ]
        trimmed = agent._fit_context(agent.limit)
        started = time.perf_counter()
        reply = agent._complete(1)
        seconds = time.perf_counter() - started
        out.append((seconds, int(reply["usage"]["prompt_tokens"]), trimmed))
    return out


def run(pages: int = PAGES) -> str:
    from benchmarks._local import local_model

    model, skipped = local_model("1.5b", "context trimming")
    if skipped:
        return skipped
    from drivable.eval.agents.local import LocalAgent

    tools, turns = anyio.run(_conversation, pages)
    warm = LocalAgent(model)  # the system turn and the tool list, cached for both policies
    anyio.run(warm.begin, _workflow(), tools)
    warm._complete(1)
    baseline = _policy(model, tools, turns, headroom=0)
    block = _policy(model, tools, turns, headroom=None)  # the agent's own
    lines = [
        f"context trimming, billing find_invoices paged {pages} times, 1.5B, "
        f"{model.threads} thread(s), n_ctx {model.n_ctx}",
        "turn  one-a-turn s (prompt, trimmed)   block s (prompt, trimmed)",
    ]
    for n, (a, b) in enumerate(zip(baseline, block, strict=True), 1):
        lines.append(
            f"{n:>4}  {a[0]:7.1f} ({a[1]:>5}, {a[2]})          {b[0]:7.1f} ({b[1]:>5}, {b[2]})"
        )
    total_a, total_b = sum(t[0] for t in baseline), sum(t[0] for t in block)
    lines.append(
        f"total {total_a:.1f} s one-a-turn, {total_b:.1f} s block: "
        f"ratio block/one-a-turn {total_b / total_a:.2f}"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=PAGES)
    args = parser.parse_args([]) if __name__ != "__main__" else parser.parse_args()
    print(run(args.pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
