"""A tiny OpenAI-compatible (and Anthropic Messages) HTTP server that replays scripted responses (real HTTP on 127.0.0.1).

Every request body is kept, so a test can check what the client really sent (tools, messages).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


class ScriptedLLM:
    def __init__(self, script: Path) -> None:
        self.responses: list[dict[str, Any]] = json.loads(script.read_text())["responses"]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/messages", self._chat, methods=["POST"]),  # Anthropic's path
            ]
        )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        index = len(self.requests) - 1
        if index >= len(self.responses):
            return JSONResponse({"error": {"message": "script exhausted"}}, status_code=500)
        return JSONResponse(self.responses[index])

    def __enter__(self) -> ScriptedLLM:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("scripted server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
