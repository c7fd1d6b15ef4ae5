// The server's messages: taken into the state as they come, the game's events then shown in turn from the queue.
import { remember } from "./api.js";
import { bidLabel, cardLabel } from "./cards.js";
import { toast } from "./dom.js";
import { collect, dealIn, drawBanner, drawPods, drawTrick, flyIn, markWinner } from "./felt.js";
import { drawMine, takeFromHand } from "./hand.js";
import { t } from "./i18n.js";
import { addLine, announceDeal, describeEvent, note, speak, tellStory, timedOut } from "./narration.js";
import { drawOverlay } from "./overlays.js";
import { drawAll, render } from "./render.js";
import { PAUSES, setting } from "./settings.js";
import {
  applyEvent, applySeats, applySnapshot, applyTable, applyView, layCard, moveRefused, sayBelowLevel, trickCollected,
} from "./state.js";
import { sound } from "./sound.js";
import { drawInfo } from "./tabs.js";

export function receive(ctx, message) {
  const { state } = ctx;
  switch (message.type) {
    case "state":
    case "resync":
      takeSnapshot(ctx, message);
      break;
    case "event":
      takeEvent(ctx, message);
      break;
    case "presence":
      if (!applySeats(state, message.seats)) break;
      drawPods(ctx);
      drawInfo(ctx);
      break;
    case "pending":  // a claim taken: its answer follows once the solver settles it
      if (!message.solver_ready) toast(t("Your claim waits for the solver, which is being prepared: it is settled in a moment"));
      break;
    case "error":
      toast(message.message);
      moveRefused(state);
      if (state.shown) drawMine(ctx);
      break;
    default:  // an ack: the events it made came before it
      break;
  }
}

/** A ``state`` (the chat kept by the server, instead of ours) or a ``resync`` (the chat
 * missed): the game shown again from its view, at once. */
function takeSnapshot(ctx, message) {
  applySnapshot(ctx.state, message);
  if (message.type === "state") {
    for (const line of ctx.page.log.querySelectorAll("li.chat")) line.remove();
  }
  for (const event of message.type === "state" ? message.chat : message.events) {
    if (event.kind === "chat") addLine(ctx, { name: event.name, text: event.text });
  }
  if (message.type === "state" && message.view && !ctx.state.told) tellStory(ctx, message.view);
  ctx.state.told ||= Boolean(message.view);  // once: a reconnection's state adds nothing
  ctx.queue.replace({ jump: true, view: message.view });
  drawInfo(ctx);
}

/** An event: a chat line at once, the game's into the queue. */
function takeEvent(ctx, message) {
  const event = message.event;
  if (event.kind === "chat") {
    addLine(ctx, { name: event.name, text: event.text });
    return;
  }
  if (message.table) takeTable(ctx, message.table);
  applyView(ctx.state, message);
  ctx.queue.push(message);
}

/** A new description of the table: drawn at once where it shows (the queue is for the game),
 * and a rematch that has started takes everyone to its table. */
function takeTable(ctx, table) {
  const { state } = ctx;
  const to = applyTable(state, table);
  if (to) {
    const mine = state.mine;
    if (mine && mine.token) remember(table.rematch.table, { seat: mine.seat, token: mine.token, name: mine.name, host: mine.host, watch: mine.watch });
    setTimeout(() => state.left || ctx.go(to), 600);
  }
  drawInfo(ctx);
  if (state.shown && state.shown.phase === "over") drawOverlay(ctx);
}

/** Show one message of the queue: a card moves in (a completed trick rests, marked, then
 * goes to its winner), a deal comes from its dealer, the rest is drawn at once. */
export async function showMessage(ctx, message) {
  const { state } = ctx;
  if (message.jump) {
    render(ctx, message.view);
    return;
  }
  const event = message.event;
  const view = message.view;
  if (event.below_level && sayBelowLevel(state)) {  // once: the solver is being prepared
    note(ctx, t("The solver is still being prepared: {name} plays as a medium bot meanwhile, and this game will not be rated", { name: ctx.nameOf(event.seat) }));
  }
  switch (event.kind) {
    case "card":
      await showCard(ctx, event, view);
      break;
    case "deal":
      announceDeal(ctx, event, view);
      state.told = true;
      if (view) render(ctx, view);
      sound("deal");
      await dealIn(ctx, event.dealer);
      break;
    case "bid":
      if (event.seat !== ctx.me()) note(ctx, t("{name} bids {bid}", { name: ctx.nameOf(event.seat), bid: bidLabel(event.action, view, view && view.board_level) }));
      if (event.by === "timer") timedOut(ctx, event);
      if (view) render(ctx, view);
      break;
    default:
      applyEvent(state, event);
      describeEvent(ctx, event);
      if (view) render(ctx, view);
      else drawAll(ctx);
  }
}

async function showCard(ctx, event, view) {
  const { state } = ctx;
  const played = layCard(state, event.seat, event.action);
  if (event.seat === ctx.me()) takeFromHand(ctx, event.action);
  sound("card");
  if (event.by === "timer") timedOut(ctx, event);
  if (event.won_by === undefined) {
    if (view) render(ctx, view, { keepTrick: true });
    else drawTrick(ctx, played);
    // The next card need not wait for this one to land: it is shown as soon as it comes, and
    // both move in at once (a trick's last card waits for them, to rest with all four still).
    flyIn(ctx, event.seat);
    return;
  }
  // A completed trick: every card in view together, the winner's marked, for the pause.
  drawTrick(ctx, played);
  await flyIn(ctx, event.seat);
  markWinner(ctx, event.won_by);
  const summary = played.map(([seat, card]) => `${ctx.nameOf(seat)} ${cardLabel(card)}`).join("; ");
  const won = t("{name} won the trick", { name: ctx.nameOf(event.won_by) });
  note(ctx, won);
  speak(`${summary}. ${won}.`);
  drawBanner(ctx, won, "won");
  markWinnerPod(ctx, event.won_by);
  const speed = setting("speed");
  const wait = ctx.hurry() || state.claiming ? 150 : PAUSES[speed] === undefined ? PAUSES.normal : PAUSES[speed];
  if (wait === null) drawBanner(ctx, `${won} · ${t("tap to go on")}`, "won");
  ctx.page.actions.querySelector("[data-action=undo]")?.remove();  // not while the trick rests
  await ctx.queue.pause(wait);
  sound("trick");
  await collect(ctx, event.won_by);
  trickCollected(state);
  if (view) render(ctx, view);
}

/** While a finished trick rests, its winner's seat is lit, and nobody's turn is shown. */
function markWinnerPod(ctx, seat) {
  for (const pod of ctx.page.felt.querySelectorAll(".pod")) {
    delete pod.dataset.turn;
    pod.removeAttribute("aria-current");
    pod.classList.toggle("takes", pod.dataset.seat === String(seat));
  }
}
