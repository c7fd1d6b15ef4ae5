"""Learn to bid and play Back Alley by self-play, on a CPU, in minutes.

    python examples/self_play.py [--minutes M] [--games N] [--out DIR]

(``pip install -e '.[rl,plot]'``.) One small policy — a perceptron with one hidden layer, in
numpy — plays all four seats of ``--games`` short games at once in the batched environment
(``standard`` rules, deals of 3, 2 and 1 cards) — against itself in half the games, an
earlier copy of itself in a quarter, random play in the rest — and learns by REINFORCE:
each action is credited with its side's margin over the opponents in the deal it was taken
in, less a learned (linear) baseline. Every few seconds the greedy policy plays 1,024
games against ``random`` in the same environment; the learning curve (its points per game
above its opponents', and the fraction of contracts it made) is saved as ``curve.png``.
At the end the policy is saved as ``policy.npz`` and played in the arena, in duplicate,
against ``random`` and ``heuristic`` (``backalley arena policy:DIR/policy.npz heuristic``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from backalley.env import BatchedEnv
from backalley.env.batched import needs_compiling, prepare
from backalley.env.policy import Policy, masked_softmax

RULES = ("standard", {"hand_sizes": [3, 2, 1]})


class Adam:
    """Adam over a list of arrays."""

    def __init__(self, params: list[np.ndarray], rate: float) -> None:
        self.params, self.rate = params, rate
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= self.rate * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-8)


def gradients(policy: Policy, x: np.ndarray, masks: np.ndarray, actions: np.ndarray,
              advantages: np.ndarray) -> list[np.ndarray]:  # fmt: skip
    """The gradient of −advantage · log π(action) (and a little entropy), for every weight
    and bias of ``policy``."""
    logits, inputs = policy.forward(x)
    probs = masked_softmax(logits, masks)
    d = probs.copy()
    d[np.arange(len(actions)), actions] -= 1
    d *= advantages[:, None] / len(actions)
    logp = np.log(np.where(masks > 0, probs, 1.0))
    entropy = -(probs * logp).sum(axis=1, keepdims=True)
    d += 0.01 * probs * (logp + entropy) / len(actions)  # − entropy bonus
    grads_w, grads_b = [], []
    for k in range(len(policy.weights) - 1, -1, -1):
        grads_w.append(inputs[k].T @ d)
        grads_b.append(d.sum(axis=0))
        if k:
            d = (d @ policy.weights[k].T) * (inputs[k] > 0)
    return grads_w[::-1] + grads_b[::-1]


def evaluate(policy: Policy, games: int, seed: int) -> float:
    """The greedy policy in seats 0 and 2 against ``random`` in 1 and 3: its side's points
    per game less theirs, over ``games`` games."""
    env = BatchedEnv(games, RULES[0], RULES[1])
    batch = env.reset(seed)
    rng = np.random.default_rng(seed)
    live = np.ones(games, dtype=bool)  # each slot's first game only: no bias to short ones
    margins = np.zeros(games)
    while live.any():
        ours = (batch.to_play % 2) == 0
        actions = env.sample(rng)
        logits = policy.logits(batch.observations[ours])
        actions[ours] = np.where(batch.action_masks[ours] > 0, logits, -np.inf).argmax(axis=1)
        batch = env.step(actions)
        ended = batch.done & live
        margins[ended] = env.final_scores[ended, 0] - env.final_scores[ended, 1]
        live &= ~batch.done
    return float(margins.mean())


SELF, EARLIER, RANDOM = 0, 1, 2


def sample(
    policy: Policy, x: np.ndarray, masks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """An action for each row, drawn from the policy's probabilities over the legal ones."""
    probs = masked_softmax(policy.logits(x), masks)
    actions = (probs.cumsum(axis=1) < rng.random((len(x), 1))).sum(axis=1)
    actions = np.minimum(actions, masks.shape[1] - 1)
    illegal = masks[np.arange(len(x)), actions] == 0  # rounding at the top
    actions[illegal] = probs[illegal].argmax(axis=1)
    return actions


