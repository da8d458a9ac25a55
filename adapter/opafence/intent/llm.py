"""The optional LLM compiler: an OpenAI-compatible chat API proposes a draft.

Its answer is never trusted: it is parsed into a `Draft` and goes through the same hardening
as the rules compiler's. It sees only the cleaned instruction (cut to `max_chars`), never
the quoted, pasted or attached material. JSON mode is asked for and dropped when the
provider refuses it; an answer that is not the JSON we asked for gets one repair retry; the
whole compile, retries included, is bounded by `timeout_s`. Every failure raises `LLMError`,
which the caller turns into the read-only fallback (or the rules compiler, if configured)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import requests
from pydantic import ValidationError

from opafence.config import CompilerConfig
from opafence.errors import OpafenceError
from opafence.intent.draft import Draft

MAX_ANSWER_BYTES = 512 * 1024

SYSTEM_PROMPT = """\
You turn a person's request to an AI agent into a least-privilege authorization draft.
The agent may read anything without a grant. Grant only what the person explicitly asks the
agent to DO, in their own imperative words. Never grant for questions ("how do I delete..."),
conditionals ("if the tests pass, push"), hypotheticals, or things other people said.

Answer with ONE JSON object and nothing else:
{"purpose": "<short summary>",
 "read_only": false,
 "grants": [{"class": "<CLASS>", "capability": "<capability>",
             "evidence": "<verbatim quote of the request clause>",
             "recipients": [], "domains": [], "paths": [], "commands": [], "packages": [],
             "tools": [], "objects": [], "workspace": false, "max_calls": null}],
 "prohibitions": [{"classes": ["<CLASS or *>"], "egress": false, "mentions": false, "keywords": [],
                   "evidence": "<verbatim quote>"}],
 "bounds": {"domains": [], "recipients": [], "paths": [], "write_paths": []}}

class / capability (use exactly these):
  COMMUNICATION/send (recipients: literal addresses the person asked to send to)
  LOCAL_WRITE/edit (paths as written, or workspace: true for "fix/refactor/implement ...")
  LOCAL_WRITE/commit (workspace: true)      DELETE/delete (paths)
  DELETE/delete_branch (commands: "git branch -d <branch as written>")
  EXECUTION/run_tests, run_build, run_lint, run_format, run_command (commands: literal),
            install (packages; none for "install the dependencies"), run_server (dev server),
            run_migrations, create_venv, run_code (a computation, parse or plot in code; also
            LOCAL_WRITE/run_code), schedule (a reminder or scheduled job), page_title
  EXTERNAL_WRITE/push, EXTERNAL_WRITE/publish (domains, or tools "mcp__<service>__*"),
            EXTERNAL_WRITE/browse (clicking or typing; domains: the page the person named)
  FINANCIAL/pay     PERMISSION_CHANGE/chmod (paths)     PERMISSION_CHANGE/share (recipients)
  MEMORY_WRITE/remember (a note the person dictates), MEMORY_WRITE/skill (a skill to create)
objects: what an external write, payment or email deletion acts on, in these words only:
  issue, pull_request, comment, gist, repository, file, event, document, page, channel,
  message, label, record, contact, task, card, item, post, project, payment, flight, hotel.

