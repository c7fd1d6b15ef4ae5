// A deal's double-dummy review as the table and the replay show it: a line a side (its
// contract, the tricks it took and what best play would have taken), each player's mistakes
// and the tricks they gave away, then every costly card with the better ones.
import { bidLabel, cardText } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";

/** The review's lines; ``nameOf(seat)`` names a seat, ``sideName(side)`` a side; ``deal``
 * (the deal's summary in the view's history) gives the contracts, if known. */
export function reviewNodes(review, nameOf, sideName = null, deal = null) {
  if (!review.reviewed) return [element("p", { text: t("This deal was not played out: nothing to review.") })];
  const nodes = [];
  if (review.double_dummy) {
    const sides = element("ul", { class: "review-sides" });
    review.taken.forEach((taken, side) => {
      const who = sideName ? sideName(side) : t("side {n}", { n: side + 1 });
      const contract = deal ? bidLabel(deal.contracts[side]) : "–";
      sides.append(element("li", {}, element("strong", { text: who }),
        ` ${t("bid {contract}, took {taken}, best play {best}", { contract, taken, best: review.double_dummy[side] })}`));
    });
    nodes.push(sides);
  }
  const players = element("ul", { class: "players" });
  review.mistakes.forEach((count, seat) => {
    players.append(element("li", { text: t("{name}: mistakes {count}, tricks given away {lost}", { name: nameOf(seat), count, lost: review.given_away[seat] }) }));
  });
  nodes.push(players);
  const list = element("ul", { class: "mistakes" });
  for (const card of review.cards) {
    if (card.cost <= 0) continue;
    list.append(element("li", { text: t("{name}, trick {trick}: {card} gave away {cost}; better {better}", {
      name: nameOf(card.seat), trick: card.trick + 1, card: cardText(card.card), cost: card.cost, better: card.better.map(cardText).join(", "),
    }) }));
  }
  if (!list.children.length) list.append(element("li", { text: t("No card gave a trick away.") }));
  nodes.push(list);
  return nodes;
}
