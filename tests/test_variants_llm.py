"""The optional LLM backend, against a stub OpenAI-compatible server on 127.0.0.1 that the test
itself starts; responses are cached so reruns are offline."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from lcl.core.errors import UserError
from lcl.engine.variants import llm

ANSWER = """Strategies: memoization, hot path

```python
from functools import lru_cache

@lru_cache(maxsize=None)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)
```
"""

REF = "def fib(n: int) -> int:\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"


class _Stub(BaseHTTPRequestHandler):
    requests: list = []
    answer = ANSWER

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": type(self).answer}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub():
    _Stub.requests = []
    _Stub.answer = ANSWER
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (llm.ENV_BASE_URL, llm.ENV_API_KEY, llm.ENV_MODEL, llm.ENV_TEMPERATURE):
        monkeypatch.delenv(var, raising=False)


def test_off_by_default(tmp_path: Path) -> None:
    assert llm.LLMConfig.from_env() is None
    with pytest.raises(UserError, match="off by default"):
        llm.optimise_with_llm(REF, entry_point="fib", cache_root=tmp_path)


def test_request_cache_and_offline_rerun(stub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(llm.ENV_BASE_URL, stub)
    monkeypatch.setenv(llm.ENV_MODEL, "stub-model")
    monkeypatch.setenv(llm.ENV_API_KEY, "sk-test")
    v = llm.optimise_with_llm(REF, entry_point="fib", cache_root=tmp_path)
    assert not v.cached and v.compiles and v.optimisable
    assert v.strategies == ("hot path", "memoization")
    assert "lru_cache" in v.code
    assert len(_Stub.requests) == 1
    req = _Stub.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "stub-model" and req["body"]["temperature"] == 0.0
    prompt = req["body"]["messages"][-1]["content"]
    for s in ("algorithmic", "data structures", "cold path", "hot path", "memoization", '"None"', "`fib`"):
        assert s in prompt
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 1 and files[0].stem == v.cache_key
    assert json.loads(files[0].read_text())["response"] == ANSWER
    # rerun: served from cache, no request
    again = llm.optimise_with_llm(REF, entry_point="fib", cache_root=tmp_path)
    assert again.cached and again.code == v.code and len(_Stub.requests) == 1
    # offline, with only the model named: still served from cache
    monkeypatch.delenv(llm.ENV_BASE_URL)
    off = llm.optimise_with_llm(REF, entry_point="fib", cache_root=tmp_path, offline=True)
    assert off.cached and off.strategies == v.strategies
    # a different temperature is a different cache entry and, offline, a miss
    with pytest.raises(UserError):
        llm.optimise_with_llm(REF, entry_point="fib", cache_root=tmp_path, temperature=0.7, offline=True)


def test_none_strategy_and_bad_code(stub: str, tmp_path: Path) -> None:
    cfg = llm.LLMConfig(base_url=stub, model="stub-model")
    _Stub.answer = "Strategies: None\n```python\nNone\n```\n"
    v = llm.optimise_with_llm("n = int(input())\nprint(n)\n", config=cfg, cache_root=tmp_path)
    assert v.code is None and v.strategies == () and not v.optimisable
    prompt = _Stub.requests[-1]["body"]["messages"][-1]["content"]
    assert "standard input" in prompt
    _Stub.answer = "Strategy: Data Structure; algorithm\n```python\ndef f(:\n```"
    v = llm.optimise_with_llm("x = 1\nprint(x)\n", config=cfg, cache_root=tmp_path)
    assert v.strategies == ("algorithmic", "data structures") and not v.compiles


def test_parse_response() -> None:
    code, strategies = llm.parse_response("**Strategies:** 1) Cold path, 2) memoisation\n```py\nx = 1\n```")
    assert code == "x = 1\n" and strategies == ("cold path", "memoization")
    assert llm.parse_response("no format at all") == (None, ())


def test_unreachable_endpoint(tmp_path: Path) -> None:
    import socket
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = llm.LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout_s=5)
    with pytest.raises(UserError, match="unreachable"):
        llm.optimise_with_llm("x = 1\n", config=cfg, cache_root=tmp_path)
