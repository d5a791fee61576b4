"""Step 2 of the clone pipeline (:mod:`lcl.study.clones`): the candidate families (name/signature rules
with an input domain and an observation rule, :data:`FAMILIES`), and :func:`harness`, which
applies the observation rule to a unit when it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .extraction import Function

#: the harness's entry point (both sides of every clone pair are called through it)
ENTRY = "__lcl_clone_entry__"


@dataclass(frozen=True)
class Family:
    name: str
    domain: str
    arity: int
    pattern: str  # re.search over "package/module:name" (case-insensitive)
    observe: str = "return"  # return | return_or_arg0
    exclude: str | None = None  # re.search over the same string: not a candidate

    def matches(self, f: Function) -> bool:
        q = f.qualname
        return bool(re.search(self.pattern, q, re.I)) and not (self.exclude and re.search(self.exclude, q, re.I))


FAMILIES: tuple[Family, ...] = (
    Family("sort", "int_list", 1, r":\w*sort\w*$", "return_or_arg0", exclude=r":_?is_?sorted$"),
    Family("is_sorted", "maybe_sorted", 1, r":_?is_?sorted$"),
    Family("search", "sorted_target", 2, r":\w*(search|occurrence)\w*$", exclude=r":Available"),
    Family("two_sum", "two_sum", 2, r":two_sum\w*$"),
    Family("gcd", "pos_pair", 2, r":_?(x?gcd|gcf|xgcf|gcd_bit|extended_gcd|_extended_gcd)$"),
    Family("lcm_list", "lcm_list", 1, r"pygorithm/math/lcm\w*\.py:lcm\w*$"),
    Family("prime_check", "nat_2000", 1, r":_?(prime_check|is_prime)$"),
    Family("primes_upto", "sieve_n", 1, r":(get_primes|sieve_of_eratosthenes)$"),
    Family("fibonacci", "nat_20", 1, r"(fib\w*\.py:|:\w*fib\w*$)", exclude=r"search"),
    Family("factorial", "nat_20", 1, r":_?\w*factorial\w*$"),
    Family("power", "pow_pair", 2, r":(fpow\d|power|power_recur)$"),
    Family("modpow", "modpow", 3, r":(power|power_recur|modular_exponential)$"),
    Family("binomial", "comb", 2, r":(combination|combination_memo|fcomb|recursive_binomial_coefficient)$"),
    Family("knapsack", "knapsack", 3, r":_?knapsack\w*$"),
    Family("lis", "nonempty_list", 1, r":longest_increasing_subsequence\w*$"),
    Family("palindrome", "text", 1, r":is_palindrome\w*$"),
    Family("pangram", "sentence", 1, r":(check_pangram|panagram|is_pangram)$"),
    Family("anagram", "word_pair", 2, r":(anagram|is_anagram)$"),
    Family("reverse_string", "lower", 1, r"reverse_string\.py:(recursive|iterative|pythonic|ultra_pythonic)$"),
    Family("manacher", "lower", 1, r":manacher$"),
    Family("suffix_array", "lower", 1, r":sufar\w*$"),
    Family("subsets", "distinct_small", 1, r":(subsets\w*|build_powerset_\d)$"),
    Family("permutations", "distinct_small", 1, r":(permute\w*)$"),
    Family("count_ones", "nat_5000", 1, r":count_ones\w*$"),
    Family("max_subarray", "signed_list", 1, r":(max_subarray|max_contiguous_subsequence_sum)$"),
    Family("max_product", "signed_list", 1, r":(max_product|subarray_with_max_product)$"),
    Family("climb_stairs", "nat_30", 1, r":climb_stairs\w*$"),
    Family("count_paths", "grid", 2, r":count_paths\w*$"),
    Family("num_decodings", "decodings", 1, r":num_decodings\d?$"),
    Family("max_profit", "nonempty_list", 1, r":max_profit\w*$"),
    Family("alternating_bits", "nat_5000", 1, r":has_alternative_bit\w*$"),
    Family("missing_number", "missing", 1, r":find_missing_number\d?$"),
    Family("strobogrammatic", "strobo", 1, r":is_strobogrammatic\d?$"),
    Family("next_square", "next_square", 1, r":find_next_square\d?$"),
    Family("longest_non_repeat", "lower", 1, r":(get_)?longest_non_repeat\w*$"),
    Family("plus_one", "digit_list", 1, r":plus_one\w*$"),
    Family("rotate_array", "list_k", 2, r"array/rotate\.py:rotate\w*$", "return_or_arg0"),
    Family("delete_nth", "list_nth", 2, r":delete_nth\w*$"),
    Family("rotated_string", "rotation_pair", 2, r":is_rotated\w*$"),
    Family("one_edit", "edit_pair", 2, r":is_one_edit\d?$"),
    Family("edit_distance", "lcs_pair", 2, r":(min_distance\w*|edit_distance)$"),
    Family("common_subsequence", "lcs_pair", 2, r":(longest_common_subsequence|max_common_sub_string)$"),
    Family("common_prefix", "prefix_strings", 1, r":longest_common_prefix\w*$"),
    Family("merge_string", "interleave", 3, r":is_merge\w*$"),
    Family("fizzbuzz", "fizz_n", 1, r":fizzbuzz\w*$"),
    Family("coordinates", "coords", 1, r":is_valid_coordinates\w*$"),
    Family("factors", "nat_300", 1, r":(get_factors\w*|recursive_get_factors)$"),
    Family("combination_sum", "combo_sum", 2, r":combination_sum\w*$"),
    Family("palindromic_substrings", "short_lower", 1, r":palindromic_substrings\w*$"),
    Family("generate_parenthesis", "nat_6", 1, r":generate_parenthesis\w*$"),
    Family("next_letter", "letters_target", 2, r":next_greatest_letter\w*$"),
    Family("sliding_window_max", "window", 2, r":max_sliding_window$"),
    Family("stack_consecutive", "stack", 1, r":\w*is_consecutive$"),
    Family("stack_stutter", "stack", 1, r":\w*_stutter$", "return_or_arg0"),
    Family("stack_switch_pairs", "stack", 1, r":\w*_switch_pairs$", "return_or_arg0"),
    Family("substring_search", "text_pattern", 2, r":(knuth_morris_pratt|contain_string|z_search)$"),
    Family("euler_totient", "nat_300", 1, r":_?euler_totient$"),
    Family("multiplicative_order", "order", 2, r":_?find_order$"),
    Family("primitive_root", "nat_300", 1, r":_?find_primitive_root$"),
    Family("to_binary", "nat_5000", 1, r":(decimal_to_binary|to_base2)$"),
    Family("matrix_multiply", "matrix_pair", 2, r"matrix\w*\.py:multiply$"),
    Family("rotate_matrix", "square_matrix", 1, r":(rotate_clockwise|rotate)$", "return_or_arg0",
           exclude=r"^(?!.*matrix/)"),
    Family("sudoku_solution", "sudoku", 1, r":valid_solution\w*$"),
)

FAMILY = {f.name: f for f in FAMILIES}


def harness(code: str, entry: str, observe: str) -> str:
    """The unit plus the entry point both sides are called through (see the module docstring)."""
    lines = [code, "", "", f"def {ENTRY}(*args):", f"    out = {entry}(*args)"]
    if observe == "return_or_arg0":
        lines += ["    if out is None and args:", "        out = args[0]"]
    elif observe != "return":
        raise ValueError(f"unknown observation rule {observe!r}")
    lines += ["    import collections.abc", "    if isinstance(out, collections.abc.Iterator):",
              "        out = list(out)", "    return out", ""]
    return "\n".join(lines)
