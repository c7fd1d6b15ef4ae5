// How a table plays, in one line: for its join page, its waiting room and info, and the lobby.
import { t } from "./i18n.js";

/** A house rule as a player reads it: the home page's own in words, the rest by name (as the
 * form's options name them). */
function optionWords(key, value) {
  if (key === "all_pass_limit" && value !== null) return t("after {n} throw-ins in a row, a deal everyone passes is played", { n: value });
  return `${key}: ${JSON.stringify(value)}`;
}

/** Who sits where and what is played, for a join page or the lobby: "standard · 3, 2, 1". */
export function rulesLine(table) {
  const options = Object.entries(table.options || {}).filter(([key]) => key !== "hand_sizes");
  const parts = [table.rules, t("deals of {sizes} cards", { sizes: table.hand_sizes.join(", ") })];
  for (const [key, value] of options) parts.push(optionWords(key, value));
  if (table.turn_timer) parts.push(t("turn timer {n} s", { n: table.turn_timer }));
  return parts.join(" · ");
}
