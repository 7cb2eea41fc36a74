// The language switcher links to the same page in each language
// (overrides/partials/alternate.html); carry the #anchor along so the
// reader lands on the same metric. Anchors are derived from metric keys
// and are the same in every language.
document.addEventListener("click", function (event) {
  var link = event.target instanceof Element ? event.target.closest("a.mr-language-link") : null;
  if (!link || !window.location.hash) return;
  var target = new URL(link.href, window.location.href);
  if (target.hash) return;
  target.hash = window.location.hash;
  event.preventDefault();
  event.stopImmediatePropagation();
  window.location.assign(target.href);
}, true);
