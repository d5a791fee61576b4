"""CodeBLEU and CrystalBLEU: maxima, hand-checked values, degenerate inputs."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from lcl.engine.metrics.base import MetricWarning
from lcl.engine.metrics.codebleu_metric import CodeBLEU
from lcl.engine.metrics.crystalbleu_metric import CrystalBLEU, ignore_set, tokenize

PY = (
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
)
PY_MUT = PY.replace("a + b", "a - b")
JAVA_LIKE_PY = (
    "\ndef merge(xs, ys):\n    out = []\n    while xs and ys:\n        if xs[0] <= ys[0]:\n"
    "            out.append(xs.pop(0))\n        else:\n            out.append(ys.pop(0))\n"
    "    return out + xs + ys\n"
)
JAVA = "class Main {\n  static int add(int a, int b) {\n    int s = a + b;\n    return s;\n  }\n}\n"


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))


def test_codebleu_identical_is_one_python_and_java() -> None:
    m = CodeBLEU(workers=1)
    assert m.score([PY], [PY], "python", cache=False)[0] == pytest.approx(1.0)
    assert m.score([JAVA], [JAVA], "java", cache=False)[0] == pytest.approx(1.0)


def test_codebleu_known_values_and_quirks() -> None:
    m = CodeBLEU(workers=1)
    with pytest.warns(MetricWarning):
        v = m.score([PY, PY, "print(1)"], [PY_MUT, "", "print(1)"], "python", cache=False)
    assert 0.5 < v[0] < 1.0
    # empty candidate: all parts 0 but a zero data-flow score counts as 1 -> 0.25
    assert v[1] == pytest.approx(0.25)
    # no reference data flow -> dataflow 0 -> counted as 1; 2-token code never reaches BLEU-4 = 1
    assert v[2] == pytest.approx(0.25 * 0.17782794 + 0.25 * 0.04374848 + 0.25 + 0.25, abs=1e-6)


def test_crystalbleu_tokens_and_ignore_set() -> None:
    toks = tokenize("x = f(a,  b)  # hi\n")
    assert toks == ["x", "=", "f", "(", "a", ",", "b", ")", "# hi"]
    ig = ignore_set([["a", "b", "a"], ["a", "c"]], k=2)
    assert list(ig) == [("a",), ("b",)]  # 'a' x3, then the first of the ties


def test_crystalbleu_identical_and_degenerate() -> None:
    m = CrystalBLEU(mode="corpus", ignore={})  # nothing ignored: plain BLEU-4, identical = 1
    assert m.score([PY], [PY], cache=False)[0] == pytest.approx(1.0)
    paper = CrystalBLEU(mode="paper")
    assert paper.score([PY + JAVA_LIKE_PY], [PY + JAVA_LIKE_PY], cache=False)[0] == pytest.approx(1.0)
    # documented quirk: when the pair's own top-50 n-grams cover all of a short program, even
    # identical code scores 0 (no n-gram left to match)
    assert paper.score([PY], [PY], cache=False)[0] == 0.0
    assert m.score([JAVA], [JAVA], "java", cache=False)[0] == pytest.approx(1.0)
    with pytest.warns(MetricWarning):
        v = CrystalBLEU(mode="corpus").score([PY, PY], ["", "def f(:"], cache=False)
    assert v[0] == 0.0 and 0.0 <= v[1] <= 1.0


def test_crystalbleu_corpus_ignore_set_changes_scores() -> None:
    refs, cands = [PY, JAVA.replace("int", "long")], [PY_MUT, "x = 1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corpus = CrystalBLEU(mode="corpus").score(refs, cands, cache=False)
        plain = CrystalBLEU(mode="corpus", ignore={}).score(refs, cands, cache=False)
    assert corpus[0] < plain[0]
    # paper mode: each pair's own top-50 n-grams are ignored; mutants of short code collapse to 0
    assert CrystalBLEU(mode="paper").score([PY], [PY_MUT], cache=False)[0] <= plain[0]


def test_crystalbleu_defaults_to_the_authors_per_pair_mode() -> None:
    from lcl.engine import metrics

    assert CrystalBLEU().mode == "paper" and CrystalBLEU().label == "CrystalBLEU"
    assert metrics.get_metric("crystalbleu").mode == "paper"
    corpus = metrics.get_metric("crystalbleu_corpus")
    assert corpus.mode == "corpus" and corpus.label == metrics.label("crystalbleu_corpus") == "CrystalBLEU[corpus]"
    # a short identical pair: the per-pair ignore set removes every n-gram (0), the corpus one does not
    assert CrystalBLEU().score([PY], [PY], cache=False)[0] == 0.0
    with pytest.raises(ValueError, match="mode='corpus'"):
        CrystalBLEU(ignore={})
