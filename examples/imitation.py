"""Learn to play as the `expert` bot plays: imitation of its decisions, then the arena.

    python examples/imitation.py [--teacher expert] [--data-minutes M] [--minutes M] [--out DIR]

(``pip install -e '.[sb3,plot]'`` for PyTorch and matplotlib.) Two steps, each on a clock:

1. **Decisions.** ``--teacher`` (our ``expert`` by default) plays whole games at all four
   seats — short ``standard`` games (3, 2, 1 cards) and longer ones (7 … 1 … 7), half and
   half — for ``--data-minutes`` in ``--jobs`` processes. Each of its decisions is kept as
   the deciding seat's compact observation (:func:`backalley.env.encode_view`, from the
   seat's view alone), its legal actions and the action taken.
2. **Imitation.** A network of ReLU layers learns to give the teacher's action the highest
   logit among the legal ones (cross-entropy over the legal actions), for ``--minutes``.
   After each pass over the decisions the network is saved as a numpy policy
   (:meth:`backalley.env.policy.Policy.from_layers`) and played in the arena against
   ``heuristic``, in duplicate; the curve is saved as ``curve.png``.

At the end the policy is played against ``heuristic`` and ``hard``, holding both seats of a
side, on short and longer games (``--arena-games`` each). It plays as
``backalley arena policy:DIR/policy.npz …``, with numpy alone.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

SHORT = [3, 2, 1]
LONGER = [7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7]


def decisions(teacher: str, seconds: float, seed: int) -> tuple[np.ndarray, ...]:
    """Games of ``teacher`` at every seat for ``seconds``: each decision's observation,
    legal mask and action."""
    import random

    from backalley.bots import make_bot
    from backalley.engine import Game
    from backalley.env import encode_view
    from backalley.env.kernel import NUM_ACTIONS
    from backalley.rules import Ruleset

    rules = [Ruleset.preset("standard", hand_sizes=sizes) for sizes in (SHORT, LONGER)]
    bot = make_bot(teacher)
    rng = random.Random(seed)
    xs, masks, actions = [], [], []
    end = time.perf_counter() + seconds
    game_number = 0
    while time.perf_counter() < end:
        game = Game(rules[game_number % 2], seed=seed * 100_003 + game_number)
        game_number += 1
        while not game.is_over:
            view = game.view(game.to_move)
            action = bot.act(view, rng)
            mask = np.zeros(NUM_ACTIONS, dtype=bool)
            mask[[int(a) for a in view.legal_actions]] = True
            if mask.sum() > 1:  # a forced move teaches nothing
                xs.append(encode_view(view, "compact"))
                masks.append(mask)
                actions.append(int(action))
            game.apply(action)
    return np.array(xs, dtype=np.float32), np.array(masks), np.array(actions, dtype=np.int64)


def gather(args: argparse.Namespace, console: Console) -> tuple[np.ndarray, ...]:
    """The teacher's decisions, from ``args.jobs`` processes at once."""
    seconds = args.data_minutes * 60
    status = f"{args.teacher} plays for {args.data_minutes:g} min in {args.jobs} jobs"
    with console.status(status), ProcessPoolExecutor(args.jobs) as pool:
        seeds = [args.seed * 1000 + j for j in range(args.jobs)]
        parts = list(pool.map(decisions, [args.teacher] * args.jobs, [seconds] * args.jobs, seeds))
    x, masks, actions = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    console.print(f"{len(x):,} decisions of {args.teacher} (forced moves left out)")
    return x, masks, actions


def arena(policy_file: Path, opponent: str, games: int, sizes: list[int], seed: int) -> tuple:
    """The policy holding a side against ``opponent`` in duplicate: points a game over it and
    the 95 % half-width."""
    from backalley.arena import run_match
    from backalley.rules import Ruleset

    rules = Ruleset.preset("standard", hand_sizes=sizes)
    mean, half = run_match(f"policy:{policy_file}", opponent, rules, games, seed, 1).difference
    return float(mean), float(half)


