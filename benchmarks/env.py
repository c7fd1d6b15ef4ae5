"""The research environment's speed, next to OpenSpiel's ``oh_hell``, on one core.

    python benchmarks/env.py [--seconds S] [--rounds R] [--games N]

Four measurements, each the median of several alternating rounds:

1. **Steps with observations**: the batched environment (``--games`` games, whole
   ``standard`` games) stepping random legal actions chosen in numpy from its masks,
   writing every game's observation (compact, then full) and mask — against OpenSpiel's
   ``oh_hell`` (4 players, 12 tricks, C++) stepping the same way with its information-state
   tensor (4,644 floats) and its legal-action mask written into numpy arrays at each step.
2. **Random play**: the batched environment's compiled random loop (no observations) against
   OpenSpiel's plain random play (legal actions, apply one; chance nodes included).
3. **PettingZoo**: the AEC environment's steps/s (``observe``, then ``step``).
4. **Scaling**: the compact rows at 1, 64 and 1,024 games (and ``--games``).
5. **Through pyspiel**: random play of a short game, and external-sampling MCCFR
   iterations on a one-card deal, ``python_backalley`` against ``oh_hell`` in the same run.

numba runs the batched environment on one thread; the first round compiles nothing (the
kernel is compiled, or loaded from numba's cache, before the clock starts). OpenSpiel is
optional (``pip install -e '.[bench]'``); without it its rows and ratios are left out.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from backalley.env import BatchedEnv, pettingzoo_env


def rate(run: Callable[[], int], seconds: float) -> float:
    """Steps per second of ``run`` (a burst, returning the steps it took)."""
    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += run()
    return steps / elapsed


def batched_steps(games: int, encoding: str, seed: int) -> Callable[[], int]:
    """A burst of 20 steps of every game, actions drawn from the masks in numpy."""
    env = BatchedEnv(games, "standard", encoding=encoding)
    env.reset(seed)
    rng = np.random.default_rng(seed)
    env.step(env.sample(rng))  # compiled before the clock starts

    def run() -> int:
        for _ in range(20):
            env.step(env.sample(rng))
        return 20 * games

    return run


def batched_random(games: int, seed: int) -> Callable[[], int]:
    env = BatchedEnv(games, "standard")
    env.reset(seed)
    env.random_play(1, seed)

    def run() -> int:
        return env.random_play(200, seed)

    return run


def aec_steps(seed: int) -> Callable[[], int]:
    env = pettingzoo_env("standard")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def run() -> int:
        steps = 0
        for _ in range(200):
            agent = env.agent_selection
            if env.terminations[agent]:
                env.reset()
                continue
            mask = env.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        return steps

    return run


def openspiel_loops(seed: int) -> dict[str, Callable[[], int]]:
    """OpenSpiel's oh_hell with its tensor and mask, and its plain random play."""
    try:
        import pyspiel
    except ImportError:
        return {}
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})
    size = game.information_state_tensor_size()
    rng = random.Random(seed)
    tensor = np.zeros(size, dtype=np.float32)
    mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)

    def with_tensor() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            player = state.current_player()
            tensor[:] = state.information_state_tensor(player)
            mask[:] = state.legal_actions_mask(player)
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return {"tensor": with_tensor, "plain": random_play(game, rng)}


