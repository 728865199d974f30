// A slider figure in the browser: range inputs, the image of the current state and its
// caption, with the frames it has been given held by state (tokenpath/widgets/view.py
// describes the messages). A move to a held state swaps the image at once; otherwise
// the kernel is asked, and while nothing is pending the nearest neighbours of the current
// state are asked for, several in one request (each message the kernel answers costs the
// page its handling and a kernel status shown busy, then idle). The same module runs in
// the HTML edition over a model that holds every frame from the start and has no kernel
// behind it (`static`), where a frame may be a base image with strips laid over it at
// given pixel offsets (`patches`).
//
// The image is a <canvas> (role "img", the caption as its accessible name). Each held
// frame near the current state is kept decoded as an ImageBitmap (decoded off the main
// thread as it arrives, within DECODED bytes of pixels), so a swap is one drawImage per
// layer, done in the key's own event (under 1 ms in JupyterLab). An <img> given a held
// frame's address waited for its load task first (about 8 ms for a 700 × 711 frame).
//
// A key does only what the next display frame shows: the readouts, the image and the
// caption. The rest (decoding the new neighbours, releasing far ones, asking the kernel
// for the next neighbours) waits until that frame is drawn and the page is idle: done in
// the key's event it took 2-6 ms there and pushed the frame back (measured in JupyterLab).
//
// A control whose positions depend on the others (k ≤ E, or Hkv among the divisors of Hq)
// comes with a table of the positions it may take; the keys step from one to the next, and
// a drag or another control's move lands on the nearest, so no refused state is asked for.

const key = (index) => index.join(",");

// Most bytes of decoded pixels (4 a pixel) one widget keeps ready to draw.
const DECODED = 64 * 2 ** 20;
// Most states one prefetch request asks for (the kernel draws them for at most about
// 0.1 s, PREFETCH_SECONDS in slider.py, and answers those it drew).
const PER_REQUEST = 8;
// How many steps ahead the neighbours are asked for along each control but the one moved
// last; along that one, every position, nearest first, while the budget has room (so a
// drag along it after a rest finds its frames held).
const NEAR = 2;

function element(tag, className, parent) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (parent) parent.appendChild(el);
  return el;
}

// One image a frame is drawn from: PNG bytes from the kernel, or the address of an image
// file (the HTML edition; a strip may be shared by many frames). `decode()` gives its
// ImageBitmap, decoded once and kept until `release()`.
class Picture {
  constructor(source) {
    this.source = typeof source === "string" ? source : new Blob([source], { type: "image/png" });
    this.bytes = typeof source === "string" ? 0 : this.source.size;
    this.bitmap = null;
    this.pending = null;
  }

  decode() {
    if (this.bitmap || this.pending) return this.pending || Promise.resolve(this.bitmap);
    const options = { colorSpaceConversion: "none" };
    const decoding = typeof this.source === "string"
      ? (() => {
          // a file: (the edition from disk) cannot be fetched; an <img> can load it
          const im = new Image();
          im.src = this.source;
          return im.decode().then(() => createImageBitmap(im, options));
        })()
      : createImageBitmap(this.source, options);
    this.pending = decoding.then((bitmap) => {
      this.pending = null;
      if (this.dropped) {
        bitmap.close();
        return null;
      }
      this.bitmap = bitmap;
      return bitmap;
    }, () => {
      this.pending = null;
      return null;
    });
    return this.pending;
  }

  get decoded() {
    return this.bitmap ? 4 * this.bitmap.width * this.bitmap.height : 0;
  }

  release() {
    if (this.bitmap) this.bitmap.close();
    this.bitmap = null;
  }

  drop() {
    this.dropped = true;
    this.release();
  }
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
  const image = element("canvas", "tp-frames-image", root);
  image.setAttribute("role", "img");
  const size = model.get("size"); // the frames' size when known ahead (the HTML edition)
  if (size) [image.width, image.height] = size;
  const pen = image.getContext("2d");
  const caption = element("p", "tp-frames-caption", root);
  caption.setAttribute("aria-live", "polite");

