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

// Fills every <div data-src="..."> with the HTML fragment at that same-origin URL (the what-if
// predictions, which take a replay to compute, come after the page is shown). The fragment is
// rendered and escaped by the server's templates.
(function () {
  "use strict";
  function load() {
    document.querySelectorAll("[data-src]").forEach(function (el) {
      fetch(el.getAttribute("data-src"), {credentials: "same-origin"})
        .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
        .then(function (html) { el.innerHTML = html; el.setAttribute("data-loaded", "1"); })
        .catch(function () { el.setAttribute("data-loaded", "error"); });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", load); } else { load(); }
})();
