// The table's WebSocket: hello with the seat's token (or the watch code), then messages in
// order; on a lost connection it comes back by itself, asks for what it missed (since), and
// sends again what the server had not answered (the same id: the server applies it once).
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
      if (["state", "resync", "event"].includes(message.type)) this.version = message.version;
      if ((message.type === "ack" || message.type === "error") && message.id) this.unanswered.delete(message.id);
      this.onMessage(message);
    };
    this.socket.onclose = (closing) => {
      if (this.closed) return;
      if ([4401, 4404, 4410].includes(closing.code)) {
        this.onStatus("refused", closing.code);
        return;
      }
      this.onStatus("lost");
      setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  /** Send ``message`` with a fresh id; the id, or null when there is no connection now. */
  send(message) {
    if (this.socket.readyState !== WebSocket.OPEN) return null;
    const id = `${this.prefix}-${++this.nextId}`;
    const sent = { id, ...message };
    if (message.type !== "chat") this.unanswered.set(id, sent);
    this.socket.send(JSON.stringify(sent));
    return id;
  }

  close() {
    this.closed = true;
    this.socket.close();
  }
}
