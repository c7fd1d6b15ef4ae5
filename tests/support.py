"""Helpers for building exact positions in tests: deals from a few named cards."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from backalley.cards import FULL_DECK, format_cards, mask_of, parse_card
from backalley.engine import Game
from backalley.rules import Ruleset


def cards(text: str) -> list[int]:
    """Cards from space-separated names: ``cards("AS 10h BJ")``."""
    return [parse_card(word) for word in text.split()]


def mask(text: str) -> int:
    """The mask of space-separated card names."""
    return mask_of(cards(text))


def deal(game: Game, dealer: int, hands: list[str], top: str = "") -> None:
    """Deal ``hands`` (space-separated names per seat) with ``top`` as the stock's first cards.

    The rest of the stock is every other card in ascending order.
    """
    hand_cards = [cards(h) for h in hands]
    top_cards = cards(top)
    used = mask_of([c for h in hand_cards for c in h] + top_cards)
    stock = top_cards + [parse_card(n) for n in format_cards(FULL_DECK & ~used)]
    game.start_deal(dealer, hand_cards, stock)


def game_of(preset: str = "standard", **options: object) -> Game:
    """An unseeded game: the tests deal it by hand."""
    return Game(Ruleset.preset(preset, **options))


def play(game: Game, actions: str) -> None:
    """Bid or play each space-separated action in turn (bids: pass, board, digits)."""
    for word in actions.split():
        if word.lower() in ("pass", "board") or word.isdigit():
            game.bid(word)
        else:
            game.play(word)


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` as a module, registered under ``name`` (so that its
    dataclasses and its worker processes find it)."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def needs(*packages: str, reason: str) -> None:
    """Skip the calling test module when a package is missing, without importing it: torch,
    RLlib and Stable-Baselines3 take seconds to import, and every test process collects
    every module, while only the process that runs their tests needs them."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: {reason}", allow_module_level=True)
