// tokenpath HTML edition: switch the precomputed frames of each slider; show the
// right choice of a question when its answer is revealed.
(function () {
  document.querySelectorAll(".tp-slider").forEach(function (box) {
    var data = JSON.parse(box.querySelector("script.tp-frames").textContent);
    var inputs = Array.prototype.slice.call(box.querySelectorAll("input[type=range]"));
    var readouts = box.querySelectorAll(".tp-readout");
    var labels = box.querySelectorAll("label");
    var image = box.querySelector("img.tp-frame");
    var caption = box.querySelector(".tp-caption");
    function show() {
      var k = 0;
      inputs.forEach(function (input, j) { k = k * data.shape[j] + Number(input.value); });
      image.src = data.files[k];
      // the strips that differ from this frame (the last control's position), laid over it
      box.querySelectorAll("img.tp-patch").forEach(function (old) { old.remove(); });
      (data.patches ? data.patches[k] : []).forEach(function (p) {
        var strip = document.createElement("img");
        strip.className = "tp-patch";
        strip.alt = "";
        strip.src = data.patch_files[p[0]];
        strip.style.left = (100 * p[1] / data.size[0]) + "%";
        strip.style.top = (100 * p[2] / data.size[1]) + "%";
        strip.style.width = (100 * p[3] / data.size[0]) + "%";
        image.parentNode.appendChild(strip);
      });
      image.alt = data.captions[k];
      caption.textContent = data.captions[k];
      inputs.forEach(function (input, j) {
        readouts[j].textContent = data.readouts[k][j];
        input.setAttribute("aria-valuetext", labels[j].textContent + " = " + data.readouts[k][j]);
      });
    }
    inputs.forEach(function (input) {
      input.addEventListener("input", show);
      input.addEventListener("change", show);
    });
  });
  document.querySelectorAll(".tp-quiz[data-key] details").forEach(function (details) {
    details.addEventListener("toggle", function () {
      var quiz = details.closest(".tp-quiz");
      quiz.querySelectorAll("input[type=radio]").forEach(function (radio) {
        radio.closest("li").classList.toggle("tp-right", details.open && radio.value === quiz.dataset.key);
      });
    });
  });
})();
