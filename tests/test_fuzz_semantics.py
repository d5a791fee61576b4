"""The decisions of lcl.engine.fuzz.semantics, tested without processes."""

from __future__ import annotations

import collections
import fractions
import math

import pytest

from lcl.engine.fuzz import semantics as S


def same(a, b) -> bool:
    return S.output_digest(a) == S.output_digest(b)


@pytest.mark.parametrize("a,b", ids=lambda v: type(v).__name__, argvalues=[
    (1, 1), ("ab", "ab"), (None, None), (True, True), ([1, [2, "x"]], [1, [2, "x"]]),
    ({1: "a", 2: "b"}, {2: "b", 1: "a"}), ({3, 1, 2}, {2, 3, 1}), (frozenset("abc"), frozenset("cba")),
    (float("nan"), float("nan")), (-0.0, 0.0), (0.1 + 0.2, 0.1 + 0.2), ((1, 2.5), (1, 2.5)),
    ({"k": [1, {2, 3}]}, {"k": [1, {3, 2}]}), (10**5000, 10**5000), (b"\x00\xff", b"\x00\xff"),
    (collections.Counter("aab"), collections.Counter("baa")), (fractions.Fraction(1, 3), fractions.Fraction(2, 6)),
    (1 + 2j, 1 + 2j), (range(3), range(3)), ([math.inf], [math.inf]),
])
def test_equal_outputs(a, b) -> None:
    assert same(a, b)


@pytest.mark.parametrize("a,b", ids=lambda v: type(v).__name__, argvalues=[
    (1, 1.0), (1, True), (0, False), ([1, 2], (1, 2)), ({1: 2}, {1: 3}), ({1, 2}, frozenset({1, 2})),
    ("a", b"a"), (None, 0), ([1, [2]], [1, [3]]), (collections.Counter("ab"), dict(collections.Counter("ab"))),
    (1.0, 1.0000000001), ([], ()), ("", None), (10**5000, 10**5000 + 1), ("x" * 100, "x" * 99 + "y"),
])
def test_different_outputs(a, b) -> None:
    assert not same(a, b)


def test_objects_compare_by_type_name_and_state() -> None:
    def make(v):
        ns: dict = {}
        exec("class Node:\n    def __init__(self, v):\n        self.v = v\n        self.next = None\n", ns)
        return ns["Node"](v)

    assert same(make(1), make(1))  # distinct classes with the same name (reference vs variant)
    assert not same(make(1), make(2))
    cyc = [1]
    cyc.append(cyc)
    assert same(cyc, cyc)  # cycles terminate


def test_exception_digests() -> None:
    assert S.exception_digest("builtins.ValueError") == S.exception_digest("builtins.ValueError")
    assert S.exception_digest("builtins.ValueError") != S.exception_digest("builtins.TypeError")
    assert S.exception_digest("builtins.ValueError") != S.output_digest("builtins.ValueError")
    assert S.outcomes_match(S.EXC, S.exception_digest("x.E"), S.EXC, S.exception_digest("x.E"))
    assert not S.outcomes_match(S.TIMEOUT, b"", S.TIMEOUT, b"")


@pytest.mark.parametrize("chunks,expected", [
    ([b"  42\n"], b"42"), ([b"4", b"2", b"\n\n  "], b"42"), ([b"\n", b"  ", b"a b", b" \n", b" c", b"\n"], b"a b \n c"),
    ([b"   "], b""), ([], b""), ([b"x" * 40, b"  \n"], b"x" * 40), ([b"\t a\r\n"], b"a"),
])
def test_stripped_stdout(chunks, expected) -> None:
    h = S.StrippedHasher(1 << 20)
    for c in chunks:
        h.feed(c)
    ref = S.StrippedHasher(1 << 20)
    ref.feed(expected)
    assert h.digest() == ref.digest()
    assert not h.overflow


def test_stdout_cap() -> None:
    h = S.StrippedHasher(10)
    h.feed(b"x" * 11)
    assert h.overflow


def test_verdicts_and_scores() -> None:
    d1, d2 = S.output_digest(1), S.output_digest(2)
    assert S.verdict(S.OK, d1, S.OK, d1) == S.MATCH
    assert S.verdict(S.OK, d1, S.OK, d2) == S.MISMATCH
    assert S.verdict(S.OK, d1, S.EXC, d1) == S.MISMATCH
    assert S.verdict(S.OK, d1, S.TIMEOUT, b"") == S.VTIMEOUT
    assert S.verdict(S.OK, d1, S.CRASH, b"") == S.VCRASH
    for k in (S.EXC, S.TIMEOUT, S.CRASH):  # reference failed: invalid input, never a match
        assert S.verdict(k, d1, k, d1) == S.INVALID
    r = S.score_run(0, 1, "MMXI", 0.0, False)
    assert r.score == pytest.approx(2 / 3) and r.counts["invalid"] == 1
    assert S.score_run(0, 1, "III", 0.0, False).excluded
    assert S.score_run(0, 1, "MMM", 99.0, True).excluded
    runs = [S.score_run(0, 1, "MX", 0, False), S.score_run(1, 2, "MM", 0, False), S.score_run(2, 3, "--", 0, True)]
    assert S.df_score(runs) == pytest.approx(0.75)
    assert S.df_score([S.score_run(0, 1, "--", 0, True)]) == -1.0
    assert S.verdict_digest(runs) == S.verdict_digest(list(runs))


