# LoCaL compendium: the Makefile is the table of contents.
#
#   make all            regenerate every table, figure, dataset and the HTML report
#   make test           ruff and mypy on lib/ and notebooks/, then the test suite (tiers: see `test`)
#   make verify         compare regenerated outputs with committed reference values
#   make test-build     check the build `make all` made (outputs, provenance, the report in a browser)
#   make report         render executed notebooks to HTML with an index page
#   make lab            open JupyterLab on the executed notebooks of PROFILE
#   make data           fetch and verify every raw source (registry, local mirror)
#   make labels         every fuzzing stage, resumable, archived in data/labels/ (full: hours)
#   make clean          remove generated outputs (keeps data/raw and the venv)
#
# Variables: PROFILE=full|quick|smoke (default full: the paper's settings), JOBS=N (parallel
# workers inside notebooks; use `make -jN` for notebook-level parallelism), SEED=N,
# LAB_ARGS=... (extra options for `jupyter lab`), TESTARGS=... (extra options for pytest).
# Every target bootstraps .venv from requirements/lock.txt when it is missing or stale.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# No .DELETE_ON_ERROR: every recipe writes its outputs atomically (lcl.core.io, jupytext via a temporary
# file), so a failed run leaves no half-written file, and deleting on error would only remove
# earlier good outputs of a grouped notebook rule that the failed run never touched.
.SUFFIXES:
MAKEFLAGS   += --no-builtin-rules

PROFILE ?= full
PROFILES := full quick smoke
# a mistyped profile stops here, before anything runs or is deleted
ifeq ($(filter $(PROFILE),$(PROFILES)),)
$(error PROFILE=$(PROFILE) is not a profile; choose one of: $(PROFILES))
endif
JOBS    ?= 2
SEED    ?= 20250101
PYTHON  ?= python3.11

VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.lcl-installed
LCL     := $(VENV)/bin/lcl
export PYTHONHASHSEED := 0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export MPLBACKEND := Agg
export LCL_PROFILE := $(PROFILE)
export LCL_JOBS := $(JOBS)

NB_SRC  := $(sort $(wildcard notebooks/[0-9][0-9]_*.py))
NB_IDS  := $(notdir $(basename $(NB_SRC)))
EXEC_NB := $(NB_IDS:%=build/notebooks/$(PROFILE)/%.ipynb)
RAW_OK  := data/raw/.verified

# What each notebook reads of lib/: $(DEPS)/<id>.digest (and codescore_base, findings and report
# for those commands) holds the digest of the lcl modules it imports, transitively, by content;
# lib/lcl/core/deps.py rewrites a file only when its digest changes, so its time moves only then.
# Every file under lib/ as a prerequisite reran every notebook (80 min at full) after a docstring
# edit anywhere. It runs here, at parse time, with the system Python (stdlib only, no venv), so
# `make -n` and `make -q` see the new times (a FORCE'd rule would make `make -q all` always
# fail). It prints which targets changed and why; its error stops Make in one line. Goals that
# run no notebook or command (help, venv, lock, data, lab, clean, distclean) skip it, and so does
# a copy of the Makefile without the library (the tests' scratch projects): nothing to digest.
DEPS     := build/deps/$(PROFILE)
HAVE_LIB := $(wildcard lib/lcl/__init__.py)
LIB_DEPS  = $(if $(HAVE_LIB),$(DEPS)/$(1).digest)
ifneq ($(and $(HAVE_LIB),$(filter-out help venv lock data lab clean distclean,$(or $(MAKECMDGOALS),help))),)
DEPS_ERR := $(shell $(PYTHON) lib/lcl/core/deps.py --profile $(PROFILE) 3>&1 1>&2 2>&3 || echo "(exit status $$?)")
ifneq ($(DEPS_ERR),)
$(error cannot tell what the notebooks read of lib/ ($(PYTHON) lib/lcl/core/deps.py): $(DEPS_ERR))
endif
endif

.PHONY: all test test-build verify report lab data clean distclean venv lock help notebooks labels
.DEFAULT_GOAL := help

