// The HTTP API (docs/protocol.md) and what this browser remembers of its tables.
import { language } from "./i18n.js";

export async function call(method, path, body, token) {
  const headers = { "content-type": "application/json", "accept-language": language() };
  if (token) headers.authorization = `Bearer ${token}`;
  const answer = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.message || answer.statusText);
  return data;
}

let facts = null;

/** What the server offers (GET /api: presets, options, bot levels), asked once a page load. */
export function about() {
  facts ??= call("GET", "/api").catch((error) => {
    facts = null;  // asked again next time
    throw error;
  });
  return facts;
}

const KEY = "backalley.tables";

/** Tables this browser sits at or hosts: {id: {seat, token, name, host, invites, watch}}. */
export function remembered() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

export function remember(tableId, facts) {
  const all = remembered();
  all[tableId] = { ...(all[tableId] || {}), ...facts, at: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(all));
  return all[tableId];
}

/** This browser no longer sits at ``tableId`` (its player left it). */
export function forget(tableId) {
  const all = remembered();
  delete all[tableId];
  localStorage.setItem(KEY, JSON.stringify(all));
}
