"""An OpenAI-compatible chat-completions server on 127.0.0.1 that plays a fixed script.

Stands in for the model in tests that run the real Hermes CLI: the first request (no tool
result yet) answers with the scripted tool call, every later one with a short final answer.
Speaks both the plain JSON and the streamed (SSE) forms. Requests are recorded."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedModel:
    def __init__(self, tool: str, args: dict[str, Any], final: str = "All done.") -> None:
        self.tool, self.args, self.final = tool, args, final
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                model.requests.append(body)
                has_result = any(m.get("role") == "tool" for m in body.get("messages") or [])
                # Hermes' own side requests (titles, summaries) offer no tools: they get text.
                message = model._call() if body.get("tools") and not has_result else model._final()
                if body.get("stream"):
                    self._stream(message)
                else:
                    self._json(
                        {
                            "id": "chatcmpl-1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": "fake-model",
                            "choices": [
                                {
                                    "index": 0,
                                    "message": message,
                                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                        }
                    )

            def _json(self, doc: dict[str, Any]) -> None:
                data = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, message: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                delta: dict[str, Any] = {"role": "assistant"}
                if message.get("tool_calls"):
                    delta["tool_calls"] = [dict(c, index=i) for i, c in enumerate(message["tool_calls"])]
                    finish = "tool_calls"
                else:
                    delta["content"] = message.get("content") or ""
                    finish = "stop"
                chunks = [
                    {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                ]
                for chunk in chunks:
                    chunk.update(
                        id="chatcmpl-1", object="chat.completion.chunk", created=0, model="fake-model"
                    )
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _call(self) -> dict[str, Any]:
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": self.tool, "arguments": json.dumps(self.args)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}

    def _final(self) -> dict[str, Any]:
        return {"role": "assistant", "content": self.final}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
