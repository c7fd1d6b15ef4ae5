"""What the commands share: the usage error they raise, reading records and saved games,
the rules from the command line, the solver made ready."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from backalley.i18n import _, explain
from backalley.rules import RulesError, Ruleset, parse_option_value


class UsageError(Exception):
    """A command line the program cannot act on: reported in one line, exit 2."""


def read_input(name: str) -> bytes:
    """The bytes of file ``name``, or of standard input for ``-``."""
    return sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()


def ruleset_from_args(preset: str, options: list[str]) -> Ruleset:
    """The rule set named on the command line, with its ``KEY=VALUE`` overrides."""
    overrides: dict[str, Any] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(_("--option takes KEY=VALUE, not {item!r}").format(item=item))
        try:
            overrides[key.strip()] = parse_option_value(key.strip(), value.strip())
        except RulesError as error:
            raise UsageError(explain(error)) from None
    try:
        return Ruleset.preset(preset, **overrides)
    except RulesError as error:
        raise UsageError(explain(error)) from None


def prepare_solver() -> None:
    """Compile the solver's search now, saying so and how long it took, if this machine has
    not yet (20 s on an idle machine of two cores, once; later processes load it from
    numba's cache in a second)."""
    from backalley.solver import compile_search, needs_compiling

    if needs_compiling():
        print(_("compiling the solver, once on this machine: about 20 s on an idle one"),
              file=sys.stderr)  # fmt: skip
        began = time.monotonic()
        compile_search()
        seconds = round(time.monotonic() - began)
        print(_("the solver compiled in {seconds} s").format(seconds=seconds), file=sys.stderr)


def prepare_solver_aside() -> Callable[[], bool]:
    """Start compiling the solver's search in a process of its own, if this machine has
    not yet (20 s on an idle machine of two cores), so that nobody waits for it: whether it
    is ready, to ask as often as one likes."""
    from backalley.solver import needs_compiling

    if not needs_compiling():
        return lambda: True
    compiling = subprocess.Popen(
        [sys.executable, "-c", "from backalley.solver import compile_search; compile_search()"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return lambda: compiling.poll() is not None


def make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(cannot_write(folder, error)) from None


def read_record_file(name: str) -> Any:
    """The record in file ``name`` (``-``: standard input), read and checked."""
    from backalley.record import RecordError, read_record

    try:
        return read_record(read_input(name))
    except OSError as error:
        raise UsageError(cannot_read(name, error)) from None
    except RecordError as error:
        raise UsageError(invalid_record(error)) from None


def read_game(name: str) -> Any:
    """The game of the record in file ``name``, replayed through the engine."""
    from backalley.record import ReplayError, replay

    try:
        return replay(read_record_file(name))
    except ReplayError as error:
        raise UsageError(invalid_record(error)) from None


def cannot_read(name: object, error: OSError) -> str:
    reason = error.strerror or str(error)
    return _("cannot read {file}: {reason}").format(file=name, reason=reason)


def cannot_write(path: object, error: OSError) -> str:
    return _("cannot write to {folder}: {reason}").format(folder=path, reason=error.strerror)


def invalid_record(error: Any) -> str:
    return _("not a valid record: {problem}").format(problem=explain(error))
