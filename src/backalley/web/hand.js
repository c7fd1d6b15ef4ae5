// This seat's part: its hand and bids drawn (and played from), and the buttons under them.
import { bidLabel, cardElement, sortHand } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import { focusItem, rovingStart } from "./keys.js";
import { toggleLast } from "./overlays.js";
import { myTurn, spendTurn } from "./state.js";

export function act(ctx, action) {
  if (!ctx.connection.send({ type: "act", action })) return;
  // One action a turn: the hand and bids wait for the server's answer, which redraws them;
  // the turn is spent, so the next one is seen as new even with no view between them (the
  // last card of a deal and our first bid of the next).
  spendTurn(ctx.state);
  for (const button of ctx.page.root.querySelectorAll(".bids button, .hand button")) button.setAttribute("aria-disabled", "true");
}

/** Our card leaves the hand as it lands in the trick (the rest of the hand is redrawn with
 * the next view, after any pause); the focus goes to its neighbour. */
export function takeFromHand(ctx, card) {
  const hand = ctx.page.hand;
  const node = hand.querySelector(`[data-card="${card}"]`);
  if (!node) return;
  const next = node.nextElementSibling || node.previousElementSibling;
  const focused = node === document.activeElement;
  node.remove();
  for (const other of hand.querySelectorAll("button.card")) {
    other.classList.remove("legal");
    other.setAttribute("aria-disabled", "true");
  }
  hand.style.setProperty("--cards", String(hand.children.length));
  if (focused && next) focusItem(hand, next);
  else if (focused) ctx.page.felt.focus();
  else if (next && !hand.querySelector("[tabindex='0']")) next.tabIndex = 0;
}

/** The hand and the bids (legal ones lit, the rest dimmed), and the buttons under them. */
export function drawMine(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const focusIn = page.hand.contains(document.activeElement) ? "hand" : page.bids.contains(document.activeElement) ? "bids" : null;
  const focused = document.activeElement?.dataset?.card || document.activeElement?.dataset?.bid;
  page.bids.replaceChildren();
  page.hand.replaceChildren();
  const turn = myTurn(view) && !state.sent;
  if (view && view.phase === "bid" && turn) {
    for (const bid of view.legal) {
      page.bids.append(element("button", { type: "button", "data-bid": bid, class: "bid-button", text: bidLabel(bid, view, view.board_level + 1), tabindex: "-1" }));
    }
  }
  if (view && view.hand) {
    const playing = turn && view.phase === "play";
    const legal = new Set(playing ? view.legal : []);
    for (const card of sortHand(view.hand, view.trump)) {
      const button = cardElement(card, { button: true, dim: playing && !legal.has(card) });
      if (!legal.has(card)) button.setAttribute("aria-disabled", "true");
      else button.classList.add("legal");
      button.tabIndex = -1;
      page.hand.append(button);
    }
    page.hand.style.setProperty("--cards", String(view.hand.length));
  }
  page.bids.hidden = !page.bids.children.length;
  rovingStart(page.bids, focused);
  rovingStart(page.hand, focused, true);
  if (focusIn) {
    const group = focusIn === "bids" && page.bids.children.length ? page.bids : page.hand;
    const item = group.querySelector("[tabindex='0']");
    if (item) item.focus();
    else page.felt.focus();
  }
  drawActions(ctx);
}

function drawActions(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const focused = page.actions.contains(document.activeElement) ? document.activeElement.dataset.action : null;
  page.actions.replaceChildren();
  const add = (action, label, onClick, { hidden = false, disabled = false } = {}) => {
    if (hidden) return null;
    const button = element("button", { type: "button", "data-action": action, text: label });
    button.disabled = disabled;
    button.addEventListener("click", onClick);
    page.actions.append(button);
    return button;
  };
  const seated = view && view.seat !== null;
  const latest = state.view;  // what the server says now, even while a trick rests on the table
  // Undo only when it can be taken: the table caught up with (no trick resting, no move on its
  // way) and the server willing.
  const undoable = latest && latest.undo && !state.sent && state.shown === latest && !ctx.queue.pausing;
  add("undo", t("Undo"), () => ctx.connection.send({ type: "undo" }), { hidden: !undoable });
  add("claim", t("Claim the rest"), () => ctx.connection.send({ type: "claim" }), {
    hidden: !seated || view.phase !== "play", disabled: !(myTurn(view) && view.phase === "play"),
  });
  add("last", t("Last trick"), () => toggleLast(ctx), { hidden: !view, disabled: !(view && view.last_trick) });
  const keys = add("keys", t("Keys"), () => toggleKeys(ctx));
  keys.setAttribute("aria-expanded", String(Boolean(state.keysOpen)));
  if (state.keysOpen) {
    page.actions.append(element("p", { class: "keys", id: "keys-help", text: t("Arrows move in your hand and in the bids; Enter or Space plays; U takes back; L shows the last trick; C claims the rest; Space or a tap goes on after a trick.") }));
    keys.setAttribute("aria-controls", "keys-help");
  }
  if (focused) {  // redrawn under the reader's focus (another seat played): it stays there
    const again = page.actions.querySelector(`[data-action="${focused}"]`);
    if (again && !again.disabled) again.focus();
    else page.felt.focus();
  }
}

function toggleKeys(ctx) {
  ctx.state.keysOpen = !ctx.state.keysOpen;
  drawActions(ctx);
  ctx.page.actions.querySelector("[data-action=keys]").focus();
}
