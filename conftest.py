"""Doctests of the compiled modules are collected from their sources, which pytest will not
import over the compiled extension: when compiled, they run in the plain-Python pass instead
(``BACKALLEY_PURE=1``, see scripts/test.sh)."""

import backalley

collect_ignore = (
    [
        "src/backalley/cards.py",
        "src/backalley/rules.py",
        "src/backalley/engine.py",
    ]
    if backalley.COMPILED
    else []
)
