// Marks the words of a Vietnamese search on the page a result opens.
//
// Material passes the words of the query in "?h=" and marks them on the
// page letter for letter; Vietnamese queries reach it folded ("do dai", see
// lunr/min/lunr.vi.min.js), which matches nothing in "độ dài". This marks
// every word whose folded form starts with a query word, as the search
// matched it. Formulas (raw TeX until KaTeX renders it) are left alone.
(function () {
  var FOLDED_LANGUAGES = ["vi"];
  var SKIP = "script, style, mark, .arithmatex, .katex";

  function foldChar(char) {
    if (char === "đ" || char === "Đ") return "d";
    return char.normalize("NFD").charAt(0).toLowerCase().charAt(0);
  }

  // one character for one character, so positions in the folded text are positions in the text
  function fold(text) {
    var out = "";
    for (var i = 0; i < text.length; i++) out += foldChar(text.charAt(i));
    return out;
  }

  var letter = /[\p{L}\p{N}]/u;

  function matches(text, words) {
    var folded = fold(text);
    var found = [];
    for (var i = 0; i < folded.length; i++) {
      if (i > 0 && letter.test(text.charAt(i - 1))) continue;
      for (var w = 0; w < words.length; w++) {
        if (folded.startsWith(words[w], i)) {
          found.push([i, i + words[w].length]);
          i += words[w].length - 1;
          break;
        }
      }
    }
    return found;
  }

  function highlight() {
    if (FOLDED_LANGUAGES.indexOf(document.documentElement.lang) === -1) return;
    var query = new URL(window.location.href).searchParams.get("h");
    if (!query) return;
    var words = fold(query).split(/[\s*+\-:~^]+/).filter(Boolean);
    var root = document.querySelector("[data-md-component=content]") || document.body;
    if (!words.length || !root) return;
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    var nodes = [];
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement || node.parentElement.closest(SKIP)) continue;
      nodes.push(node);
    }
    nodes.forEach(function (node) {
      var text = node.textContent;
      var found = matches(text, words);
      if (!found.length) return;
      var fragment = document.createDocumentFragment();
      var last = 0;
      found.forEach(function (range) {
        fragment.appendChild(document.createTextNode(text.slice(last, range[0])));
        var mark = document.createElement("mark");
        mark.setAttribute("data-md-highlight", "");
        mark.textContent = text.slice(range[0], range[1]);
        fragment.appendChild(mark);
        last = range[1];
      });
      fragment.appendChild(document.createTextNode(text.slice(last)));
      node.replaceWith(fragment);
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(highlight);
  } else {
    document.addEventListener("DOMContentLoaded", highlight);
  }
})();
