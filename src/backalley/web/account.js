// The account page: sign in or sign up; once signed in, the account's profile link, the guest
// seats of this browser to add to it, a new password, signing out (here or everywhere) and
// deleting the account. Playing needs none of it: a guest plays by link.
import { call, me, remembered, setMe } from "./api.js";
import { element, toast } from "./dom.js";
import { t } from "./i18n.js";

function input(name, label, attributes) {
  const box = element("input", { name, required: "", ...attributes });
  return element("label", { class: "field" }, element("span", { text: label }), box);
}

function form(title, fields, button, send, kind = "primary") {
  const id = `form-${Math.random().toString(36).slice(2, 8)}`;
  const node = element("form", { class: "panel account-form", "aria-labelledby": id },
    element("h2", { id, text: title }), ...fields);
  const submit = element("button", { type: "submit", class: kind, text: button });
  const said = element("p", { class: "form-error", role: "alert" });
  node.append(said, submit);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    said.textContent = "";
    try {
      await send(Object.fromEntries(new FormData(node).entries()), node);
    } catch (error) {
      said.textContent = error.message;
    }
    submit.disabled = false;
  });
  return node;
}

/** Draw the account page. */
export async function renderAccount(main, go) {
  const { account } = await me();
  if (!account) {
    const signIn = form(t("Sign in"), [
      input("name", t("Name"), { autocomplete: "username", maxlength: "24" }),
      input("password", t("Password"), { type: "password", autocomplete: "current-password" }),
    ], t("Sign in"), async (data) => {
      setMe(await call("POST", "/api/account/signin", data));
      go("/account");
    });
    const signUp = form(t("New account"), [
      input("name", t("Name"), { autocomplete: "username", maxlength: "24" }),
      input("password", t("Password"), { type: "password", autocomplete: "new-password", minlength: "8" }),
    ], t("Make my account"), async (data) => {
      setMe(await call("POST", "/api/account/signup", data));
      go("/account");
    });
    const why = element("p", { class: "quiet", text: t("An account keeps your games on every device, and gives you a rating. You can play without one: as a guest, by link.") });
    main.replaceChildren(element("div", { class: "account-page" }, element("h1", { text: t("Your account") }), why,
      element("div", { class: "two" }, signIn, signUp)));
    return null;
  }
  const head = element("section", { class: "panel" },
    element("h1", { text: t("Signed in as {name}", { name: account.name }) }),
    element("p", {}, element("a", { href: `/players/${account.id}`, text: t("your profile, games and rating") })));
  const guests = Object.entries(remembered()).filter(([, mine]) => mine.token);
  if (guests.length) {
    const add = element("button", { type: "button", class: "primary", text: t("Add this browser's {n} games to my account", { n: guests.length }) });
    add.addEventListener("click", async () => {
      add.disabled = true;
      try {
        const seats = guests.map(([table, mine]) => ({ table, token: mine.token }));
        const answer = await call("POST", "/api/account/claim", { seats });
        toast(t("{n} games added to your account", { n: answer.claimed.length }));
      } catch (error) {
        toast(error.message);
      }
      add.disabled = false;
    });
    head.append(element("p", {}, add));
  }
  const out = element("button", { type: "button", text: t("Sign out") });
  out.addEventListener("click", async () => {
    setMe(await call("POST", "/api/account/signout", {}));
    go("/");
  });
  const everywhere = element("button", { type: "button", text: t("Sign out everywhere") });
  everywhere.addEventListener("click", async () => {
    setMe(await call("POST", "/api/account/signout-everywhere", {}));
    go("/");
  });
  head.append(element("p", { class: "buttons" }, out, " ", everywhere));
  const password = form(t("New password"), [
    input("password", t("Password now"), { type: "password", autocomplete: "current-password" }),
    input("new_password", t("New password"), { type: "password", autocomplete: "new-password", minlength: "8" }),
  ], t("Change the password"), async (data, node) => {
    await call("POST", "/api/account/password", data);
    node.reset();
    toast(t("Password changed: your other devices are signed out"));
  });
  const remove = form(t("Delete the account"), [
    element("p", { class: "quiet", text: t("Your games stay, under the name “Former player”; your name, password and rating go. A game you are playing goes on with a bot in your seat.") }),
    input("password", t("Password"), { type: "password", autocomplete: "current-password" }),
  ], t("Delete my account"), async (data) => {
    if (!window.confirm(t("Delete the account {name} for good?", { name: account.name }))) return;
    setMe(await call("POST", "/api/account/delete", data));
    go("/");
  }, "danger");
  main.replaceChildren(element("div", { class: "account-page" }, head, element("div", { class: "two" }, password, remove)));
  return null;
}
