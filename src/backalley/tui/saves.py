"""The saved games of ``backalley play``: the current save and the few kept next to it.

A new game never writes over a save: the file it would take is first moved among the kept
saves (``current-game.json`` becomes ``current-game.7.json``, the number one more than any
kept before), and only the :data:`KEEP` most recently played of those stay. So a wrong key
loses nothing, and every unfinished game among them can be offered again at the start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from backalley.record import RecordError, ReplayError
from backalley.tui.session import Session

#: How many earlier saves are kept next to the current one.
KEEP = 5


@dataclass(frozen=True)
class SavedGame:
    """An unfinished game found on disk: where, when it was last saved, and the game."""

    path: Path
    saved_at: float  #: the file's modification time (seconds since the epoch)
    session: Session


def kept_saves(path: Path) -> list[Path]:
    """The saves kept next to ``path`` (``<stem>.<number><suffix>``), newest first."""
    return sorted(_numbered(path), key=lambda p: p.stat().st_mtime, reverse=True)


def _numbered(path: Path) -> dict[Path, int]:
    """The files kept next to ``path``, with their numbers."""
    pattern = re.compile(re.escape(path.stem) + r"\.(\d+)" + re.escape(path.suffix))
    if not path.parent.is_dir():
        return {}
    found = {p: pattern.fullmatch(p.name) for p in path.parent.iterdir() if p.is_file()}
    return {p: int(match[1]) for p, match in found.items() if match}


def keep(path: Path) -> Path | None:
    """Move the save in ``path``, if there is one, among the kept saves, before a new game
    takes its place; of the others only the most recently played stay, :data:`KEEP` in all.
    Returns where it went."""
    if not path.is_file():
        return None
    number = max(_numbered(path).values(), default=0) + 1
    target = path.with_name(f"{path.stem}.{number}{path.suffix}")
    path.replace(target)
    others = [p for p in kept_saves(path) if p != target]  # the one just moved always stays
    for old in others[KEEP - 1 :]:
        old.unlink(missing_ok=True)
    return target


def read_save(path: Path) -> SavedGame | None:
    """The game saved in ``path``, or ``None`` when there is none or it is no valid save
    (such a file is left where it is: :func:`keep` moves it aside like any other)."""
    try:
        saved_at = path.stat().st_mtime
        session = Session.resume(path)
    except (OSError, RecordError, ReplayError):
        return None
    return SavedGame(path, saved_at, session)


def unfinished_saves(path: Path) -> list[SavedGame]:
    """The unfinished games in ``path`` and among the saves kept next to it: the one in
    ``path`` first, then the kept ones, newest first."""
    found = [read_save(p) for p in [path, *kept_saves(path)]]
    return [s for s in found if s is not None and not s.session.game.is_over]


__all__ = ["KEEP", "SavedGame", "keep", "kept_saves", "read_save", "unfinished_saves"]
