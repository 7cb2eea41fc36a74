// Render the formulas that pymdownx.arithmatex (generic: true) leaves in the
// page with the KaTeX bundled in assets/katex (no CDN). Runs on every page
// load and, with Material's instant navigation, on every page change.
function renderFormulas() {
  if (typeof renderMathInElement !== "function") return;
  renderMathInElement(document.body, {
    delimiters: [
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
    ],
    throwOnError: false,
  });
}
if (typeof document$ !== "undefined") {
  document$.subscribe(renderFormulas);
} else {
  document.addEventListener("DOMContentLoaded", renderFormulas);
}