class Samples:
    """Actions waiting for their game to end, and those whose return is known."""

    def __init__(self) -> None:
        self.steps: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # step → (x, masks)
        self.left: dict[int, int] = {}  # step → games of it still being played
        self.ready: list[tuple[int, int, int, float]] = []  # (step, game, action, return)

    def add(self, t: int, x: np.ndarray, masks: np.ndarray) -> None:
        self.steps[t] = (x.copy(), masks.copy())
        self.left[t] = len(x)

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The known samples as arrays, forgetting them (and every step done with)."""
        x = np.stack([self.steps[t][0][i] for t, i, _, _ in self.ready])
        masks = np.stack([self.steps[t][1][i] for t, i, _, _ in self.ready])
        actions = np.array([a for _, _, a, _ in self.ready])
        returns = np.array([r for _, _, _, r in self.ready], dtype=np.float32)
        self.ready.clear()
        for t in [t for t, left in self.left.items() if left == 0]:
            del self.steps[t], self.left[t]
        return x, masks, actions, returns


def train(
    minutes: float, games: int, seed: int, console: Console, min_updates: int = 0
) -> tuple[Policy, list]:
    """Self-play for ``minutes`` (and at least ``min_updates`` updates of the policy); the
    policy and its learning curve (steps, seconds, points per game against random)."""
    env = BatchedEnv(games, RULES[0], RULES[1])
    policy = Policy.random([env.observation_size, 128, env.num_actions], seed=seed)
    value = np.zeros(env.observation_size + 1, dtype=np.float32)  # a linear baseline
    optimiser = Adam([*policy.weights, *policy.biases], rate=3e-4)
    critic = Adam([value], rate=3e-3)
    batch = env.reset(seed)
    rng = np.random.default_rng(seed)
    n = games
    samples = Samples()
    pending: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    # who sits against the learner in each game: itself, an earlier self, or random play
    against = np.array([(SELF, EARLIER, SELF, RANDOM)[i % 4] for i in range(n)])
    snapshot = policy.copy()
    opponent = [1, 0, 3, 2]  # the seat on each seat's left, of the other side
    curve: list[tuple[int, float, float]] = []
    start = time.perf_counter()
    next_eval, t, steps, updates = 0.0, 0, 0, 0
    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("Self-play", total=minutes * 60)
        while (
            (elapsed := time.perf_counter() - start) < minutes * 60
            or not curve
            or updates < min_updates
        ):
            bar.update(task, completed=elapsed)
            if elapsed >= next_eval:
                points = evaluate(policy, 1024, seed=12345)
                curve.append((steps, elapsed, points))
                bar.update(task, description=f"Self-play: {points:+.1f} a game against random")
                next_eval = elapsed + max(minutes * 60 / 20, 1.0)
            actions = sample(policy, batch.observations, batch.action_masks, rng)
            seats = batch.to_play
            opposed = (seats % 2 == 1) & (against != SELF)
            if opposed.any():  # the other side, in the games of an earlier self or random
                earlier = opposed & (against == EARLIER)
                actions[earlier] = sample(
                    snapshot, batch.observations[earlier], batch.action_masks[earlier], rng
                )
                randomly = opposed & (against == RANDOM)
                actions[randomly] = env.sample(rng)[randomly]
            samples.add(t, batch.observations, batch.action_masks)
            for i in np.flatnonzero(~opposed):
                pending[i].append((t, int(actions[i]), int(seats[i])))
            samples.left[t] -= int(opposed.sum())  # their actions are not learnt from
            scored_before = env.deals_scored
            batch = env.step(actions)
            t += 1
            steps += n
            rewards = batch.rewards.astype(np.float64)
            deal_margin = rewards - rewards[:, opponent]
            # each action is credited with the margin of the deal it was taken in
            for i in np.flatnonzero(batch.done | (env.deals_scored != scored_before)):
                for step, action, seat in pending[i]:
                    samples.ready.append((step, int(i), action, deal_margin[i, seat] / 40))
                    samples.left[step] -= 1
                pending[i].clear()
            if len(samples.ready) >= 8192:
                x, masks, taken, returns = samples.take()
                xb = np.hstack([x, np.ones((len(x), 1), dtype=np.float32)])
                advantages = returns - xb @ value
                critic.step([-(xb.T @ advantages) / len(x)])
                advantages /= advantages.std() + 1e-6
                optimiser.step(gradients(policy, x, masks, taken, advantages))
                updates += 1
                if updates % 20 == 0:
                    snapshot = policy.copy()
    curve.append((steps, time.perf_counter() - start, evaluate(policy, 1024, seed=12345)))
    return policy, curve


def plot(curve: list, arena: dict[str, tuple[float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [c[0] / 1e6 for c in curve]
    points = [c[2] for c in curve]
    figure, axes = plt.subplots(figsize=(7, 4), dpi=120)
    axes.plot(steps, points, marker="o", markersize=3, label="greedy policy against random")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("self-play actions (millions)")
    axes.set_ylabel("points a game above its opponents")
    summary = ", ".join(f"{b}: {m:+.1f} ± {h:.1f}" for b, (m, h) in arena.items())
    axes.set_title(f"Self-play, short standard games (arena vs {summary})", fontsize=9)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="time to train")
    parser.add_argument("--games", type=int, default=256, help="games played at once")
    parser.add_argument("--arena-games", type=int, default=400, help="games per arena match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--min-updates",
        type=int,
        default=0,
        help="updates of the policy to make at least, however long they take",
    )
    parser.add_argument("--out", type=Path, default=Path("self-play"))
    args = parser.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    if needs_compiling():
        with console.status("Compiling the environment's kernel (once on this machine)"):
            seconds = prepare()
        console.print(f"Compiled the environment's kernel in {seconds:.0f} s (numba caches it)")
    policy, curve = train(args.minutes, args.games, args.seed, console, args.min_updates)
    policy.save(args.out / "policy.npz")
    console.print(
        f"Trained for {curve[-1][1] / 60:.1f} min, {curve[-1][0]:,} actions: "
        f"{curve[0][2]:+.1f} → {curve[-1][2]:+.1f} points a game against random"
    )
    from backalley.arena import run_match
    from backalley.rules import Ruleset

    name = f"policy:{args.out / 'policy.npz'}"
    arena: dict[str, tuple[float, float]] = {}
    for opponent in ("random", "heuristic"):
        with console.status(f"Arena: the policy against {opponent}"):
            report = run_match(
                name, opponent, Ruleset.preset(RULES[0], **RULES[1]), args.arena_games,
                args.seed, 1,
            )  # fmt: skip
        mean, half = report.difference
        arena[opponent] = (mean, half)
        console.print(
            f"Arena, {report.games} games in duplicate: policy − {opponent} = "
            f"{mean:+.1f} ± {half:.1f} points a game (95 %)"
        )
    (args.out / "curve.json").write_text(json.dumps({"curve": curve, "arena": arena}))
    try:
        plot(curve, arena, args.out / "curve.png")
    except ImportError:
        console.print("No plot: matplotlib is not installed (pip install -e '.[rl,plot]').")
        console.print(f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.json'}")
        return
    console.print(f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
