# The README's two commands: `make demo` and `make test`. Both build their own
# virtualenv from pyproject.toml, so a fresh machine needs only Python 3.11+.
# The machine's python3 when it is 3.11+, else the newest 3.11+ found (pyenv
# shims of inactive versions fail quietly and are skipped).
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test demo bench lint tox clean

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

# The example shop with the emulator in the same process: nothing else to run.
demo: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_shop
	@echo "The shop: http://127.0.0.1:8000/  (admin: http://127.0.0.1:8000/admin/, docs/checkout.md)"
	$(BIN)/python manage.py runserver 127.0.0.1:8000

bench: venv
	$(BIN)/python -m tests.benchmarks

tox: venv
	PATH="$$PATH:$$(ls -d /root/.pyenv/versions/3.12*/bin /root/.pyenv/versions/3.13*/bin 2>/dev/null | tr '\n' ':')" $(BIN)/tox

clean:
	rm -rf $(VENV) .tox .pytest_cache build *.egg-info
