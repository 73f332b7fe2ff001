// Draws every figure embedded as JSON in <script type="application/json" id="fig-..."> with Plotly,
// in the page and in every fragment loaded into it; <body data-charts="N"> counts the charts drawn.
// The JSON is data, never code: JSON.parse, then Plotly.newPlot.
var drawCharts = (function () {
  "use strict";
  var drawn = 0;
  // Plotly's toolbar keeps image, zoom, pan and reset: with all its buttons it wrapped onto two rows
  // on a small chart (a straggler's box plot, 260 px) and covered the title.
  var LESS_USED = ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "toggleSpikelines",
                   "hoverClosestCartesian", "hoverCompareCartesian"];
  return function (root) {
    var charts = root.querySelectorAll(".chart[data-figure]");
    if (!charts.length) { document.body.setAttribute("data-charts", String(drawn)); return; }
    if (typeof Plotly === "undefined") { console.error("plotly.js did not load"); return; }
    var pending = [];
    charts.forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      var fig = JSON.parse(source.textContent);
      pending.push(Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false, responsive: true,
                                                              modeBarButtonsToRemove: LESS_USED}));
    });
    Promise.all(pending).then(function () {
      drawn += charts.length;
      document.body.setAttribute("data-charts", String(drawn));
    });
  };
})();

// Fills every <div data-src="..."> with the HTML fragment at that same-origin URL (what-if
// predictions and the methods page's columns, which take seconds to compute, come after the page
// is shown), then draws its charts. A fragment still computing on the server answers 202 (shown
// meanwhile) and is asked for again after its Retry-After seconds. The fragment is rendered and
// escaped by the server's templates.
(function () {
  "use strict";
  function fill(el) {
    fetch(el.getAttribute("data-src"), {credentials: "same-origin"})
      .then(function (r) {
        if (!r.ok) { throw new Error(r.status); }
        return r.text().then(function (html) {
          el.innerHTML = html;
          if (r.status === 202) {
            var wait = parseFloat(r.headers.get("Retry-After")) || 1;
            setTimeout(function () { fill(el); }, wait * 1000);
          } else {
            drawCharts(el);
            el.setAttribute("data-loaded", "1");
          }
        });
      })
      .catch(function () { el.setAttribute("data-loaded", "error"); });
  }
  function load() {
    drawCharts(document);
    document.querySelectorAll("[data-src]").forEach(fill);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", load); } else { load(); }
})();

// A live analysis's overview or victim page (<meta name="live-check" content=URL data-version=V>)
// asks URL every 2 s what its watch has changed and reloads only when the answer's version differs
// from V (a newer generation, a stopped watch); meanwhile it keeps the generation's age current
// (#live-age). Reloading on a clock reset chart zoom and hover. An answer that fails (the server
// restarting, a network blip) keeps the page and asks again later, up to a minute apart.
(function () {
  "use strict";
  var LOOK_MS = 2000;
  function follow() {
    var check = document.querySelector('meta[name="live-check"]');
    if (!check) { return; }
    var looked = 0;
    var wait = LOOK_MS;
    function look() {
      fetch(check.getAttribute("content"), {credentials: "same-origin", cache: "no-store"})
        .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
        .then(function (now) {
          if (now.version !== check.getAttribute("data-version")) { location.reload(); return; }
          var age = document.getElementById("live-age");
          if (age && now.updated) { age.textContent = now.updated; }
          check.setAttribute("data-looked", String(++looked));
          check.removeAttribute("data-failed");
          wait = LOOK_MS;
          setTimeout(look, wait);
        })
        .catch(function () {
          check.setAttribute("data-failed", "1");
          wait = Math.min(2 * wait, 60000);
          setTimeout(look, wait);
        });
    }
    setTimeout(look, LOOK_MS);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", follow); } else { follow(); }
})();
