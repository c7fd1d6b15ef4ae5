// A deal's double-dummy review as the table and the replay show it: each player's mistakes
// and the tricks they gave away, then every costly card with the better ones.
import { cardLabel } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";

/** The review's lines; ``nameOf(seat)`` names a seat, ``sideName(side)`` a side, if given. */
export function reviewNodes(review, nameOf, sideName = null) {
  const nodes = [];
  const list = element("ul", { class: "mistakes" });
  if (!review.reviewed) {
    list.append(element("li", { text: t("This deal was not played out: nothing to review.") }));
    return [list];
  }
  if (review.double_dummy && sideName) {
    const sides = review.taken.map((taken, side) => t("{side}: tricks taken {taken}, with best play {best}", { side: sideName(side), taken, best: review.double_dummy[side] }));
    nodes.push(element("p", { text: sides.join(" · ") }));
  }
  const players = element("ul", { class: "players" });
  review.mistakes.forEach((count, seat) => {
    players.append(element("li", { text: t("{name}: mistakes {count}, tricks given away {lost}", { name: nameOf(seat), count, lost: review.given_away[seat] }) }));
  });
  nodes.push(players);
  for (const card of review.cards) {
    if (card.cost <= 0) continue;
    list.append(element("li", { text: t("{name}, trick {trick}: {card} gave away {cost}; better {better}", {
      name: nameOf(card.seat), trick: card.trick + 1, card: cardLabel(card.card), cost: card.cost, better: card.better.map(cardLabel).join(", "),
    }) }));
  }
  if (!list.children.length) list.append(element("li", { text: t("No card gave a trick away.") }));
  nodes.push(list);
  return nodes;
}
