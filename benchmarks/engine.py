"""Engine speed: random play through the public API, next to OpenSpiel's ``oh_hell``.

    python benchmarks/engine.py [--seconds S] [--rounds R]

Each preset plays whole games: legal actions, then apply a random one, until the game ends
(our dealing happens inside, so it is counted). OpenSpiel's C++ ``oh_hell`` (4 players,
12 tricks) runs the same loop, measured two ways: the whole loop, its chance nodes (the
deal, 49 API calls a game) included; and play only, on states dealt beforehand — the
stricter reference. Measurements alternate over several rounds so that a noisy machine
slows both alike; the median of the rounds is reported, with the ratio ours / OpenSpiel per
player action. Then ``view(seat)`` calls and ``copy()`` per second.

OpenSpiel is optional (``pip install -e '.[bench]'``); without it its rows are left out.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import track
from rich.table import Table

import backalley
from backalley.engine import Game
from backalley.rules import Ruleset
from backalley.simulation import play_random_game

PRESETS = ("standard", "classic", "classic3")


def actions_per_second(run_one: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Player actions/s and games/s of ``run_one`` (one game, returning its actions)."""
    games = actions = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        actions += run_one()
        games += 1
    return actions / elapsed, games / elapsed


def backalley_game(preset: str, rng: random.Random) -> Callable[[], int]:
    """A function that plays one random game of ours."""
    rules = Ruleset.preset(preset)

    def run_one() -> int:
        return play_random_game(Game(rules, rng=rng), rng)

    return run_one


def backalley_play_only(rng: random.Random) -> Callable[[], int]:
    """One 12-card deal of ours (4 players, like oh_hell) dealt beforehand, played out.

    A copy of a dealt game is timed (as OpenSpiel's clone is), the deal is not: the same work
    as OpenSpiel's play-only loop.
    """
    rules = Ruleset.preset("standard", hand_sizes=[12], all_pass="play")  # one deal, always played
    pool = [Game(rules, rng=random.Random(rng.getrandbits(64))) for _ in range(500)]
    turn = iter(range(10**15))

    def run_one() -> int:
        return play_random_game(pool[next(turn) % len(pool)].copy(), rng)

    return run_one


def openspiel_games(rng: random.Random) -> dict[str, Callable[[], int]]:
    """OpenSpiel's whole loop and its play-only loop; empty without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return {}
    spiel = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})

    def deal() -> object:
        state = spiel.new_initial_state()
        while state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        return state

    def play(state: object) -> int:
        choice = rng.choice
        actions = 0
        while not state.is_terminal():  # type: ignore[attr-defined]
            state.apply_action(choice(state.legal_actions()))  # type: ignore[attr-defined]
            actions += 1
        return actions

    def whole() -> int:
        state = spiel.new_initial_state()
        choice = rng.choice
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                actions += 1
        return actions

    pool = [deal() for _ in range(500)]
    turn = iter(range(10**15))

    def play_only() -> int:
        # A clone of a state dealt beforehand: the clone (a C++ copy) is timed, the deal not.
        return play(pool[next(turn) % len(pool)].clone())  # type: ignore[attr-defined]

    return {"OpenSpiel oh_hell, whole games": whole, "OpenSpiel oh_hell, play only": play_only}


def positions(count: int, rng: random.Random) -> list[Game]:
    """Standard games stopped at random points: the states views and copies are taken of."""
    rules = Ruleset.preset("standard")
    found = []
    while len(found) < count:
        game = Game(rules, rng=rng)
        for _ in range(rng.randrange(1, 600)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        if not game.is_over:
            found.append(game)
    return found


def calls_per_second(operation: Callable[[int], object], seconds: float) -> float:
    """Calls of ``operation(i)`` per second."""
    calls = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for i in range(calls, calls + 100):
            operation(i)
        calls += 100
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (median)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    console = Console()

    loops: dict[str, Callable[[], int]] = dict(openspiel_games(rng))
    for preset in PRESETS:
        loops[f"backalley {preset}, whole games"] = backalley_game(preset, rng)
    loops["backalley 12-card deal, play only"] = backalley_play_only(rng)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in loops}
    for _ in track(range(args.rounds), description="Measuring", console=Console(stderr=True)):
        for name, run_one in loops.items():
            samples[name].append(actions_per_second(run_one, args.seconds))
    rates = {name: statistics.median(a for a, _ in s) for name, s in samples.items()}
    games = {name: statistics.median(g for _, g in s) for name, s in samples.items()}

    spiel = [name for name in loops if name.startswith("OpenSpiel")]
    table = Table(
        title=f"Random play, median of {args.rounds} rounds of {args.seconds:g} s, seed {args.seed}"
    )
    table.add_column("engine", no_wrap=True)
    table.add_column("actions/s", justify="right", no_wrap=True)
    table.add_column("games/s", justify="right")
    for reference in spiel:
        table.add_column("÷ " + reference.split(", ")[1], justify="right")
    for name in loops:
        ratios = [f"{rates[name] / rates[ref]:.2f}×" for ref in spiel]
        table.add_row(name, f"{rates[name]:,.0f}", f"{games[name]:,.1f}", *ratios)
    console.print(table)
    mode = "compiled (mypyc)" if backalley.COMPILED else "pure Python"
    console.print(f"backalley engine: {mode}")
    if not spiel:
        console.print("OpenSpiel is not installed (pip install -e '.[bench]'): no ratios.")

    states = positions(200, rng)
    other = Table(title="Views and copies (standard, 200 positions in play)")
    other.add_column("operation")
    other.add_column("calls/s", justify="right")
    view = calls_per_second(
        lambda i: states[i % 200].view(states[i % 200].to_move or 0), args.seconds
    )
    copy = calls_per_second(lambda i: states[i % 200].copy(), args.seconds)
    other.add_row("game.view(seat)", f"{view:,.0f}")
    other.add_row("game.copy()", f"{copy:,.0f}")
    console.print(other)


if __name__ == "__main__":
    main()
