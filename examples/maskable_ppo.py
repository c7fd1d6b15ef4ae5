"""Train sb3-contrib's MaskablePPO on the seat environment, beside our bots, for minutes.

    python examples/maskable_ppo.py [--minutes M] [--others heuristic] [--out DIR]

(``pip install -e '.[sb3,plot]'``; on a machine without a GPU install PyTorch's CPU build
first, docs/env.md says how.) The agent holds seats 0 and 2 of short ``standard`` games (3, 2
and 1 cards) and ``--others`` (``heuristic``, the ``medium`` level, by default) the other
two, in ``--envs`` compiled games at once (:class:`backalley.env.sb3.BatchedVecEnv`: the seat
environment's steps and rewards, batched). The masks come from ``action_masks()``, so it
never tries an illegal action. Its network is SB3's ``MlpPolicy`` with ReLU layers, so that
the actor can be saved as a numpy policy (:func:`backalley.env.sb3.policy_of`), which the
arena plays as ``policy:DIR/policy.npz`` and which needs no PyTorch to play.

Every ``--minutes``/10 the greedy policy is played in the arena against ``heuristic``, in
duplicate (``--curve-games`` games); the curve is saved as ``curve.png``. At the end it is
played against ``heuristic`` and ``hard`` (``--arena-games``), both seats of a side.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

RULES = ("standard", {"hand_sizes": [3, 2, 1]})


def arena(policy_file: Path, opponent: str, games: int, seed: int) -> tuple[float, float]:
    """The policy holding a side against ``opponent`` holding the other, in duplicate: its
    points a game over the opponent's, and the 95 % half-width."""
    from backalley.arena import run_match
    from backalley.rules import Ruleset

    rules = Ruleset.preset(RULES[0], **RULES[1])
    report = run_match(f"policy:{policy_file}", opponent, rules, games, seed, 1)
    mean, half = report.difference
    return float(mean), float(half)


def train(args: argparse.Namespace, console: Console) -> tuple[Any, list[tuple[int, float, float]]]:
    """MaskablePPO for ``args.minutes``: the model and its curve (steps, seconds, points a
    game over heuristic in the arena)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger

    from backalley.env.sb3 import BatchedVecEnv, policy_of

    torch.set_num_threads(1)
    env = BatchedVecEnv(args.envs, RULES[0], RULES[1], seats=(0, 2), others=args.others)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=512,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=1.0,  # a game is short and its points are what counts
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256], "activation_fn": torch.nn.ReLU},
        seed=args.seed,
        device="cpu",
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # the bar reports; no SB3 log folder
    curve: list[tuple[int, float, float]] = []
    checkpoint = args.out / "policy.npz"
    start = time.perf_counter()
    every = args.minutes * 60 / 10

    class Clock(BaseCallback):  # type: ignore[misc]
        """Stops at the time given; measures the policy now and then."""

        def __init__(self, bar: Progress, task: Any) -> None:
            super().__init__()
            self.bar, self.task, self.next = bar, task, 0.0

        def _on_step(self) -> bool:
            elapsed = time.perf_counter() - start
            self.bar.update(self.task, completed=min(elapsed, args.minutes * 60))
            if elapsed >= self.next:
                self.next = elapsed + every
                measure(self.num_timesteps, elapsed)
                points = curve[-1][2]
                self.bar.update(self.task, description=f"MaskablePPO: {points:+.1f} vs heuristic")
            return elapsed < args.minutes * 60

    def measure(steps: int, elapsed: float) -> None:
        policy_of(model).save(checkpoint)
        mean, _ = arena(checkpoint, "heuristic", args.curve_games, seed=12345)
        curve.append((steps, elapsed, mean))

    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("MaskablePPO", total=args.minutes * 60)
        model.learn(total_timesteps=10**12, callback=Clock(bar, task))
    measure(model.num_timesteps, time.perf_counter() - start)
    env.close()
    return model, curve


def plot(curve: list, results: dict[str, tuple[float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4), dpi=120)
    axes.plot([c[1] / 60 for c in curve], [c[2] for c in curve], marker="o", markersize=3)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("minutes of training (one core)")
    axes.set_ylabel("points a game over heuristic (arena)")
    summary = ", ".join(f"{b}: {m:+.1f} ± {h:.1f}" for b, (m, h) in results.items())
    axes.set_title(f"MaskablePPO, short standard games ({summary})", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="time to train")
    parser.add_argument("--envs", type=int, default=64, help="games played at once")
    parser.add_argument("--n-steps", type=int, default=64, help="steps a game per update")
    parser.add_argument("--others", default="heuristic", help="who holds seats 1 and 3")
    parser.add_argument("--curve-games", type=int, default=100, help="arena games a point")
    parser.add_argument("--arena-games", type=int, default=400, help="games per final match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("maskable-ppo"))
    args = parser.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    _, curve = train(args, console)
    console.print(
        f"Trained for {curve[-1][1] / 60:.1f} min, {curve[-1][0]:,} steps: "
        f"{curve[0][2]:+.1f} → {curve[-1][2]:+.1f} points a game over heuristic"
    )
    results: dict[str, tuple[float, float]] = {}
    for opponent in ("heuristic", "hard"):
        with console.status(f"Arena: the policy against {opponent}"):
            results[opponent] = arena(args.out / "policy.npz", opponent, args.arena_games, 7)
        mean, half = results[opponent]
        console.print(
            f"Arena, {args.arena_games} games in duplicate: policy − {opponent} = "
            f"{mean:+.1f} ± {half:.1f} points a game (95 %)"
        )
    (args.out / "curve.json").write_text(json.dumps({"curve": curve, "arena": results}))
    try:
        plot(curve, results, args.out / "curve.png")
    except ImportError:
        console.print("No plot: matplotlib is not installed (pip install -e '.[plot]').")
        return
    console.print(f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