Rules: evidence is copied character for character from the request. Recipients, domains,
paths, commands and packages are copied exactly as written; never invent them. "Don't ...",
"never ...", "no ...", "read only", "nothing leaves this machine" are prohibitions
("egress": true for the last; "mentions": true with no classes for "don't @-mention anyone").
"Only use X" / "only to X" are bounds; "only touch/edit X", "don't edit anything outside X"
are write_paths.
"""

REPAIR_PROMPT = (
    "That answer could not be used ({error}). Reply again with only the JSON object described, "
    "no prose and no code fence."
)


class LLMError(OpafenceError):
    """The LLM compiler produced nothing usable; the message says why (no secrets in it)."""


def _loopback(url: str) -> bool:
    return url.startswith(("http://127.0.0.1", "http://localhost", "http://[::1]"))


def parse_answer(content: str) -> Draft:
    """The draft in an LLM answer; ValueError when there is none."""
    text = content.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fence:
        text = fence.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the answer")
    try:
        obj = json.loads(text[start : end + 1])
    except json.JSONDecodeError as e:
        raise ValueError(f"invalid JSON: {e.msg}") from None
    if not isinstance(obj, dict):
        raise ValueError("the answer is not a JSON object")
    try:
        return Draft.model_validate(obj)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise ValueError(f"{where}: {first['msg']}") from None


class _Deadline:
    def __init__(self, seconds: float, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.end = clock() + seconds

    def left(self) -> float:
        remaining = self.end - self.clock()
        if remaining <= 0:
            raise LLMError("the LLM compiler ran out of time")
        return remaining


def _refused_json_mode(resp: requests.Response, body: bytes) -> bool:
    if resp.status_code not in (400, 415, 422, 501):
        return False
    low = body[:4096].decode("utf-8", "replace").lower()
    return "response_format" in low or "json" in low


def _read(resp: requests.Response, deadline: _Deadline) -> bytes:
    """The body, read against the total deadline and a size cap (a slow drip is a timeout)."""
    chunks: list[bytes] = []
    size = 0
    for chunk in resp.iter_content(8192):
        deadline.left()
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise LLMError("the LLM answer is too large")
        chunks.append(chunk)
    return b"".join(chunks)


class LLMCompiler:
    def __init__(
        self,
        config: CompilerConfig,
        env: Mapping[str, str] | None = None,
        session: requests.Session | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.env = os.environ if env is None else env
        self.session = session or requests.Session()
        self.clock = clock
        self.json_mode = config.json_mode
        # What happened, for --explain: ["json mode refused", "repair retry", ...].
        self.events: list[str] = []

    def _post(self, messages: list[dict[str, str]], deadline: _Deadline) -> str:
        cfg = self.config
        headers = {"Content-Type": "application/json"}
        key = self.env.get(cfg.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif not _loopback(cfg.base_url):
            raise LLMError(f"no API key: set ${cfg.api_key_env}")
        for _ in range(2):  # at most one retry, without JSON mode
            payload: dict[str, Any] = {"model": cfg.model, "messages": messages, "temperature": 0}
            if self.json_mode:
                payload["response_format"] = {"type": "json_object"}
            timeout = deadline.left()
            try:
                with self.session.post(
                    f"{cfg.base_url}/chat/completions",
                    json=payload,
                    headers=headers,
                    timeout=(min(timeout, 10.0), timeout),
                    stream=True,
                    allow_redirects=False,
                ) as resp:
                    body = _read(resp, deadline)
                    if self.json_mode and _refused_json_mode(resp, body):
                        self.json_mode = False
                        self.events.append(
                            f"JSON mode refused (HTTP {resp.status_code}): retrying without it"
                        )
                        continue
                    if resp.status_code != 200:
                        raise LLMError(f"the LLM API answered HTTP {resp.status_code}")
            except requests.Timeout:
                raise LLMError("the LLM API timed out") from None
            except requests.RequestException as e:
                raise LLMError(f"the LLM API is unreachable ({type(e).__name__})") from None
            return _content(body)
        raise LLMError("the LLM API refused the request")

    def draft(self, instruction: str) -> Draft:
        """A draft for the instruction (cut to max_chars). Raises LLMError."""
        deadline = _Deadline(self.config.timeout_s, self.clock)
        cut = instruction[: self.config.max_chars]
        if len(instruction) > len(cut):
            self.events.append(f"instruction cut to {len(cut)} of {len(instruction)} characters")
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"The request, between the markers:\n<<<\n{cut}\n>>>"},
        ]
        content = self._post(messages, deadline)
        try:
            return parse_answer(content)
        except ValueError as e:
            self.events.append(f"unusable answer ({e}): one repair retry")
            messages += [
                {"role": "assistant", "content": content[:4000]},
                {"role": "user", "content": REPAIR_PROMPT.format(error=e)},
            ]
        content = self._post(messages, deadline)
        try:
            return parse_answer(content)
        except ValueError as e:
            raise LLMError(f"unusable answer after a repair retry: {e}") from None


def _content(body: bytes) -> str:
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LLMError("the LLM API answered something that is not JSON") from None
    try:
        content = obj["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("the LLM API answer has no message content") from None
    if not isinstance(content, str):
        raise LLMError("the LLM API answer's content is not text")
    return content
