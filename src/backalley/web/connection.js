// The table's WebSocket: hello with the seat's token (or the watch code), then messages in
// order; on a lost connection it comes back by itself, asks for what it missed (since), and
// sends again what the server had not answered (the same id: the server applies it once).
// An event it already has is dropped; one that skips a version means some were missed: it
// asks for them again, as after a lost connection. A move the server could not store just
// then (it is catching up with its database, or the write failed) is sent again, with its id,
// a few times, waiting longer each time; so is one that reached a table as it moved to
// another server node.
import { CLOSE } from "./protocol.js";

const TRANSIENT = new Set(["recovering", "not_stored", "moved"]);
const TRIES = 6;

export class TableConnection {
  constructor(tableId, credentials, onMessage, onStatus) {
    this.tableId = tableId;
    this.credentials = credentials;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.version = null;
    this.retry = 500;
    this.closed = false;
    this.nextId = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.unanswered = new Map();  // id → message, until its ack or error comes
    this.tries = new Map();  // id → how many times a transient error sent it again
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${this.tableId}`);
    this.socket.onopen = () => {
      const hello = { type: "hello", ...this.credentials };
      if (this.version !== null) hello.since = this.version;
      this.socket.send(JSON.stringify(hello));
      for (const message of this.unanswered.values()) this.socket.send(JSON.stringify(message));
      this.retry = 500;
      this.onStatus("open");
    };
    this.socket.onmessage = (frame) => {
      const message = JSON.parse(frame.data);
      if (message.type === "event" && this.version !== null) {
        if (message.version <= this.version) return;  // had already
        if (message.version > this.version + 1) {  // missed some: asked again
          this.socket.close();
          return;
        }
      }
      if (["state", "resync", "event"].includes(message.type)) this.version = message.version;
      if (message.type === "error" && this.again(message)) return;
      if ((message.type === "ack" || message.type === "error") && message.id) {
        this.unanswered.delete(message.id);
        this.tries.delete(message.id);
      }
      this.onMessage(message);
    };
    this.socket.onclose = (closing) => {
      if (this.closed) return;
      if ([CLOSE.UNAUTHORIZED, CLOSE.NO_TABLE, CLOSE.LEFT].includes(closing.code)) {
        this.onStatus("refused", closing.code);
        return;
      }
      if (closing.code === CLOSE.GUESSING) {  // too many wrong links from this address: wait a while
        this.onStatus("guessing");
        setTimeout(() => this.open(), 30000);
        return;
      }
      this.onStatus("lost");
      setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  /** Whether the move an error answers will be sent again (a transient error, tries left). */
  again(error) {
    const sent = this.unanswered.get(error.id);
    const tries = this.tries.get(error.id) || 0;
    if (!sent || !TRANSIENT.has(error.code) || tries >= TRIES) return false;
    this.tries.set(error.id, tries + 1);
    this.onStatus("retrying");
    setTimeout(() => {
      if (!this.closed && this.unanswered.has(error.id) && this.socket.readyState === WebSocket.OPEN) {
        this.socket.send(JSON.stringify(sent));
      }
    }, 400 * 2 ** tries);
    return true;
  }

  /** Send ``message`` with a fresh id; the id. Without a connection now, a move waits to be
   * sent when it is back (``waiting`` says so) and a chat message is dropped (null). */
  send(message) {
    const open = this.socket.readyState === WebSocket.OPEN;
    if (!open && message.type === "chat") return null;
    const id = `${this.prefix}-${++this.nextId}`;
    const sent = { id, ...message };
    if (message.type !== "chat") this.unanswered.set(id, sent);
    if (open) this.socket.send(JSON.stringify(sent));
    else this.onStatus("waiting");
    return id;
  }

  close() {
    this.closed = true;
    this.socket.close();
  }
}
