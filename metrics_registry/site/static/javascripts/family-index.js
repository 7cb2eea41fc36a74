// A family's index (reference/<family>/, generated from family.md.j2): a
// click on a column heading sorts the table by that column (again: the other
// way). Written by hand: a few lines that need nothing from a CDN (the site
// works offline). This site loads it only on family indexes
// (docs/overrides/main.html); the MkDocs plugin on every page of the host site,
// where Material's instant navigation may swap pages without loading it again.
// Old #anchor links are metric-redirect.js's.
(function () {
  function sortable(table) {
    var body = table.tBodies[0];
    var headings = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var collator = new Intl.Collator(document.documentElement.lang || undefined, { numeric: true });
    if (table.querySelector(".mr-sort")) return;  // set up already
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

  function setUp() {
    document.querySelectorAll(".mr-family-index table").forEach(sortable);
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(setUp);  // each page Material's instant navigation shows
  } else {
    setUp();
  }
})();
