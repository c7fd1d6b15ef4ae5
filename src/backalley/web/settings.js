// The player's preferences, kept in this browser: the pause after a trick, a lone legal card
// played by itself, sound, a notification on one's turn, and the four-colour deck.
const KEY = "backalley.settings";
const DEFAULTS = { speed: "normal", autoplay: false, sound: true, notify: false, four: false };

/** How long a completed trick rests on the table, by speed: ``null`` waits for a tap. */
export const PAUSES = { slower: 2200, normal: 1200, fast: 600, tap: null };

let current = load();
const listeners = new Set();

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY)) || {};
    if (localStorage.getItem("backalley.four") === "1") saved.four ??= true;  // the old tick
    return { ...DEFAULTS, ...saved };
  } catch {
    return { ...DEFAULTS };
  }
}

export function setting(name) {
  return current[name];
}

export function setSetting(name, value) {
  current = { ...current, [name]: value };
  localStorage.setItem(KEY, JSON.stringify(current));
  for (const listener of listeners) listener(name, value);
}

/** Call ``listener(name, value)`` whenever a setting changes. */
export function onSetting(listener) {
  listeners.add(listener);
}

/** The reader asked their system for less motion: nothing then moves. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