def random_play(game: object, rng: random.Random) -> Callable[[], int]:
    """One whole game of an OpenSpiel game played at random through pyspiel (chance nodes
    included): the player actions it took."""

    def run() -> int:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def pyspiel_loops(seed: int) -> dict[str, Callable[[], int]]:
    """Both games through pyspiel, as OpenSpiel's algorithms meet them: random play of a
    whole game (our ``python_backalley`` at 3, 2 and 1 cards against ``oh_hell`` at 3
    tricks), and iterations of external-sampling MCCFR on one 1-card deal (``oh_hell`` with
    one trick)."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import external_sampling_mccfr as es

        import backalley.env.openspiel  # noqa: F401  (registers python_backalley)
    except ImportError:
        return {}
    rng = random.Random(seed)

    def mccfr(game: object) -> Callable[[], int]:
        solver = es.ExternalSamplingSolver(game, es.AverageType.SIMPLE)

        def run() -> int:
            solver.iteration()
            return 1

        return run

    ours = pyspiel.load_game("python_backalley", {"hand_sizes": "3,2,1"})
    theirs = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 3})
    one = pyspiel.load_game("python_backalley", {"hand_sizes": "1", "episode": "deal"})
    their_one = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 1})
    return {
        "python_backalley 3-2-1, random play": random_play(ours, rng),
        "oh_hell 3 tricks, random play": random_play(theirs, rng),
        "MCCFR, python_backalley 1 card": mccfr(one),
        "MCCFR, oh_hell 1 trick": mccfr(their_one),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--games", type=int, default=1024, help="games stepped at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    console = Console()
    spiel = openspiel_loops(args.seed)
    loops: dict[str, Callable[[], int]] = {}
    if spiel:
        loops["OpenSpiel oh_hell, tensor + mask"] = spiel["tensor"]
        loops["OpenSpiel oh_hell, random play"] = spiel["plain"]
    with console.status("Compiling (or loading) the environment's kernel"):
        for games in sorted({1, 64, 1024, args.games}):
            loops[f"BatchedEnv ×{games:,}, compact + mask"] = batched_steps(
                games, "compact", args.seed
            )
        loops[f"BatchedEnv ×{args.games:,}, full + mask"] = batched_steps(
            args.games, "full", args.seed
        )
        loops[f"BatchedEnv ×{args.games:,}, random play"] = batched_random(args.games, args.seed)
        loops["PettingZoo AEC, compact + mask"] = aec_steps(args.seed)
    samples: dict[str, list[float]] = {name: [] for name in loops}
    rounds = range(args.rounds)
    for _ in track(rounds, description="Measuring", console=Console(stderr=True)):
        for name, run in loops.items():
            samples[name].append(rate(run, args.seconds))
    rates = {name: statistics.median(s) for name, s in samples.items()}
    tensor = rates.get("OpenSpiel oh_hell, tensor + mask")
    plain = rates.get("OpenSpiel oh_hell, random play")

    table = Table(
        title=f"Steps/s on one core, median of {args.rounds} rounds of {args.seconds:g} s"
    )
    table.add_column("environment", no_wrap=True)
    table.add_column("steps/s", justify="right")
    table.add_column("÷ tensor", justify="right")
    table.add_column("÷ random", justify="right")
    for name, value in rates.items():
        table.add_row(
            name,
            f"{value:,.0f}",
            f"{value / tensor:,.1f}×" if tensor else "",
            f"{value / plain:,.2f}×" if plain else "",
        )
    console.print(table)
    through = pyspiel_loops(args.seed)
    if through:
        timed: dict[str, list[float]] = {name: [] for name in through}
        for _ in track(rounds, description="Through pyspiel", console=Console(stderr=True)):
            for name, run in through.items():
                timed[name].append(rate(run, args.seconds))
        per_second = {name: statistics.median(s) for name, s in timed.items()}
        names = list(per_second)
        spiel_table = Table(
            title="Through pyspiel, one core: steps (random play) or external-sampling MCCFR"
            " iterations a second, ours against oh_hell (C++)"
        )
        spiel_table.add_column("loop", no_wrap=True)
        spiel_table.add_column("per second", justify="right")
        spiel_table.add_column("ours ÷ oh_hell", justify="right")
        for ours, theirs in (names[0:2], names[2:4]):
            ratio = f"{per_second[ours] / per_second[theirs]:.2f}×"
            spiel_table.add_row(ours, f"{per_second[ours]:,.0f}", ratio)
            spiel_table.add_row(theirs, f"{per_second[theirs]:,.0f}", "")
        console.print(spiel_table)
    if not spiel:
        console.print("OpenSpiel is not installed (pip install -e '.[bench]'): no ratios.")


if __name__ == "__main__":
    main()