def test_timeouts_and_seeds() -> None:
    s = S.Settings()
    assert S.input_timeout(0.0, s) == s.timeout_floor
    assert S.input_timeout(0.2, s) == pytest.approx(2.0)
    assert S.input_timeout(100.0, s) == s.timeout_cap
    assert S.wall_deadline(1.0, s) == pytest.approx(3.5)
    # the run budget T: 3 s + 5 x the reference's CPU time on the run, at most run_budget
    assert S.run_time_budget(0.0, s) == pytest.approx(3.0)
    assert S.run_time_budget(1.0, s) == pytest.approx(8.0)
    assert S.run_time_budget(10.0, s) == s.run_budget == 30.0
    # a slow reference: T is at least 2 x its CPU time (a variant as fast as it fits), at most 2 x the cap
    assert S.run_time_budget(20.0, s) == pytest.approx(40.0)
    assert S.run_time_budget(100.0, s) == 2 * s.run_budget == 60.0
    assert all(S.run_time_budget(c, s) >= min(2 * c, 60.0) for c in (0.0, 0.5, 5.0, 14.0, 16.0, 29.0, 31.0))
    # the reference alone over T (Algorithm 1's clock covers both programs): only beyond 2 x the cap
    assert not any(S.reference_over_budget(c, s) for c in (0.0, 5.0, 29.0, 45.0, 60.0))
    assert S.reference_over_budget(60.5, s) and S.reference_over_budget(150.0, s)
    fixed = s.with_(run_budget=7.0, run_budget_floor=7.0, run_budget_factor=0.0, run_budget_ref_factor=0.0)  # `--budget 7`
    assert S.run_time_budget(0.0, fixed) == S.run_time_budget(50.0, fixed) == 7.0
    seeds = [S.run_seed(7, r) for r in range(5)]
    assert len(set(seeds)) == 5 and seeds == [S.run_seed(7, r) for r in range(5)]
    assert all(0 <= x < 2**63 for x in seeds)
    assert S.run_seed(8, 0) != seeds[0]
    assert S.Settings.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError):
        S.Settings.from_dict({"nope": 1})


def test_inputs_digest_accepts_dicts_with_unsortable_keys():
    from lcl.engine.fuzz.algorithm import inputs_digest

    a = inputs_digest([[{1: "x", "a": 2}]])
    assert a == inputs_digest([[{"a": 2, 1: "x"}]])  # key order does not matter
    assert a != inputs_digest([[{"1": "x", "a": 2}]])  # 1 and "1" differ
    assert inputs_digest([[{"b": 1, "a": 2}]]) == inputs_digest([[{"a": 2, "b": 1}]])


@pytest.mark.parametrize("n", [50, 3000])  # below and above the numpy path's threshold
def test_run_verdicts_agree_with_the_per_input_rule(n: int) -> None:
    import random

    from lcl.engine.fuzz.algorithm import ReferenceOutcomes, run_verdicts

    rnd = random.Random(n)
    ds = S.DIGEST_SIZE
    kinds = [S.NOTRUN, S.OK, S.EXC, S.TIMEOUT, S.CRASH]
    pool = [bytes([t]) * ds for t in range(4)]  # few distinct digests, so equal ones are common
    rk = bytes(rnd.choice(kinds[1:]) for _ in range(n))
    vk = bytes(rnd.choice(kinds) for _ in range(n))
    rd = b"".join(rnd.choice(pool) for _ in range(n))
    vd = b"".join(rnd.choice(pool) for _ in range(n))
    got = run_verdicts(ReferenceOutcomes(rk, rd, [0.0] * n), vk, vd)
    want = "".join(S.verdict(rk[i], rd[i * ds:(i + 1) * ds], vk[i], vd[i * ds:(i + 1) * ds]) for i in range(n))
    assert got == want and len(set(got)) >= 5


def test_inlined_marshal_digests_are_marshal_digests() -> None:
    """output_digest builds marshal v2's bytes itself for int32s, strs and short lists/tuples of
    scalars (marshal.dumps raises an audit event); the digests must be those of marshal's bytes,
    or stored reference outcomes would stop matching."""
    import marshal
    import random

    from lcl.engine.fuzz import semantics as S

    rnd = random.Random(7)

    def scalar():
        return rnd.choice([rnd.randint(-2**40, 2**40), rnd.randint(-300, 300), 2**31 * rnd.choice([-1, 1]), None,
                           rnd.random() < 0.5, bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 5))),
                           "".join(chr(rnd.choice([rnd.randint(32, 126), rnd.randint(0x80, 0xD7FF),
                                                   rnd.randint(0xDC80, 0xDCFF), rnd.randint(0x10000, 0x10FFFF)]))
                                   for _ in range(rnd.randint(0, 20)))])

    values = [0, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, "", [], (), [1] * 16, [1] * 17, [True, None, "a", 5]]
    values += [scalar() for _ in range(3000)]
    values += [rnd.choice([list, tuple])(scalar() for _ in range(rnd.randint(0, 20))) for _ in range(3000)]
    for v in values:
        want = S._D_TRUE if v is True else S._D_FALSE if v is False else S._d(S._TAG_MARSHAL, marshal.dumps(v, 2))
        assert S.output_digest(v) == want, repr(v)