def learn(
    data: tuple[np.ndarray, ...], args: argparse.Namespace, console: Console
) -> list[tuple[int, float, float, float]]:
    """Imitation for ``args.minutes`` (or until ``args.patience`` passes bring no better
    accuracy); the curve (passes, minutes, held-out accuracy, points a game over heuristic
    on short games). The network kept is the pass that chose as the teacher most often on
    the held-out decisions: later passes learn the training games by heart."""
    import torch
    from torch import nn

    from backalley.env.policy import Policy

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.jobs)
    x, masks, actions = (torch.as_tensor(a) for a in data)
    # The last games' decisions (a twentieth) are kept out, to check on: games unseen.
    held = torch.arange(len(x)) >= len(x) - len(x) // 20
    sizes = [x.shape[1], *[args.hidden] * args.layers, masks.shape[1]]
    layers: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    network = nn.Sequential(*layers)
    optimizer = torch.optim.AdamW(network.parameters(), lr=1e-3, weight_decay=1e-4)
    train_rows = torch.nonzero(~held).flatten()
    curve: list[tuple[int, float, float, float]] = []
    start, passes, best, since_best = time.perf_counter(), 0, -1.0, 0
    checkpoint, now = args.out / "policy.npz", args.out / "latest.npz"

    def save(path: Path) -> None:
        linears = [m for m in network if isinstance(m, nn.Linear)]
        Policy.from_layers(
            [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in linears]
        ).save(path)

    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("Imitation", total=args.minutes * 60)
        while ((elapsed := time.perf_counter() - start) < args.minutes * 60 or not curve) and (
            since_best < args.patience
        ):
            order = train_rows[torch.randperm(len(train_rows))]
            for first in range(0, len(order), args.batch):
                rows = order[first : first + args.batch]
                logits = network(x[rows]).masked_fill(~masks[rows], -1e9)
                loss = nn.functional.cross_entropy(logits, actions[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            passes += 1
            with torch.no_grad():
                logits = network(x[held]).masked_fill(~masks[held], -1e9)
                accuracy = float((logits.argmax(1) == actions[held]).float().mean())
            save(now)
            points = arena(now, "heuristic", args.curve_games, SHORT, seed=12345)[0]
            if accuracy > best:
                best, since_best = accuracy, 0
                now.replace(checkpoint)
            else:
                since_best += 1
            elapsed = time.perf_counter() - start
            curve.append((passes, elapsed / 60, accuracy, points))
            bar.update(
                task,
                completed=min(elapsed, args.minutes * 60),
                description=f"Imitation: {accuracy:.1%} as the teacher, {points:+.1f} vs heuristic",
            )
    now.unlink(missing_ok=True)
    return curve


def plot(curve: list, results: dict[str, tuple[float, float]], teacher: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=120)
    minutes = [c[1] for c in curve]
    axes.plot(
        minutes, [c[3] for c in curve], marker="o", markersize=3,
        label="points a game over heuristic (arena)",
    )  # fmt: skip
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("minutes of imitation")
    axes.set_ylabel("points a game over heuristic (arena, short games)")
    right = axes.twinx()
    right.plot(
        minutes, [100 * c[2] for c in curve], color="tab:orange",
        label=f"held-out decisions chosen as {teacher} (%)",
    )  # fmt: skip
    right.set_ylabel(f"% of held-out decisions as {teacher}")
    by_opponent: dict[str, list[str]] = {}
    for key, (mean, half) in results.items():
        opponent, length = key.split(", ")
        by_opponent.setdefault(opponent, []).append(f"{length} {mean:+.1f} ± {half:.1f}")
    title = f"Imitation of {teacher}; the policy kept, in duplicate:\n" + "\n".join(
        f"against {opponent}: {', '.join(cells)}" for opponent, cells in by_opponent.items()
    )
    axes.set_title(title.strip(), fontsize=8)
    handles = axes.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    axes.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teacher", default="expert", help="the bot (or level) imitated")
    parser.add_argument("--data-minutes", type=float, default=20.0, help="time to gather")
    parser.add_argument("--minutes", type=float, default=20.0, help="time to learn")
    parser.add_argument("--jobs", type=int, default=2, help="processes that gather")
    parser.add_argument("--hidden", type=int, default=256, help="units a hidden layer")
    parser.add_argument("--layers", type=int, default=2, help="hidden layers")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument(
        "--patience", type=int, default=10, help="passes without a better accuracy to stop after"
    )
    parser.add_argument("--data", type=Path, help="keep the decisions in this file, or read them")
    parser.add_argument("--curve-games", type=int, default=100, help="arena games a point")
    parser.add_argument("--arena-games", type=int, default=400, help="games per final match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("imitation"))
    args = parser.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.data and args.data.exists():
        with np.load(args.data) as kept:
            data = (kept["x"], kept["masks"], kept["actions"])
        console.print(f"{len(data[0]):,} decisions read from {args.data}")
    else:
        data = gather(args, console)
        if args.data:
            np.savez(args.data, x=data[0], masks=data[1], actions=data[2])
    curve = learn(data, args, console)
    kept = max(curve, key=lambda c: c[2])
    console.print(
        f"{curve[-1][0]} passes in {curve[-1][1]:.1f} min; kept pass {kept[0]}: {kept[2]:.1%} "
        f"of held-out decisions as {args.teacher}, {kept[3]:+.1f} a game over heuristic"
    )
    results: dict[str, tuple[float, float]] = {}
    for opponent in ("heuristic", "hard"):
        for length, sizes in (("short", SHORT), ("longer", LONGER)):
            with console.status(f"Arena: the policy against {opponent}, {length} games"):
                found = arena(args.out / "policy.npz", opponent, args.arena_games, sizes, 7)
            results[f"{opponent}, {length}"] = found
            console.print(
                f"Arena, {args.arena_games} {length} games in duplicate: policy − {opponent} = "
                f"{found[0]:+.1f} ± {found[1]:.1f} points a game (95 %)"
            )
    minutes = (time.perf_counter() - started) / 60
    (args.out / "curve.json").write_text(
        json.dumps(
            {"curve": curve, "arena": results, "minutes": minutes, "decisions": len(data[0])}
        )
    )
    try:
        plot(curve, results, args.teacher, args.out / "curve.png")
    except ImportError:
        console.print("No plot: matplotlib is not installed (pip install -e '.[plot]').")
        return
    console.print(
        f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.png'} ({minutes:.0f} min)"
    )


if __name__ == "__main__":
    main()
