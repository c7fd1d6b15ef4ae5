"""Build hook: compile the engine's hot modules with mypyc when possible.

The same typed source runs as plain Python; compiled, random play runs about twice as fast
(benchmarks/engine.py). Set ``BACKALLEY_PURE=1`` to build without compiling. Should the C
build fail (no compiler), the package is installed as plain Python with a warning.
"""

from __future__ import annotations

import os
import sys

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


def extensions() -> list:
    if os.environ.get("BACKALLEY_PURE", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    return mypycify(COMPILED, opt_level="3")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
