"""Write a database with the server as it was before the table's rewrite:

    python scripts/write_old_database.py OLD_CODE tests/data/before-the-table-rewrite

OLD_CODE is that release built, as benchmarks/server.py --before builds one. The tables:
open, in play, finished, with a take-back, a chat, a leave, a seat left and taken again, and
a rematch offered; their secrets go in a JSON file beside the database."""

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # its client only
from backalley.server.client import Seat, create_table, seat_bot, take_seat
from backalley.server.client import request as http

code, out = sys.argv[1], sys.argv[2]
db = f"sqlite:///{out}.db"
if os.path.exists(out + ".db"):
    os.remove(out + ".db")
env = dict(os.environ, LANGUAGE="en", PYTHONPATH=code)
p = subprocess.Popen(
    [
        sys.executable,
        "-m",
        "backalley",
        "serve",
        "--port",
        "0",
        "--db",
        db,
        "--workers",
        "1",
        "--tables-per-minute",
        "1000",
    ],
    stdout=subprocess.PIPE,
    text=True,
    env=env,
)
base = p.stdout.readline().split(" at ", 1)[1].strip().rstrip("/")
facts = {}


async def act(base, tid, token, n, rng, chat=None):
    async with Seat.connect(base, tid, token=token) as s:
        for _ in range(n):
            await s.until(lambda x: x.view is not None and (x.my_turn or x.over))
            if s.over:
                return
            await s.reply(await s.act(rng.choice(s.view["legal"])))
        if chat:
            await s.send({"type": "chat", "text": chat})
            await asyncio.sleep(0.3)


async def main():
    rng = random.Random(1)
    # open: one seat taken, one left and taken again
    t = create_table(base, {"hand_sizes": [2, 1], "pace": 0})
    a = take_seat(base, t, 0, "Ana")
    b = take_seat(base, t, 1, "Ben")
    assert http(base, "POST", f"/api/tables/{t['id']}/leave", {}, b)[0] == 200
    b2 = take_seat(base, t, 1, "Bea")
    facts["open"] = {"table": t, "tokens": [a, b2]}
    # playing: four people, some bids and cards, a chat
    t = create_table(base, {"hand_sizes": [3, 2], "pace": 0})
    toks = [take_seat(base, t, s, f"P{s}") for s in range(4)]

    async def four():
        for k in range(7):
            for s in range(4):
                async with Seat.connect(base, t["id"], token=toks[s]) as c:
                    await c.until(lambda x: x.view is not None)
                    if c.my_turn:
                        await c.reply(await c.act(rng.choice(c.view["legal"])))
                    if k == 0 and s == 0:
                        await c.send({"type": "chat", "text": "good luck"})
                        await asyncio.sleep(0.2)

    await four()
    facts["playing"] = {"table": t, "tokens": toks}
    # a take-back against slow bots (the person bids first, then takes it back)
    while True:
        t = create_table(base, {"hand_sizes": [3, 2], "pace": 30, "level": "easy"})
        tok = take_seat(base, t, 0, "Ana")
        for s in (1, 2, 3):
            seat_bot(base, t, s, "easy")
        async with Seat.connect(base, t["id"], token=tok) as c:
            await c.until(lambda x: x.view is not None)
            if not c.my_turn:
                continue
            await c.reply(await c.act(c.view["legal"][0]))
            await c.until(lambda x: x.view["undo"])
            answer = await c.reply(await c.undo())
            assert answer["type"] == "ack", answer
            await c.reply(await c.act(c.view["legal"][-1]))
        break
    facts["takeback"] = {"table": t, "tokens": [tok]}
    # a player leaves mid-game: a bot takes the seat
    t = create_table(base, {"hand_sizes": [3, 2], "pace": 30, "level": "easy"})
    tok = take_seat(base, t, 0, "Ana")
    tok1 = take_seat(base, t, 1, "Ben")
    for s in (2, 3):
        seat_bot(base, t, s, "easy")
    assert http(base, "POST", f"/api/tables/{t['id']}/leave", {}, tok1)[0] == 200
    facts["left"] = {"table": t, "tokens": [tok, tok1]}
    # finished, with a rematch offered
    t = create_table(base, {"hand_sizes": [1], "pace": 0, "level": "easy"})
    tok = take_seat(base, t, 0, "Ana")
    for s in (1, 2, 3):
        seat_bot(base, t, s, "easy")
    await act(base, t["id"], tok, 50, rng)
    async with Seat.connect(base, t["id"], token=tok) as c:
        await c.until(lambda x: x.view is not None)
        await c.send({"type": "rematch", "id": "r1", "accept": True})
        await c.reply("r1")
    facts["finished"] = {"table": t, "tokens": [tok]}


asyncio.run(main())
time.sleep(1)
p.send_signal(signal.SIGTERM)
p.wait(20)
with open(out + ".json", "w") as written:
    json.dump(facts, written, indent=1)
print("written", out)
