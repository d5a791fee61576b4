"""Optimised variants with a model (optional, off by default).

Mirrors the paper's Step I prompt: ask an LLM to optimise a reference with one or more of the
five strategies (algorithmic, data structures, cold path, hot path, memoization) and to answer
"None" when the code cannot be optimised; record the code and the strategies.

The backend is any OpenAI-compatible ``/chat/completions`` endpoint, configured only through
environment variables (nothing is contacted unless they are set):

- ``LCL_LLM_BASE_URL`` (e.g. ``http://127.0.0.1:8000/v1``), ``LCL_LLM_MODEL``, ``LCL_LLM_API_KEY``
  (optional), ``LCL_LLM_TEMPERATURE`` (optional, default 0).

Every response is cached under ``data/interim/llm_cache/`` keyed by SHA-256 of (prompt, model,
temperature), so reruns are offline and reproducible: with a cache hit no configuration and no
network are needed. HTTP uses only the standard library. Model output is untrusted code: it is
parsed and compile-checked here, never executed.
"""

from __future__ import annotations

import ast
import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lcl.core import paths
from lcl.core.cache import key as cache_key
from lcl.core.errors import UserError
from lcl.core.io import write_json

from .rewrite import STRATEGIES

__all__ = ["LLMConfig", "LLMVariant", "build_prompt", "cache_dir", "optimise_with_llm", "parse_response"]

ENV_BASE_URL = "LCL_LLM_BASE_URL"
ENV_API_KEY = "LCL_LLM_API_KEY"
ENV_MODEL = "LCL_LLM_MODEL"
ENV_TEMPERATURE = "LCL_LLM_TEMPERATURE"

SYSTEM_PROMPT = "You are an expert Python performance engineer."

PROMPT_TEMPLATE = """Optimize the following Python {kind} using one or more of these strategies:
1) algorithmic, 2) data structures, 3) cold path, 4) hot path, 5) memoization.
{contract}
If the code cannot be optimized, answer "None" as the strategy.
Answer in exactly this format:
Strategies: <comma-separated strategies from the list above, or None>
```python
<the complete optimized code>
```

Code:
```python
{code}
```
"""


@dataclass(frozen=True)
class LLMConfig:
    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    timeout_s: float = 120.0

    @classmethod
    def from_env(cls) -> LLMConfig | None:
        """The configured backend, or ``None`` (the default: no model is used)."""
        base, model = os.environ.get(ENV_BASE_URL), os.environ.get(ENV_MODEL)
        if not base or not model:
            return None
        temp = os.environ.get(ENV_TEMPERATURE, "0")
        try:
            temperature = float(temp)
        except ValueError as exc:
            raise UserError(f"{ENV_TEMPERATURE}={temp!r} is not a number") from exc
        return cls(base_url=base.rstrip("/"), model=model, api_key=os.environ.get(ENV_API_KEY) or None,
                   temperature=temperature)


@dataclass(frozen=True)
class LLMVariant:
    """A model-optimised variant: ``code`` is ``None`` when the model answered "None" or gave no
    code block; ``compiles`` says whether ``code`` compiles (it is never executed)."""

    code: str | None
    strategies: tuple[str, ...]
    raw: str
    model: str
    temperature: float
    cache_key: str
    cached: bool
    compiles: bool

    @property
    def optimisable(self) -> bool:
        return self.code is not None and bool(self.strategies)


def build_prompt(code: str, *, entry_point: str | None = None) -> str:
    if entry_point:
        kind = "function"
        contract = (f"Keep the function `{entry_point}` with exactly the same name and signature, and "
                    "the same behaviour for every input.")
    else:
        kind = "program"
        contract = "It reads from standard input and writes to standard output; keep that behaviour identical."
    return PROMPT_TEMPLATE.format(kind=kind, contract=contract, code=code.rstrip("\n"))


def cache_dir() -> Path:
    return paths.llm_responses()


_ALIASES = {"memoisation": "memoization", "memoization": "memoization", "data structure": "data structures",
            "data structures": "data structures", "algorithm": "algorithmic", "algorithmic": "algorithmic",
            "cold path": "cold path", "hot path": "hot path"}


