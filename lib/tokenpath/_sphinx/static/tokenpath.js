// tokenpath HTML edition: each precomputed slider becomes the slider component of the
// notebooks (tokenpath-frames.js, made from tokenpath/widgets/frames.js) over a model
// that holds every frame and has no kernel; a question shows its right choice when its
// answer is revealed.
(function () {
  // The component's model (get/on/send, as anywidget gives it) from a slider's JSON
  // (tokenpath/_sphinx/sliders.py, slider_data): frames in row-major order of `shape`.
  function staticModel(data) {
    var frames = {};
    data.frames.forEach(function (frame, k) {
      var index = [];
      for (var j = data.shape.length - 1; j >= 0; j--) {
        index[j] = k % data.shape[j];
        k = Math.floor(k / data.shape[j]);
      }
      frames[index.join(",")] = {
        src: data.files[frame[0]],
        caption: frame[1],
        patches: frame[2].map(function (p) { return [data.files[p[0]], p[1], p[2]]; }),
      };
    });
    var values = {
      controls: data.labels.map(function (label, j) { return { label: label, readouts: data.readouts[j], limits: null }; }),
      index: data.start, size: data.size, frames: frames, static: true, budget: Number.MAX_SAFE_INTEGER,
    };
    return { get: function (name) { return values[name]; }, on: function () {}, send: function () {} };
  }

  if (globalThis.tokenpathFrames) {
    document.querySelectorAll(".tp-slider").forEach(function (box) {
      var data = JSON.parse(box.querySelector("script.tp-slider-data").textContent);
      var host = document.createElement("div");
      host.className = "tp-slider-live";
      box.querySelector(".tp-slider-fallback").replaceWith(host);
      globalThis.tokenpathFrames.render({ model: staticModel(data), el: host });
    });
  }
  document.querySelectorAll(".tp-quiz[data-key] details").forEach(function (details) {
    details.addEventListener("toggle", function () {
      var quiz = details.closest(".tp-quiz");
      quiz.querySelectorAll("input[type=radio]").forEach(function (radio) {
        radio.closest("li").classList.toggle("tp-right", details.open && radio.value === quiz.dataset.key);
      });
    });
  });
})();
