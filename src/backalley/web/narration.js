// Narration: the table's log (notes and chat), what screen readers are told, and the words for each event.
import { bidLabel, cardText, suitLabel } from "./cards.js";
import { element, toast } from "./dom.js";
import { t } from "./i18n.js";
import { signed, thrownInLabel } from "./sheet.js";

/** A line in the table's log (and, if ``speak``, read out by screen readers). */
export function note(ctx, text) {
  addLine(ctx, { text });
}

export function addLine(ctx, line) {
  const log = ctx.page.log;
  const item = element("li", { class: line.name ? "chat" : "note" });
  if (line.name) item.append(element("strong", { text: `${line.name}: ` }), line.text);
  else item.textContent = line.text;
  log.append(item);
  while (log.children.length > 150) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

export function speak(text) {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}

/** What happened before this page connected, told from the table's history as it would have
 * been live: every deal's announcement and result, then the deal in play's with its bids. */
export function tellStory(ctx, view) {
  let counted = 0;
  for (const deal of view.history) {
    note(ctx, dealLine(counted + 1, deal.hand_size, ctx.nameOf(deal.dealer)));
    if (deal.thrown_in) note(ctx, thrownInLabel(deal.thrown_in));
    else counted++;
    if (deal.points && !deal.thrown_in) noteResult(ctx, deal);
  }
  if (view.phase !== "bid" && view.phase !== "play") return;
  announceCurrent(ctx, view, view.dealer, view.bids.length === 0);
  for (const [seat, bid] of view.bids) note(ctx, t("{name} bids {bid}", { name: ctx.nameOf(seat), bid: bidLabel(bid) }));
}

function dealLine(n, cards, name) {
  const said = { n, cards, name };
  return cards === 1 ? t("Deal {n}: 1 card, dealt by {name}", said) : t("Deal {n}: {cards} cards, dealt by {name}", said);
}

/** The deal in ``view``: its number, size and dealer, its turn-up, and who bids first. */
function announceCurrent(ctx, view, dealer, first) {
  note(ctx, dealLine(view.counted_deals + 1, view.hand_size, ctx.nameOf(dealer)));
  const up = view.turned_up.map(cardText).join(" ");
  note(ctx, view.trump ? t("Turn-up {cards}: {suit} are trump", { cards: up, suit: suitLabel(view.trump) }) : t("Turn-up {cards}: no trump", { cards: up }));
  if (view.joker_shown) note(ctx, t("{name} shows {card}, discards it and draws a card", { name: ctx.nameOf(view.joker_shown.seat), card: cardText(view.joker_shown.card) }));
  if (first && view.phase === "bid" && view.to_move !== null) note(ctx, t("{name} bids first", { name: ctx.nameOf(view.to_move) }));
}

export function announceDeal(ctx, event, view) {
  const { state } = ctx;
  const last = view && view.history.length ? view.history[view.history.length - 1] : null;
  if (last && last.thrown_in && view.history.length > (state.shown?.history.length ?? 0)) {
    let run = 0;
    for (let i = view.history.length - 1; i >= 0 && view.history[i].thrown_in === last.thrown_in; i--) run++;
    note(ctx, run > 1 ? `${thrownInLabel(last.thrown_in)} (${t("{n} in a row", { n: run })})` : thrownInLabel(last.thrown_in));
  } else if (last && last.points && state.shown && state.shown.history.length < view.history.length) {
    noteResult(ctx, last);
  }
  if (view) announceCurrent(ctx, view, event.dealer, true);
}

/** A played deal's result in the log: each side's contract, tricks and points. */
export function noteResult(ctx, deal) {
  const parts = deal.points.map((points, side) => t("{side} bid {contract}, took {tricks}: {points}", {
    side: ctx.sideName(side), contract: bidLabel(deal.contracts[side]), tricks: deal.tricks[side], points: signed(points),
  }));
  note(ctx, parts.join(" · "));
}

export function describeEvent(ctx, event) {
  const name = event.seat === undefined ? "" : ctx.nameOf(event.seat);
  if (event.kind === "claim") {
    const text = t("{name} claimed every remaining trick: the claim holds", { name });
    note(ctx, text);
    toast(text);
  } else if (event.kind === "takeback") {
    note(ctx, t("{name} took back a move", { name }));
  } else if (event.kind === "left") {
    note(ctx, event.bot ? t("{name} left the table; {bot} takes the seat", { name: event.name, bot: event.bot }) : t("{name} left the table", { name: event.name }));
  } else if (event.kind === "ended") {
    note(ctx, t("The host closed this table."));
  } else if (event.kind === "rematch") {
    const by = ctx.nameOf(event.by);
    const text = {
      open: t("{name} offers a rematch", { name: by }),
      declined: t("{name} declined the rematch", { name: event.declined === null ? by : ctx.nameOf(event.declined) }),
      expired: t("The rematch was not accepted in time."),
      started: t("The rematch begins."),
    }[event.status];
    if (text) note(ctx, text);
  } else if (event.kind === "start") {
    note(ctx, t("Every seat is taken: the game begins."));
  } else if (event.kind === "seat" || event.kind === "bot") {
    note(ctx, t("{name} sits down in seat {seat}", { name: event.name, seat: event.seat + 1 }));
  }
}

export function timedOut(ctx, event) {
  const mine = event.seat === ctx.me();
  const said = { name: ctx.nameOf(event.seat) };
  let text;
  if (event.kind === "card") {
    said.action = cardText(event.action);
    text = mine ? t("Time ran out: {action} was played for you", said) : t("{name} ran out of time: {action} was played for them", said);
  } else {
    said.bid = bidLabel(event.action);
    text = mine ? t("Time ran out: you were made to bid {bid}", said) : t("{name} ran out of time: {bid} was bid for them", said);
  }
  note(ctx, text);
  speak(text);
}
