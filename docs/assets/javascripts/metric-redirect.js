// On a family's index (reference/<family>/), an old link to a metric's
// section, reference/<family>/#<anchor>, opens the metric's own page
// (reference/<family>/<slug>/). Loaded in the <head> of family indexes only
// (docs/overrides/main.html), after the <meta name="mr-metric-pages"> that
// maps each anchor to its page, so the move happens before the index loads
// anything else. Without JavaScript the anchor is the id of the key's link
// in the index's table, which the browser scrolls to.
(function () {
  var meta = document.querySelector('meta[name="mr-metric-pages"]');
  if (!meta) return;
  var pages = JSON.parse(meta.content);
  function openMetric() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (id && Object.prototype.hasOwnProperty.call(pages, id)) window.location.replace(pages[id]);
  }
  openMetric();
  window.addEventListener("hashchange", openMetric);
})();
