#!/usr/bin/env bash
# Keep the message catalogs in step with the code:
#   scripts/i18n.sh update   extract every marked string and merge it into each language's .po
#   scripts/i18n.sh compile  compile the .po files into the .mo files the program loads
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL=${PYBABEL:-.venv/bin/pybabel}
LOCALE=src/backalley/locale
case "${1:-}" in
  update)
    "$PYBABEL" extract -F babel.cfg -k N_ -k _ -k ngettext:1,2 --sort-output --no-location \
      --project backalley -o "$LOCALE/backalley.pot" src/backalley
    .venv/bin/python scripts/web_messages.py "$LOCALE/backalley.pot"
    for lang in es nl ro tr; do
      if [ -f "$LOCALE/$lang/LC_MESSAGES/backalley.po" ]; then
        "$PYBABEL" update -D backalley -i "$LOCALE/backalley.pot" -d "$LOCALE" -l "$lang" --no-fuzzy-matching --ignore-obsolete
      else
        "$PYBABEL" init -D backalley -i "$LOCALE/backalley.pot" -d "$LOCALE" -l "$lang"
      fi
    done ;;
  compile)
    "$PYBABEL" compile -D backalley -d "$LOCALE" --statistics ;;
  *) echo "usage: scripts/i18n.sh update|compile" >&2; exit 2 ;;
esac
