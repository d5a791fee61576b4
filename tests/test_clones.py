"""Human-written clone pairs (lcl.study.clones): extraction of units, families and domains, the
observation rule for in-place vs returning functions, clustering by behaviour fingerprints,
capped seeded pair sampling, labels. Synthetic packages keep these fast; one test reads the
real collections when they are fetched."""

from __future__ import annotations

import re
import textwrap
import warnings
from pathlib import Path

import pytest

from lcl.study import clones
from lcl.core import records
from lcl.engine.fuzz import CodeSpec, ResultStore, Settings, compute_reference

pytestmark = pytest.mark.timeout(180)

SORTS = {
    "pkga/sorting.py": '''
        """Module docstring."""
        from __future__ import annotations
        import random
        LIMIT = 3


        def _swap(xs: list[int], i: int, j: int) -> None:
            xs[i], xs[j] = xs[j], xs[i]


        def bubble_sort(array: list[int]) -> list[int]:
            """Sort (returns the same list, sorted in place)."""
            for i in range(len(array)):
                for j in range(len(array) - 1 - i):
                    if array[j] > array[j + 1]:
                        _swap(array, j, j + 1)
            return array


        def inplace_sort(xs, key=lambda x: x, reverse=False):
            xs.sort(key=key, reverse=reverse)


        def broken_sort(array):
            return array[:LIMIT]


        def nothing_sort(array):
            return None


        def unrelated(a, b):
            return random.random()
    ''',
    "pkgb/sorts.py": '''
        from .helpers import merge


        def merge_sort(arr):
            return merge(arr)


        def new_sort(arr):
            out = list(arr)
            out.sort()
            return out


        def two_arg_sort(arr, start, end):
            return arr
    ''',
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    return _write(tmp_path / "clones", SORTS)


@pytest.fixture
def store(tmp_path: Path):
    with ResultStore(tmp_path / "store.sqlite") as st:
        yield st


def _by_name(functions: list[clones.Function]) -> dict[str, clones.Function]:
    return {f.name: f for f in functions}


def _outcome(fn: clones.Function, observe: str, inputs: list) -> tuple[bytes, bytes]:
    code = clones.harness(fn.code, fn.name, observe)
    res = compute_reference(CodeSpec("function", code, clones.ENTRY, "r.py"), inputs,
                            Settings().with_(reference_timeout=2.0))
    return bytes(res.kinds), bytes(res.digests)


# ----------------------------------------------------------------------------- extraction
def test_unit_holds_the_function_and_what_it_needs(fake_root: Path) -> None:
    led = records.Ledger()
    fs = _by_name(clones.extract(fake_root, packages=("pkga", "pkgb"), ledger=led))
    assert led.generated["CLONE functions extracted"] == 9
    bubble = fs["bubble_sort"]
    assert bubble.qualname == "pkga/sorting.py:bubble_sort"
    assert "def _swap" in bubble.code and "LIMIT" not in bubble.code and "import random" not in bubble.code
    assert "docstring" not in bubble.code and "Sort (returns" not in bubble.code  # docstrings removed
    assert bubble.code.startswith("from __future__ import annotations")  # annotations stay unevaluated
    assert "LIMIT = 3" in fs["broken_sort"].code
    assert "import random" in fs["unrelated"].code
    assert fs["nothing_sort"].code == "def nothing_sort(array):\n    return None"  # no annotations: no future import
    assert fs["merge_sort"].problem and "relative import" in fs["merge_sort"].problem
    assert fs["new_sort"].problem is None
    compile(bubble.code, "<unit>", "exec")


def test_signature_fit() -> None:
    def fn(src: str) -> clones.Function:
        return clones.units("p", "m.py", src)[0]

    assert fn("def f(a): pass").accepts(1) and not fn("def f(a): pass").accepts(2)
    assert fn("def f(a, key=None, reverse=False): pass").accepts(1)
    assert fn("def f(a, key=None, reverse=False): pass").accepts(3)
    assert not fn("def f(a, start, end): pass").accepts(1)
    assert fn("def f(*args): pass").accepts(2)
    assert not fn("def f(a, *, k): pass").accepts(1)


def test_unparsable_files_are_counted(tmp_path: Path) -> None:
    root = _write(tmp_path / "c", {"p/ok.py": "def f(x):\n    return x\n", "p/py2.py": "print 'hello'\n"})
    led = records.Ledger()
    fs = clones.extract(root, packages=("p", "missing"), ledger=led)
    assert [f.name for f in fs] == ["f"]
    assert led.dropped["CLONE file: does not parse"] == 1
    assert led.dropped["CLONE package: missing not fetched"] == 1


# ----------------------------------------------------------------------------- families and domains
def test_families_and_domains_are_consistent() -> None:
    assert len(clones.FAMILY) == len(clones.FAMILIES)
    for fam in clones.FAMILIES:
        assert fam.domain in clones.DOMAINS, fam.name
        assert fam.observe in ("return", "return_or_arg0")
        re.compile(fam.pattern)
        args = clones.generate(fam.domain, 7, 5)
        assert len(args) == 5 and all(isinstance(a, list) and len(a) == fam.arity for a in args), fam.name
    for name in ("smoke", "quick", "full"):
        caps = clones.caps_for(name)
        assert caps.families is None or set(caps.families) <= set(clones.FAMILY)


def test_domains_are_deterministic_and_picklable() -> None:
    import pickle

    for name in clones.DOMAINS:
        assert clones.generate(name, 3, 20) == clones.generate(name, 3, 20)
    assert clones.generate("int_list", 1, 50) != clones.generate("int_list", 2, 50)
    gen = pickle.loads(pickle.dumps(clones.DomainGenerator("sorted_target")))
    assert gen.cache_name == f"lcl.clones.CloneDomain[sorted_target:v{clones.VERSION}]"
    for xs, t in gen(11, 50):
        assert xs == sorted(set(xs)) and isinstance(t, int)
    with pytest.raises(KeyError):
        clones.DomainGenerator("nope")


def test_family_rules() -> None:
    def f(q: str) -> clones.Function:
        pkg, rest = q.split("/", 1)
        mod, name = rest.split(":")
        return clones.Function(pkg, mod, name, 1, 1, False, 0, "")

    sort, is_sorted = clones.FAMILY["sort"], clones.FAMILY["is_sorted"]
    assert sort.matches(f("pygorithm/sorting/bubble_sort.py:sort"))
    assert sort.matches(f("searchsort/sorting.py:BubbleSort"))
    assert not sort.matches(f("algorithms/stack/is_sorted.py:is_sorted"))
    assert is_sorted.matches(f("algorithms/sorting/bogo_sort.py:_is_sorted"))
    assert not clones.FAMILY["fibonacci"].matches(f("searchsort/searching.py:FibonacciSearch"))
    assert clones.FAMILY["search"].matches(f("searchsort/searching.py:FibonacciSearch"))
    assert not clones.FAMILY["search"].matches(f("searchsort/searching.py:AvailableSearchingAlgorithms"))


# ----------------------------------------------------------------------------- observation rule
def test_in_place_and_returning_sorts_are_one_behaviour(fake_root: Path) -> None:
    fs = _by_name(clones.extract(fake_root, packages=("pkga", "pkgb")))
    inputs = [[[3, 1, 2]], [[]], [[5, 5, 0, 9]]]
    bubble = _outcome(fs["bubble_sort"], "return_or_arg0", inputs)
    inplace = _outcome(fs["inplace_sort"], "return_or_arg0", inputs)
    new = _outcome(fs["new_sort"], "return_or_arg0", inputs)
    assert bubble == inplace == new
    # observing the return value only, the in-place sort's None is a different behaviour
    assert _outcome(fs["inplace_sort"], "return", inputs) != _outcome(fs["new_sort"], "return", inputs)
    # returning None without sorting is not sorting, under either rule
    assert _outcome(fs["nothing_sort"], "return_or_arg0", inputs) != bubble


def test_iterators_are_materialised() -> None:
    gen = clones.units("p", "m.py", "def f(xs):\n    for x in xs:\n        yield x * 2\n")[0]
    lst = clones.units("p", "n.py", "def g(xs):\n    return [x * 2 for x in xs]\n")[0]
    other = clones.units("p", "o.py", "def h(xs):\n    for x in xs:\n        yield x\n")[0]
    inputs = [[[1, 2]], [[]], [[7]]]
    assert _outcome(gen, "return", inputs) == _outcome(lst, "return", inputs)
    assert _outcome(gen, "return", inputs) != _outcome(other, "return", inputs)


def test_harness_rejects_unknown_rule() -> None:
    with pytest.raises(ValueError):
        clones.harness("def f(x):\n    return x", "f", "stdout")


# ----------------------------------------------------------------------------- clusters and pairs
def test_fingerprints_cluster_equivalent_implementations(fake_root: Path, store: ResultStore) -> None:
    led = records.Ledger()
    fs = clones.extract(fake_root, packages=("pkga", "pkgb"), ledger=led)
    cands = clones.candidates(fs, clones.Caps(families=("sort",)), 1, led)
    names = sorted(c.function.name for c in cands)
    assert names == ["broken_sort", "bubble_sort", "inplace_sort", "new_sort", "nothing_sort"]
    assert led.dropped["CLONE candidate: needs a relative import"] == 1  # merge_sort
    assert led.dropped["CLONE candidate: signature does not fit the family (1 argument(s))"] == 1  # two_arg_sort
    kept = clones.fingerprint_all(cands, 40, 5, led, store=store)
    clusters = clones.cluster(kept, led)
    assert [(c.id, sorted(m.name for m in c.members)) for c in clusters] == \
        [("sort#1", ["bubble_sort", "inplace_sort", "new_sort"])]
    assert led.dropped["CLONE candidate: no equivalent implementation among the candidates (singleton)"] == 2
    # every candidate is accounted for
    assert len(cands) == 3 + 2
    # the second time, fingerprints come from the store
    n = len(store.refs())
    clones.fingerprint_all(cands, 40, 5, records.Ledger(), store=store)
    assert len(store.refs()) == n


def test_bad_candidates_are_excluded_with_a_reason(tmp_path: Path, store: ResultStore) -> None:
    root = _write(tmp_path / "c", {"p/s.py": '''
        def slow_sort(a):
            while True:
                pass


        def raising_sort(a):
            return sorted(a)[len(a) // 2 + 100]


        def const_sort(a):
            return 1


        def identity_sort(a):
            return a
        raise SystemExit(3)  # module-level statements are not part of any unit
    '''})
    led = records.Ledger()
    fs = clones.extract(root, packages=("p",), ledger=led)
    cands = clones.candidates(fs, clones.Caps(families=("sort",)), 1, led)
    kept = clones.fingerprint_all(cands, 12, 3, led, store=store)
    assert [c.function.name for c in kept] == ["identity_sort"]
    assert led.dropped["CLONE candidate: times out or crashes on the probe (largest) inputs"] == 1
    assert led.dropped["CLONE candidate: raises on more than half of the domain inputs"] == 1
    assert led.dropped["CLONE candidate: same output on every input (uninformative)"] == 1


def _cluster(n: int) -> clones.Cluster:
    """``n`` members whose units alternate between two texts (even and odd members)."""
    texts = ("def s(a):\n    return sorted(a)", "def s(a):\n    return list(sorted(a))")
    members = [clones.Function("algorithms" if i % 3 else "pygorithm", f"m{i}.py", "s", 1, 1, False, 0, texts[i % 2])
               for i in range(n)]
    return clones.Cluster("sort#1", clones.FAMILY["sort"], members)


def test_pairs_are_capped_seeded_and_carry_provenance() -> None:
    cl = _cluster(8)  # 28 pairs; units alternate between two texts -> 12 identical pairs
    led = records.Ledger()
    rows = clones.pair_rows([cl], clones.Caps(pairs_per_cluster=5), 42, led)
    assert led.generated["CLONE candidate pairs"] == 28
    assert led.dropped["CLONE pair: identical code (the same unit in two places)"] == 12
    assert led.dropped["CLONE pair: over the per-cluster cap (5, seeded sample, cross-package pairs first)"] == 11
    assert len(rows) == 5 and len({r["id"] for r in rows}) == 5
    # members 0, 3, 6 are pygorithm, the rest algorithms: 8 distinct cross-package pairs exist -> 5 taken
    assert all(r["cross_package"] for r in rows)
    again = clones.pair_rows([cl], clones.Caps(pairs_per_cluster=5), 42, records.Ledger())
    assert rows == again
    other = clones.pair_rows([cl], clones.Caps(pairs_per_cluster=5), 43, records.Ledger())
    assert [r["id"] for r in other] == [r["id"] for r in rows] and other != rows
    for r in rows:
        assert r["variant_type"] == "CLONE" and r["benchmark"] == "Clones" and r["level"] == "function"
        assert r["reference"] != r["candidate"]
        assert r["reference_licence"] == r["variant_licence"] == "MIT"
        assert r["reference_registry"] and r["cross_package"] == (r["reference_package"] != r["variant_package"])
        assert r["observe"] == "return_or_arg0" and r["domain"] == "int_list"


def test_label_and_assemble(fake_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    from lcl.core import profiles

    fs = _by_name(clones.extract(fake_root, packages=("pkga", "pkgb")))
    cl = clones.Cluster("sort#1", clones.FAMILY["sort"], [fs["bubble_sort"], fs["inplace_sort"], fs["new_sort"]])
    led = records.Ledger()
    rows = clones.pair_rows([cl], clones.Caps(pairs_per_cluster=10), 1, led)
    assert len(rows) == 3
    # a pair that is not equivalent on fresh inputs is discarded and counted
    bad = dict(rows[0], id="CLONE_sort_1_99", candidate=fs["broken_sort"].code, variant_function="broken_sort")
    results = clones.label_pairs(rows + [bad], profiles.get("smoke"), 1, jobs=1, progress=False)
    pairs = clones.assemble(rows + [bad], results, led)
    assert [p["id"] for p in pairs] == [r["id"] for r in rows]
    assert all(p["df_score"] == 1.0 and 0 <= p["surface_sim"] <= 1 for p in pairs)
    assert all(p["counts"]["matches"] > 0 for p in pairs)
    assert led.dropped["CLONE pair: equivalence not confirmed on fresh inputs (df_score < 1): discarded"] == 1
    tab = clones.cluster_table([cl], pairs)
    assert tab.loc[0, "pairs"] == 3 and tab.loc[0, "functions"] == 3 and tab.loc[0, "mean df_score"] == 1.0


def test_resolver_ignores_other_rows() -> None:
    assert clones.resolve_clone({"id": "LOCAL_HE_1_OP_1", "golden_code": "", "generated_code": ""}) is None
    spec = clones.resolve_clone({"id": "CLONE_gcd_1_1", "domain": "pos_pair"})
    assert spec["entry"] == clones.ENTRY and spec["generator"](1, 3) == clones.generate("pos_pair", 1, 3)


# ----------------------------------------------------------------------------- the real collections
def test_real_collections_extract_and_match(project_data) -> None:  # noqa: ANN001 - fixture fetches the collections
    root = clones.clones_root()
    if not all((root / p).is_dir() for p in clones.PACKAGES):
        pytest.skip("clone collections not fetched (lcl data fetch)")
    led = records.Ledger()
    fs = clones.extract(ledger=led)
    assert len(fs) > 500
    cands = clones.candidates(fs, clones.Caps(), 1, led)
    fams = {c.family.name for c in cands}
    assert {"sort", "search", "gcd", "fibonacci"} <= fams
    sorts = [c for c in cands if c.family.name == "sort"]
    assert len(sorts) > 50 and {c.function.package for c in sorts} == set(clones.PACKAGES)
    # every unit compiles on its own (nothing is executed here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        for f in fs:
            if f.problem is None:
                compile(f.code, f.qualname, "exec")


# ----------------------------------------------------------------------------- CLI
def test_clones_cli_runs_the_notebook_pipeline(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``lcl variants clones`` runs :func:`clones.build` with the notebook's profile and seed and
    prints the summary and the ledger; a bad profile is a clear error, nothing run."""
    from lcl.cli import main

    calls: list[tuple] = []
    cl = clones.Cluster("sort#1", clones.FAMILY["sort"], [])

    def fake_build(profile, seed, jobs, ledger, progress=True):  # noqa: ANN001, ANN202
        calls.append((profile.name, seed, jobs, progress))
        ledger.generated["CLONE functions extracted"] += 12
        ledger.drop("CLONE candidate", "no equivalent implementation among the candidates (singleton)", 5)
        return [{"id": "CLONE_sort_1_0", "surface_sim": 0.5, "df_score": 1.0, "cross_package": True},
                {"id": "CLONE_sort_1_1", "surface_sim": 0.7, "df_score": 1.0, "cross_package": False}], [cl]

    monkeypatch.setattr(clones, "build", fake_build)
    assert main(["variants", "clones", "--profile", "smoke", "--jobs", "1", "--seed", "7", "--no-progress"]) == 0
    assert calls == [("smoke", 7, 1, False)]
    out = capsys.readouterr().out
    assert "1 clusters of 0 functions -> 2 labelled pairs (1 cross-package)" in out
    assert "mean SurfaceSim 0.600, mean df_score 1.000" in out
    assert "CLONE functions extracted" in out and "(singleton)" in out
    assert main(["variants", "clones", "--profile", "nope"]) == 2 and len(calls) == 1
