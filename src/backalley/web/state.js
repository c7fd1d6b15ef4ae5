// The table's state: what the server says of the table and this seat's view, and what the page shows of it; no DOM here.
import { seatName } from "./cards.js";

/** A table's state before its first message: ``mine`` is what this browser keeps of its seat. */
export function tableState(tableId, mine, credentials) {
  return {
    tableId, mine, credentials, table: null, view: null, shown: null, shownTrick: [], levels: null,
    turnSince: Date.now(), reviewed: new Set(), told: false, tab: "sheet", myTurn: false, warned: false,
    sent: false, overlay: null, keysOpen: false, claiming: false, left: false, moving: false, sheetKey: null, sheetRows: -1,
    saidBelowLevel: false,
  };
}

// ---------------------------------------------------------------------- reading it

/** This page's seat: the view's, else the one this browser keeps, else null (watching). */
export function seatOf(state) {
  return state.view ? state.view.seat : state.mine ? state.mine.seat : null;
}

export function nameOf(state, seat) {
  return seatName(state.table.seats.map((entry) => entry.name), seat);
}

export function sideName(state, side) {
  const view = state.shown || state.view;
  const seats = view ? view.sides[side] : [side];
  return seats.map((seat) => nameOf(state, seat)).join(" & ");
}

export function myTurn(view) {
  return Boolean(view) && view.phase !== "over" && view.to_move === view.seat && view.legal.length > 0;
}

/** The turn timer's seconds left for the person to move; null when nobody's runs (a bot's
 * turn, the game over), undefined when there is nothing to show (no timer, no view yet). */
export function turnClock(state) {
  const view = state.shown;
  if (!state.table || !view) return undefined;
  const entry = view.to_move === null ? null : state.table.seats[view.to_move];
  const person = entry && !entry.bot && !entry.stand_in;
  if (!state.table.turn_timer) return undefined;  // no timer at this table: its chips stay hidden
  if (view.phase === "over" || !person) return null;
  return Math.max(0, Math.ceil(state.table.turn_timer - (Date.now() - state.turnSince) / 1000));
}

// ---------------------------------------------------------------------- the server's messages

/** A ``state`` or ``resync``: the table and the view as the server has them now. The server
 * restarts its turn timer at every change; back from a lost connection, the count goes on
 * unless the turn has moved on meanwhile. */
export function applySnapshot(state, message) {
  state.table = message.table;
  const before = state.view;
  const view = message.view;
  if (!before || !view || before.to_move !== view.to_move || before.deal !== view.deal) state.turnSince = Date.now();
  state.view = message.view;
}

/** An event's new view, if it has one. */
export function applyView(state, message) {
  if (!message.view) return;
  state.view = message.view;
  state.turnSince = Date.now();  // the server restarts its turn timer at every change
}

/** A new description of the table; the address a rematch that has started takes this page
 * to (once, however many events say so), else null. */
export function applyTable(state, table) {
  state.table = table;
  const rematch = table.rematch;
  if (!(rematch && rematch.status === "started" && rematch.table && !state.moving)) return null;
  state.moving = true;
  const watching = "watch" in state.credentials;
  return watching ? `/t/${rematch.table}?watch=${encodeURIComponent(state.credentials.watch)}` : `/t/${rematch.table}`;
}

/** Who is at the table now (a ``presence``); false before the table is known. */
export function applySeats(state, seats) {
  if (!state.table) return false;
  state.table.seats = seats;
  return true;
}

/** This seat's move sent: one action a turn, until the server answers (or refuses it). */
export function spendTurn(state) {
  state.sent = true;
  state.myTurn = false;
}

export function moveRefused(state) {
  state.sent = false;
}

// ---------------------------------------------------------------------- what is shown

/** ``view`` is now the one shown; the one shown before. */
export function showView(state, view, keepTrick = false) {
  const before = state.shown;
  state.shown = view;
  if (view && view.phase !== "play" || !view) state.claiming = false;
  if (!keepTrick) state.shownTrick = view ? view.trick : [];
  if (!before || !view || before.to_move !== view.to_move) state.warned = false;
  state.sent = false;
  return before;
}

/** A card lands in the trick shown; the cards in it now. */
export function layCard(state, seat, card) {
  state.shownTrick = [...state.shownTrick, [seat, card]];
  return state.shownTrick;
}

export function trickCollected(state) {
  state.shownTrick = [];
}

/** Whether an event played below its level (the solver is being prepared) is to be said:
 * once a page. */
export function sayBelowLevel(state) {
  if (state.saidBelowLevel) return false;
  state.saidBelowLevel = true;
  return true;
}

/** What an event other than a card or a bid changes: a claim that holds hurries the rest. */
export function applyEvent(state, event) {
  if (event.kind === "claim") state.claiming = true;
}
