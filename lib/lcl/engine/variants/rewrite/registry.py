"""All rewrites in the driver's fixed order. The order is part of the output: the driver shuffles
copies of these lists with the variant's seed, so another order gives other (still valid) variants
for the same seed. Each rule registers itself (name and paper strategy) next to its definition.
"""

from __future__ import annotations

from . import rules_comprehensions, rules_control, rules_expressions, rules_loops, rules_memo, rules_structure
from .context import Rewrite

__all__ = ["REWRITES"]

#: The rewrites' names in the driver's order (optimisation rewrites first, then the surface ones).
_ORDER = (
    "memoise_pure_recursive",
    "membership_literal_to_set",
    "loop_to_comprehension",
    "range_len_to_enumerate",
    "hoist_loop_invariant_len",
    "wrap_in_main",
    "accumulate_then_join",
    "loop_to_any",
    "guard_clause",
    "count_loop_to_sum",
    "equality_chain_to_membership",
    "concat_to_fstring",
    "early_continue",
    "early_return",
    "strength_reduction",
    "alias_append",
    "rename_locals",
    "comprehension_to_loop",
    "if_to_conditional_expression",
    "conditional_expression_to_if",
    "extract_helper",
    "extract_body",
    "rename_parameters",
    "for_to_while",
    "augmented_to_plain_assignment",
    "plain_to_augmented_assignment",
    "truthiness_to_len",
    "len_to_truthiness",
    "sorted_to_sort",
    "comprehension_to_generator",
    "generator_to_comprehension",
    "reduction_to_loop",
    "lambda_to_def",
    "enumerate_to_range_len",
    "split_tuple_assignment",
    "merge_assignments",
    "reverse_slice_to_reversed",
    "return_bool",
    "swap_if_branches",
    "annotate_locals",
    "conditional_assignment_to_if",
    "return_comprehension_to_loop",
    "zero_test_to_truthiness",
    "split_and_condition",
    "merge_nested_ifs",
    "negative_index_to_len",
    "flip_comparison",
    "inline_return_variable",
    "name_return_value",
    "print_to_fstring",
    "map_to_comprehension",
)
#: Tried in this order, and only when the rest could not reach the target similarity.
_LAST_RESORT_ORDER = ("trim_docstring_examples", "drop_docstrings")


def _in_order(names: tuple[str, ...], rules: list[Rewrite]) -> tuple[Rewrite, ...]:
    by_name = {r.name: r for r in rules}
    if set(by_name) != set(names) or len(by_name) != len(rules):
        raise ImportError(f"rewrite registry out of step with the rule modules: {sorted(set(by_name) ^ set(names))}")
    return tuple(by_name[n] for n in names)


_RULE_MODULES = (rules_comprehensions, rules_control, rules_expressions, rules_loops, rules_memo, rules_structure)
#: All rewrites: (name, function, paper strategy or None for surface rewrites).
REWRITES: tuple[Rewrite, ...] = _in_order(_ORDER, [r for m in _RULE_MODULES for r in m.RULES.rules])
LAST_RESORT_RULES: tuple[Rewrite, ...] = _in_order(_LAST_RESORT_ORDER, rules_structure.LAST_RESORT.rules)
