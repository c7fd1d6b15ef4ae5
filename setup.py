"""Build hook: compile the engine's hot modules with mypyc when possible.

The same typed source runs as plain Python; compiled, random play runs about twice as fast
(benchmarks/engine.py). Set ``BACKALLEY_PURE=1`` to build without compiling. Should the C
build fail (no compiler), the package is installed as plain Python with a warning.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "src/backalley/cards.py",
    "src/backalley/rules.py",
    "src/backalley/engine.py",
]


class OptionalBuildExt(build_ext):
    """Build the mypyc extensions, or warn and keep the pure-Python modules."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any compiler failure means "stay pure"
            print(f"warning: backalley stays pure Python ({error})", file=sys.stderr)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as error:
            print(f"warning: {ext.name} stays pure Python ({error})", file=sys.stderr)


def docstrings() -> dict[str, str]:
    """Every docstring of the compiled modules by dotted name (``engine.Game.apply``)."""
    found: dict[str, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        doc = ast.get_docstring(node)  # type: ignore[arg-type]
        if doc:
            found[prefix] = doc
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                visit(child, f"{prefix}.{child.name}")

    for path in COMPILED:
        visit(ast.parse(Path(path).read_text(encoding="utf-8")), Path(path).stem)
    return found


def c_literal(text: str) -> str:
    """``text`` as a C string literal of its UTF-8 bytes."""
    plain = set(b" !#$%&'()*+,-./0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`") | set(
        b"abcdefghijklmnopqrstuvwxyz{|}~"
    )
    return '"' + "".join(chr(b) if b in plain else f"\\{b:03o}" for b in text.encode()) + '"'


STRING = r'"(?:[^"\\]|\\.)*"'
FUNCTION_DOC = re.compile(
    rf"(\(PyCFunction\)CPyPy_(\w+?),\s*METH_[A-Z_ |]+,\s*PyDoc_STR\()({STRING}|NULL)\)"
)
CLASS_DOC = re.compile(
    rf"(PyTypeObject CPyType_(\w+?)_template_ = {{[^}}]*?\.tp_doc = PyDoc_STR\()({STRING})\)"
)
MODULE_DOC = re.compile(
    r'(PyModuleDef \w+ = {\s*PyModuleDef_HEAD_INIT,\s*"backalley\.(\w+)",\s*)NULL'
)


def keep_docstrings(sources: list[str]) -> None:
    """mypyc gives compiled functions and classes only their signature as ``__doc__``, and
    modules none; write each docstring into the generated C after the signature, as
    CPython's own built-ins carry theirs, so that ``help()`` reads the same compiled or not.
    C code this does not recognise is left as it is."""
    docs = docstrings()

    def add(match: re.Match[str]) -> str:
        doc = docs.get(match.group(2).replace("___", "."))
        if doc is None:
            return match.group(0)
        head = match.group(3) if len(match.groups()) > 2 else "NULL"
        text = c_literal(doc) if head == "NULL" else f"{head} {c_literal(doc)}"
        return match.group(1) + text + (")" if len(match.groups()) > 2 else "")

    for source in sources:
        path = Path(source)
        if path.suffix != ".c" or not path.exists():
            continue
        code = path.read_text(encoding="utf-8")
        new = MODULE_DOC.sub(add, CLASS_DOC.sub(add, FUNCTION_DOC.sub(add, code)))
        if new != code:
            path.write_text(new, encoding="utf-8")


def extensions() -> list:
    if os.environ.get("BACKALLEY_PURE", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    built = mypycify(COMPILED, opt_level="3")
    keep_docstrings([source for extension in built for source in extension.sources])
    return built


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
