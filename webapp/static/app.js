// Draws every figure embedded as JSON in <script type="application/json" id="fig-..."> with Plotly.
// The JSON is data, never code: JSON.parse, then Plotly.newPlot.
(function () {
  "use strict";
  function draw() {
    var charts = document.querySelectorAll(".chart[data-figure]");
    if (!charts.length) { document.body.setAttribute("data-charts", "0"); return; }
    if (typeof Plotly === "undefined") { console.error("plotly.js did not load"); return; }
    var pending = [];
    charts.forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      var fig = JSON.parse(source.textContent);
      pending.push(Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false, responsive: true}));
    });
    Promise.all(pending).then(function () { document.body.setAttribute("data-charts", String(charts.length)); });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
})();
