"""Nodes and time per null-window question, ours against DDS built from its sources.

    python benchmarks/solver_nodes.py --dds-source PATH [--sizes 10,13] [--positions 50]

Where does the solver's time go, compared with DDS's: more nodes, or dearer ones? endplay's
DDS does not say how many nodes it visits, so this benchmark builds DDS itself from a
checkout of its sources (https://github.com/dds-bridge/dds, ``--dds-source``; needs ``g++``),
with its own count of nodes switched on (every call of its search, the trivially settled
ones included), and a small driver that asks one question per line of
stdin. The build is kept in ``--build`` for later runs.

The positions are those of ``benchmarks/solver.py`` (same seed, same sizes). For each, the
questions are "can the side on lead take at least t tricks?" for t one below its value, its
value and one above, asked of our search (``search.reach`` at the root, its table emptied
first) and of DDS (``SolveBoard`` with that target, one solution; a different deal solved
in between, since DDS keeps its table while the deal stays the same).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from backalley.solver import _state, _tables, card_values, clear_table, search, tricks

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from solver import fresh_position
from test_solver_dds import pbn_hand

DRIVER = r"""
#include "dll.h"
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
// One question a line: "PBN deal|target" (no trump, North on lead); answers
// "answer nodes milliseconds".
int main() {
  SetMaxThreads(1);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::size_t bar = line.find('|');
    dealPBN deal;
    std::memset(&deal, 0, sizeof deal);
    deal.trump = 4;
    std::strncpy(deal.remainCards, line.substr(0, bar).c_str(), 79);
    futureTricks future;
    auto start = std::chrono::steady_clock::now();
    SolveBoardPBN(deal, std::stoi(line.substr(bar + 1)), 1, 0, &future, 0);
    std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    std::printf("%d %d %.3f\n", future.score[0] > 0, future.nodes, took.count());
    std::fflush(stdout);
  }
}
"""


def build(source: Path, out: Path) -> Path:
    """DDS and the driver, compiled into ``out`` unless already there."""
    driver = out / "driver"
    if driver.exists():
        return driver
    out.mkdir(parents=True, exist_ok=True)
    (out / "driver.cpp").write_text(DRIVER)
    # DDS counts every node of its search (thrp->nodes) only when built to dump its top
    # level to files; count them without the dumps, and report them instead of the trick
    # starts that SolveBoard reports as its nodes.
    patched = {
        "ABsearch.cpp": [("#ifdef DDS_TOP_LEVEL\n  thrp->nodes++;\n#endif", "  thrp->nodes++;")],
        "SolverIF.cpp": [
            ("#ifdef DDS_TOP_LEVEL\n  thrp->nodes = 0;\n#endif", "  thrp->nodes = 0;"),
            ("futp->nodes = thrp->trickNodes;", "futp->nodes = thrp->nodes;"),
        ],
    }
    compiled = []
    for path in sorted((source / "src").glob("*.cpp")):
        if path.name in patched:
            text = path.read_text()
            for old, new in patched[path.name]:
                assert old in text, f"{path.name}: this DDS is not the one the benchmark knows"
                text = text.replace(old, new)
            path = out / path.name
            path.write_text(text)
        compiled.append(path)
    flags = ["-O3", "-std=c++11", f"-I{source / 'src'}", f"-I{source / 'include'}"]
    objects = []
    for path in track(compiled, description="Building DDS", console=Console(stderr=True)):
        obj = out / (path.stem + ".o")
        subprocess.run(["g++", *flags, "-c", str(path), "-o", str(obj)], check=True)
        objects.append(str(obj))
    subprocess.run(
        ["g++", *flags, str(out / "driver.cpp"), *objects, "-o", str(driver), "-lpthread"],
        check=True,
    )
    return driver


def pbn(position) -> str:
    order = [(position.leader + k) % 4 for k in range(4)]
    return "N:" + " ".join(pbn_hand(position.hands[seat]) for seat in order)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dds-source", type=Path, required=True, help="a checkout of DDS")
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "backalley-dds"
    parser.add_argument("--build", type=Path, default=scratch, help="where DDS is built")
    parser.add_argument("--sizes", default="10,13", help="hand sizes, comma-separated")
    parser.add_argument("--positions", type=int, default=50, help="positions per size")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    driver = subprocess.Popen(
        [str(build(args.dds_source, args.build))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=args.build,
    )

    def ask(deal: str, target: int) -> tuple[bool, int, float]:
        assert driver.stdin and driver.stdout
        driver.stdin.write(f"{deal}|{target}\n")
        driver.stdin.flush()
        answer, nodes, ms = driver.stdout.readline().split()
        return answer == "1", int(nodes), float(ms) / 1000

    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    # the positions of benchmarks/solver.py with its default sizes
    everything = [
        (size, fresh_position(size, rng)) for size in (7, 10, 13) for _ in range(args.positions)
    ]
    card_values(fresh_position(3, random.Random(0)))  # load (or compile) the search first
    totals = {size: [0, 0, 0.0, 0.0, 0] for size in sizes}  # nodes, nodes, seconds, seconds, n
    jobs = [(k, size, p) for k, (size, p) in enumerate(everything) if size in sizes]
    for k, size, position in track(jobs, description="Asking", console=Console(stderr=True)):
        value = tricks(position)
        other = pbn(everything[(k + 1) % len(everything)][1])
        for target in range(max(1, value - 1), min(size, value + 1) + 1):
            clear_table()
            state = _state(position, position.sides[position.to_move])
            start = time.perf_counter()
            reached = search.reach(state, *_tables(), 0, target)
            took = time.perf_counter() - start
            ask(other, 1)
            answer, nodes, theirs = ask(pbn(position), target)
            assert bool(reached) == answer, "the solver disagrees with DDS"
            row = totals[size]
            row[0] += int(state[search.NODES])
            row[1] += nodes
            row[2] += took
            row[3] += theirs
            row[4] += 1
    table = Table(
        title=f"One question at a time, both tables empty: {args.positions} positions a "
        f"size, seed {args.seed}, targets value-1, value, value+1"
    )
    for column in (
        "cards",
        "questions",
        "ours nodes",
        "DDS nodes",
        "÷",
        "ours ms",
        "DDS ms",
        "÷",
        "ours ns/node",
        "DDS ns/node",
    ):
        table.add_column(column, justify="right")
    for size in sizes:
        ours, theirs, mine, dds_time, count = totals[size]
        table.add_row(
            str(size),
            str(count),
            f"{ours:,}",
            f"{theirs:,}",
            f"{ours / theirs:.2f}×",
            f"{1000 * mine:.0f}",
            f"{1000 * dds_time:.0f}",
            f"{mine / dds_time:.2f}×",
            f"{1e9 * mine / ours:.0f}",
            f"{1e9 * dds_time / theirs:.0f}",
        )
    Console(width=130).print(table)


if __name__ == "__main__":
    main()
