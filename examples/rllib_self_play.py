"""Self-play with RLlib's multi-agent PPO on the PettingZoo environment, on a Ray cluster.

    python examples/rllib_self_play.py [--address HEAD:6379] [--minutes M] [--out DIR]

(``pip install -e '.[rllib,plot]'``; on a machine without a GPU install PyTorch's CPU build
first, docs/env.md says how.) Each seat of short ``standard`` games (3, 2 and 1 cards) is an
agent of RLlib's multi-agent API (:func:`backalley.env.rllib.multi_agent_env`). The learner,
module ``main``, holds both seats of one side of each game; ``past``, a frozen copy of the
learner taken every ``--refresh`` iterations, holds the other side. Both mask the illegal
actions (:class:`backalley.env.rllib.MaskedPPOModule`). The games are played by
``--env-runners`` Ray actors (one CPU each, by default as many as the cluster has), on every
node of the cluster at ``--address`` (``local``: a Ray of this process alone); the learner
learns in this process.

Every ``--minutes``/10 the greedy learner is saved as a numpy policy and played in the arena
against ``heuristic``, in duplicate (``--curve-games`` games); the curve is saved as
``curve.png``. At the end it is played against ``heuristic`` and ``hard``
(``--arena-games``), both seats of a side, and ``backalley arena policy:DIR/policy.npz``
plays it, with no Ray and no PyTorch.
"""

from __future__ import annotations

import argparse
import functools
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


def build(args: argparse.Namespace, runners: int) -> Any:
    """RLlib's PPO, multi-agent: ``main`` learns, ``past`` is its frozen self."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from backalley.env import rllib

    config = (
        PPOConfig()
        # RLlib's check of the environment plays random actions, illegal ones among them
        .environment(
            rllib.register(),
            env_config={"rules": RULES[0], "options": RULES[1]},
            disable_env_checking=True,
        )
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=1,
        )
        .multi_agent(
            policies={rllib.MAIN, rllib.PAST},
            policy_mapping_fn=rllib.self_play_mapping,
            policies_to_train=[rllib.MAIN],
        )
        .rl_module(rl_module_spec=rllib.self_play_modules(), model_config=rllib.model_config())
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(512, args.batch),
            num_epochs=4,
            lr=3e-4,
            gamma=1.0,  # a game is short and its points are what counts
            lambda_=0.95,
            entropy_coeff=0.01,
            vf_clip_param=1e6,  # RLlib clips value errors at 10; a deal is worth up to 120
        )
        .callbacks(functools.partial(rllib.SelfPlay, refresh=args.refresh))
        .debugging(seed=args.seed, log_level="ERROR")
    )
    return config.build_algo()


def nodes_of(algorithm: Any) -> set[str]:
    """The Ray nodes the env runners play on."""
    import ray

    def node(_runner: Any) -> str:
        return str(ray.get_runtime_context().get_node_id())

    return set(algorithm.env_runner_group.foreach_env_runner(node, local_env_runner=False))


def train(args: argparse.Namespace, console: Console) -> tuple[list, list, set[str]]:
    """Self-play for ``args.minutes`` (or ``args.iterations``): the arena curve (steps,
    seconds, points a game over heuristic), each iteration's (steps, seconds, main's margin
    over past) and the nodes that played."""
    import torch

    from backalley.arena_ray import connect
    from backalley.env.rllib import MAIN, policy_of

    torch.set_num_threads(1)
    ray = connect(args.address)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    algorithm = build(args, args.env_runners or cpus)
    nodes = nodes_of(algorithm)
    console.print(f"Self-play on {len(nodes)} Ray node{'s' * (len(nodes) != 1)}, {cpus} CPUs")
    checkpoint = args.out / "policy.npz"
    curve: list[tuple[int, float, float]] = []
    iterations: list[tuple[int, float, float]] = []
    start, steps = time.perf_counter(), 0
    total = args.minutes * 60
    every, next_point = total / 10, 0.0

    def measure(elapsed: float) -> float:
        policy_of(algorithm.get_module(MAIN)).save(checkpoint)
        mean, _ = arena(checkpoint, "heuristic", args.curve_games, seed=12345)
        curve.append((steps, elapsed, mean))
        return mean

    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("RLlib self-play", total=args.iterations or total)
        while True:
            elapsed = time.perf_counter() - start
            if elapsed >= next_point:
                next_point = elapsed + every
                points = measure(elapsed)
                bar.update(task, description=f"RLlib self-play: {points:+.1f} vs heuristic")
            done = len(iterations) >= args.iterations if args.iterations else elapsed >= total
            if done:
                break
            result = algorithm.train()
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            elapsed = time.perf_counter() - start
            iterations.append((steps, elapsed, float(result.get("main_margin", 0.0))))
            bar.update(task, completed=len(iterations) if args.iterations else elapsed)
    if curve[-1][0] != steps:
        measure(time.perf_counter() - start)
    algorithm.stop()
    ray.shutdown()
    return curve, iterations, nodes


def plot(curve: list, results: dict[str, tuple[float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4), dpi=120)
    axes.plot([c[1] / 60 for c in curve], [c[2] for c in curve], marker="o", markersize=3)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("minutes of training")
    axes.set_ylabel("points a game over heuristic (arena)")
    summary = ", ".join(f"{b}: {m:+.1f} ± {h:.1f}" for b, (m, h) in results.items())
    axes.set_title(f"RLlib self-play, short standard games ({summary})", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="local", help="the Ray cluster (HEAD:PORT, auto)")
    parser.add_argument("--minutes", type=float, default=10.0, help="time to train")
    parser.add_argument("--iterations", type=int, default=0, help="or iterations to train")
    parser.add_argument("--env-runners", type=int, default=0, help="default: the cluster's CPUs")
    parser.add_argument("--envs-per-runner", type=int, default=4, help="games each plays at once")
    parser.add_argument("--batch", type=int, default=4000, help="steps an update")
    parser.add_argument("--refresh", type=int, default=5, help="iterations between snapshots")
    parser.add_argument("--curve-games", type=int, default=100, help="arena games a point")
    parser.add_argument("--arena-games", type=int, default=400, help="games per final match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("rllib-self-play"))
    args = parser.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    curve, iterations, nodes = train(args, console)
    margin = iterations[-1][2] if iterations else 0.0
    console.print(
        f"Trained for {curve[-1][1] / 60:.1f} min, {len(iterations)} iterations, "
        f"{curve[-1][0]:,} steps: {curve[0][2]:+.1f} → {curve[-1][2]:+.1f} points a game over "
        f"heuristic; {margin:+.1f} over its past self in the last iteration"
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
    record = {"curve": curve, "iterations": iterations, "arena": results, "nodes": len(nodes)}
    (args.out / "curve.json").write_text(json.dumps(record))
    try:
        plot(curve, results, args.out / "curve.png")
    except ImportError:
        console.print("No plot: matplotlib is not installed (pip install -e '.[plot]').")
        return
    console.print(f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
