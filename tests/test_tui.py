"""``backalley play`` and ``backalley replay``, driven headlessly with Textual's pilot."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from backalley.cards import Card
from backalley.cli import main
from backalley.record import verify
from backalley.rules import Phase, Ruleset
from backalley.tui.app import BidButton, CardButton, DealReviewScreen, PlayApp, StartScreen
from backalley.tui.replay import ReplayApp
from backalley.tui.session import SEATING, Session, hand_order
from support import deal, game_of

SIZE = (110, 34)


def run_async(test):
    """Run an async test on its own event loop (the pilot needs one)."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


def short_session(tmp_path: Path, sizes=(3, 2, 1), seed: int = 3) -> Session:
    rules = Ruleset.preset("standard", hand_sizes=list(sizes))
    return Session.new(
        rules, seed=seed, partner="easy", opponents="medium", save_path=tmp_path / "game.json"
    )


async def settle(pilot, app: PlayApp, session: Session) -> None:
    """Wait until the person is to act, a deal's review is up, or the game is over."""
    for _ in range(500):
        await pilot.pause(0.01)
        if isinstance(app.screen, DealReviewScreen) or session.game.is_over:
            return
        if session.human_to_move and not app.workers:
            return
    raise AssertionError("the bots never handed the turn back")


def status(app: PlayApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


def sheet_rows(app: PlayApp) -> int:
    return app.screen.query_one("#sheet", DataTable).row_count


@run_async
async def test_a_whole_short_game_by_keys_and_clicks(tmp_path):
    session = short_session(tmp_path)
    app = PlayApp(session, pace=0)
    refused = typed = clicked = reviews = typed_bids = clicked_bids = 0
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await settle(pilot, app, session)
            game = session.game
            if isinstance(app.screen, DealReviewScreen):
                reviews += 1
                text = str(app.screen.query_one("#review-text", Static).render())
                assert "is over" in text and "contract" in text
                await pilot.press("enter")
                await pilot.pause()
                assert sheet_rows(app) == reviews  # a row a deal, as on paper
                continue
            if game.is_over:
                break
            view = game.view(session.seat)
            legal = set(view.legal_actions)
            if game.phase == Phase.BID:
                buttons = list(app.screen.query(BidButton))
                assert {b.bid for b in buttons} == legal
                if clicked_bids <= typed_bids:
                    await pilot.click(next(b for b in buttons if str(b.label) == "board"))
                    clicked_bids += 1
                else:
                    await pilot.press("b")  # board: always a legal bid
                    typed_bids += 1
                continue
            cards = list(app.screen.query(CardButton))
            assert [b.card for b in cards] == hand_order(list(view.hand), view.trump)
            assert {b.card for b in cards if not b.disabled} == legal  # the others dimmed
            illegal = [b.card for b in cards if b.disabled]
            if illegal and not refused:
                before = json.dumps(session.record())
                await pilot.press(*str(Card(illegal[0])).lower())
                await pilot.pause()
                assert any(rule in status(app) for rule in ("P2:", "P3:", "P4:"))
                assert json.dumps(session.record()) == before  # nothing changed
                refused += 1
                continue
            if typed <= clicked:
                await pilot.press(*str(min(legal)).lower())
                typed += 1
            else:
                await pilot.click(next(b for b in cards if not b.disabled))
                clicked += 1
        assert session.game.is_over
        assert "The game is over" in status(app)
        assert sheet_rows(app) == 3 and reviews == 3
    assert typed and clicked and typed_bids and clicked_bids
    assert verify(session.save_path.read_text()).exit_code == 0


@run_async
async def test_the_last_trick_key_works_on_our_turn_too(tmp_path):
    session = short_session(tmp_path, sizes=(5,))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(30):  # board, then the lowest card, until a trick is done and we are on
            await settle(pilot, app, session)
            game = session.game
            assert not isinstance(app.screen, DealReviewScreen) and not game.is_over
            if game.phase == Phase.PLAY and game.completed_tricks:
                break
            if game.phase == Phase.BID:
                await pilot.press("b")
            else:
                await pilot.press(*str(Card(min(game.legal_actions()))).lower())
        await settle(pilot, app, session)
        assert session.human_to_move and not app.screen.show_last
        await pilot.press("v")  # a key of its own, not a card being typed
        await pilot.pause()
        assert app.screen.show_last and "typed" not in status(app)


@run_async
async def test_the_hint_key_shows_the_expert_bots_choice(tmp_path):
    session = short_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("question_mark")
        for _ in range(300):
            await pilot.pause(0.02)
            if "Hint:" in status(app):
                break
        assert "Hint: the expert bot would choose" in status(app)
        legal = {str(a) for a in session.game.view(session.seat).legal_actions}
        chosen = status(app).split("would choose ")[1].split()[0]
        assert chosen in legal


@run_async
async def test_save_quit_and_resume_to_the_same_position(tmp_path):
    session = short_session(tmp_path, sizes=(4, 3), seed=5)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")
        await settle(pilot, app, session)
        if session.game.phase == Phase.PLAY and session.human_to_move:
            await pilot.press("enter")  # the first legal card has the focus
            await settle(pilot, app, session)
        position = session.game.view(session.seat)
        await pilot.press("escape")
    again = Session.resume(session.save_path)
    assert again.game.view(again.seat) == position
    assert (again.seat, again.partner, again.opponents) == (0, "easy", "medium")
    resumed = PlayApp(again, pace=0)
    async with resumed.run_test(size=SIZE) as pilot:
        await settle(pilot, resumed, again)
        assert len(again.game.current_deal.play) >= len(position.played)


@pytest.mark.parametrize(
    ("seating", "fragment"),
    [
        ({"seed": "x"}, "seat and seed must be whole numbers"),
        ({"seat": 7}, "there is no seat 7"),
        ({"partner": "godlike"}, "unknown bot level 'godlike'"),
    ],
)
def test_a_save_with_bad_seating_is_refused_in_one_line(tmp_path, capsys, seating, fragment):
    session = short_session(tmp_path)
    document = json.loads(session.save_path.read_text())
    document[SEATING].update(seating)
    session.save_path.write_text(json.dumps(document))
    assert main(["play", "--resume", str(session.save_path)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


@run_async
async def test_the_start_screen_starts_the_chosen_game(tmp_path):
    app = PlayApp(new_game={"seed": 2, "save_path": tmp_path / "g.json"}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, StartScreen)
        await pilot.click("#start")
        await pilot.pause()
        assert app.session is not None
        rules = app.session.game.rules
        assert rules.name == "standard" and max(rules.hand_sizes) == 7
        assert app.session.partner == "medium" and (tmp_path / "g.json").exists()


@run_async
async def test_a_terminal_too_small_asks_for_room(tmp_path):
    app = PlayApp(short_session(tmp_path), pace=0)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert "too small" in str(app.screen.query_one("#too-small", Static).render())
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert not app.screen.query("#too-small")
        assert app.screen.query("#hand")


@run_async
async def test_replay_steps_through_deals_and_cards(tmp_path):
    session = short_session(tmp_path)
    game = session.game
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    app = ReplayApp(game)
    async with app.run_test(size=SIZE) as pilot:
        where = app.query_one("#where", Static)
        assert "deal 1 of 3 · card 0 of 12" in str(where.render())
        await pilot.press("right", "right")
        assert "card 2 of 12" in str(where.render())
        await pilot.press("left")
        assert "card 1 of 12" in str(where.render())
        await pilot.press("shift+right")
        assert "card 4 of 12" in str(where.render())  # the second trick
        await pilot.press("shift+right", "shift+left", "shift+left")
        assert "card 0 of 12" in str(where.render())
        await pilot.press("down")
        assert "deal 2 of 3 · card 0 of 8" in str(where.render())
        await pilot.press("end")
        assert "card 8 of 8" in str(where.render())
        text = str(app.query_one("#position", Static).render())
        assert "seat 0" in text and "seat 3" in text and "contract" in text


@pytest.mark.parametrize("screen", ["start", "bidding", "play", "review", "final"])
def test_snapshots(snap_compare, tmp_path, screen):
    session = None if screen == "start" else short_session(tmp_path, seed=3)
    app = PlayApp(session, new_game={"seed": 1, "save_path": tmp_path / "g.json"}, pace=0)

    async def act(pilot) -> None:
        if isinstance(app.screen, DealReviewScreen):
            await pilot.press("enter")
        elif session.game.phase == Phase.BID:
            await pilot.press("b")
        else:
            await pilot.click(next(b for b in app.screen.query(CardButton) if not b.disabled))
        await settle(pilot, app, session)

    async def reach(pilot) -> None:
        if session is None:
            return
        await settle(pilot, app, session)
        if screen == "bidding":
            return
        await act(pilot)
        if screen == "play":
            return
        while not isinstance(app.screen, DealReviewScreen):
            await act(pilot)
        if screen == "review":
            return
        while not session.game.is_over or isinstance(app.screen, DealReviewScreen):
            await act(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=reach)


def built_session(tmp_path: Path, hands: list[str]) -> Session:
    """A one-card deal dealt by hand (hearts trump), the person in seat 0 to lead."""
    game = game_of(hand_sizes=[1])
    deal(game, 3, hands, top="2H")
    return Session(game, 0, "easy", "easy", tmp_path / "g.json", 0)


@run_async
async def test_a_claim_the_solver_proves_completes_the_deal(tmp_path):
    session = built_session(tmp_path, ["BJ", "2S", "3S", "4S"])
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")  # board: seat 0 leads
        await settle(pilot, app, session)
        await pilot.press("exclamation_mark")
        await settle(pilot, app, session)
        assert session.game.is_over and session.game.deals[0].tricks == [1, 0]
    assert verify(session.save_path.read_text()).exit_code == 0


@run_async
async def test_a_claim_that_does_not_hold_is_refused_and_changes_nothing(tmp_path):
    session = built_session(tmp_path, ["2S", "AS", "3S", "4S"])
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")
        await settle(pilot, app, session)
        before = json.dumps(session.record())
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert "Claim refused" in status(app)
        assert json.dumps(session.record()) == before
