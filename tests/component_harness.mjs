// Runs the slider component (lib/tokenpath/widgets/frames.js) in node over a small stand-in
// for the page and for the anywidget model, and prints what it did as JSON, for
// tests/test_component_logic.py. Usage: node component_harness.mjs SCENARIO SPEC.json
//
// The stand-in page has just what the component touches: elements with attributes,
// listeners (bubbling to their parents), a canvas whose context records each image drawn,
// and createImageBitmap, which gives back the text of the PNG bytes it was handed, so the
// test sees which frame is on the canvas. A frame's "PNG" is the text of its state.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [scenario, specPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));

class Element {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.parent = null;
    this.attributes = {};
    this.dataset = {};
    this.listeners = {};
    this.textContent = "";
    this.width = 300;
    this.height = 150;
  }
  appendChild(child) {
    this.children.push(child);
    child.parent = this;
    return child;
  }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }
  addEventListener(type, f) {
    (this.listeners[type] ||= []).push(f);
  }
  dispatchEvent(event) {
    for (let node = this; node; node = node.parent) {
      for (const f of node.listeners[event.type] || []) f(event);
      if (!event.bubbles || event.halted) break;
    }
    return true;
  }
  getContext() {
    this.drawn ||= [];
    return {
      drawImage: (bitmap, x, y) => this.drawn.push([bitmap.text, x, y]),
      clearRect: () => {},
    };
  }
}

globalThis.document = { createElement: (tag) => new Element(tag) };
globalThis.createImageBitmap = async (blob) => ({ text: await blob.text(), width: 10, height: 10, close() {} });

const { default: component } = await import(pathToFileURL(spec.module).href);

// the anywidget model: synced values, custom messages both ways
const values = { controls: spec.controls, index: spec.index, png: new TextEncoder().encode(spec.index.join(",")),
                 caption: "start", budget: 2 ** 24, static: false, frames: null, size: null, keep: true,
                 origin: "kernel", seq: 1 };
const handlers = {};
const sent = [];
const model = {
  get: (name) => values[name],
  on: (event, f) => (handlers[event] ||= []).push(f),
  send: (msg) => sent.push(msg),
};
const fromKernel = (msg, buffers = []) => (handlers["msg:custom"] || []).forEach((f) => f(msg, buffers));

const el = new Element("div");
component.render({ model, el });
const root = el.children[0];
const inputs = [];
(function find(node) {
  if (node.tagName === "INPUT") inputs.push(node);
  node.children.forEach(find);
})(root);
const canvas = root.children.find((c) => c.tagName === "CANVAS");
// let the timers the component left run (its stand-ins for the next frame and idle time)
const settle = async () => {
  for (let i = 0; i < 12; i++) await new Promise((r) => setTimeout(r, 0));
};
const press = (j, key) => {
  const event = { type: "keydown", key, bubbles: true, preventDefault() {}, stopPropagation() { this.halted = true; } };
  inputs[j].dispatchEvent(event);
};
const state = () => root.dataset.state;
const onCanvas = () => (canvas.drawn && canvas.drawn.length ? canvas.drawn[canvas.drawn.length - 1][0] : null);
// answer every prefetch request with a frame for each state asked
const answer = () => {
  for (const msg of sent.splice(0)) {
    if (msg.type !== "prefetch") continue;
    log.asked.push(...msg.indices);
    log.requests.push(msg.indices.length);
    fromKernel({ type: "frames", frames: msg.indices.map((i) => ({ asked: i, index: i, caption: `at ${i}` })), skipped: [] },
               msg.indices.map((i) => new TextEncoder().encode(i.join(","))));
  }
};
const log = { asked: [], requests: [], steps: [] };

if (scenario === "keys") {
  // the reader comes to the widget, the kernel answers every look-ahead, then keys
  root.dispatchEvent({ type: "focusin", bubbles: true });
  for (let round = 0; round < 4; round++) {
    await settle();
    answer();
  }
  for (const [j, key] of spec.keys) {
    sent.length = 0;
    press(j, key);
    const during = sent.map((m) => m.type); // what the key's own event sent
    log.steps.push({ control: j, key, state: state(), canvas: onCanvas(), served: root.dataset.served, sent: during,
                     readouts: root.children[0].children.map((row) => row.children[2].textContent),
                     min: inputs.map((i) => i.min), max: inputs.map((i) => i.max) });
    for (let round = 0; round < 3; round++) {
      await settle();
      answer();
    }
  }
} else if (scenario === "drag") {
  // a pointer drags control j to each position in turn: the input event alone (no frame
  // is held and the kernel does not answer, so each new state is asked for)
  for (const [j, to] of spec.drags) {
    inputs[j].value = String(to);
    inputs[j].dispatchEvent({ type: "input", bubbles: true });
    log.steps.push({ control: j, to, chosen: inputs.map((i) => i.value).join(","), asked: sent.filter((m) => m.type === "want").map((m) => m.index.join(",")) });
    await settle();
  }
}
console.log(JSON.stringify(log));
process.exit(0);
