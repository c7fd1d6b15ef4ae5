// Building the page's elements: element("li", {class: "seat", text: "Ana"}, child, …), and the
// few pieces every page shares.
import { t } from "./i18n.js";

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

let hiding = null;

/** A short message at the foot of the page, gone after five seconds. */
export function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(hiding);
  hiding = setTimeout(() => (box.hidden = true), 5000);
}

const NAME = "backalley.name";

/** The "your name" field, filled with the name last used in this browser. */
export function nameField(account = null) {
  const input = element("input", { name: "name", required: "", maxlength: "24", autocomplete: "nickname" });
  input.value = localStorage.getItem(NAME) || "";
  const label = element("label", { class: "field" }, element("span", { text: t("Your name") }), input);
  if (account) {  // signed in: a seat is taken under the account's name
    input.value = account.name;
    input.readOnly = true;
    label.append(element("small", { text: t("signed in: you play under your account's name") }));
  }
  return { label, input };
}

/** Keep ``name`` for the next form; the name as sent. */
export function keepName(name) {
  const trimmed = name.trim();
  localStorage.setItem(NAME, trimmed);
  return trimmed;
}
