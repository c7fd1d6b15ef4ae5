// The table drawn from the view shown, every region at once; and the turn: its signals, autoplay and timer.
import { cardLabel } from "./cards.js";
import { drawBanner, drawPods, drawScores, drawTimer, drawTrick, drawTrump } from "./felt.js";
import { act, drawMine } from "./hand.js";
import { t } from "./i18n.js";
import { note, noteResult, speak } from "./narration.js";
import { drawOverlay } from "./overlays.js";
import { setting } from "./settings.js";
import { myTurn, showView, turnClock } from "./state.js";
import { signalTurn } from "./signal.js";
import { sound } from "./sound.js";
import { drawReview, drawSheet } from "./tabs.js";

/** Show ``view``: every region drawn from it. */
export function render(ctx, view, { keepTrick = false } = {}) {
  const before = showView(ctx.state, view, keepTrick);
  if (before && view && before.phase !== "over" && view.phase === "over") {
    const last = view.history[view.history.length - 1];
    if (last && last.points) noteResult(ctx, last);
    note(ctx, view.winner === null ? t("A draw.") : t("{side} win.", { side: ctx.sideName(view.winner) }));
  }
  drawAll(ctx);
}

export function drawAll(ctx) {
  const { state, page } = ctx;
  if (!state.table) return;
  const view = state.shown;
  const deals = state.table.hand_sizes.length;
  if (view && view.phase === "over") page.heading.textContent = t("Back Alley table, the game is over");
  else page.heading.textContent = view ? t("Back Alley table, deal {n} of {total}", { n: Math.min(view.counted_deals + 1, deals), total: deals }) : t("Back Alley table");
  drawPods(ctx);
  drawTrump(ctx);
  drawScores(ctx);
  drawTrick(ctx, state.shownTrick);
  drawPrompt(ctx);
  drawMine(ctx);
  drawSheet(ctx);
  drawOverlay(ctx);
  drawReview(ctx);
  page.chatForm.hidden = !view || view.seat === null;
  turnChanged(ctx);
}

function drawPrompt(ctx) {
  const view = ctx.state.shown;
  let text = "";
  if (!view) text = t("Waiting for every seat to be filled.");
  else if (view.phase === "over") text = t("The game is over");
  else if (myTurn(view)) text = view.phase === "bid" ? t("Your bid") : view.trick.length ? t("Your card") : t("Your lead");
  else if (view.to_move !== null) {
    const name = ctx.nameOf(view.to_move);
    if (view.phase === "bid") text = t("{name} to bid", { name });
    else text = view.trick.length ? t("{name} to play", { name }) : t("{name} leads", { name });
  }
  drawBanner(ctx, text, myTurn(view) ? "yours" : "");
}

/** When the turn comes to this seat: focus to the hand or bids, the tab's title, the sound,
 * and a lone legal card played by itself if the player asked for that. */
function turnChanged(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const now = myTurn(view);
  const what = !now ? "" : view.phase === "bid" ? t("Your bid") : t("Your card");
  signalTurn(now, what);
  if (now && !state.myTurn) {
    sound("turn");
    const trick = view.trick.map(([seat, card]) => `${ctx.nameOf(seat)} ${cardLabel(card)}`).join("; ");
    speak(trick ? `${what}. ${t("the trick")}: ${trick}` : what);
    const active = document.activeElement;
    if (!active || active === document.body || page.root.contains(active) && !active.closest("input, select, .tabs, .actions, .side")) {
      const group = view.phase === "bid" ? page.bids : page.hand;
      const item = group.querySelector("[tabindex='0']");
      if (item) item.focus();
    }
    if (setting("autoplay") && view.phase === "play" && view.legal.length === 1) {
      const card = view.legal[0];
      setTimeout(() => {
        if (state.shown === view && !state.left) act(ctx, card);
      }, 500);
    }
  }
  state.myTurn = now;
}

/** Every half second: the turn timer's count on the pod of the person to move, and its
 * warning at 10 s. */
export function tick(ctx) {
  const { state } = ctx;
  const left = turnClock(state);
  if (left === undefined) return;
  drawTimer(ctx, left);
  if (left !== null && left <= 10 && !state.warned && myTurn(state.shown)) {
    state.warned = true;
    sound("warn");
    const text = t("10 seconds left to play");
    drawBanner(ctx, text, "warn");
    speak(text);
  }
}
