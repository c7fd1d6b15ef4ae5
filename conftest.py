"""Doctests of the compiled modules cannot run (mypyc keeps no docstrings, and the module is
the extension, not the source): when compiled, they run in the plain-Python pass instead
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