def parse_response(text: str) -> tuple[str | None, tuple[str, ...]]:
    """(code, strategies) from a model answer; strategies are normalised to the paper's labels
    (unknown labels are kept, lower-cased); ``("None",)`` comes back as ``()``."""
    strategies: list[str] = []
    m = re.search(r"^\s*\**\s*strateg(?:y|ies)\s*\**\s*:\s*(.+)$", text, re.IGNORECASE | re.MULTILINE)
    if m:
        for part in re.split(r"[,;]|\band\b", m.group(1)):
            label = re.sub(r"^[\s\d).*`\"']+|[\s.*`\"']+$", "", part).lower()
            if not label or label == "none":
                continue
            label = _ALIASES.get(label, label)
            if label not in strategies:
                strategies.append(label)
    blocks = re.findall(r"```(?:python|py)?[ \t]*\n(.*?)```", text, re.DOTALL)
    code = blocks[0].strip("\n") + "\n" if blocks else None
    if code is not None and code.strip() in ("", "None"):
        code = None
    ordered = [s for s in STRATEGIES if s in strategies] + [s for s in strategies if s not in STRATEGIES]
    return code, tuple(ordered)


def _post(config: LLMConfig, prompt: str) -> str:
    body = json.dumps({
        "model": config.model,
        "temperature": config.temperature,
        "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}],
    }).encode()
    headers = {"Content-Type": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    req = urllib.request.Request(f"{config.base_url}/chat/completions", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=config.timeout_s) as resp:  # noqa: S310 - configured endpoint
            payload = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise UserError(f"LLM endpoint {config.base_url} answered HTTP {exc.code}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise UserError(f"LLM endpoint {config.base_url} unreachable: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UserError(f"LLM endpoint {config.base_url} did not return JSON") from exc
    try:
        return str(payload["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError) as exc:
        raise UserError(f"LLM endpoint {config.base_url}: unexpected response shape") from exc


def optimise_with_llm(code: str, *, entry_point: str | None = None, config: LLMConfig | None = None,
                      model: str | None = None, temperature: float | None = None,
                      cache_root: Path | None = None, offline: bool = False) -> LLMVariant:
    """Ask the configured model to optimise ``code`` (cached). With no configuration (the
    default) only cached answers are used: pass ``model`` (or set ``LCL_LLM_MODEL``) to name
    the cache entry; a miss raises :class:`UserError`. ``offline=True`` never contacts the
    endpoint even when configured."""
    config = config or LLMConfig.from_env()
    model = model or (config.model if config else os.environ.get(ENV_MODEL))
    if not model:
        raise UserError(f"no LLM model configured: set {ENV_BASE_URL} and {ENV_MODEL} (the LLM backend is off by default)")
    if temperature is None:
        temperature = config.temperature if config else float(os.environ.get(ENV_TEMPERATURE, "0") or 0)
    prompt = build_prompt(code, entry_point=entry_point)
    k = cache_key(prompt, model, temperature)
    path = (cache_root or cache_dir()) / k[:2] / f"{k}.json"
    cached = path.exists()
    if cached:
        raw = json.loads(path.read_text(encoding="utf-8"))["response"]
    else:
        if offline or config is None:
            raise UserError(f"no cached LLM answer for this prompt/model ({k[:12]}) and the backend is "
                            f"{'offline' if offline else f'off (set {ENV_BASE_URL} and {ENV_MODEL})'}")
        if config.model != model or config.temperature != temperature:
            config = LLMConfig(config.base_url, model, config.api_key, temperature, config.timeout_s)
        raw = _post(config, prompt)
        write_json(path, {"prompt": prompt, "model": model, "temperature": temperature, "response": raw})
    parsed_code, strategies = parse_response(raw)
    compiles = False
    if parsed_code is not None:
        try:
            compile(ast.parse(parsed_code), "<llm-variant>", "exec", dont_inherit=True)
            compiles = True
        except (SyntaxError, ValueError):
            compiles = False
    return LLMVariant(code=parsed_code, strategies=strategies, raw=raw, model=model, temperature=temperature,
                      cache_key=k, cached=cached, compiles=compiles)
