// A family's index (reference/<family>/, generated from family.md.j2):
// 1. an old link to a metric's section, reference/<family>/#<anchor>, opens
//    the metric's own page: the key's link in the table carries that id
//    (and is where the browser scrolls without JavaScript);
// 2. a click on a column heading sorts the table by that column.
// Written by hand: a few lines that need nothing from a CDN (the site works
// offline). Loaded only on family indexes (docs/overrides/main.html).
(function () {
  function openMetric() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var link = id ? document.getElementById(id) : null;
    if (link && link.matches("a.mr-metric-link")) window.location.replace(link.href);
  }

  function sortable(table) {
    var body = table.tBodies[0];
    var headings = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var collator = new Intl.Collator(document.documentElement.lang || undefined, { numeric: true });
    headings.forEach(function (heading, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "mr-sort";
      while (heading.firstChild) button.appendChild(heading.firstChild);
      heading.appendChild(button);
      heading.setAttribute("aria-sort", column === 0 ? "ascending" : "none");
      button.addEventListener("click", function () {
        var ascending = heading.getAttribute("aria-sort") !== "ascending";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = collator.compare(a.cells[column].textContent.trim(), b.cells[column].textContent.trim());
          // ties keep the order by key, the table's first order
          return (ascending ? order : -order) || collator.compare(a.cells[0].textContent, b.cells[0].textContent);
        });
        rows.forEach(function (row) { body.appendChild(row); });
        headings.forEach(function (other) { other.setAttribute("aria-sort", "none"); });
        heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      });
    });
  }

  openMetric();
  window.addEventListener("hashchange", openMetric);
  document.querySelectorAll(".mr-family-index table").forEach(sortable);
})();
