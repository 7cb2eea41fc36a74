// Filter for the index of all metrics (metrics.md): a text box and a family
// selector that hide the table rows not matching. Written by hand: it is a
// dozen lines and needs nothing from a CDN.
function setUpMetricsFilter() {
  var box = document.querySelector(".mr-filter");
  if (!box) return;
  var table = document.querySelector(".mr-index table");
  var input = box.querySelector("input");
  var family = box.querySelector("select[name=family]");
  var crucial = box.querySelector("input[name=crucial]");
  var counter = box.querySelector(".mr-filter__count");
  function normalise(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/đ/g, "d").replace(/Đ/g, "D").toLowerCase();
  }
  function apply() {
    var words = normalise(input.value).split(/\s+/).filter(Boolean);
    var shown = 0;
    table.querySelectorAll("tbody tr").forEach(function (row) {
      var text = normalise(row.textContent);
      var ok = words.every(function (word) { return text.indexOf(word) !== -1; });
      if (family.value && row.dataset.family !== family.value) ok = false;
      if (crucial.checked && row.dataset.crucial !== "true") ok = false;
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    counter.textContent = String(shown);
  }
  table.querySelectorAll("tbody tr").forEach(function (row) {
    var cells = row.querySelectorAll("td");
    row.dataset.family = cells[1] ? cells[1].dataset.family || cells[1].textContent.trim() : "";
    var code = cells[1] ? cells[1].querySelector("[data-family]") : null;
    if (code) row.dataset.family = code.dataset.family;
    row.dataset.crucial = cells[2] && cells[2].textContent.trim() ? "true" : "false";
  });
  // no inline handler in the page: every page generated from the registry
  // is cleaned of them (metrics_registry/site/sanitize.py)
  box.addEventListener("submit", function (event) { event.preventDefault(); });
  [input, family, crucial].forEach(function (element) {
    element.addEventListener("input", apply);
    element.addEventListener("change", apply);
  });
  var query = new URLSearchParams(window.location.search);
  if (query.get("q")) input.value = query.get("q");
  if (query.get("family")) family.value = query.get("family");
  apply();
}
if (typeof document$ !== "undefined") {
  document$.subscribe(setUpMetricsFilter);
} else {
  document.addEventListener("DOMContentLoaded", setUpMetricsFilter);
}
