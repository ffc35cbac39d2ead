"""Agents the solver can drive: simulated personas (offline default) and model backends (extras).

Model backends import their client library lazily, so the core install needs none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivable.eval.turns import Agent

BACKENDS = ("simulated", "openai", "anthropic", "local")


def factory(backend: str, **options: Any) -> Callable[[int], Agent]:
    """seed -> a fresh agent for one trial."""
    if backend == "simulated":
        from drivable.eval.agents.simulated import SimulatedAgent

        persona = str(options.get("persona") or "literal")
        return lambda seed: SimulatedAgent(persona, seed)
    if backend == "openai":
        from drivable.eval.agents.openai import OpenAIAgent

        return lambda seed: OpenAIAgent(seed=seed, **options)
    if backend == "anthropic":
        from drivable.eval.agents.anthropic import AnthropicAgent

        return lambda seed: AnthropicAgent(seed=seed, **options)
    if backend == "local":
        from drivable.eval.agents.local import LocalAgent, shared_model

        model = shared_model(str(options.get("model") or "0.5b"))
        return lambda seed: LocalAgent(model, seed=seed)
    raise ValueError(f"unknown agent backend {backend!r}; have: {', '.join(BACKENDS)}")
