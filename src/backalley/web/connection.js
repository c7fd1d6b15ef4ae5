// The table's WebSocket: hello with the seat's token (or the watch code), then messages in
// order; on a lost connection it comes back by itself and asks for what it missed (since).
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
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${this.tableId}`);
    this.socket.onopen = () => {
      const hello = { type: "hello", ...this.credentials };
      if (this.version !== null) hello.since = this.version;
      this.socket.send(JSON.stringify(hello));
      this.retry = 500;
      this.onStatus("open");
    };
    this.socket.onmessage = (frame) => {
      const message = JSON.parse(frame.data);
      if (["state", "resync", "event"].includes(message.type)) this.version = message.version;
      this.onMessage(message);
    };
    this.socket.onclose = (closing) => {
      if (this.closed) return;
      if (closing.code === 4401 || closing.code === 4404) {
        this.onStatus("refused", closing.code);
        return;
      }
      this.onStatus("lost");
      setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  send(message) {
    if (this.socket.readyState !== WebSocket.OPEN) return null;
    const id = `${this.prefix}-${++this.nextId}`;
    this.socket.send(JSON.stringify({ id, ...message }));
    return id;
  }

  close() {
    this.closed = true;
    this.socket.close();
  }
}