help: ## list targets and variables
	@grep -h -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14
	@echo
	@echo 'Variables (name=value after the target):'
	@echo '  PROFILE=quick|full|smoke  quick: about 10 min on 2 cores; full: the paper'"'"'s settings, about 80 min;'
	@echo '                            smoke: the tests'"'"' tiny run (default: $(PROFILE))'
	@echo '  JOBS=N                    worker processes inside a notebook (default: $(JOBS))'
	@echo '  SEED=N                    base seed recorded in every output (default: $(SEED))'
	@echo '  LAB_ARGS="..."            extra options for jupyter lab (make lab)'
	@echo '  TESTARGS="..."            extra options for pytest (make test), e.g. TESTARGS="-k claims"'
	@echo
	@echo 'Start with: make all PROFILE=quick   then: make verify PROFILE=quick   (README.md)'

# ---------------------------------------------------------------- environment
venv: $(STAMP) ## create/refresh .venv from the lock file

$(STAMP): requirements/lock.txt pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (Python 3.11 is required)" >&2; exit 1; }
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check --upgrade pip==25.3
	$(VPY) -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt
	$(VPY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

lock: ## regenerate requirements/lock.txt from requirements/base.in (needs the registry)
	rm -rf build/lockvenv && $(PYTHON) -m venv build/lockvenv
	build/lockvenv/bin/pip install --quiet --upgrade pip==25.3
	build/lockvenv/bin/pip install --quiet -r requirements/base.in
	{ sed -n '1,3p' requirements/lock.txt; build/lockvenv/bin/pip freeze --all | grep -v -i '^pip==\|^wheel==' | sed 's/+cpu$$//'; } > requirements/lock.txt.new
	mv requirements/lock.txt.new requirements/lock.txt

# ---------------------------------------------------------------- data
data: $(RAW_OK) ## fetch + verify raw sources (registry, then LOCAL_DATA_MIRROR)

$(RAW_OK): data/sources.toml $(STAMP)
	$(LCL) data fetch

# ---------------------------------------------------------------- notebooks
# jupytext sources (notebooks/NN_name.py) -> notebooks/NN_name.ipynb (for JupyterLab)
notebooks/%.ipynb: notebooks/%.py $(STAMP)
	$(VENV)/bin/jupytext --quiet --to ipynb --output $@.tmp.ipynb $< && mv $@.tmp.ipynb $@

# papermill executes each notebook into build/notebooks/PROFILE/, injecting parameters.
# notebooks/outputs.mk declares each notebook's extra inputs (NB_<id>_IN) and outputs
# (NB_<id>_OUT); one grouped rule per notebook, generated from this template, makes Make
# rerun a notebook when its source, the lcl modules it reads (its digest in $(DEPS)), the raw
# data or a declared input changed, or an output is missing.
include notebooks/outputs.mk

define NOTEBOOK_RULE
build/notebooks/$(PROFILE)/$(1).ipynb $$(NB_$(1)_OUT) &: notebooks/$(1).ipynb $$(call LIB_DEPS,$(1)) $$(RAW_OK) $$(STAMP) $$(NB_$(1)_IN)
	$$(LCL) notebook run $(1) --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS) --quiet
endef
$(foreach nb,$(NB_IDS),$(eval $(call NOTEBOOK_RULE,$(nb))))

ALL_OUT := $(foreach nb,$(NB_IDS),$(NB_$(nb)_OUT))

