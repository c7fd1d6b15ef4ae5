"""Write docs/images/play.svg: the terminal game in progress, by the app's own screenshot.

.venv/bin/python scripts/screenshot.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from backalley.rules import Phase, Ruleset
from backalley.tui.app import PlayApp
from backalley.tui.screens import CardButton, DealReviewScreen
from backalley.tui.session import Session

OUT = Path(__file__).parent.parent / "docs" / "images" / "play.svg"


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        rules = Ruleset.preset("standard", hand_sizes=[6, 5])
        session = Session.new(
            rules, seed=12, partner="hard", opponents="medium", save_path=Path(folder) / "g.json"
        )
        app = PlayApp(session, pace=0)
        async with app.run_test(size=(110, 34)) as pilot:
            while len(session.game.current_deal.play) < 6:
                await pilot.pause(0.05)
                if isinstance(app.screen, DealReviewScreen) or not session.human_to_move:
                    continue
                if session.game.phase == Phase.BID:
                    await pilot.press("2")
                else:
                    cards = [b for b in app.screen.query(CardButton) if not b.disabled]
                    await pilot.click(cards[0])
            while not session.human_to_move:
                await pilot.pause(0.05)
            await pilot.pause(0.2)
            OUT.parent.mkdir(parents=True, exist_ok=True)
            OUT.write_text(app.export_screenshot(title="backalley play"), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
