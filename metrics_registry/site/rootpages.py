"""The pages at the root of the site, above the language folders.

``index.html`` sends a reader to the language their browser asks for
(English otherwise, and plain links without JavaScript); ``404.html`` sends
a missing page to the 404 page of the language in its path; ``sitemap.xml``
is a sitemap index of the languages' sitemaps; and the registry's data files
are published at stable URLs.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from metrics_registry.fileio import atomic_write_text
from metrics_registry.site.languages import DEFAULT_LANGUAGE, site_language

__all__ = ["write_root_pages"]

_INDEX = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>RL Metrics Registry</title>
<link rel="canonical" href="{default}/">
{alternates}
<script>
(function () {{
  var available = {codes};
  var wanted = (navigator.languages || [navigator.language || ""]).map(function (tag) {{
    return tag.toLowerCase().split("-")[0];
  }});
  var lang = wanted.find(function (code) {{ return available.indexOf(code) !== -1; }}) || "{default}";
  window.location.replace(lang + "/" + window.location.hash);
}})();
</script>
</head>
<body>
<h1>RL Metrics Registry</h1>
<ul>
{links}
</ul>
</body>
</html>
"""

_NOT_FOUND = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Page not found - RL Metrics Registry</title>
<script>
(function () {{
  var available = {codes};
  var parts = window.location.pathname.split("/");
  for (var i = 0; i < parts.length; i++) {{
    if (available.indexOf(parts[i]) !== -1) {{
      window.location.replace(parts.slice(0, i + 1).join("/") + "/404.html");
      return;
    }}
  }}
}})();
</script>
</head>
<body>
<h1>Page not found</h1>
<ul>
{links}
</ul>
</body>
</html>
"""

_SITEMAP_INDEX = """<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
{entries}
</sitemapindex>
"""


def _links(codes: tuple[str, ...], prefix: str = "") -> str:
    return "\n".join(
        f'<li><a href="{prefix}{code}/" hreflang="{site_language(code).hreflang}">'
        f"{html.escape(site_language(code).name)}</a></li>"
        for code in codes
    )


def write_root_pages(output: Path, codes: tuple[str, ...], data: dict[str, str], base_url: str) -> None:
    """Write the root pages and the data files into ``output``."""
    default = DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in codes else codes[0]
    alternates = "\n".join(
        f'<link rel="alternate" hreflang="{site_language(code).hreflang}" href="{code}/">' for code in codes
    )
    pages = {
        "index.html": _INDEX.format(
            default=default, codes=json.dumps(list(codes)), alternates=alternates, links=_links(codes)
        ),
        "404.html": _NOT_FOUND.format(codes=json.dumps(list(codes)), links=_links(codes, "/")),
    }
    sitemaps = [
        f"  <sitemap><loc>{html.escape(base_url)}{code}/sitemap.xml</loc></sitemap>"
        for code in codes
        if (output / code / "sitemap.xml").exists()
    ]
    pages["sitemap.xml"] = _SITEMAP_INDEX.format(entries="\n".join(sitemaps))
    for name, text in {**pages, **data}.items():
        atomic_write_text(output / name, text, backup=False)