# CodeScore_base: the CodeScore-style substitute every RQ notebook scores with (lcl.study.codescore_base)
$(BASE_MODEL): $(call LIB_DEPS,codescore_base) $(RAW_OK) $(STAMP) $(wildcard data/constraints/HumanEval/*.json)
	$(LCL) codescore-base --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS) --out $@ --no-progress

# Every fuzzing stage outside Jupyter (hours at full settings), most needed first: the LoCaL
# candidates and the human-written clone pairs (02), the RQ2 pool (04), CodeScore_base (03-07),
# the published labels (01). Each is resumable; full-profile results go to the committed label
# archive data/labels/ after each.
ARCHIVE := $(LCL) fuzz archive export --profile full
labels: $(RAW_OK) $(STAMP) ## run every fuzzing stage (resumable), archiving full-profile results in data/labels/
	$(LCL) variants label --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS)
	$(ARCHIVE)
	$(LCL) variants clones --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS)
	$(ARCHIVE)
	$(LCL) variants pool --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS)
	$(ARCHIVE)
	$(MAKE) --no-print-directory $(BASE_MODEL)
	$(ARCHIVE)
	$(LCL) inputs agreement --profile $(PROFILE) --seed $(SEED) --jobs $(JOBS)
	$(ARCHIVE)

notebooks: $(EXEC_NB) ## execute every notebook (papermill)

# The studies beyond the paper (notebooks 09 on) each write tables/findings_<id>.csv; one table
# joins them beside the claims (lcl.report.findings).
FINDINGS := $(if $(STUDY_IDS),tables/findings.csv tables/findings.md)
ifneq ($(STUDY_IDS),)
tables/findings.csv tables/findings.md &: $(STUDY_NB) $(call LIB_DEPS,findings) $(STAMP)
	$(LCL) findings --profile $(PROFILE) --seed $(SEED)
endif

all: $(EXEC_NB) $(ALL_OUT) $(FINDINGS) build/report/index.html ## regenerate everything (PROFILE=full|quick)

# ---------------------------------------------------------------- report
report: build/report/index.html ## HTML report of executed notebooks + index

build/report/index.html: $(EXEC_NB) $(FINDINGS) $(call LIB_DEPS,report) $(STAMP)
	$(LCL) report --profile $(PROFILE)

# ---------------------------------------------------------------- checks
# Two tiers run elsewhere, each once in CI (.ci/run): `notebooks` (every notebook at the smoke
# profile, without the mirror: CI's pass without the mirror, .ci/no_mirror_tests.sh) and `build`
# (the quick build `make all` made: make test-build), so `make test` stays under 10 minutes.
TEST_MARKS ?= not notebooks and not build
# The notebooks are linted and type-checked like lib/: a name that does not exist or an argument of
# the wrong type fails here, in seconds, not in the middle of a 20-minute run.
test: $(STAMP) ## ruff and mypy on lib/ and notebooks/, then the tests (TESTARGS=... for pytest)
	$(VENV)/bin/ruff check --quiet lib notebooks
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy $(NB_SRC)
	$(VPY) -m pytest -m "$(TEST_MARKS)" $(TESTARGS)

test-build: $(STAMP) ## check the build `make all PROFILE=...` made: declared outputs, provenance, the report in Chromium
	LCL_BUILD_PROFILE=$(PROFILE) $(VPY) -m pytest -m build $(TESTARGS)

verify: $(EXEC_NB) $(FINDINGS) ## compare regenerated outputs with data/reference/expected (Maneage-style)
	$(LCL) verify --profile $(PROFILE)

# JupyterLab opens on the executed notebooks of PROFILE (their figures and tables as the build made
# them), or on the sources when there are none yet. A notebook run by hand there writes to
# build/interactive/PROFILE/ (lcl.report.outputs.output_dirs), never over tables/ or figures/. Inline
# figures need MPLBACKEND unset (this Makefile exports Agg for the command-line tools); root needs
# --allow-root, which containers usually are.
LAB_ARGS ?=
LAB_DIR   = $(if $(wildcard build/notebooks/$(PROFILE)/*.ipynb),build/notebooks/$(PROFILE),notebooks)
lab: $(STAMP) $(NB_IDS:%=notebooks/%.ipynb) ## JupyterLab on the executed notebooks of PROFILE (LAB_ARGS=... passed on)
	@$(if $(filter notebooks,$(LAB_DIR)),echo "No executed notebooks for PROFILE=$(PROFILE) yet (make all PROFILE=$(PROFILE) makes them); opening the sources in notebooks/.",echo "Opening the executed notebooks in $(LAB_DIR); a notebook run by hand writes to build/interactive/$(PROFILE)/.")
	env -u MPLBACKEND $(VENV)/bin/jupyter lab --ServerApp.root_dir=. --ServerApp.default_url=/lab/tree/$(LAB_DIR) \
	  $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# ---------------------------------------------------------------- housekeeping
clean: ## remove generated outputs (keeps data/raw, .cache and .venv)
	rm -rf build tables/*.csv tables/*.md tables/*.json figures/*.png figures/*.pdf figures/*.json notebooks/*.ipynb

distclean: clean ## also remove .venv, .cache and fetched raw data
	chmod -R u+w data/raw 2>/dev/null || true
	rm -rf $(VENV) .cache data/raw/*/ data/raw/.verified data/interim/* data/processed/*
