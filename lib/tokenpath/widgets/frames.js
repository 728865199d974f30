// A slider figure in the browser: range inputs, the image of the current state and its
// caption, with the frames it has been given held by state (tokenpath/widgets/view.py
// describes the messages). A move to a held state swaps the image at once; otherwise
// the kernel is asked, and while nothing is pending the neighbours of the current state
// are asked for one at a time. The same module runs in the HTML edition over a model
// that holds every frame from the start and has no kernel behind it.

const key = (index) => index.join(",");

function element(tag, className, parent) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (parent) parent.appendChild(el);
  return el;
}

let counter = 0;

function render({ model, el }) {
  const controls = model.get("controls");
  const budget = model.get("budget");
  const live = !model.get("static"); // a kernel answers (not so in the HTML edition)
  const root = element("div", "tp-frames", el);
  const id = `tp-frames-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const rows = element("div", "tp-frames-controls", root);
  // keys pressed on the controls are theirs, not JupyterLab's shortcuts
  rows.setAttribute("data-lm-suppress-shortcuts", "true");
  const inputs = [];
  const outputs = [];
  controls.forEach((c, j) => {
    const row = element("div", "tp-frames-row", rows);
    const label = element("label", "tp-frames-label", row);
    label.htmlFor = `${id}-${j}`;
    label.textContent = c.label;
    const input = element("input", "tp-frames-input", row);
    input.type = "range";
    input.id = `${id}-${j}`;
    input.min = "0";
    input.max = String(c.readouts.length - 1);
    input.step = "1";
    const output = element("output", "tp-frames-readout", row);
    output.htmlFor = input.id;
    inputs.push(input);
    outputs.push(output);
  });
  const image = element("img", "tp-frames-image", root);
  const caption = element("p", "tp-frames-caption", root);
  caption.setAttribute("aria-live", "polite");

  // ------------------------------------------------------------ frames held
  const held = new Map(); // key -> {url, caption, bytes}; oldest first
  const refused = new Set(); // states the kernel will not draw ahead
  let heldBytes = 0;
  let shown = null; // the key of the image on screen

  // a frame: PNG bytes (from the kernel) or the address of an image (the HTML edition)
  // Each is loaded and decoded as it arrives, so showing it later costs no fetch or decode.
  function frameOf(source, text) {
    const frame = typeof source === "string"
      ? { url: source, caption: text, bytes: 0, own: false }
      : (() => {
          const blob = new Blob([source], { type: "image/png" });
          return { url: URL.createObjectURL(blob), caption: text, bytes: blob.size, own: true };
        })();
    frame.ready = new Image();
    frame.ready.src = frame.url;
    frame.ready.decode().catch(() => {});
    return frame;
  }

  function drop(frame) {
    frame.ready = null;
    if (frame.own) URL.revokeObjectURL(frame.url);
  }

  function hold(k, source, text) {
    if (held.has(k)) {
      touch(k);
      return;
    }
    const frame = frameOf(source, text);
    held.set(k, frame);
    heldBytes += frame.bytes;
    for (const [old, f] of held) {
      if (heldBytes <= budget || held.size <= 1) break;
      if (old === shown || old === k) continue;
      if (onScreen === f) continue;
      drop(f);
      held.delete(old);
      heldBytes -= f.bytes;
    }
  }

  function touch(k) {
    const frame = held.get(k);
    if (frame) {
      held.delete(k);
      held.set(k, frame);
    }
  }

  // ------------------------------------------------------------ the controls
  let current = model.get("index").slice(); // the state the reader chose

  function clamp(index) {
    const out = index.slice();
    controls.forEach((c, j) => {
      if (!c.limits) return;
      const range = c.limits.table[key(c.limits.others.map((i) => out[i]))];
      if (range) out[j] = Math.min(Math.max(out[j], range[0]), range[1]);
    });
    return out;
  }

  function showControls(index) {
    controls.forEach((c, j) => {
      const input = inputs[j];
      if (c.limits) {
        const range = c.limits.table[key(c.limits.others.map((i) => index[i]))];
        if (range) {
          input.min = String(range[0]);
          input.max = String(range[1]);
        }
      }
      input.value = String(index[j]);
      const text = c.readouts[index[j]];
      outputs[j].textContent = text;
      input.setAttribute("aria-valuetext", `${c.label} = ${text}`);
    });
  }

  let onScreen = null; // the frame on screen
  let loose = null; // a frame on screen that is not held (a state the engine refuses)

  function display(k, frame) {
    shown = k;
    onScreen = frame;
    root.dataset.state = k;
    if (image.src !== frame.url) image.src = frame.url;
    image.alt = frame.caption;
    caption.textContent = frame.caption;
    if (loose && loose !== frame) {
      drop(loose);
      loose = null;
    }
  }

  function show(k) {
    const frame = held.get(k);
    if (!frame) return false;
    touch(k);
    display(k, frame);
    return true;
  }

  // ------------------------------------------------------------ the kernel
  let wanted = null; // a state the reader waits for
  let asking = null; // the state of the request in flight, if any
  let prefetching = null; // the state of the prefetch in flight, if any
  let told = key(model.get("index")); // the state the kernel has
  let rest = null;

  function ask() {
    if (wanted === null || asking === wanted || prefetching === wanted) return;
    if (asking !== null) return; // the answer to the last request comes first
    asking = wanted;
    model.send({ type: "want", index: wanted.split(",").map(Number) });
  }

  function neighbours() {
    const order = [];
    const add = (index) => {
      const k = key(clamp(index));
      if (!order.includes(k)) order.push(k);
    };
    const around = (reach) => {
      for (let d = 1; d <= reach; d++) {
        const js = controls.map((_, j) => j).sort((a, b) => (b === lastControl) - (a === lastControl));
        for (const j of js) {
          for (const sign of [lastDirection, -lastDirection]) {
            const index = current.slice();
            index[j] += sign * d;
            if (index[j] >= 0 && index[j] < controls[j].readouts.length) add(index);
          }
        }
        if (d === 1) {
          controls.forEach((c, j) => {
            for (const end of [0, c.readouts.length - 1]) {
              const index = current.slice();
              index[j] = end;
              add(index);
            }
          });
        }
      }
    };
    around(6);
    return order;
  }

  function prefetch() {
    if (globalThis.tokenpathPrefetch === false) return; // a page may switch it off (the latency benchmark does)
    if (!engaged || !live || asking !== null || prefetching !== null || wanted !== null) return;
    let n = 0;
    for (const k of neighbours()) {
      n += 1;
      if (held.has(k) || refused.has(k)) continue;
      // the nearest ring always; farther ones while the budget has room
      if (n > 4 * controls.length && heldBytes > 0.8 * budget) return;
      prefetching = k;
      model.send({ type: "prefetch", index: k.split(",").map(Number) });
      return;
    }
  }

  function tellKernel() {
    clearTimeout(rest);
    rest = setTimeout(() => {
      if (!live || asking !== null || shown === null || shown !== key(current) || shown === told) return;
      told = shown;
      model.send({ type: "shown", index: current.slice() });
    }, 250);
  }

  // the kernel's state changed: the answer to a request, or code moved the widget
  function fromKernel() {
    const k = key(model.get("index"));
    const origin = model.get("origin");
    told = k;
    if (model.get("keep")) hold(k, model.get("png"), model.get("caption"));
    if (asking === k || origin === "want") asking = null;
    if (origin === "kernel" || wanted === k) {
      if (origin === "kernel") current = model.get("index").slice();
      showControls(current);
      if (!show(k)) {
        loose = frameOf(model.get("png"), model.get("caption"));
        display(k, loose);
      }
      if (wanted === k) wanted = null;
    }
    settle();
  }

  // after every event: the reader's request first, then a neighbour, then the kernel told
  function settle() {
    ask();
    prefetch();
    if (shown !== null && shown !== told) tellKernel();
  }

  model.on("change:seq", fromKernel);
  model.on("msg:custom", (msg, buffers) => {
    const asked = key(msg.asked || []);
    if (msg.type === "frame") {
      prefetching = null; // one prefetch at a time: this answers it
      const k = key(msg.index);
      hold(k, buffers[0], msg.caption);
      if (wanted === k || wanted === asked) {
        show(k);
        wanted = null;
      }
    } else if (msg.type === "skip") {
      if (msg.for === "prefetch") {
        prefetching = null;
        refused.add(asked);
      } else if (asking === asked) {
        asking = null;
        if (wanted === asked) wanted = null;
      }
    }
    settle();
  });

  let lastControl = 0;
  let lastDirection = 1;
  // The keys of a range input, handled here: in JupyterLab the page's own shortcuts
  // would otherwise take the arrow keys away from a focused input.
  const keys = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 };
  inputs.forEach((input) => {
    input.addEventListener("keydown", (event) => {
      const low = Number(input.min);
      const high = Number(input.max);
      const page = Math.max(1, Math.round((high - low) / 10));
      const now = Number(input.value);
      let to;
      if (event.key in keys) to = now + keys[event.key];
      else if (event.key === "PageUp") to = now + page;
      else if (event.key === "PageDown") to = now - page;
      else if (event.key === "Home") to = low;
      else if (event.key === "End") to = high;
      else return;
      event.preventDefault();
      event.stopPropagation();
      to = Math.min(Math.max(to, low), high);
      if (to !== now) {
        input.value = String(to);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
  });

  inputs.forEach((input, j) => {
    input.addEventListener("input", () => {
      const index = current.slice();
      const to = Number(input.value);
      if (to === index[j]) return;
      lastDirection = to > index[j] ? 1 : -1;
      lastControl = j;
      index[j] = to;
      current = clamp(index);
      showControls(current);
      const k = key(current);
      root.dataset.served = held.has(k) ? "held" : "kernel";
      if (show(k)) {
        wanted = null;
      } else if (live) {
        wanted = k;
      }
      settle();
    });
  });

  // Neighbours are asked for once the reader comes to this widget (a pointer over it, or
  // focus in it), not while a notebook's cells are still running.
  let engaged = false;
  const engage = () => {
    if (engaged) return;
    engaged = true;
    settle();
  };
  root.addEventListener("focusin", engage);
  root.addEventListener("pointerenter", engage);

  // drop every held frame but the one shown (the latency benchmark times first visits)
  root.tpForget = () => {
    for (const [k, frame] of held) {
      if (k === shown) continue;
      drop(frame);
      held.delete(k);
      heldBytes -= frame.bytes;
    }
  };

  // the first frame: the kernel's current state
  hold(key(model.get("index")), model.get("png"), model.get("caption"));
  showControls(current);
  show(key(current));
  // frames the model holds from the start (the HTML edition: every frame)
  const given = model.get("frames");
  if (given) for (const [k, frame] of Object.entries(given)) if (!held.has(k)) hold(k, frame.src, frame.caption);
  prefetch();

  return () => {
    clearTimeout(rest);
    for (const frame of held.values()) drop(frame);
    if (loose) drop(loose);
    held.clear();
  };
}

export default { render };