  // ------------------------------------------------------------ frames held
  const held = new Map(); // key -> frame; oldest first
  const refused = new Set(); // states the kernel will not draw ahead
  const files = new Map(); // address -> Picture (the edition's files, shared by frames)
  let heldBytes = 0;
  let shown = null; // the key of the image on screen

  // a frame: PNG bytes (from the kernel), or the address of an image with strips
  // [[address, x, y], ...] laid over it (the HTML edition)
  function frameOf(source, text, patches) {
    const picture = (s) => {
      if (typeof s !== "string") return new Picture(s);
      if (!files.has(s)) files.set(s, new Picture(s));
      return files.get(s);
    };
    const layers = [{ picture: picture(source), x: 0, y: 0 }];
    for (const [s, x, y] of patches || []) layers.push({ picture: picture(s), x, y });
    return { layers, caption: text, bytes: layers[0].picture.bytes };
  }

  function drop(frame) {
    // a file's picture may serve other frames: only the kernel's own bytes go
    for (const { picture } of frame.layers) if (typeof picture.source !== "string") picture.drop();
  }

  function hold(k, source, text, patches) {
    if (held.has(k)) {
      touch(k);
      return;
    }
    const frame = frameOf(source, text, patches);
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

  // Keep decoded the frames the reader is likeliest to show next: the one shown, then
  // (once the reader came to this widget) the neighbours in the order they are asked
  // for, within DECODED bytes; release the rest. Starting a decode (0.3-0.7 ms) and
  // releasing a bitmap (about 0.2 ms) are done a few at a time, while the page is idle
  // (`deadline`, from requestIdleCallback), so a key is never kept waiting behind them.
  let chores = []; // what the last plan left to do: [picture, "decode" | "release"]
  function warm(deadline) {
    const keep = new Set();
    const todo = [];
    let bytes = 0;
    let guess = 0; // the size of a decoded frame, once one is known
    const order = shown === null ? [] : engaged ? [shown, ...neighbours()] : [shown];
    for (const k of order) {
      const frame = k === shown ? onScreen : held.get(k);
      if (!frame) continue;
      for (const { picture } of frame.layers) {
        if (keep.has(picture)) continue;
        keep.add(picture);
        if (picture.decoded) guess = Math.max(guess, picture.decoded);
        bytes += picture.decoded || guess;
        if (!picture.bitmap && !picture.pending) todo.push([picture, "decode"]);
      }
      if (bytes > DECODED) break;
    }
    const gone = [];
    for (const frame of [...held.values(), ...files.values()]) {
      for (const picture of frame.layers ? frame.layers.map((l) => l.picture) : [frame]) {
        if (!keep.has(picture) && picture.bitmap) gone.push([picture, "release"]);
      }
    }
    chores = [...gone, ...todo]; // memory back first, then the nearest frames first
    doChores(deadline);
  }

  function doChores(deadline) {
    if (closed) return;
    let done = 0;
    while (chores.length) {
      if (done > 0 && !(deadline && deadline.timeRemaining() > 2)) {
        whenIdle(doChores);
        return;
      }
      const [picture, what] = chores.shift();
      if (what === "decode") picture.decode();
      else if (!onScreen || !onScreen.layers.some((l) => l.picture === picture)) picture.release();
      done += 1;
    }
  }

  // ------------------------------------------------------------ the controls
  let current = model.get("index").slice(); // the state the reader chose

  // the positions control j may take with the others at `index` (null: all of them)
  function allowedAt(j, index) {
    const c = controls[j];
    if (!c.limits) return null;
    return c.limits.table[key(c.limits.others.map((i) => index[i]))] || null;
  }

  // the positions control j offers with the others at `index`, in order
  function offered(j, index) {
    return allowedAt(j, index) || controls[j].readouts.map((_, p) => p);
  }

  // `index` with every dependent control on a position it may take: the control the
  // reader just moved (`moved`, upward when `up`) on the next one its way, the others on
  // the nearest (the lower of two as near), as the kernel's Controls do
  function clamp(index, moved = -1, up = false) {
    const out = index.slice();
    controls.forEach((c, j) => {
      const allowed = allowedAt(j, out);
      if (!allowed || allowed.includes(out[j])) return;
      const ahead = up ? allowed.filter((p) => p > out[j]) : allowed.filter((p) => p < out[j]).reverse();
      if (j === moved && ahead.length) {
        out[j] = ahead[0];
      } else {
        out[j] = allowed.reduce((best, p) => (Math.abs(p - out[j]) < Math.abs(best - out[j]) ? p : best));
      }
    });
    return out;
  }

  // what the controls last showed, so a step writes only what changed
  const written = controls.map(() => ({ min: null, max: null, value: null }));

  function showControls(index) {
    controls.forEach((c, j) => {
      const input = inputs[j];
      const was = written[j];
      const steps = offered(j, index);
      const low = steps[0];
      const high = steps[steps.length - 1];
      if (was.min !== low || was.max !== high) {
        input.min = String(low);
        input.max = String(high);
        was.min = low;
        was.max = high;
      }
      if (input.value !== String(index[j])) input.value = String(index[j]);
      if (was.value === index[j]) return;
      was.value = index[j];
      const text = c.readouts[index[j]];
      outputs[j].textContent = text;
      input.setAttribute("aria-valuetext", `${c.label} = ${text}`);
    });
  }

  let onScreen = null; // the frame on screen
  let loose = null; // a frame on screen that is not held (a state the engine refuses)

  // draw a decoded frame: its base, then its strips
  function draw(k, frame) {
    const [base, ...strips] = frame.layers.map((l) => l.picture.bitmap);
    if (image.width !== base.width || image.height !== base.height) {
      image.width = base.width;
      image.height = base.height;
    } else {
      pen.clearRect(0, 0, image.width, image.height);
    }
    pen.drawImage(base, 0, 0);
    strips.forEach((strip, i) => pen.drawImage(strip, frame.layers[i + 1].x, frame.layers[i + 1].y));
    root.dataset.drawn = k;
    root.dispatchEvent(new CustomEvent("tp-drawn", { detail: { state: k } }));
  }

  function display(k, frame) {
    shown = k;
    onScreen = frame;
    root.dataset.state = k;
    image.setAttribute("aria-label", frame.caption);
    caption.textContent = frame.caption;
    if (frame.layers.every((l) => l.picture.bitmap)) {
      draw(k, frame);
    } else {
      Promise.all(frame.layers.map((l) => l.picture.decode())).then((bitmaps) => {
        if (onScreen === frame && bitmaps.every(Boolean)) draw(k, frame);
      });
    }
    if (loose && loose !== frame) {
      drop(loose);
      loose = null;
    }
    later();
  }

  // Once the next display frame is drawn and the page is idle: keep the right frames
  // decoded and (`ask`) go on asking the kernel. Calls before it runs are merged.
  let warming = false;
  let askLater = false;
  let closed = false; // the widget is gone
  const nextFrame = globalThis.requestAnimationFrame || ((f) => setTimeout(f, 0));
  const whenIdle = globalThis.requestIdleCallback
    ? (f) => globalThis.requestIdleCallback(f, { timeout: 100 })
    : (f) => setTimeout(f, 0);
  function later(ask = false) {
    askLater = askLater || ask;
    if (warming) return;
    warming = true;
    nextFrame(() => whenIdle((deadline) => {
      warming = false;
      if (closed) return;
      warm(deadline);
      if (askLater) {
        askLater = false;
        settle();
      }
    }));
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
  let prefetching = null; // the states of the prefetch in flight, if any (a Set)
  let told = key(model.get("index")); // the state the kernel has
  let rest = null;

  function ask() {
    if (wanted === null || asking === wanted || (prefetching && prefetching.has(wanted))) return;
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
    // the whole way along the control the reader moved last, two steps along each other
    // one: a step changes the state every other control's neighbours hang on, so looking
    // far along all of them kept the kernel (and the page, handling its answers) busy
    const reach = (j) => (j === lastControl ? controls[j].readouts.length : NEAR);
    const around = (most) => {
      for (let d = 1; d <= most; d++) {
        const js = controls.map((_, j) => j).sort((a, b) => (b === lastControl) - (a === lastControl));
        for (const j of js) {
          if (d > reach(j)) continue;
          // d steps away along the positions control j may take
          const steps = offered(j, current);
          const at = steps.indexOf(current[j]);
          for (const sign of [lastDirection, -lastDirection]) {
            const to = steps[at + sign * d];
            if (at < 0 || to === undefined) continue;
            const index = current.slice();
            index[j] = to;
            add(index);
          }
        }
        if (d === 1) {
          controls.forEach((_, j) => {
            const steps = offered(j, current);
            for (const end of [steps[0], steps[steps.length - 1]]) {
              const index = current.slice();
              index[j] = end;
              add(index);
            }
          });
        }
      }
    };
    around(Math.max(...controls.map((c) => c.readouts.length)));
    return order;
  }

  function prefetch() {
    if (globalThis.tokenpathPrefetch === false) return; // a page may switch it off (the latency benchmark does)
    if (!engaged || !live || asking !== null || prefetching !== null || wanted !== null) return;
    const batch = [];
    let n = 0;
    for (const k of neighbours()) {
      n += 1;
      if (held.has(k) || refused.has(k)) continue;
      // the nearest ring always; farther ones while the budget has room
      if (n > 4 * controls.length && heldBytes > 0.8 * budget) break;
      batch.push(k);
      if (batch.length === PER_REQUEST) break;
    }
    if (!batch.length) return;
    prefetching = new Set(batch);
    model.send({ type: "prefetch", indices: batch.map((k) => k.split(",").map(Number)) });
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
    if (msg.type === "frames") {
      prefetching = null; // one prefetch at a time: this answers it (states left out are asked again)
      msg.frames.forEach((f, i) => {
        const k = key(f.index);
        hold(k, buffers[i], f.caption);
        if (wanted === k || wanted === key(f.asked)) {
          show(k);
          wanted = null;
        }
      });
      for (const index of msg.skipped) if (Array.isArray(index)) refused.add(key(index));
      later(); // neighbours decoded ahead, so showing one later costs no decode
    } else if (msg.type === "skip") {
      if (asking === asked) {
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
  inputs.forEach((input, j) => {
    input.addEventListener("keydown", (event) => {
      const now = Number(input.value);
      // the positions this control may take now, and how many a page key moves
      const allowed = offered(j, current);
      const at = Math.max(0, allowed.indexOf(now));
      const page = Math.max(1, Math.round((allowed.length - 1) / 10));
      let to;
      if (event.key in keys) to = at + keys[event.key];
      else if (event.key === "PageUp") to = at + page;
      else if (event.key === "PageDown") to = at - page;
      else if (event.key === "Home") to = 0;
      else if (event.key === "End") to = allowed.length - 1;
      else return;
      event.preventDefault();
      event.stopPropagation();
      to = allowed[Math.min(Math.max(to, 0), allowed.length - 1)];
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
      current = clamp(index, j, lastDirection > 0);
      showControls(current);
      const k = key(current);
      root.dataset.served = held.has(k) ? "held" : "kernel";
      if (show(k)) {
        wanted = null;
        later(true); // the frame first; the kernel's next neighbour after it
      } else {
        if (live) wanted = k;
        settle();
      }
    });
  });

  // Neighbours are asked for once the reader comes to this widget (a pointer over it, or
  // focus in it), not while a notebook's cells are still running; each time the reader
  // comes back, the look-ahead resumes where it stopped.
  let engaged = false;
  const engage = () => {
    if (!engaged) {
      engaged = true;
      later();
    }
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

  // frames the model holds from the start (the HTML edition: every frame, strips with them)
  const given = model.get("frames");
  if (given) for (const [k, frame] of Object.entries(given)) hold(k, frame.src, frame.caption, frame.patches);
  // the first frame: the kernel's current state
  if (live) hold(key(model.get("index")), model.get("png"), model.get("caption"));
  showControls(current);
  show(key(current));
  prefetch();

  return () => {
    closed = true;
    clearTimeout(rest);
    for (const frame of held.values()) drop(frame);
    for (const picture of files.values()) picture.drop();
    if (loose) drop(loose);
    held.clear();
  };
}

export default { render };
