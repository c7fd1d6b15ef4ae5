// The table's sounds, made in the page with Web Audio (no files): a card laid down, a trick
// taken, a deal, your turn, and the timer's warning. Silent until the first tap or key (the
// browser allows sound only then), and when the player mutes them.
import { setting } from "./settings.js";

let context = null;
let allowed = false;

for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => (allowed = true), { once: true, capture: true });
}

function audio() {
  if (!allowed || !setting("sound")) return null;
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume();
  return context;
}

function tone(ctx, at, frequency, length, { type = "sine", volume = 0.15 } = {}) {
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.001, at + length);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + length);
}

function snap(ctx, at, volume = 0.25) {
  const length = 0.05;
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource();
  const filter = ctx.createBiquadFilter();
  const gain = ctx.createGain();
  source.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = 2400;
  gain.gain.value = volume;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start(at);
}

const SOUNDS = {
  card: (ctx, at) => snap(ctx, at),
  deal: (ctx, at) => { for (let i = 0; i < 6; i++) snap(ctx, at + i * 0.07, 0.18); },
  trick: (ctx, at) => { tone(ctx, at, 660, 0.18); tone(ctx, at + 0.09, 880, 0.25); },
  turn: (ctx, at) => { tone(ctx, at, 523, 0.4, { type: "triangle", volume: 0.2 }); tone(ctx, at + 0.12, 784, 0.5, { type: "triangle", volume: 0.2 }); },
  warn: (ctx, at) => { tone(ctx, at, 440, 0.15, { type: "square", volume: 0.06 }); tone(ctx, at + 0.2, 440, 0.15, { type: "square", volume: 0.06 }); },
};

/** Play ``name`` (card, deal, trick, turn, warn), unless muted. */
export function sound(name) {
  const ctx = audio();
  if (ctx) SOUNDS[name](ctx, ctx.currentTime);
}
