#!/usr/bin/env python
"""Disagreements between our re-derived df_score and the published labels (issue "Verified
input constraints", item 7), for the HumanEval / MBPP / APPS pairs of the published LoCaL
release and for the CodeScore_test baseline (MBPP, APPS).

Every pair is re-derived with :func:`lcl.labels.rederive` (the sandboxed engine, spec-driven
inputs, results in the engine's store ``.cache/fuzz/results.sqlite``, so a rerun only fuzzes
pairs whose code, spec, seed or settings changed). One row per pair goes to
``build/label_disagreements.csv``: id, set, theirs, ours, |diff|, both buckets (0 / between /
1), our verdict counts summed over the runs, and a ``cause``.

The cause of a disagreement (|diff| > 0.2) is a judgement recorded by hand after looking at
the reference, the variant, the spec and per-input verdicts (``--explain ID``); it lives in
:data:`CAUSES` below, with its evidence. Pairs that agree get ``agree``; large disagreements
nobody has looked at yet get ``unexamined``; smaller ones (0.05 < |diff| <= 0.2) get
``small: sampling`` unless a cause is recorded.

    python benchmarks/label_disagreements.py --jobs 1                        # every set
    python benchmarks/label_disagreements.py --set LoCaL/MBPP --n 200 --runs 2
    python benchmarks/label_disagreements.py --explain LOCAL_MBPP_12_3_MUT_2  # per-input verdicts

``--explain`` runs the one pair again through the engine (sandboxed; nothing runs in this
process) and prints the inputs on which the variant mismatches, is invalid, or matches.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

SETS = ("LoCaL/HumanEval", "LoCaL/MBPP", "LoCaL/APPS", "CodeScore_test/MBPP", "CodeScore_test/APPS")
SEED = 20250101

# Causes recorded after inspection (id -> (cause, evidence)). Cause vocabulary:
#   theirs: equivalent mutant labelled <x>     -- the variant is equivalent on every valid input
#   theirs: label inconsistent with their own tests
#   theirs: inputs outside the task's constraints -- their generator feeds inputs the task excludes
#   ours: spec too narrow (misses X)           -- fixed in the spec, pair re-derived
#   ours: spec too wide (...)                  -- fixed in the spec, pair re-derived
#   ours: invalid-input handling               -- the reference raises; we exclude, they count
#   environment: ...                           -- module missing / Python-version behaviour
#   float formatting / exception identity      -- equality semantics differ
#   variance: rare behaviour                   -- both right, the difference is sampling
CAUSES: dict[str, tuple[str, str]] = {
    'LOCAL_APPS_955_11_MUT_46': ("theirs: inputs never solvable (no input with all three vitamins)",
        "mutant only drops the final print(-1): it matches iff a solution exists (ours 0.89; '1\\n12 A' -> X, solvable inputs -> M). Their 0.0 means none of their inputs was solvable, unlike the task's tests"),
    'LOCAL_APPS_955_11_MUT_3': ("theirs: inputs never solvable (no input with all three vitamins)",
        "same task as LOCAL_APPS_955_11_MUT_46 (every mutant of APPS/955 labelled 0.0); the mutated term of the min() only matters for some inputs: inferred from the family, not checked input by input"),
    'LOCAL_APPS_955_11_MUT_4': ("theirs: inputs never solvable (no input with all three vitamins)",
        "same task as LOCAL_APPS_955_11_MUT_46 (every mutant of APPS/955 labelled 0.0); the mutated term of the min() only matters for some inputs: inferred from the family, not checked input by input"),
    'LOCAL_APPS_955_11_MUT_6': ("theirs: inputs never solvable (no input with all three vitamins)",
        "same task as LOCAL_APPS_955_11_MUT_46 (every mutant of APPS/955 labelled 0.0); the mutated term of the min() only matters for some inputs: inferred from the family, not checked input by input"),
    'LOCAL_APPS_955_11_MUT_8': ("theirs: inputs never solvable (no input with all three vitamins)",
        "same task as LOCAL_APPS_955_11_MUT_46 (every mutant of APPS/955 labelled 0.0); the mutated term of the min() only matters for some inputs: inferred from the family, not checked input by input"),
    'LOCAL_APPS_955_11_MUT_10': ("theirs: inputs never solvable (no input with all three vitamins)",
        "same task as LOCAL_APPS_955_11_MUT_46 (every mutant of APPS/955 labelled 0.0); the mutated term of the min() only matters for some inputs: inferred from the family, not checked input by input"),
    'LOCAL_MBPP_31_OP_2': ("theirs: label inconsistent with the task's tests",
        "variant returns the top-k in descending-frequency order, the reference in heap-pop order; it fails MBPP/31's own asserts for k=3 and k=5 (our first two inputs, X), yet labelled 0.97"),
    'LOCAL_MBPP_1_OP_1': ("theirs: label inconsistent with the task's tests",
        "variant's DP drops the diagonal move and adds expense[i][j] to the left cell; it fails MBPP/1's own asserts (e.g. [[1,2,3],[4,8,2],[1,5,3]],2,2 -> X), yet labelled 0.98"),
    'LOCAL_MBPP_707_OP_1': ("theirs: inputs outside the task's domain (negative n)",
        "'count set bits from 1 to n': variant equals the reference on every n >= 0 (400/400); on n < 0 it returns 0, the reference n//2 (--inputs [[-5],[-100],[-2]] -> X). 1 - 0.744 = share of negative n in their inputs"),
    'LOCAL_MBPP_707_MUT_16': ("theirs: inputs outside the task's domain (negative n)",
        'for n < 0 the loop never runs and both return n//2 (--inputs [[-5],[-1],[-100],[-2]] -> MMMM); on n >= 0 the mutant differs almost always (ours 0.05); their 0.31 ~ share of negative n'),
    'LOCAL_MBPP_707_MUT_7': ('equality: int vs float (+ negative n)',
        "'/ powerOf2' makes the count a float: type-strict equality counts 2.0 != 2 (ours 0); negative n skips the loop and matches (MMMM); their 0.29 ~ share of negative n"),
    'LOCAL_HE_49_MUT_1': ('equality: int vs float',
        "'2 / ret' makes the result a float; for n = 1 it is 2.0 where the reference returns 2 (--inputs [1,5],[1,101] -> X under type-strict equality); only n = 0 (int 1) matches. Their 0.29 counts 2 == 2.0"),
    'LOCAL_MBPP_711_MUT_37': ('ours: spec too narrow (misses single digits) - fixed',
        "mutant replaces the final 'return False' by None; n < 10 returns False earlier (--inputs [0],[5],[9],[11] -> MMMM). The old spec drew n < 10 with probability 1e-4; now magnitude-stratified (MBPP/711.json notes)"),
    'LOCAL_HE_0_MUT_17': ('distribution: trigger rate',
        "mutant returns None instead of False: matches exactly when a close pair exists (True). HumanEval/0's own tests have both outcomes; our spec makes close pairs common (ours 0.68), their 0.0 means their inputs never had one"),
    'LOCAL_HE_81_MUT_10': ('distribution: trigger rate',
        'mutant changes grades <= 1.3; a list matches only without such a grade. Ours (0-10 grades) 0.57, theirs 0.07 (longer lists)'),
    'LOCAL_HE_81_OP_1': ('distribution: trigger rate',
        "variant uses >= at the thresholds: differs exactly on boundary GPAs (3.7, 3.3, ..., 0.0). Our spec rounds to 1 decimal to hit them (HumanEval/81's own test [4.0,3,1.7,2,3.5] fails: X); their random floats rarely hit one (0.67)"),
    'LOCAL_HE_161_MUT_13': ('distribution: trigger rate',
        "mutant swaps the two branches: matches iff the result is a palindrome (--inputs '', 'a', 'aba' -> M, 'ab' -> X). Their 0.45 implies many empty/1-char strings; ours 0.07"),
    'LOCAL_HE_35_MUT_6': ('distribution: trigger rate',
        'max -> min: matches iff all elements are equal (singletons). Their 0.31 implies ~30% singleton lists; ours 0.04'),
    'LOCAL_HE_110_MUT_4': ('distribution: trigger rate',
        "'even -= 1' flips the answer whenever lst2's evens are needed; rate depends on list lengths/parities (ours 0.40, theirs 0.11)"),
    'LOCAL_HE_128_MUT_12': ('distribution: trigger rate',
        'sign taken from the positives instead of the negatives: equal iff 0 in arr or len(arr) is even; rate depends on list lengths (ours 0.73, theirs 0.44)'),
    'LOCAL_HE_114_MUT_26': ('distribution: trigger rate',
        'loop removed: falls back to max(-i), i.e. matches when the best subarray is a single element (ours 0.59, theirs 0.31)'),
    'LOCAL_MBPP_493_MUT_60': ('distribution: trigger rate',
        "'<' -> '<=' adds a hexagon column only when the grid width hits the column step exactly; ours 0.87, theirs 0.32"),
    'LOCAL_MBPP_195_MUT_30': ('distribution: trigger rate',
        'res never set: returns -1 always; matches iff x is not found. Ours 0.67 (uniform x; the MBPP-ET seed arrays are unsorted and the binary search misses), theirs 0.23'),
    'LOCAL_MBPP_223_MUT_20': ('distribution: trigger rate',
        'negated majority test: matches iff x is absent (early False). Ours 0.63, theirs 0.24'),
    'LOCAL_MBPP_351_MUT_20': ('distribution: trigger rate',
        'never returns the element: matches iff no element occurs k times (-1). Ours 0.60, theirs 0.24'),
    'LOCAL_MBPP_717_MUT_10': ('distribution: trigger rate',
        'negated n <= 1: for n > 1 returns 0.0, i.e. matches iff sd = 0 (--inputs [[3,3,3]],[[0,0]] -> M; [[1]], [[]] -> X). Their 0.28 implies many constant lists (zeros); ours 0'),
    'LOCAL_MBPP_315_MUT_2': ('distribution: trigger rate',
        "'st == -1' -> 'st == 1': differs when no even-length word exists or the first maximal even word starts at index 1; ours 0.58, theirs 0.31"),
    'LOCAL_MBPP_315_MUT_8': ('distribution: trigger rate',
        'same task and mutation family as LOCAL_MBPP_315_MUT_2 (ours 0.58, theirs 0.32)'),
    'LOCAL_MBPP_315_MUT_44': ('distribution: trigger rate',
        'same task and mutation family as LOCAL_MBPP_315_MUT_2 (ours 0.59, theirs 0.36)'),
    'LOCAL_MBPP_403_MUT_16': ('distribution: trigger rate',
        "returns None instead of False: matches iff the URL is valid. MBPP/403's own tests contain a valid URL (M); their 0.0 means their strings were never valid URLs; ours 0.22"),
    'LOCAL_MBPP_428_MUT_20': ('distribution: trigger rate',
        "'j >= gap' -> 'j > gap' leaves index 0 unsorted; matches for short/presorted lists. Ours 0.21, theirs 0.0 (longer lists)"),
    # examined 2026-11-30: CodeScore_test/APPS, CodeScore_test/MBPP and the rest of LoCaL/APPS
    'APPS_test-0103_21': ('distribution: trigger rate',
        "variant prints 0 for every strictly increasing input (even n: count of non-increases = 0; odd n: first test false -> print(0)), so it matches iff the answer is 0 ('6\\n2 3 7 10 997 999' M; '5\\n1 2 3 4 5' X). Our clumpy spec (values 1..12, 500..503, 989..1000, n<=12) gives answer 0 in 56%; their 0.0086 implies large/dense arrays that almost always contain an erasable run."),
    'APPS_test-0330_54': ("theirs: inputs outside the task's domain (p > y)",
        "variant returns (prints nothing) whenever the divisor loop hits and prints -1 otherwise; in-domain it matches only when both give -1 by the loop falling through (ours 0.015; '5 5','2 3' X, '2 2','3 3' M). For p > y both print -1 ('10 5','100 3' -> M), so their 0.22 fits ~20% random pairs with p > y (inferred)."),
    'APPS_test-0356_22': ("theirs: inputs outside the task's domain (sum x != sum y)",
        "variant prints n when the sums are equal, -1 otherwise; the reference also prints -1 on unequal sums, so every random pair with unequal sums matches ('3\\n5 7 9\\n2\\n4 100' M, '4\\n1 2 3 4\\n3\\n9 9 9' M). In-domain (equal sums guaranteed) it matches only if every prefix of x is shared ('2\\n3 3\\n1\\n6' X; ours 0.2); their 1.0 fits inputs that never had equal sums."),
    'APPS_test-0389_23': ('distribution: trigger rate',
        "variant prints -1 whenever a != b (and a itself when a == b), so it matches iff the true answer is -1 ('14 8','875 243' M; '15 20','6 6' X). Our spec draws 5-smooth values so a finite answer is common (ours 0.365); random a,b up to 1e9 almost always give -1, fitting their 0.90 (inferred)."),
    'APPS_test-0395_24': ('distribution: trigger rate',
        "variant always prints YES (r - l == 1 so the while loop never runs and the list is non-empty), matching iff the answer is YES ('1 3 2 1 2 1' M; '1 1 1 1 1 99' X). Our scores 0..10 make YES common (0.37); random scores in 0..1000 almost never split evenly, fitting their 0.019 (inferred)."),
    'APPS_test-0538_35': ('distribution: trigger rate',
        "when its (wrong) zero-skipping check passes the variant prints 'YES' and then 'NO' (print('YES') or print('NO')), otherwise NO; so it matches only when the reference says NO ('320','2010' M; '131','20','2220' X). Our spec (digits 0..2, frequent palindromes/trailing zeros) gives NO 55%; their 0.84 implies mostly non-quasi-palindromic numbers (inferred)."),
    'APPS_test-0543_68': ('distribution: trigger rate',
        "variant's check never exceeds 0 (it only takes max with a[j]-j when a[j] <= check, and decrements otherwise), so it always prints NO and matches iff the answer is NO ('3\\n1 0 1' M; '4\\n1 2 1 2','1\\n0' X). Our a_i in 0..3 with n<=10 gives NO 65%; their 0.21 implies mostly YES inputs (e.g. large even-sum arrays without zeros; inferred)."),
    'APPS_test-0605_12': ('distribution: trigger rate',
        "c+d <= 360 < a except for a=250, so the variant prints 'Vasya' (no newline, stripped) almost always and matches iff Vasya wins ('500 1000 20 30' M; '1000 1000 1 1' Tie, '1500 1000 176 177' Misha -> X). Uniform over the full domain gives ~0.5 (ours 0.53); their 0.11 implies inputs skewed towards Misha/Tie (inferred; not checkable from their data)."),
    'APPS_test-0828_17': ('distribution: trigger rate',
        "variant prints the minimum non-zero a_i among positions 2..n (unrelated to the answer) and matches only by coincidence ('3 2\\n2 1 1','2 1\\n1 1' M; '3 2\\n2 0 2' X). With our n <= 12 both numbers are small and often coincide (0.22); with large random n the true answer is large and the minimum tiny, fitting their 0.02 (inferred)."),
    'APPS_test-1050_27': ('distribution: trigger rate',
        "variant tests k*m >= n instead of min(m,k) >= n, so it differs exactly when k*m >= n > min(m,k) ('8 5 20','46 60 9' X; '5 8 6','3 9 3' M). Uniform 1..100 makes that common (ours 0.43); their 0.71 implies many inputs with k*m < n or min(m,k) >= n, e.g. larger n or smaller m,k (inferred)."),
    'APPS_test-1164_10': ('ours: invalid-input handling',
        "variant only defines helper functions and prints nothing, so it never matches a valid bill (ours 0/200). The reference crashes (empty stdout) on malformed bills ('123', 'a.1', 'a1..2' -> I); their 0.20 fits ~20% malformed inputs counted as empty == empty (inferred)."),
    'APPS_test-1541_9': ('distribution: trigger rate',
        "variant's cur ends at -(n-1) != 0, so it always prints 'left' and matches iff the lever tips left ('9===^==1' M; '=^==' balance, '2==^7==' right -> X). Our construction gives left 53%; their 0.20 implies inputs mostly balancing or tipping right (e.g. '^' near the left end; inferred)."),
    'APPS_test-1596_52': ('distribution: trigger rate',
        "variant prints the number of 'w's, so it matches iff the string contains 'm' but no 'w' (answer 0 = count 0: 'amanda','m' M; 'banana','nnn','unonwwwn' X). Our short strings (<=15) often have m without w (0.245); long random lowercase strings nearly always contain both, fitting their 0.0013 (inferred)."),
    'APPS_test-1770_26': ('distribution: trigger rate',
        "variant prints -1 whenever x > y and a wrong formula otherwise, so a case matches mainly when x > y and the answer is -1. With large random n,d (1e9 scale) the answer is almost always -1: '1\\n1000000000 500000000 300000000 123456789' M, x < y variants X. Our t 1..5 cases with n<=30, d<=10 (reachable answers common, every case must match) give 0.08; their 0.75 fits mostly single-case large-value inputs (inferred)."),
    'APPS_test-1772_80': ('distribution: trigger rate',
        "variant prints the number of strict prefix maxima (records), unrelated to the bouquet count; it matches by coincidence ('3\\n11 4 10' M; '1\\n7','5\\n2 3 4 2 7' X). With our n <= 10 both numbers are small and coincide 37%; for large random n the answer is ~n/2 while records are ~ln n, fitting their 0.03 (inferred)."),
    'APPS_test-1943_2': ("theirs: inputs outside the task's domain (p_ij + p_ji != 100, e.g. zero matrices)",
        'variant prints (sum of the first N rows)/2^(N-1), on the scale of hundreds, vs the expected score (a few points); every valid matrix tried mismatches (all-50 matrix, transitive 0/100 matrix, N=1 -> X; ours 0/200). Only the invalid all-zero matrix gives 0.0 == 0.0 (M), so their 0.33 must come from degenerate out-of-domain matrices (inferred).'),
    'APPS_test-1965_41': ('distribution: trigger rate',
        "variant prints how many (partly rewritten) ratings are <= x, matching only by coincidence, e.g. n=2, answer 2 and both ratings <= x ('1\\n2 4000\\n5 7' M; '1\\n2 -4000\\n5 7', n=5 cases X). Our t 1..5 cases (all must match) give 0.08; their 0.70 implies mostly single small-n cases with x above the ratings (inferred, not reproduced)."),
    'APPS_test-1983_74': ('distribution: trigger rate',
        "variant prints 1 + multiplicity of the maximum (or n for a constant array) instead of the number of distinct values, so a case matches only when distinct == cnt(max)+1 (n=1, or two values with a unique max: '1\\n2\\n7 2', '2\\n1\\n6\\n3\\n6 6 9' M; '1\\n8\\n2 4 10 3 5 9 10 8' X). Our t 1..5 cases with n up to 10 give 0.05; their 0.50 implies mostly single tiny cases (n <= 2; inferred)."),
    'APPS_test-2025_30': ('distribution: trigger rate',
        "a - b stays s[0] so the variant never prints a split; it prints -1 (or crashes adding int + tuple when the last prime factor is kept as (p,1)), so a query matches iff its answer is -1, i.e. n in {1,2,3,5,7,11} ('3\\n1\\n2\\n3','1\\n7' M; '1\\n13','1\\n999999999' X). Our q 1..10 with n up to 100 gives 0.015; their 0.49 implies mostly single queries with tiny n (6 of 1..11 give -1; inferred)."),
    'APPS_test-2422_27': ("theirs: inputs outside the task's domain (t = 0 / negative n; inferred)",
        "variant prints -1 for n % 3 != 0 and 'n n/3 n/3' otherwise, so in-domain it matches only when every n is in {1,2,4} ('3\\n1\\n2\\n4' M; the task's own example '4\\n30\\n67\\n4\\n14' and '1\\n7' X; ours 0/200). Out of domain it matches often: t = 0 ('0' M) and negative n with n % 3 != 0 ('1\\n-5' M), the only way we found to reach their 0.62."),
    'APPS_test-2599_64': ('distribution: trigger rate',
        "variant is correct only for n < 10 with k = 0 (prints n); everything else is a wrong formula ('1\\n5 0' M; '1\\n5 1','1\\n3 2','1\\n150 9' X). Under our full n 1..150 / k 0..9 ranges with t 1..5 such cases are ~0.6% each (ours 0/200); their 0.40 implies many single tiny cases with k = 0 (or degenerate t = 0 / n = 0 inputs, which also match: '0', '1\\n0 0' M; inferred)."),
    'APPS_test-3718_24': ('distribution: trigger rate',
        "variant prints NO iff there are > 2 distinct sizes, so it matches iff the answer is NO with >= 3 distinct sizes ('5\\n100 500 900 3 77' M; '4\\n18 55 16 17' YES, '3\\n5 5 5', '4\\n1 1 2 2' X; also n < 3 out of domain: '1\\n7','2\\n3 4' X). Ours (sizes 1..15) 0.655; their 0.22 implies most of their inputs have <= 2 distinct values or a consecutive triple (or n < 3; inferred)."),
    'APPS_test-3788_47': ('distribution: trigger rate',
        "for distinct values a[0] != a[-1], so the variant always prints 'No' and matches iff the answer is No ('2\\n7 17','4\\n4 12 20 59' M; '6\\n3 6 9 18 36 108','3\\n19 24 57' X). Our values 2..60 with n <= 10 give Yes only 15% (ours 0.85); their 0.615 implies ~38% Yes instances (e.g. mostly even / highly composite values; inferred)."),
    'APPS_test-4186_23': ('distribution: trigger rate',
        "after sorting, a[i] == a[n-1-i] implies all inner values are equal, so braccum never grows and the variant always prints 0; it matches iff the sorted skills pair up exactly ('2\\n6 6','4\\n5 5 7 7','4\\n1 1 1 1' M; '2\\n1 100','4\\n12 20 7 5' X). Our skills 1..20 make that rare (0.005); their 0.41 implies many inputs with all-equal pairs (tiny skill range or constant arrays; odd n is no explanation, the reference crashes there; inferred)."),
    'LOCAL_APPS_1073_23_OP_1': ("theirs: label inconsistent with the task's tests",
        "variant counts revisited positions once each instead of all pairs (i<j) with equal prefix positions; it fails the task's own third example '7\\nRLRLRLR' (expected 12, X) while the other two examples match (M). Labelled 0.98; ours 0.425 (any position visited 3+ times -> X)."),
    'LOCAL_APPS_1275_39_MUT_23': ('distribution: trigger rate',
        "mutant changes '+1' to '-1' in the j-factor; it only matters when some j=i-K exceeds N, so it matches only for large positive K (K >~ N): '100 150' -> M; '100 0','100 5','100 -5','100 99','100 -150' -> X. Our K spans the full range -2(N-1)..2(N-1) (ours 0.235); their 0.03 implies K rarely large relative to N."),
    'LOCAL_APPS_1275_39_MUT_9': ('distribution: trigger rate',
        "'i - 1' -> 'i + 1' in the i-factor matters only for i <= N; when K >= N-1 every contributing i exceeds N and the result is unchanged ('100 99','100 150' -> M; '100 0','100 +-5','100 -150' -> X). Ours (K uniform over the full range) 0.255; their 0.05 implies K rarely >= N-1."),
    'LOCAL_APPS_130_22_MUT_8': ('distribution: trigger rate',
        "'ni - vi' -> 'ni + vi' in the width test: every all-white grid (vi = n*m) and any grid whose lowest black row index + top row index + 1 exceeds m gives -1 wrongly (task examples 1 and 3 -> X, example 2 '1 2\\nBB' -> M; '3 3\\nBWW..' -> M, '4 2\\n..WB..' -> X). Our 5:1 W/B grids often have blacks near the top (ours 0.685); their 0.0 implies every input was all-white or had deep blacks relative to m (inferred)."),
    'LOCAL_APPS_1315_2_MUT_25': ('distribution: trigger rate',
        "mutant drops the str() conversion, so ' '.join crashes whenever there is no duplicate; it matches iff the answer is ':(' ('2\\n10 9' -> M; '2\\n11 8', '3\\n5 5 5', '1\\n7' -> X). Our small values (a 0..20, n<=10) give ':(' ~45%; their 0.16 implies fewer collisions (larger a_i)."),
    'LOCAL_APPS_1315_2_MUT_8': ('distribution: trigger rate',
        "negated duplicate test: matches iff n=1 or (answer ':(' and the two smallest adjusted values differ); otherwise prints ':(' wrongly or crashes joining ints ('1\\n7' -> M; '2\\n11 8','2\\n10 9','3\\n5 4 3' -> X). Rate depends on how often duplicates occur: ours 0.515 (a 0..20), theirs 0.18 (inferred larger values)."),
    'LOCAL_APPS_2095_3_MUT_10': ('distribution: trigger rate',
        'mutant scans rows in reverse, so the list of good cars is printed descending: matches iff at most one good car (task example 1 with cars 1,3 -> X; example 2 all-3 matrix -> M; all-zero matrix -> X). Our entries uniform over {0,1,2,3} make >=2 good cars rare (ours 0.86); their 0.045 implies nearly all their matrices had >=2 good cars (zero-heavy matrices, inferred).'),
    'LOCAL_APPS_3738_2_MUT_89': ('distribution: trigger rate',
        "'reqdx != 0' -> 'reqdx == 0': when the command's net x-shift is 0 and a destination has x != 0 the mutant divides by reqdx=0 (ZeroDivisionError), and diagonal 'Yes' cases are lost; otherwise it matches. Task examples 1, 2, 4 -> M, example 3 ('LRRLU', net x 0) -> X; '123456 654321\\nU' and non-UDLR strings ('abc') -> X. Ours 0.715; their 0.0 implies every input had zero net x-shift (or letters outside UDLR) - inferred, and at odds with the task's own examples."),
    'LOCAL_APPS_4386_60_MUT_8': ("broken variant: NameError on every input (first line replaced by pass, 'a' undefined)",
        "the variant never prints anything ('2800\\nred', '3200\\npink' -> X; ours 0.0). It can only 'match' where the reference also raises, e.g. non-integer a or missing s ('abc\\npink', '3200\\n' -> I, excluded by us); their 0.33 fits counting both-raise inputs as matches (inferred)."),
    'LOCAL_APPS_4490_74_MUT_15': ('distribution: trigger rate (G over-represented; possibly plus non-ACGT strings)',
        "mutant replaces the final else: print('C') by pass; in-domain it differs only on 'G' (ours 0.755 ~ 3/4: G -> X, A/T -> M). The task's two examples are 'A' and 'G', so an example-seeded generator gives ~50% G; the else branch also catches any non-ACGT string ('X','g','AB','' -> X), which would push it to their 0.43 (inferred)."),
    'LOCAL_APPS_4553_17_MUT_10': ('distribution: trigger rate',
        "mutant negates the digit test for the B part: it answers wrongly only when the A part and the '-' are valid; inputs rejected earlier match. Task examples: '3 4\\n269-6650' -> X, '1 1\\n---' and '1 2\\n7444' -> M. Our spec makes early 'No' common (ours 0.46); their 0.0 means every input of theirs had a valid prefix (mostly valid postal codes)."),
    'LOCAL_APPS_4620_17_MUT_5': ('distribution: trigger rate (our S/F construction)',
        'mutant recurses to start-1 when the train is reached after S and time % F == 0; it fires whenever an arrival is past the next S and divisible by F (F=1 always). Task examples 1 and 2 (small S, F=1/2) -> X, example 3 -> M. Our spec draws S only as multiples of 60 (>=60) and F from divisors of 60 (F=1 1/7 of the time), so the branch fires less (ours 0.465); their 0.046 fits small-S inputs like the examples where F=1 dominates (inferred).'),
    'LOCAL_APPS_4703_10_MUT_26': ('distribution: trigger rate',
        "mutant replaces the loop body by break, so every term is just S[0] for len(S) >= 2; it matches only on single-digit S (run: '9','8','6' -> M, '125','476995' -> X). Our lengths are uniform on 1..10 (ours 0.08 ~ 1/10); their ~0.45 (both mutants) implies ~45% single-character inputs."),
    'LOCAL_APPS_4703_10_MUT_6': ('distribution: trigger rate',
        "mutant 't += S[j+1]' -> 't -= S[j+1]' raises TypeError for len(S) >= 2; it matches only on single-digit S (run: '9','8','6' -> M, '125','476995' -> X). Our lengths are uniform on 1..10 (ours 0.08 ~ 1/10); their ~0.45 (both mutants) implies ~45% single-character inputs."),
    'LOCAL_APPS_47_12_OP_2': ("theirs: label inconsistent with the task's tests",
        "variant's memoised DP only takes subarrays starting at index 0 (result = max over dp(0, .)) and never the empty subarray (ref's ans=0 floor); it fails two of the task's three examples ('5 -2\\n-3 8 -2 1 -6' -> 22 expected, X; '5 10\\n-1 -2 -3 -4 -5' -> 0 expected, X; first example M), yet labelled 0.92 (ours 0.58)."),
    'LOCAL_APPS_643_10_MUT_64': ('distribution: trigger rate',
        "'c == 0' -> 'c != 0' makes every case with x>0 and p>0 print -1; a case matches only if x=0 or p/q=1/1 with x!=y (t=1: '0 5 1 2','3 5 1 1' -> M; '3 5 1 2','5 5 1 1' -> X). Our inputs have t 1..6 cases with x in 0..30 so all-cases-match is rare (0.02); their 0.37 implies mostly single-case inputs with x=0 (and p=0) very common (inferred, consistent with MUT_65)."),
    'LOCAL_APPS_643_10_MUT_65': ('distribution: trigger rate',
        "'not (a == 0)' -> 'not (a != 0)': an input mismatches iff some case has p=0 ('0 5 0 1','3 5 0 1' -> X; p>0 cases -> M). Our p/q is one of 19 irreducible fractions (p=0 with prob 1/19 per case, ours 0.84); their 0.0085 means nearly every one of their inputs contained p=0 (inferred; same input set explains MUT_64's 0.37 via frequent x=0)."),
    'MBPP_11_15': ('distribution: trigger rate',
        "variant returns x: matches iff y divides x (--inputs [3,3],[6,2],[1,1] -> M; [2,6],[4,12],[5,7] -> X). Our spec (x,y uniform in [1,50]) gives 0.10; their 0.37 implies small/related ints where y|x is common (inferred; with MBPP_11_22's complementary x|y case their inputs are ~65% divisor pairs)"),
    'MBPP_11_18': ('distribution: trigger rate',
        "'if i == i: return x' makes the variant return x always: identical behaviour to MBPP_11_15 (matches iff y divides x; identical counts 39/400). Their 0.35 implies small ints where y|x is common (inferred)"),
    'MBPP_11_21': ('environment: fractions.gcd removed in Python 3.9',
        "variant is the correct x*y//gcd(x,y) but imports 'from fractions import gcd', which raises ImportError on our Python 3.11 (every input X, incl. [4,6],[3,3]); their 1.0 was computed on Python <= 3.8 where it exists"),
    'MBPP_11_22': ('distribution: trigger rate',
        "'s1 += x,' raises TypeError whenever the loop runs (y <= x); otherwise returns y: matches iff y > x and x divides y (--inputs [2,6],[4,12],[1,5] -> M; [3,3],[6,2],[5,7] -> X). Ours 0.07 with uniform [1,50]; their 0.28 implies many divisor pairs (small ints), inferred"),
    'MBPP_12_7': ('theirs: equivalent variant labelled < 1',
        "variant is ''.join(sorted(...)) over the characters of s with a no-op filter (len(x) > 0 is always true for a character) plus an unused global; equivalent on every string, passes MBPP/877's own tests ('cba','data','zxy' -> M), yet labelled 0.0"),
    'MBPP_17_20': ('distribution: trigger rate',
        "bin(r)[2] is '1' for any r >= 1, so the variant always returns False: matches iff the range is not all set. Our spec (n uniform 0-255, 1<=l<=r<=8) gives 24% True answers (ours 0.76); their 0.55 implies ~45% True answers in their inputs ([10,2,1] True -> X, [5,2,4] False -> M)"),
    'MBPP_17_21': ('distribution: trigger rate',
        "same code as MBPP_17_20 up to quote style (bin(r)[2] in '02468' never true for r >= 1): always False, matches iff the reference is False; ours 0.76 (24% True answers), their 0.55 implies ~45% True"),
    'MBPP_17_23': ('distribution: trigger rate',
        "'bin(n)[2:] in list(bin(n)[3:])' is never true (a binary string of length >= 1 is never one of its own later single chars), so the variant always returns False (same 304/400 as MBPP_17_20): matches iff the reference is False; their 0.54 implies ~46% True answers"),
    'MBPP_17_3': ('distribution: trigger rate',
        "'l>n and r<n' is impossible for l <= r, so the variant always returns False (same 304/400 as MBPP_17_20): matches iff the reference is False; ours 24% True answers, their 0.535 implies ~46% True"),
    'MBPP_17_36': ('distribution: trigger rate',
        "returns bin(n).count('1')>0, i.e. n > 0: for n > 0 matches iff the reference is True (--inputs [7,1,3],[255,1,8],[4,3,3],[0,1,1] -> M; [5,2,4] -> X). Ours 0.245 ~ our 24% True share; their 0.47 ~ their ~46% True share (mirror of MBPP_17_20's 0.55)"),
    'MBPP_17_6': ('distribution: trigger rate',
        "'n & (n-1) == 0 and (r&n) != 0' is True only for a few powers of two, so the variant is ~always False (--inputs [7,1,3],[255,1,8],[4,3,3] (True) -> X; [5,2,4],[2,3,5] -> M): matches iff the reference is False; ours 0.76 (24% True), their 0.48 implies ~50% True answers"),
    'MBPP_17_8': ('distribution: trigger rate',
        "returns 'l>0 and r<n', i.e. True for every n > 8: matches mostly iff the reference is True (--inputs [7,1,3],[255,1,8],[4,3,3],[0,1,1] -> M; [5,2,4] -> X). Ours 0.27, their 0.47 ~ their ~46% True share"),
    'MBPP_20_27': ('equality: int vs bool',
        "variant returns 's==0 and s': 0 (int) for even n, False for odd n; the reference returns True/False. Odd n -> X (False vs True), even n -> 0 vs False, X under type-strict equality (--inputs [6],[0],[7] -> XXX). Their 0.55 = share of even inputs, which pass with == (0 == False)"),
    'MBPP_28_51': ('distribution: trigger rate',
        'variant ignores its args\' meaning: raises UnboundLocalError on an empty sentence, otherwise returns \'"msg1 is a" == sentence and ...\' = False always; matches iff the word is absent ([\'easy\',\'fun\'] -> M, [\'machine learning\',\'machine\'] -> X). Ours 0.56 (our spec puts the word in the sentence ~44% of the time); their 0.84 implies the word was rarely present'),
    'MBPP_2_20': ('distribution: trigger rate',
        "variant returns arr.index(n) (ValueError if n not in arr): matches only when n sits at index 1 or 2 matching the parity answer (--inputs [[1,2,3],3],[[1,2,3],2],[[4,6,1],1] -> M). With random lists of 0-10 positive ints ours 0.05; their 0.30 implies short consecutive lists like the asserts' [1,2,3],3 (inferred; their ET inputs are not in our data)"),
    'MBPP_30_23': ('distribution: trigger rate',
        "variant returns True iff the string starts with 3 digits followed by 2+ more chars (regex [0-9]{1}\\d{2}\\w.+), reference iff it starts with '5': they differ on '5-...'/short '5x' strings and on digit-led strings not starting with 5 (--inputs '5-2345861','78910','59' -> X; '6-2345861','5123456','abc','12' -> M). Our digit/dash strings hit the digit-run case often (ours 0.74); their 0.94 implies few such strings (inferred)"),
    'MBPP_34_128': ('equality: int vs bool',
        'variant returns n! (int; 1 for n <= 0, TypeError on 13.5) instead of True/False: never type-equal (ours 0). Under == it passes exactly on even n <= 0 (1 == True); their 0.33 = share of such inputs (inferred)'),
    'MBPP_34_21': ('equality: int vs bool',
        "variant returns (n-1)*2 for n > 0 else 1, an int: never type-equal to the bool (ours 0). Under == it passes on even n <= 0 (1 == True) and n = 1 (0 == False); their 0.43 fits (cf. MBPP_34_128's 0.33 without the n = 1 case), inferred"),
    'MBPP_34_32': ('equality: int vs bool',
        'variant returns 1 if x % 4 == 0 else 0: under == correct for multiples of 4 and odd x, wrong for x = 2 mod 4 (expected 0.75; their 0.71). Type-strict: 1 != True, 0 != False (--inputs [4],[3],[6] -> XXX), ours 0'),
    'MBPP_34_92': ('equality: int vs bool',
        'variant returns an int bit count (0 for x <= 1) instead of a bool: never type-equal (ours 0). Under == it passes when the count happens to be 0 for odd x (x <= 1, e.g. negatives) or 1 for even x (powers of two etc.); their 0.33 (inferred)'),
    'MBPP_36_1': ("theirs: label inconsistent with the task's tests",
        "variant returns [] unless the URL contains '..' (then AttributeError on str.group): matches only when there is no /yyyy/m/d/ date. All three MBPP/906 asserts contain a date (washingtonpost .../2016/09/02/, indiatoday .../2020/11/03/, economictimes .../2020/12/29/ -> X), yet labelled 1.0; ours 0.71 = URLs without a date"),
    'MBPP_3_3': ('distribution: trigger rate',
        "variant returns 1 + (len(a)-1)*1 = len(a): matches iff the string contains no space (--diff: 'PHP','','aaaaY' -> M; 'python language','XY  ','   a Yb' -> X). Our spec (letters and spaces, with leading/trailing/repeated spaces) gives ~19% space-free strings (ours 0.19); their 0.81 implies ~80% single-word strings (inferred). MBPP/868's own tests split 2 M / 1 X"),
    'MBPP_3_30': ('distribution: trigger rate',
        "variant returns len(str(s)): matches iff the string contains no space (--diff: 'PHP','','aaaaY' -> M; 'python language','XY  ','   a Yb' -> X). Our spec (letters and spaces, with leading/trailing/repeated spaces) gives ~19% space-free strings (ours 0.19); their 0.85 implies ~85% single-word strings (inferred). MBPP/868's own tests split 2 M / 1 X"),
    'MBPP_3_33': ('distribution: trigger rate',
        "variant counts characters != '1', i.e. len(a) on letter/space strings: matches iff the string contains no space (--diff: 'PHP','','aaaaY' -> M; 'python language','XY  ','   a Yb' -> X). Our spec (letters and spaces, with leading/trailing/repeated spaces) gives ~19% space-free strings (ours 0.19); their 0.87 implies ~87% single-word strings (inferred). MBPP/868's own tests split 2 M / 1 X"),
    'MBPP_3_41': ('distribution: trigger rate',
        "variant returns len(a): matches iff the string contains no space (--diff: 'PHP','','aaaaY' -> M; 'python language','XY  ','   a Yb' -> X). Our spec (letters and spaces, with leading/trailing/repeated spaces) gives ~19% space-free strings (ours 0.19); their 0.88 implies ~88% single-word strings (inferred). MBPP/868's own tests split 2 M / 1 X"),
    'MBPP_3_5': ('distribution: trigger rate',
        "variant returns len(a): matches iff the string contains no space (--diff: 'PHP','','aaaaY' -> M; 'python language','XY  ','   a Yb' -> X). Our spec (letters and spaces, with leading/trailing/repeated spaces) gives ~19% space-free strings (ours 0.19); their 0.87 implies ~87% single-word strings (inferred). MBPP/868's own tests split 2 M / 1 X"),
    'MBPP_40_1': ('distribution: trigger rate',
        "variant always returns False on int inputs ('m >= m + d' is never true for d > 0): matches iff the date is invalid. Our spec (month 0-13, day 0-32, year 0-2400) gives ~79% valid dates (ours 0.21); their 0.78 implies ~78% invalid dates, i.e. wide random ints (--inputs on the sibling MBPP_40_14: [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] invalid; [2,29,2000],[11,11,2002] valid). Same family as MBPP_40_30 in cs_mbpp_1"),
    'MBPP_40_12': ('distribution: trigger rate',
        "variant always returns False on int inputs ('y > y' is never true; the m.find(s) branch is unreachable): matches iff the date is invalid. Our spec (month 0-13, day 0-32, year 0-2400) gives ~79% valid dates (ours 0.21); their 0.80 implies ~80% invalid dates, i.e. wide random ints (--inputs on the sibling MBPP_40_14: [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] invalid; [2,29,2000],[11,11,2002] valid). Same family as MBPP_40_30 in cs_mbpp_1"),
    'MBPP_40_14': ('distribution: trigger rate',
        "variant returns True iff m, d, y are all nonzero: matches iff the date is valid or an argument is 0 (--inputs [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] -> X; [2,29,2000],[0,5,2000],[11,11,2002],['11','11','2002'] -> M). Ours 0.91 (our spec: month 0-13, day 0-32, mostly valid); their 0.25 implies ~25% valid dates (wide random ints). Same family as MBPP_40_22 in cs_mbpp_1"),
    'MBPP_40_16': ('distribution: trigger rate',
        "variant always returns False on int inputs ('y > y' is never true): matches iff the date is invalid. Our spec (month 0-13, day 0-32, year 0-2400) gives ~79% valid dates (ours 0.21); their 0.81 implies ~81% invalid dates, i.e. wide random ints (--inputs on the sibling MBPP_40_14: [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] invalid; [2,29,2000],[11,11,2002] valid). Same family as MBPP_40_30 in cs_mbpp_1"),
    'MBPP_40_19': ('distribution: trigger rate',
        "variant returns True iff m, d, y are all nonzero: matches iff the date is valid or an argument is 0 (--inputs [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] -> X; [2,29,2000],[0,5,2000],[11,11,2002],['11','11','2002'] -> M). Ours 0.91 (our spec: month 0-13, day 0-32, mostly valid); their 0.23 implies ~23% valid dates (wide random ints). Same family as MBPP_40_22 in cs_mbpp_1; extra unused lambdas"),
    'MBPP_40_20': ('distribution: trigger rate',
        "variant always returns False on int inputs ('m >= m + d' is never true for d > 0; extra unused lambdas): matches iff the date is invalid. Our spec (month 0-13, day 0-32, year 0-2400) gives ~79% valid dates (ours 0.21); their 0.73 implies ~73% invalid dates, i.e. wide random ints (--inputs on the sibling MBPP_40_14: [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900],[13,11,2002] invalid; [2,29,2000],[11,11,2002] valid). Same family as MBPP_40_30 in cs_mbpp_1"),
    'MBPP_40_22': ('distribution: trigger rate',
        'variant returns True whenever m, d, y are all nonzero: matches iff the date is valid (or an argument is 0); our spec (month 0-13, day 0-32) gives ~80-90% valid dates, their 0.224 implies ~22% valid, i.e. wide random ints. --inputs [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900] -> X, [2,29,2000] -> M'),
    'MBPP_40_26': ('distribution: trigger rate',
        "'y %= -1' gives 0 for any int, so the variant returns True for every int input (string seeds raise TypeError, X): matches iff the date is valid (or an argument is 0); our spec (month 0-13, day 0-32) gives ~80-90% valid dates, their 0.24 implies ~24% valid, i.e. wide random ints. --inputs [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900] -> X, [2,29,2000] -> M"),
    'MBPP_40_3': ('distribution: trigger rate',
        'same as MBPP_40_22 (returns True iff all args nonzero): matches iff the date is valid (or an argument is 0); our spec (month 0-13, day 0-32) gives ~80-90% valid dates, their 0.31 implies ~31% valid, i.e. wide random ints. --inputs [-3,5,2000],[25,40,100],[100,7,1999],[2,29,1900] -> X, [2,29,2000] -> M'),
    'MBPP_40_30': ('distribution: trigger rate',
        "variant's test 'm >= m + d' (or abs(d-d)==0) is never true for d >= 0, so it always returns False: matches iff the date is invalid. Ours 0.21 = share of invalid dates in our spec (month 0-13, day 0-32); their 0.78 implies ~78% invalid dates (wide random ints). --inputs [-3,5,2000],[25,40,100],[100,7,1999] -> M, [2,29,2000] -> X"),
    'MBPP_40_31': ('distribution: trigger rate',
        "variant's test 'm >= m + d' (or abs(d-d)==0) is never true for d >= 0, so it always returns False: matches iff the date is invalid. Ours 0.21 = share of invalid dates in our spec (month 0-13, day 0-32); their 0.76 implies ~76% invalid dates (wide random ints). --inputs [-3,5,2000],[25,40,100],[100,7,1999] -> M, [2,29,2000] -> X"),
    'MBPP_40_32': ('distribution: trigger rate',
        "variant's test 'm >= m + d' (or abs(d-d)==0) is never true for d >= 0, so it always returns False: matches iff the date is invalid. Ours 0.21 = share of invalid dates in our spec (month 0-13, day 0-32); their 0.80 implies ~80% invalid dates (wide random ints). --inputs [-3,5,2000],[25,40,100],[100,7,1999] -> M, [2,29,2000] -> X"),
    'MBPP_40_6': ('distribution: trigger rate',
        "variant's test 'm >= m + d' (or abs(d-d)==0) is never true for d >= 0, so it always returns False: matches iff the date is invalid. Ours 0.21 = share of invalid dates in our spec (month 0-13, day 0-32); their 0.75 implies ~75% invalid dates (wide random ints). --inputs [-3,5,2000],[25,40,100],[100,7,1999] -> M, [2,29,2000] -> X"),
    'MBPP_41_6': ("theirs: inputs outside the task's domain (m > n) + equality: int vs float",
        "variant returns int 0 whenever n != m (1 for n == m <= 1, NameError 'fact' for n == m > 1); the reference returns 0.0 for m > n and a positive float for m < n. MBPP-ET's 102 tests for MBPP/912 (data/raw/mbpp_et) have 31 with m > n (e.g. 'lobb_num(4, 8) == 0.0') and 8 with m == n: 0 == 0.0 passes under ==, giving their ~0.4. Our spec keeps m <= n and is type-strict (--inputs [2,5],[3,7],[1,1] -> X)"),
    'MBPP_42_22': ('distribution: trigger rate',
        "variant matches only 'letter+digit' 2-char strings, i.e. returns False almost always: matches iff the string does not end in a digit. Our alphabet 'abc079 ' makes a final digit ~43% likely (ours 0.61); their 0.87 implies ~13% of their strings end in a digit (random printable text)"),
    'MBPP_42_6': ('distribution: trigger rate',
        "variant returns s[::-1].startswith(s[::-1]) == True always: matches iff the string ends in a digit ('abcdef7' M, 'abc' X). Ours 0.41 (alphabet 'abc079 ', 3/7 digits); their 0.13 = share of their strings ending in a digit; mirror of MBPP_42_22"),
    'MBPP_43_24': ('distribution: trigger rate',
        "variant raises NameError on palindromes ('returnTrue') and on 2-char non-palindromes (x undefined), returns False otherwise: matches iff the string is not a palindrome, len != 2 and not alternating. Our short 'abc' strings (len 2-6) hit those often (ours 0.64); their 0.99 implies long random strings. It also fails 2 of MBPP/914's 3 asserts ('abab', 'aaaa' -> X), so 0.99 is at odds with the task's tests too"),
    'MBPP_4_1': ('distribution: trigger rate',
        'variant keeps only int elements, i.e. always returns [] for a list of lists: matches iff no sublist lies inside [left, right] ([] M; MBPP seeds with in-range sublists X). Our spec (0-6 short sublists over 0-20, random range) makes the reference result [] ~73%; their 0.30 implies in-range sublists in ~70% of their inputs'),
    'MBPP_4_2': ('distribution: trigger rate',
        'variant returns the slice l[x:y+1]; with our 0-6-element lists and x up to 15 this is mostly [] and matches iff the reference also keeps nothing (ours 0.65); their 0.31 implies their inputs usually have sublists inside the range (longer lists / wider ranges). Same trigger as MBPP_4_1'),
    'MBPP_52_8': ('distribution: trigger rate',
        'variant zips tuplex with [value], so it only checks the first element: matches iff value is absent, or occurs once at index 0. Our spec (0-10 ints in [0,9], value in [0,9]) leaves value absent in most inputs (ours 0.68); their 0.35 implies value present in ~2/3 of their inputs'),
    'MBPP_54_15': ("theirs: label inconsistent with the task's tests",
        "variant raises NameError ('b' undefined) as soon as an element repeats; all three MBPP/932 asserts contain a duplicate ('Exercises' twice) and give X, yet labelled 1.0 (their inputs never repeated a word). Lists without duplicates match (['Java','C++'] M)"),
    'MBPP_56_19': ('equality: int vs float',
        'variant sums n**2 in a loop and returns int; the reference divides by 6 and returns float of the same value. Type-strict equality gives X on every input (ours 0); their 1.0 counts 91 == 91.0'),
    'MBPP_56_22': ('equality: int vs float',
        "variant returns sum(range(n+1)) = n(n+1)/2 as int; equal in value to the reference's float only for n in {-1, 0, 1}, and there type-strict equality still says X (--inputs [0],[1],[-1] -> X). Their 0.245 = share of n in {-1,0,1} in their inputs, counted under =="),
    'MBPP_56_31': ('equality: int vs float',
        'same as MBPP_56_19: loop sum of i**2 returns int, the reference the equal float (ours 0, theirs 1.0)'),
    'MBPP_60_29': ('distribution: trigger rate',
        'variant compares each tuple element with the whole list (int == list), so it always returns False: matches iff tuple and list share no element. Our spec (0-6 and 0-5 ints over [0,12], empties allowed) gives no shared element ~66% (ours 0.665); their 0.23 implies a shared element in ~77% of their inputs ([[7,0,4],[0]] X, [[4],[10,11,10]] M)'),
    'MBPP_60_43': ('distribution: trigger rate',
        'same as MBPP_60_29: elements compared with the whole list, always False; matches iff no shared element (ours 0.665, theirs 0.34)'),
    'MBPP_66_17': ('distribution: trigger rate (inferred: index 0)',
        "variant differs from tup[index] only at index 0 (returns []): ours 0.815 with indices uniform in [-len, len-1] (--inputs [['a','b'],0] -> X, [['a','b'],1] -> M). MBPP-ET tests (their labels are ET pass ratios) carry no reference-raising inputs, so their 0.22 implies index 0 in ~78% of their tests; not checked (MBPP/948's ET tests are not in data/raw/mbpp_et)"),
    'MBPP_6_21': ('distribution: trigger rate',
        "variant only tests that string1 is a prefix of string2 (IndexError if string2 is shorter); differs on proper rotations, on empty string1 vs non-empty string2, and on shorter string2 sharing a prefix ('', 'b' X; 'aaaa','a' X). Our tiny 'ab' alphabet, length 0-4, makes these common (ours 0.45); their 0.90 fits long random strings where both return False"),
    'MBPP_70_66': ('distribution: trigger rate',
        'variant returns True only for n == 1, else False: matches iff n is not abundant and n != 1. Sibling MBPP_70_56 (always False) is labelled 0.654 (ours 0.77), so ~35% of their (MBPP-ET) inputs are abundant vs ~23% of ours over [1,500]; the further 0.11 drop to 0.544 means ~11% of their inputs are n == 1 (inferred; --inputs [1] -> X, [12] -> X)'),
    'MBPP_71_12': ('equality: int vs float',
        'the reference returns math.log2(n & -n) + 1, a float; the variant returns an int. bit_length() equals the position iff n is a power of two (e.g. 8 -> 4 vs 4.0); their 0.21 counts those under ==, type-strict equality gives X everywhere (ours 0; --inputs [1],[5],[8] -> X)'),
    'MBPP_71_20': ('equality: int vs float',
        'the reference returns math.log2(n & -n) + 1, a float; the variant returns an int. (n & 1) + ((n >> 1) == 1) equals the position for odd n != 3 (1 vs 1.0), i.e. ~50% of ints; their 0.44 counts those under ==, type-strict equality gives X everywhere (ours 0; --inputs [1],[5],[8] -> X)'),
    'MBPP_71_24': ('equality: int vs float',
        "the reference returns math.log2(n & -n) + 1, a float; the variant n & ~(n-1) returns the lowest set bit's value as int, equal in value to its position only when that bit is 1 or 2 (n % 4 != 0, ~75% of ints: 1 vs 1.0, 2 vs 2.0). Their 0.60 counts those under ==; type-strict equality gives X everywhere (ours 0)"),
    'MBPP_71_4': ('equality: int vs float',
        'the reference returns math.log2(n & -n) + 1, a float; the variant returns an int. n & 1 equals the position for odd n (1 vs 1.0), i.e. ~50% of ints; their 0.46 counts those under ==, type-strict equality gives X everywhere (ours 0; --inputs [1],[5],[8] -> X)'),
    'MBPP_76_10': ('distribution: trigger rate (inferred)',
        "variant returns sum(ord) > 122, i.e. True for any 2+ lowercase letters: matches iff the first word has even length or the string is 1 char (--inputs 'a','xy','ab cde' M; '', 'abc', 'Hello', '12', 'abc de' X). Ours 0.62 on single lowercase words of 1-12; their 0.39 implies more odd-length/empty/non-lowercase strings; not checked which. Siblings: MBPP_76_4 ('D' in s, i.e. False) is labelled 0.36, so ~64% of their inputs have an even first word; 0.39 then needs ~25% even-length inputs with ord-sum <= 122 (empty or non-letter strings) in their ET set"),
    'MBPP_76_31': ('equality: int vs bool',
        "variant returns the whitespace count (int); for a single word that is 0, which == False when the reference says odd length. Their 0.36 counts 0 == False (odd-length words); type-strict equality gives X everywhere (--inputs 'abc','a' -> X; ours 0). Fits sibling MBPP_76_4 (always False, theirs 0.36): both match exactly the odd-length single words"),
    'MBPP_7_11': ('distribution: trigger rate',
        "variant tests 'any element of list1 in list2' instead of 'all of list2 in list1': differs when list2 is empty (True vs False) or overlaps partially. Our spec (sublists of 1-2 ints in [0,2]) makes overlap and empty list2 common (ours 0.59; [[[2,1]], []] X); their 0.96 fits random lists that share nothing (both False)"),
    'MBPP_9_2': ("theirs: label inconsistent with the task's tests",
        "variant calls s.keys() on a str whenever str2 occurs in str1 (AttributeError), else returns False. All three MBPP/874 asserts ('abcabcabc','abc'; 'abcab','abc'; 'aba','ab') give X, yet labelled 1.0; only inputs where str2 is not a substring and the answer is False match"),
}


def load_pairs(sets: list[str], limit: int | None) -> list:
    from lcl import loaders

    out = []
    pub = loaders.load_local_published() if any(s.startswith("LoCaL/") for s in sets) else []
    cst = loaders.load_codescore_test() if any(s.startswith("CodeScore_test/") for s in sets) else []
    for s in sets:
        ds, bench = s.split("/")
        src = pub if ds == "LoCaL" else cst
        got = [p for p in src if p.benchmark == bench]
        out += got[:limit] if limit else got
    return out


def set_of(row) -> str:
    return ("LoCaL" if row["dataset"] == "LoCaL_published" else row["dataset"]) + "/" + str(row["benchmark"])


def cause_for(r: dict, identical: bool = False) -> tuple[str, str]:
    if r["id"] in CAUSES:
        return CAUSES[r["id"]]
    if identical and r["abs_diff"] is not None and r["abs_diff"] > 0.05:
        return ("theirs: identical code labelled < 1",
                "the released variant is byte-identical to the reference (the label must belong to another mutant)")
    d = r["abs_diff"]
    if d is None or d != d:
        return ("not fuzzed: " + str(r.get("skipped") or "no score"), "")
    if d <= 0.05 and r["bucket_theirs"] == r["bucket_ours"]:
        return ("agree", "")
    if d <= 0.2:
        return ("small: sampling", "")
    return ("unexamined", "")


def main_run(args: argparse.Namespace) -> int:
    import pandas as pd

    from lcl import labels

    sets = args.set or list(SETS)
    pairs = load_pairs(sets, args.limit)
    print(f"{len(pairs)} pairs in {', '.join(sets)}; N={args.n}/{args.n_program}, R={args.runs}", file=sys.stderr)
    df = labels.rederive(pairs, n_function=args.n, n_program=args.n_program, runs=args.runs, seed=args.seed,
                         jobs=args.jobs, progress=not args.quiet)
    df["set"] = df.apply(set_of, axis=1)
    same = {p.id for p in pairs if p.reference == p.candidate}
    rows = []
    for r in df.to_dict("records"):
        c = r.get("counts") or {}
        cause, evidence = cause_for(r, r["id"].split("#")[0] in same)
        rows.append({"id": r["id"], "set": r["set"], "task": r["task"], "variant_type": r["variant_type"],
                     "spec": r["spec"], "theirs": r["theirs"],
                     "ours": None if r["ours"] is None else round(r["ours"], 4),
                     "abs_diff": None if r["abs_diff"] is None else round(r["abs_diff"], 4),
                     "bucket_theirs": r["bucket_theirs"], "bucket_ours": r["bucket_ours"],
                     "matches": c.get("matches"), "mismatches": c.get("mismatches"), "invalid": c.get("invalid"),
                     "timeouts": c.get("timeouts"), "crashes": c.get("crashes"),
                     "cause": cause, "evidence": evidence})
    out = Path(args.out)
    # merge with rows of sets not run this time, so a partial rerun keeps the others
    old = []
    if out.exists() and args.set:
        with out.open() as fh:
            old = [r for r in csv.DictReader(fh) if r["set"] not in sets]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in old + rows:
            w.writerow(r)
    all_rows = pd.DataFrame(old + rows)
    for col in ("theirs", "ours", "abs_diff"):
        all_rows[col] = pd.to_numeric(all_rows[col], errors="coerce")
    print(summary(all_rows).to_string(index=False))
    big = all_rows[all_rows.abs_diff > 0.2]
    print("\ncauses of |diff| > 0.2:")
    print(big.groupby(["set", "cause"]).size().to_string())
    return 0


def summary(df):
    import pandas as pd

    rows = []
    for s, g in df.groupby("set"):
        ok = g[g.abs_diff.notna()]
        rows.append({"set": s, "pairs": len(g), "fuzzed": len(ok), "MAE": round(ok.abs_diff.mean(), 4),
                     "bucket agreement": round((ok.bucket_theirs == ok.bucket_ours).mean(), 4),
                     "|diff|>0.2": int((ok.abs_diff > 0.2).sum())})
    return pd.DataFrame(rows)


def explain(args: argparse.Namespace) -> int:
    """Per-input verdicts of one pair, through the sandboxed engine."""
    from lcl import loaders
    from lcl.fuzz import Settings, fuzz_pair
    from lcl.fuzz.semantics import derive_seed
    from lcl.inputs.resolve import resolve_published, task_uid_for_row
    from lcl.inputs.store import spec_for

    pairs = {p.id: p for p in loaders.load_local_published() + loaders.load_codescore_test()}
    p = pairs[args.explain]
    row = {"id": p.id, "golden_code": p.reference, "generated_code": p.candidate}
    info = resolve_published(row)
    uid = task_uid_for_row(row)
    spec = spec_for(uid)
    print(f"== {p.id}  task {uid}  theirs={p.df_score}  spec={spec.origin} verified={spec.verified}")
    print(f"-- spec notes: {spec.notes}")
    if args.show_code:
        print("-- reference:\n" + p.reference + "\n-- variant:\n" + p.candidate)
    elif args.diff:
        import difflib

        print("".join(difflib.unified_diff(p.reference.splitlines(True), p.candidate.splitlines(True),
                                           "reference", "variant", n=2)))
    s = Settings().with_(runs=args.runs, n_function=args.n, n_program=args.n_program)
    level = "program" if info["stdin"] else "function"
    n = s.n_default(level)
    if args.inputs:  # explicit inputs (a JSON list): check a hypothesis about where the sides differ
        xs = json.loads(args.inputs)
        res = fuzz_pair(p.reference, p.candidate, entry=info["entry"], stdin=info["stdin"], inputs=xs,
                        seed=args.seed, settings=s.with_(runs=1), label=p.id)
        print(f"explicit inputs: {res.counts()}")
        for x, v in zip(xs, res.runs[0].verdicts):
            print(f"   {v} {json.dumps(x)[:300]}")
        return 0
    res = fuzz_pair(p.reference, p.candidate, entry=info["entry"], stdin=info["stdin"], generator=info["generator"],
                    seed=args.seed, settings=s, label=p.id)
    print(f"ours={res.df_score:.4f} counts={res.counts()}")
    for r in res.runs:
        items = info["generator"](derive_seed(args.seed, r.run), n)
        by = {}
        for x, v in zip(items, r.verdicts):
            by.setdefault(v, []).append(x)
        print(f"-- run {r.run}: score={r.score} {dict(Counter(r.verdicts))}")
        for v in ("X", "T", "C", "I", "M"):
            for x in by.get(v, [])[: args.show]:
                print(f"   {v} {json.dumps(x)[:300]}")
        if not args.all_runs:
            break
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", choices=SETS, help="pair set (repeatable; default all)")
    ap.add_argument("--n", type=int, default=200, help="inputs per run, functions (default 200)")
    ap.add_argument("--n-program", type=int, default=100, help="inputs per run, programs (default 100)")
    ap.add_argument("--runs", type=int, default=2, help="runs R (default 2)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="at most this many pairs per set")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=str(ROOT / "build" / "label_disagreements.csv"))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--explain", metavar="ID", help="print per-input verdicts of one pair and exit")
    ap.add_argument("--show", type=int, default=4, help="--explain: inputs shown per verdict")
    ap.add_argument("--show-code", action="store_true", help="--explain: print both codes")
    ap.add_argument("--diff", action="store_true", help="--explain: print a unified diff of the codes")
    ap.add_argument("--inputs", metavar="JSON", help="--explain: run these inputs (a JSON list) instead")
    ap.add_argument("--all-runs", action="store_true", help="--explain: every run, not only the first")
    ap.add_argument("--no-et", action="store_true",
                    help="ablation: leave the MBPP-ET / HumanEval-ET test inputs out of the seed inputs "
                         "(only the benchmarks' own asserts come first); use with a different --out")
    args = ap.parse_args()
    if args.no_et:
        from lcl import sources

        available = sources.available
        sources.available = lambda name: name not in ("mbpp_et", "humaneval_et") and available(name)
    return explain(args) if args.explain else main_run(args)


if __name__ == "__main__":
    sys.exit(main())
