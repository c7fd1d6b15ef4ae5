#!/usr/bin/env bash
# Set up and run every check: lint, types, and the whole test suite — once with the engine
# compiled (mypyc, as installed) and once as plain Python (BACKALLEY_PURE=1), since both ship.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# Python keeps the bytecode of what it imports (a machine may say not to, PYTHONDONTWRITEBYTECODE):
# the tests start hundreds of processes (servers, examples, Ray's workers), each of which would
# otherwise compile what it imports again; torch alone takes seconds.
unset PYTHONDONTWRITEBYTECODE
# The terminal game is tested in a real terminal, tmux (tests/test_tui_terminal.py), and the
# browser page in a real browser, Debian's Chromium driven by Playwright (tests/test_web.py).
# The page's accessibility is checked by axe-core, from npm (tests/test_web_a11y.py).
missing=""
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
[ -x /usr/bin/chromium ] || missing="$missing chromium"  # Debian's, whatever else is on the PATH
command -v npm >/dev/null 2>&1 || missing="$missing npm"
# Several server nodes are tested behind nginx with TLS, as docs/deploy.md sets them up.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
if [ -n "$missing" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
AXE=4.14.1
if [ ! -f tests/.npm/node_modules/axe-core/axe.min.js ] \
  || ! grep -q "\"version\": \"$AXE\"" tests/.npm/node_modules/axe-core/package.json; then
  npm install --silent --no-audit --no-fund --prefix tests/.npm "axe-core@$AXE" >/dev/null
fi
# The server's storage is tested on a real PostgreSQL too (tests/test_server.py).
if url=$(bash scripts/postgres.sh 2>/tmp/backalley-postgres.err) && [[ $url == postgresql://* ]]; then
  export BACKALLEY_TEST_POSTGRES="$url"
else
  export BACKALLEY_TEST_POSTGRES_SKIP="PostgreSQL could not be set up: $(cat /tmp/backalley-postgres.err) ${url:-}"
  echo "warning: $BACKALLEY_TEST_POSTGRES_SKIP: its tests will be skipped" >&2
fi
# Several server nodes are tested on PostgreSQL and a real Redis (tests/test_cluster.py).
if url=$(bash scripts/redis.sh 2>/tmp/backalley-redis.err) && [[ $url == redis://* ]]; then
  export BACKALLEY_TEST_REDIS="$url"
else
  export BACKALLEY_TEST_REDIS_SKIP="Redis could not be set up: $(cat /tmp/backalley-redis.err) ${url:-}"
  echo "warning: $BACKALLEY_TEST_REDIS_SKIP: its tests will be skipped" >&2
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# Stable-Baselines3's adapter (backalley.env.sb3) is tested with SB3 itself, on PyTorch's CPU
# build: pinned, because a bare `torch` would fetch a CUDA build of several GB.
# Nothing is compiled to bytecode as it is installed (torch, Ray and the rest are tens of
# thousands of modules, 25 s of the setup, most of which no test imports): what the tests
# import is compiled once, below, beside the lint.
.venv/bin/python -m pip install -q --no-compile torch==2.13.0
# The engine's build (mypyc and a C compiler: 20 s of one core) beside the install of what it
# and its tests use (the other core): the same as `pip install -e '.[test,sb3,ray,rllib]'`, in
# half the time. (RLlib pins Gymnasium: the environment is tested on that release.)
.venv/bin/python -m pip install -q --no-deps -e . &
building=$!
mapfile -t needs < <(.venv/bin/python -c '
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
print("\n".join(project["dependencies"] + [n for e in ("test", "sb3", "ray", "rllib") for n in extras[e]]))')
.venv/bin/python -m pip install -q --no-compile torch==2.13.0 "${needs[@]}"
wait "$building"
.venv/bin/python -m pip check
echo "== set up in ${SECONDS} s"
# numba compiles the solver and the research environment's rules once, into this clone's
# caches (half a minute): here, beside the lint, rather than in every test process at once.
.venv/bin/python -c "from backalley.solver import compile_search; compile_search()
from backalley.env import BatchedEnv; BatchedEnv(2).reset(1)" &
warming=$!
# What the tests and the processes they start import is imported once here, which compiles
# its bytecode (13 s of one core) beside the lint, not in several test processes at once.
.venv/bin/python -c "import torch._dynamo, stable_baselines3, sb3_contrib, ray.rllib, pyspiel
import open_spiel.python.algorithms.ismcts, endplay.dds, pettingzoo.test, matplotlib.pyplot
import hypothesis, pytest, xdist, playwright.sync_api, textual.app, rich.progress, babel.support
import sqlalchemy, starlette.applications, uvicorn, websockets.asyncio.client, redis.asyncio
import argon2, openskill.models, platformdirs, h11
import backalley.server.app, backalley.tui, backalley.arena, backalley.env.openspiel" &
importing=$!
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
wait "$warming"
wait "$importing"
echo "== lint, types and numba's caches in ${SECONDS} s"
# Four test processes on two cores: many tests wait on servers, browsers and terminals, and
# four keep both cores busy (idle 6 % of the run, measured).
echo "== tests, engine compiled"
.venv/bin/python -c "import backalley, sys; print('compiled:', backalley.COMPILED)"
.venv/bin/pytest -n 4 --dist worksteal -q --durations=12
echo "== tests, engine compiled, in ${SECONDS} s"
echo "== tests, engine as plain Python"
# What the build changes is the three compiled modules (cards, rules, engine): as plain Python
# they are run again by their own tests and by the tests of what reads them most directly —
# the rules by id and the rule book, records and their replay, the properties of whole games,
# seat views from what a seat knows, the bots' legal play, the solver's compiled rules against
# the engine's, the review, the server's table core — with their doctests. Everything else
# (servers, browsers, terminals, the research environment, Ray) sees the engine through those
# same views and records, and ran above, compiled.
BACKALLEY_PURE=1 .venv/bin/pytest -n 4 --dist worksteal -q -m "not brute_force and not browser and not cluster \
and not server and not examples and not ray and not strength and not terminal" \
  src/backalley/cards.py src/backalley/rules.py src/backalley/engine.py src/backalley/record.py \
  src/backalley/view.py tests/test_rules_by_id.py tests/test_rulebook.py tests/test_bab.py \
  tests/test_golden_records.py tests/test_record.py tests/test_values.py tests/test_properties.py \
  tests/test_knowledge.py tests/test_bots.py tests/test_solver.py tests/test_analysis.py \
  tests/test_report.py tests/test_pimc.py tests/test_server_table.py tests/test_package.py \
  tests/test_cli.py
echo "== everything in ${SECONDS} s"
