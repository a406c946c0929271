# The README's two commands: `make demo` and `make test`. Both build their own
# virtualenv from pyproject.toml, so a fresh machine needs only Python 3.11+.
# The machine's python3 when it is 3.11+, else the newest 3.11+ found (pyenv
# shims of inactive versions fail quietly and are skipped).
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test demo bench lint tox mutants docs docs-serve package clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11+ not found"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

# pytest exits 5 when it collected nothing: that is a failure here, not a pass.
test: venv
	@$(BIN)/pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$rc

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The demo's marketplace (docs/connect.md): the shop's own account (the emulator's for
# demo-token) is the primary receiver of split payments, and its sellers authorise this
# Connect application, registered in the emulator from these settings. The key encrypts
# the demo's tokens only: a real one comes from the environment, never from a file.
DEMO_MARKETPLACE = ORDERPAY_ACCOUNT_ID=ACCO_AC02E00F-725E-5B5F-8BB2-966AC60C97C9 \
	ORDERPAY_CONNECT_CLIENT_ID=demo-marketplace \
	ORDERPAY_CONNECT_CLIENT_SECRET=demo-marketplace-secret \
	ORDERPAY_CONNECT_KEYS=ZGVtby1vbmx5LWtleS1mb3ItdGhlLWVtdWxhdG9yISE= \
	ORDERPAY_CONNECT_REDIRECT_URI=http://127.0.0.1:8000/orderpay/connect/callback/
# The documentation site (mkdocs.yml): strict, so a broken link or anchor fails.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# Both archives built and checked, and the wheel used as a shop would use it:
# a fresh virtualenv, no extras, migrate, check --deploy, one order (.ci/package.py).
package: venv
	$(BIN)/python .ci/package.py

# The example shop with the emulator in the same process: nothing else to run.
demo: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_shop
	$(BIN)/python manage.py seed_marketplace
	@echo "The shop: http://127.0.0.1:8000/  (admin: http://127.0.0.1:8000/admin/, docs/checkout.md)"
	$(DEMO_MARKETPLACE) $(BIN)/python manage.py runserver 127.0.0.1:8000

# The in-process benchmarks (SQLite, or DATABASE_URL), then the production shape:
# the example shop under gunicorn on PostgreSQL (a throwaway cluster, as `make tox`
# starts one, unless DATABASE_URL is postgres://) with wrk posting notifications
# (docs/benchmarks.md). wrk and PostgreSQL are installed with apt when missing.
# Options for the second: make bench BENCH_ARGS="--quick".
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install -q -e ".[dev,bench]"
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	@need=; command -v wrk >/dev/null 2>&1 || need="wrk"; \
	ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || case "$$DATABASE_URL" in postgres*) ;; \
	  *) need="$$need postgresql";; esac; \
	if [ -n "$$need" ]; then apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null; fi
	$(BIN)/python -m tests.benchmarks
	$(BIN)/python -m tests.benchmarks.production $(BENCH_ARGS)

# Mutation testing of the code that moves money or decides state (mutmut, the
# `mutants` extra): the functions are named in tests/mutants.py, the survivors
# explained in docs/testing.md. Minutes, not seconds: not part of `make test` nor
# CI; run it before resolving an issue that touches those modules. Options:
# make mutants MUTANTS_ARGS="--max-children 1 'django_orderpay.sync.operations.*'".
MUTANTS_STAMP := $(VENV)/.mutants-installed
$(MUTANTS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install -q -e ".[dev,mutants]"
	touch $(MUTANTS_STAMP)

mutants: $(MUTANTS_STAMP)
	rm -rf mutants
	$(BIN)/python -m tests.mutants $(MUTANTS_ARGS)

# Every factor of tox.ini. pyenv's Python 3.12/3.13 are appended to PATH (tox
# skips the interpreters it still can't find). The pg factors use DATABASE_URL;
# without one, a throwaway PostgreSQL cluster runs in a temp folder (removed at
# the end), or, where PostgreSQL is not installed, the pg factors are skipped
# with a message. Options for tox: make tox TOX_ARGS="-e py311-dj52-sqlite".
PYENV_BINS = $(wildcard $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions/3.1[23]*/bin)
tox: venv
	@set -e; for d in $(PYENV_BINS); do PATH="$$PATH:$$d"; done; export PATH; skip=; \
	if [ -z "$$DATABASE_URL" ]; then \
	  PGBIN=$$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1); \
	  [ -n "$$PGBIN" ] || PGBIN=$$(dirname "$$(command -v pg_ctl 2>/dev/null)"); \
	  if [ -x "$$PGBIN/pg_ctl" ]; then \
	    PGROOT=$$(mktemp -d); as=; \
	    if [ "$$(id -u)" = 0 ]; then chown postgres:postgres "$$PGROOT"; as="runuser -u postgres --"; fi; \
	    PORT=$$($(BIN)/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); \
	    trap "$$as $$PGBIN/pg_ctl -D $$PGROOT/data -m fast stop >/dev/null 2>&1; rm -rf $$PGROOT" EXIT; \
	    $$as "$$PGBIN/initdb" -D "$$PGROOT/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null; \
	    $$as "$$PGBIN/pg_ctl" -D "$$PGROOT/data" -l "$$PGROOT/log" -w \
	      -o "-c listen_addresses=127.0.0.1 -p $$PORT -k $$PGROOT -c fsync=off" start >/dev/null; \
	    "$$PGBIN/psql" -h 127.0.0.1 -p "$$PORT" -U postgres -qc "CREATE ROLE app LOGIN PASSWORD 'app' CREATEDB"; \
	    export DATABASE_URL="postgres://app:app@127.0.0.1:$$PORT/app"; \
	    echo "make tox: throwaway PostgreSQL on 127.0.0.1:$$PORT"; \
	  else \
	    echo "make tox: PostgreSQL not found and DATABASE_URL unset: the pg factors are skipped"; \
	    skip="--skip-env=.*-pg$$"; \
	  fi; \
	fi; \
	$(BIN)/tox $$skip $(TOX_ARGS)

clean:
	rm -rf $(VENV) .tox .pytest_cache build dist site *.egg-info mutants
