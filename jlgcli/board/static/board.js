// jlgcli board: redraw <main> when the server says what this page shows changed (SSE).
// No library, nothing fetched from elsewhere: the board serves this file itself.
(function () {
  "use strict";
  var body = document.body;
  var watch = body.getAttribute("data-watch");
  if (!watch || watch === "none" || !window.EventSource) { return; }
  var live = document.getElementById("live");
  var query = "watch=" + encodeURIComponent(watch) +
    "&id=" + encodeURIComponent(body.getAttribute("data-id") || "");
  var busy = false, again = false;

  function open(details) {
    // <details> a person opened stay open across a redraw
    var shown = {};
    details.forEach(function (d, i) { if (d.open) { shown[i] = true; } });
    return shown;
  }

  function redraw() {
    if (busy) { again = true; return; }
    busy = true;
    var sep = location.search ? "&" : "?";
    fetch(location.pathname + location.search + sep + "part=main", {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var main = document.getElementById("main");
        var shown = open(Array.prototype.slice.call(main.querySelectorAll("details")));
        main.innerHTML = html;
        main.querySelectorAll("details").forEach(function (d, i) { if (shown[i]) { d.open = true; } });
        body.setAttribute("data-updates", String(Number(body.getAttribute("data-updates") || 0) + 1));
      })
      .catch(function () { /* the next change tries again */ })
      .then(function () {
        busy = false;
        if (again) { again = false; redraw(); }
      });
  }

  var source = new EventSource("/live?" + query);
  source.addEventListener("open", function () { if (live) { live.className = "live on"; } });
  source.addEventListener("error", function () { if (live) { live.className = "live"; } });
  source.addEventListener("change", redraw);
})();
