"""The input domains of the clone families (:data:`DOMAINS`): seeded generators of argument lists
on which candidates are fingerprinted and pairs are labelled by Algorithm 1 with fresh inputs,
and :class:`DomainGenerator`, their picklable form for the fuzzing engine.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Any

from lcl.core import seeds

#: bump when a domain generator, the harness or a family rule changes what is run
VERSION = "1"


def _int_list(r: random.Random, lo: int = 0, hi: int = 99, max_len: int = 12, min_len: int = 0) -> list[int]:
    return [r.randint(lo, hi) for _ in range(r.randint(min_len, max_len))]


def _word(r: random.Random, alphabet: str, max_len: int, min_len: int = 0) -> str:
    return "".join(r.choice(alphabet) for _ in range(r.randint(min_len, max_len)))


def _d_int_list(r: random.Random) -> list[Any]:
    return [_int_list(r)]


def _d_maybe_sorted(r: random.Random) -> list[Any]:
    xs = _int_list(r, 0, 30, 8)
    return [sorted(xs) if r.random() < 0.5 else xs]


def _d_signed_list(r: random.Random) -> list[Any]:
    return [_int_list(r, -20, 20, 10, 1)]


def _d_nonempty_list(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 50, 10, 1)]


def _d_distinct_small(r: random.Random) -> list[Any]:
    return [r.sample(range(-5, 20), r.randint(0, 5))]


def _d_sorted_target(r: random.Random) -> list[Any]:
    xs = sorted(r.sample(range(80), r.randint(1, 15)))
    t = r.choice(xs) if r.random() < 0.5 else r.randint(-2, 82)
    return [xs, t]


def _d_two_sum(r: random.Random) -> list[Any]:
    xs = sorted(r.sample(range(60), r.randint(2, 10)))
    i, j = sorted(r.sample(range(len(xs)), 2))
    t = xs[i] + xs[j] if r.random() < 0.7 else r.randint(0, 120)
    return [xs, t]


def _nat(lo: int, hi: int) -> Callable[[random.Random], list[Any]]:
    def d(r: random.Random) -> list[Any]:
        return [r.randint(lo, hi)]

    d.__name__ = f"_d_nat_{lo}_{hi}"
    return d


def _d_pos_pair(r: random.Random) -> list[Any]:
    return [r.randint(1, 1000), r.randint(1, 1000)]


def _d_pow_pair(r: random.Random) -> list[Any]:
    return [r.randint(-6, 9), r.randint(0, 15)]


def _d_modpow(r: random.Random) -> list[Any]:
    return [r.randint(0, 60), r.randint(0, 60), r.randint(2, 97)]


def _d_comb(r: random.Random) -> list[Any]:
    n = r.randint(0, 16)
    return [n, r.randint(0, n)]


def _d_grid(r: random.Random) -> list[Any]:
    return [r.randint(1, 7), r.randint(1, 7)]


def _d_order(r: random.Random) -> list[Any]:
    return [r.randint(1, 25), r.randint(2, 40)]


def _d_knapsack(r: random.Random) -> list[Any]:
    k = r.randint(1, 7)
    return [r.randint(0, 25), [r.randint(1, 30) for _ in range(k)], [r.randint(1, 12) for _ in range(k)]]


def _d_lcm_list(r: random.Random) -> list[Any]:
    return [[r.randint(1, 30) for _ in range(r.randint(1, 5))]]


def _d_text(r: random.Random) -> list[Any]:
    """Strings over letters of both cases, spaces and punctuation; half are (near-)palindromes."""
    w = _word(r, "abcAB ,!", 6)
    if r.random() < 0.5:
        w = w + (r.choice("abc") if r.random() < 0.5 else "") + w[::-1]
        if r.random() < 0.5:
            w = "".join(c.upper() if r.random() < 0.3 else c for c in w)
    return [w]


def _d_lower(r: random.Random) -> list[Any]:
    return [_word(r, "abcd", 12)]


def _d_short_lower(r: random.Random) -> list[Any]:
    return [_word(r, "abc", 7)]


def _d_word_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abcde", 8)
    if r.random() < 0.5:
        b = "".join(r.sample(a, len(a)))
    else:
        b = _word(r, "abcde", 8)
    return [a, b]


def _d_rotation_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abc", 8)
    if a and r.random() < 0.5:
        k = r.randrange(len(a))
        b = a[k:] + a[:k]
    else:
        b = _word(r, "abc", 8)
    return [a, b]


def _d_edit_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abc", 7)
    b = list(a)
    for _ in range(r.choice((0, 1, 1, 1, 2))):
        op = r.choice("ids")
        if op == "i" or not b:
            b.insert(r.randint(0, len(b)), r.choice("abc"))
        elif op == "d":
            b.pop(r.randrange(len(b)))
        else:
            b[r.randrange(len(b))] = r.choice("abc")
    return [a, "".join(b)]


def _d_sentence(r: random.Random) -> list[Any]:
    if r.random() < 0.5:
        letters = list(string.ascii_lowercase)
        if r.random() < 0.5:
            letters.remove(r.choice(letters))
        extra = [r.choice(string.ascii_letters + " .,") for _ in range(r.randint(0, 10))]
        chars = letters + extra
        r.shuffle(chars)
        return ["".join(c.upper() if r.random() < 0.2 else c for c in chars)]
    return [_word(r, string.ascii_letters + " ", 30)]


def _d_decodings(r: random.Random) -> list[Any]:
    return [_word(r, "0121263", 10, 1)]


def _d_strobo(r: random.Random) -> list[Any]:
    if r.random() < 0.5:
        pairs = {"0": "0", "1": "1", "8": "8", "6": "9", "9": "6"}
        half = _word(r, "01869", 3)
        mid = r.choice(["", "0", "1", "8"])
        return [half + mid + "".join(pairs[c] for c in reversed(half)) or "1"]
    return [_word(r, "0123689", 6, 1)]


def _d_digit_list(r: random.Random) -> list[Any]:
    return [[r.randint(1, 9)] + [r.choice((9, 9, 9, r.randint(0, 9))) for _ in range(r.randint(0, 7))]]


def _d_list_k(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 20, 10, 1), r.randint(0, 12)]


def _d_list_nth(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 4, 12), r.randint(1, 3)]


def _d_window(r: random.Random) -> list[Any]:
    xs = _int_list(r, -10, 20, 10, 1)
    return [xs, r.randint(1, len(xs))]


def _d_missing(r: random.Random) -> list[Any]:
    n = r.randint(1, 12)
    xs = list(range(n + 1))
    xs.remove(r.choice(xs))
    r.shuffle(xs)
    return [xs]


def _d_next_square(r: random.Random) -> list[Any]:
    return [r.randint(0, 60) ** 2 if r.random() < 0.5 else r.randint(0, 3600)]


def _d_square_matrix(r: random.Random) -> list[Any]:
    n = r.randint(1, 4)
    return [[[r.randint(-5, 9) for _ in range(n)] for _ in range(n)]]


def _d_matrix_pair(r: random.Random) -> list[Any]:
    n = r.randint(1, 4)
    return [[[r.randint(-5, 9) for _ in range(n)] for _ in range(n)] for _ in range(2)]


def _d_sudoku(r: random.Random) -> list[Any]:
    digits = list(range(1, 10))
    r.shuffle(digits)
    board = [[digits[(3 * (i % 3) + i // 3 + j) % 9] for j in range(9)] for i in range(9)]
    if r.random() < 0.5:
        i, j = r.randrange(9), r.randrange(9)
        board[i][j] = r.choice([d for d in range(10) if d != board[i][j]])
    return [board]


def _d_interleave(r: random.Random) -> list[Any]:
    a, b = _word(r, "ab", 4), _word(r, "bc", 4)
    merged, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and r.random() < 0.5):
            merged.append(a[i])
            i += 1
        else:
            merged.append(b[j])
            j += 1
    text = "".join(merged)
    if r.random() < 0.3 and text:
        k = r.randrange(len(text))
        text = text[:k] + r.choice("abc") + text[k + 1:]
    return [text, a, b]


def _d_prefix_strings(r: random.Random) -> list[Any]:
    stem = _word(r, "ab", 4)
    return [[stem + _word(r, "abc", 4) for _ in range(r.randint(1, 4))]]


def _d_letters_target(r: random.Random) -> list[Any]:
    letters = sorted(r.sample("abcdefghij", r.randint(2, 6)))
    return [letters, r.choice("abcdefghijk")]


def _d_stack(r: random.Random) -> list[Any]:
    if r.random() < 0.4:
        start = r.randint(-3, 10)
        xs = list(range(start, start + r.randint(0, 8)))
        if xs and r.random() < 0.5:
            xs[r.randrange(len(xs))] += r.choice((-2, 2))
        return [xs]
    return [_int_list(r, 0, 20, 9)]


def _d_text_pattern(r: random.Random) -> list[Any]:
    text = _word(r, "ab", 14, 1)
    if r.random() < 0.6:
        i = r.randrange(len(text))
        pat = text[i:i + r.randint(1, 4)]
    else:
        pat = _word(r, "abc", 3, 1)
    return [text, pat]


def _d_combo_sum(r: random.Random) -> list[Any]:
    return [sorted(r.sample(range(1, 10), r.randint(1, 4))), r.randint(1, 12)]


def _d_lcs_pair(r: random.Random) -> list[Any]:
    return [_word(r, "abc", 8), _word(r, "abc", 8)]


def _d_coords(r: random.Random) -> list[Any]:
    def num(lim: int) -> str:
        x = r.uniform(-lim * 1.2, lim * 1.2)
        return f"{x:.{r.randint(0, 3)}f}"

    s = f"{num(90)}, {num(180)}"
    if r.random() < 0.25:
        s = s.replace(",", r.choice(["", " ", ";"]), 1)
    if r.random() < 0.15:
        s = s.replace("-", "- ")
    return [s]


#: name -> (generator of one argument list, what it means)
DOMAINS: dict[str, tuple[Callable[[random.Random], list[Any]], str]] = {
    "int_list": (_d_int_list, "one list of 0-12 ints in [0, 99] (duplicates likely; empty lists included)"),
    "maybe_sorted": (_d_maybe_sorted, "one list of 0-8 ints in [0, 30], sorted half of the time"),
    "signed_list": (_d_signed_list, "one non-empty list of up to 10 ints in [-20, 20]"),
    "nonempty_list": (_d_nonempty_list, "one non-empty list of up to 10 ints in [0, 50]"),
    "distinct_small": (_d_distinct_small, "one list of 0-5 distinct ints in [-5, 19]"),
    "sorted_target": (_d_sorted_target, "a sorted list of 1-15 distinct ints in [0, 79] and a target (present half the time)"),
    "two_sum": (_d_two_sum, "a sorted list of 2-10 distinct ints and a target (a sum of two of them 70% of the time)"),
    "nat_20": (_nat(0, 20), "one int in [0, 20]"),
    "nat_6": (_nat(0, 6), "one int in [0, 6]"),
    "nat_30": (_nat(0, 30), "one int in [0, 30]"),
    "nat_300": (_nat(1, 300), "one int in [1, 300]"),
    "nat_2000": (_nat(0, 2000), "one int in [0, 2000]"),
    "nat_5000": (_nat(0, 5000), "one int in [0, 5000]"),
    "sieve_n": (_nat(2, 300), "one int in [2, 300]"),
    "fizz_n": (_nat(1, 40), "one int in [1, 40]"),
    "pos_pair": (_d_pos_pair, "two ints in [1, 1000]"),
    "pow_pair": (_d_pow_pair, "a base in [-6, 9] and an exponent in [0, 15]"),
    "modpow": (_d_modpow, "base and exponent in [0, 60], modulus in [2, 97]"),
    "comb": (_d_comb, "n in [0, 16], k in [0, n]"),
    "grid": (_d_grid, "two ints in [1, 7] (grid dimensions)"),
    "order": (_d_order, "a in [1, 25], n in [2, 40]"),
    "knapsack": (_d_knapsack, "capacity in [0, 25], 1-7 values in [1, 30] and as many weights in [1, 12]"),
    "lcm_list": (_d_lcm_list, "one list of 1-5 ints in [1, 30]"),
    "text": (_d_text, "one string over 'abcAB ,!' of length <= 13, half of them (near-)palindromes"),
    "lower": (_d_lower, "one string over 'abcd' of length <= 12"),
    "short_lower": (_d_short_lower, "one string over 'abc' of length <= 7"),
    "word_pair": (_d_word_pair, "two strings over 'abcde' of length <= 8 (half are anagrams)"),
    "rotation_pair": (_d_rotation_pair, "two strings over 'abc' of length <= 8 (half are rotations)"),
    "edit_pair": (_d_edit_pair, "a string over 'abc' and a copy with 0-2 edits"),
    "lcs_pair": (_d_lcs_pair, "two strings over 'abc' of length <= 8"),
    "sentence": (_d_sentence, "one string of letters, spaces and punctuation (half of them pangram candidates)"),
    "decodings": (_d_decodings, "one digit string over '0121263' of length 1-10"),
    "strobo": (_d_strobo, "one digit string, half of them strobogrammatic"),
    "digit_list": (_d_digit_list, "one list of 1-8 decimal digits, leading digit non-zero, many 9s"),
    "list_k": (_d_list_k, "a non-empty list of up to 10 ints in [0, 20] and k in [0, 12]"),
    "list_nth": (_d_list_nth, "a list of up to 12 ints in [0, 4] and n in [1, 3]"),
    "window": (_d_window, "a non-empty list of up to 10 ints in [-10, 20] and a window 1..len"),
    "missing": (_d_missing, "a shuffled list 0..n with one number missing (n in [1, 12])"),
    "next_square": (_d_next_square, "one int in [0, 3600], half of them perfect squares"),
    "square_matrix": (_d_square_matrix, "one n x n int matrix (n in [1, 4])"),
    "matrix_pair": (_d_matrix_pair, "two n x n int matrices (n in [1, 4])"),
    "sudoku": (_d_sudoku, "one solved 9 x 9 sudoku, half of them with one cell changed"),
    "interleave": (_d_interleave, "a string and two parts it may interleave (30% perturbed)"),
    "prefix_strings": (_d_prefix_strings, "1-4 strings sharing a random prefix"),
    "letters_target": (_d_letters_target, "a sorted list of 2-6 distinct letters and a target letter"),
    "stack": (_d_stack, "one list of ints (40% consecutive runs, some with one element off)"),
    "text_pattern": (_d_text_pattern, "a string over 'ab' and a pattern (a substring 60% of the time)"),
    "combo_sum": (_d_combo_sum, "1-4 sorted distinct ints in [1, 9] and a target in [1, 12]"),
    "coords": (_d_coords, "one 'lat, lon' string, some malformed or out of range"),
}


def generate(domain: str, seed: int, n: int) -> list[list[Any]]:
    """``n`` argument lists of ``domain`` from ``seed`` (deterministic)."""
    fn = DOMAINS[domain][0]
    r = seeds.rng("lcl-clones", domain, int(seed))
    return [fn(r) for _ in range(n)]


class DomainGenerator:
    """``gen(seed, n)`` for the fuzzing engine (picklable; its ``cache_name`` names the domain
    and :data:`VERSION`, so cached fuzz results follow generator changes)."""

    def __init__(self, domain: str) -> None:
        if domain not in DOMAINS:
            raise KeyError(f"unknown clone input domain {domain!r}")
        self.domain = domain
        # "lcl.study.clones": the package these generators were first defined in; the archived results are keyed by it
        self.cache_name = f"lcl.clones.CloneDomain[{domain}:v{VERSION}]"

    def __call__(self, seed: int, n: int) -> list[list[Any]]:
        return generate(self.domain, seed, n)
