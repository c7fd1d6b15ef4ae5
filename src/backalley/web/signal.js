// Telling a player it is their turn when they may be looking elsewhere: the tab's title and
// icon change, and, if they asked for it, a notification while the tab is hidden.
import { setting } from "./settings.js";

const TITLE = "Back Alley";

function icon(turn) {
  const dot = turn ? '<circle cx="25" cy="7" r="6.5" fill="#facc15" stroke="#111" stroke-width="1.5"/>' : "";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="2" width="22" height="28" rx="3" fill="#fff" stroke="#1f5e3b" stroke-width="2"/><path d="M14 8c4 5 7 7 7 10a3.5 3.5 0 0 1-6 2l1 4h-4l1-4a3.5 3.5 0 0 1-6-2c0-3 3-5 7-10z" fill="#1b1b1b"/>${dot}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

let shown = null;

/** Show (or stop showing) that it is this player's turn: ``what`` says to do what. */
export function signalTurn(turn, what = "") {
  const key = turn ? what : null;
  if (key === shown) return;
  shown = key;
  document.title = turn ? `● ${what} · ${TITLE}` : TITLE;
  let link = document.querySelector("link[rel=icon]");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  link.href = icon(turn);
  if (turn && document.hidden && setting("notify") && "Notification" in window && Notification.permission === "granted") {
    new Notification(TITLE, { body: what, tag: "backalley-turn", icon: icon(true) });
  }
}

/** Ask the browser whether notifications may be shown; whether they may. */
export async function allowNotifications() {
  if (!("Notification" in window)) return false;
  if (Notification.permission === "default") await Notification.requestPermission();
  return Notification.permission === "granted";
}
