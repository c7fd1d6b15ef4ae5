"""What the commands share: the usage error they raise, reading records and saved games,
the rules from the command line, the solver made ready."""

from __future__ import annotations

import sys
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
    """Compile the solver's search now, saying so, if this machine has not yet: about a
    minute, once; later processes load it from numba's cache."""
    from backalley.solver import compile_search, needs_compiling

    if needs_compiling():
        print(_("compiling the solver, once: about a minute"), file=sys.stderr)
        compile_search()


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
