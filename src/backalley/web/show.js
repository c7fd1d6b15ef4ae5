// Between the server's messages and the screen: each waits its turn to be shown, so that a
// card moves, a finished trick rests, and then the next thing happens — while the server and
// the bots never wait for the page. A tap (skip) ends the pause under way.
export class ShowQueue {
  /** ``show(item)`` shows one item and resolves when it is done. */
  constructor(show) {
    this.show = show;
    this.items = [];
    this.running = false;
    this.wake = null;
    this.stopped = false;
  }

  /** How many items wait: a long queue is shown without pauses, to catch up. */
  get backlog() {
    return this.items.length;
  }

  push(item) {
    if (this.stopped) return;
    this.items.push(item);
    if (!this.running) this.run();
  }

  async run() {
    this.running = true;
    while (this.items.length && !this.stopped) {
      const item = this.items.shift();
      try {
        await this.show(item);
      } catch (error) {
        console.warn("could not show", item, error);
      }
    }
    this.running = false;
  }

  /** Wait ``ms`` milliseconds, or with ``null`` until skip(); skip() ends it early. */
  pause(ms) {
    return new Promise((resolve) => {
      let timer = null;
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;  // a later pause is not this one's to end
        resolve();
      };
      this.wake = done;
      if (ms !== null) timer = setTimeout(done, ms);
    });
  }

  /** Whether a pause is under way (a tap then skips it). */
  get pausing() {
    return this.wake !== null;
  }

  skip() {
    if (this.wake) this.wake();
  }

  /** Drop what waits and end the pause: ``item`` (a whole new state) is shown next. */
  replace(item) {
    if (this.stopped) return;
    this.items = [item];
    this.skip();
    if (!this.running) this.run();
  }

  /** Show nothing more: the page is left. */
  stop() {
    this.stopped = true;
    this.items = [];
    this.skip();
  }
}
