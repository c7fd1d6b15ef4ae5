// The keyboard: one Tab stop for the hand and one for the bids (roving focus), and the table's shortcuts.
import { closeOverlay } from "./overlays.js";

/** One Tab stop a group (the hand, the bids): the arrows move within it, Home and End to its
 * ends (roving tabindex). */
export function rove(group, event) {
  const items = [...group.querySelectorAll("button")];
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  focusItem(group, items[Math.max(0, Math.min(items.length - 1, to))]);
}

export function focusItem(group, item) {
  for (const other of group.querySelectorAll("button")) other.tabIndex = other === item ? 0 : -1;
  if (item) item.focus();
}

const SHORTCUTS = { u: "undo", l: "last", c: "claim", k: "keys" };

export function shortcut(ctx, event) {
  if (event.target.closest("input, select, textarea, dialog") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape" || event.key === " " && ctx.queue.pausing) {
    ctx.queue.skip();
    closeOverlay(ctx, "last");
    if (event.key === " ") event.preventDefault();
    return;
  }
  const action = SHORTCUTS[event.key.toLowerCase()];
  const button = action && ctx.page.actions.querySelector(`[data-action=${action}]`);
  if (button && !button.disabled) {
    event.preventDefault();
    button.click();
  }
}

/** The group's one Tab stop: the item focused before the redraw if it is still there (and
 * playable, when some are), else the first playable one. */
export function rovingStart(group, focused, preferLegal = false) {
  const items = [...group.querySelectorAll("button")];
  const legal = items.filter((b) => b.classList.contains("legal"));
  const choices = preferLegal && legal.length ? legal : items;
  const pick = choices.find((b) => (b.dataset.card || b.dataset.bid) === focused) || choices[0];
  if (pick) pick.tabIndex = 0;
}
