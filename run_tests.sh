#!/usr/bin/env bash
# Install everything the tests need, run the lint and type checks, then run all the tests.
# Browser tests use Debian's Chromium (/usr/bin/chromium); Playwright's own
# browser download is not used.  Nothing is skipped: a missing browser fails.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null
  fi
fi
# Lint the whole tree; type-check the engine, the inspector and its pages (configuration in pyproject.toml).
python3 -m ruff check .
python3 -m mypy
exec python3 -m pytest -q "$@"
