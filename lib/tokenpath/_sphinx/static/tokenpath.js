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
