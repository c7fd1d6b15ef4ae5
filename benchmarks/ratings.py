"""The ratings' update over a stored history: games/s taking in finished games.

Generates a history of finished games in a fresh SQLite database (``--games``, 100,000 by
default; players drawn from ``--players`` accounts, with bots and guests in some seats, and a
tenth of the games not rated), then times the two ways the server updates ratings on the
same history: the live way (:func:`standings.catch_up`, a transaction per batch of games, as
the server does after games end) and ``backalley ratings --rebuild``'s (one transaction); and
checks that both give the very same ratings, row for row.

    python benchmarks/ratings.py --games 100000
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from sqlalchemy import delete, insert, select, text, update

from backalley.server import standings
from backalley.server.store import game_players, open_engine, rating_history, ratings, tables

LEVELS = ("easy", "medium", "hard", "expert")


def generate(engine: object, games: int, players: int, seed: int, progress: Progress) -> None:
    """``games`` finished partnership games, ended one second apart."""
    rng = random.Random(seed)
    task = progress.add_task("generating the history", total=games)
    chunk = 5000
    for start in range(0, games, chunk):
        table_rows, seat_rows = [], []
        for number in range(start, min(games, start + chunk)):
            table_id = f"g{number:08d}"
            scores = [rng.randrange(-60, 200), rng.randrange(-60, 200)]
            winner = None if scores[0] == scores[1] else int(scores[1] > scores[0])
            seated = rng.sample(range(players), 4)
            names = []
            for seat in range(4):
                kind = rng.random()
                account = level = None
                if kind < 0.7:
                    account = f"a{seated[seat]:06d}"
                elif kind < 0.95:
                    level = rng.choice(LEVELS)
                names.append(account or level or "guest")
                seat_rows.append(
                    {"table_id": table_id, "seat": seat, "left": 0, "account_id": account,
                     "rated_as": account, "level": level, "name": names[-1], "ended": number,
                     "stats": "{}"}
                )  # fmt: skip
            summary = {"players": names, "scores": scores, "winner": winner,
                       "rated": rng.random() > 0.1}  # fmt: skip
            table_rows.append(
                {"id": table_id, "created": number, "config": json.dumps({"rules": "standard"}),
                 "host_hash": b"", "watch_hash": b"", "status": "finished",
                 "finished": float(number), "summary": json.dumps(summary)}
            )  # fmt: skip
        with engine.begin() as connection:  # type: ignore[attr-defined]
            connection.execute(insert(tables), table_rows)
            connection.execute(insert(game_players), seat_rows)
        progress.advance(task, len(table_rows))


def snapshot(engine: object) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with engine.connect() as connection:  # type: ignore[attr-defined]
        rated = connection.execute(select(ratings).order_by(ratings.c.account_id)).all()
        history = connection.execute(
            select(rating_history).order_by(rating_history.c.at, rating_history.c.account_id)
        ).all()
    return [tuple(r) for r in rated], [tuple(h) for h in history]


def forget(engine: object) -> None:
    with engine.begin() as connection:  # type: ignore[attr-defined]
        connection.execute(delete(rating_history))
        connection.execute(delete(ratings))
        connection.execute(update(tables).values(rating=None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(f"sqlite:///{Path(folder) / 'history.db'}")
        with Progress(console=console, transient=True) as progress:
            generate(engine, args.games, args.players, args.seed, progress)
            timings = {}
            for name, run in (("live (catch_up)", standings.catch_up),
                              ("--rebuild", standings.rebuild)):  # fmt: skip
                forget(engine)
                task = progress.add_task(f"rating: {name}", total=args.games)
                start = time.perf_counter()
                rated = run(engine, lambda n, task=task: progress.advance(task, n))
                timings[name] = (time.perf_counter() - start, rated, snapshot(engine))
        with engine.connect() as connection:
            size = connection.execute(text("SELECT COUNT(*) FROM ratings")).scalar()
        engine.dispose()
    table = Table(title=f"rating updates over {args.games:,} stored games ({size:,} accounts)")
    for column in ("way", "games rated", "seconds", "games/s"):
        table.add_column(column, justify="left" if column == "way" else "right")
    for name, (seconds, rated, _) in timings.items():
        table.add_row(name, f"{rated:,}", f"{seconds:.2f}", f"{args.games / seconds:,.0f}")
    console.print(table)
    same = timings["live (catch_up)"][2] == timings["--rebuild"][2]
    console.print(f"--rebuild gives the same ratings and history as the live updates: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
