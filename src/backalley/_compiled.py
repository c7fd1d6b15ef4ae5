"""Load the engine compiled (mypyc) when it is built and current, else as plain Python.

``pip install`` compiles ``cards``, ``rules`` and ``engine`` (see setup.py). The compiled
modules are used unless ``BACKALLEY_PURE=1`` is set, or a source file is newer than its
compiled module — an edit since the last build, which must not be silently ignored; then the
sources are loaded (with a warning) until ``pip install -e .`` builds them again.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path

_HERE = Path(__file__).parent
#: Compiled modules, in import order (each needs only earlier ones), and their files' stems.
_MODULES = {"cards": "cards", "rules": "rules", "engine": "engine"}


def _source(name: str) -> Path:
    return _HERE / f"{_MODULES[name]}.py"


def _compiled_path(name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = _HERE / (_MODULES[name] + suffix)
        if path.exists():
            return path
    return None


def _load_sources() -> None:
    for name in _MODULES:
        full = f"{__package__}.{name}"
        source = _source(name)
        package = [str(source.parent)] if source.name == "__init__.py" else None
        spec = importlib.util.spec_from_file_location(
            full, source, submodule_search_locations=package
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)


def _choose() -> bool:
    built = {name: _compiled_path(name) for name in _MODULES}
    if not all(built.values()):
        return False
    if os.environ.get("BACKALLEY_PURE", "") not in ("", "0"):
        _load_sources()
        return False
    stale = [
        name
        for name, path in built.items()
        if path is not None and _source(name).stat().st_mtime > path.stat().st_mtime
    ]
    if stale:
        warnings.warn(
            f"backalley: {', '.join(stale)} changed since it was compiled; running the "
            "sources (slower) until `pip install -e .` builds them again",
            stacklevel=3,
        )
        _load_sources()
        return False
    return True


def _restore_class_docs() -> None:
    """mypyc gives the plain Python classes of a compiled module (exceptions, int subtypes)
    a filler ``__doc__``; give them back their docstrings from the sources, for ``help()``.
    (setup.py writes the compiled functions' and classes' docstrings into the C itself.)"""
    for name in _MODULES:
        module = importlib.import_module(f"{__package__}.{name}")
        tree = ast.parse(_source(name).read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            cls = getattr(module, node.name, None)
            if isinstance(cls, type) and cls.__doc__ == "mypyc filler docstring":
                cls.__doc__ = ast.get_docstring(node, clean=False)


#: Whether the engine runs compiled (mypyc) in this process.
COMPILED = _choose()
if COMPILED:
    _restore_class_docs()
