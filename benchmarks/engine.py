"""Engine speed: random play through the public API, next to OpenSpiel's ``oh_hell``.

    python benchmarks/engine.py [--seconds S]

For each preset: legal actions, then apply a random one, until the game ends; player actions
per second and whole games per second (dealing included). In the same run the same loop over
OpenSpiel's C++ ``oh_hell`` (4 players, 12 tricks; chance nodes dealt by the same RNG), and the
ratio ours / OpenSpiel per player action. Then ``view(seat)`` calls and state copies per
second. OpenSpiel is optional (``pip install -e '.[bench]'``); without it its rows are skipped.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from backalley.engine import Game
from backalley.rules import Ruleset


def timed(run_one: Callable[[], int], seconds: float) -> tuple[float, int, int]:
    """Call ``run_one`` (which plays one game and returns its player actions) for ``seconds``."""
    games = actions = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        actions += run_one()
        games += 1
    return elapsed, games, actions


def backalley_game(preset: str, rng: random.Random) -> Callable[[], int]:
    """One random game of ours per call."""
    rules = Ruleset.preset(preset)

    def run_one() -> int:
        game = Game(rules, rng=rng)
        choice = rng.choice
        legal = game.legal_actions
        apply = game.apply
        actions = 0
        while not game.is_over:
            apply(choice(legal()))
            actions += 1
        return actions

    return run_one


def openspiel_game(rng: random.Random) -> Callable[[], int] | None:
    """One random game of OpenSpiel's oh_hell per call, or None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    spiel = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})

    def run_one() -> int:
        state = spiel.new_initial_state()
        choice = rng.choice
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(choice(outcomes)[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                actions += 1
        return actions

    return run_one


def positions(count: int, rng: random.Random) -> list[Game]:
    """Games stopped at random points of play: the states views and copies are taken of."""
    rules = Ruleset.preset("standard")
    found = []
    while len(found) < count:
        game = Game(rules, rng=rng)
        stop = rng.randrange(1, 600)
        for _ in range(stop):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        if not game.is_over:
            found.append(game)
    return found


def rate(operation: Callable[[], object], seconds: float) -> float:
    """Calls of ``operation`` per second."""
    calls = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            operation()
        calls += 100
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    console = Console()

    table = Table(title=f"Random play, {args.seconds:g} s each (seed {args.seed})")
    for column in ("engine", "games", "player actions/s", "games/s", "ratio to OpenSpiel"):
        table.add_column(column, justify="right" if column != "engine" else "left")
    spiel_run = openspiel_game(rng)
    spiel_rate = None
    rows = []
    if spiel_run is not None:
        elapsed, games, actions = timed(spiel_run, args.seconds)
        spiel_rate = actions / elapsed
        rows.append(("OpenSpiel oh_hell (4 players, 12 tricks)", games, spiel_rate, games / elapsed))
    for preset in ("standard", "classic", "classic3"):
        elapsed, games, actions = timed(backalley_game(preset, rng), args.seconds)
        rows.append((f"backalley {preset}", games, actions / elapsed, games / elapsed))
    for name, games, per_action, per_game in rows:
        ratio = f"{per_action / spiel_rate:.2f}×" if spiel_rate else "—"
        table.add_row(name, f"{games:,}", f"{per_action:,.0f}", f"{per_game:,.1f}", ratio)
    console.print(table)
    if spiel_rate is None:
        console.print("OpenSpiel is not installed: pip install -e '.[bench]' to compare.")

    states = positions(200, rng)
    it = iter(range(10**12))

    def one_view() -> object:
        game = states[next(it) % len(states)]
        return game.view(game.to_move or 0)

    def one_copy() -> object:
        return states[next(it) % len(states)].copy()

    other = Table(title="Views and copies (standard, 200 positions in play)")
    other.add_column("operation")
    other.add_column("calls/s", justify="right")
    other.add_row("game.view(seat)", f"{rate(one_view, args.seconds):,.0f}")
    other.add_row("game.copy()", f"{rate(one_copy, args.seconds):,.0f}")
    console.print(other)


if __name__ == "__main__":
    main()
