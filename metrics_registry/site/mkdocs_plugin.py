"""An MkDocs plugin that renders the registry's pages inside another MkDocs site.

A trainer's own documentation can show what its logged metrics mean with
the registry's pages, in its own navigation and theme::

    plugins:
      - search
      - metrics-registry:
          families: [grpo]        # default: every family
          path: metrics           # where the pages go in the site
          registry: [my_trainer.yaml]  # extra registry files, relative to mkdocs.yml

The pages are generated the way this project's own build generates them
(:func:`.generate.generate_pages`): an index of the chosen families' metrics,
a page per family and a page per metric, English only (the catalogs live in
this project's repository, not in the package). Links to pages the host site
does not have (the API reference, the contributor guide, families left out)
become plain text, and every page is cleaned with the site's HTML policy
(:mod:`.sanitize`): registry files are untrusted input. The formulas are
written for KaTeX or MathJax (``pymdownx.arithmatex``, generic mode): a host
site that loads neither shows their LaTeX.

When the host's ``nav`` is explicit, a section (``nav_title``) holding the
index and the family pages is added at its end; otherwise MkDocs lists the
pages itself. Metric pages are reachable from their family page.

The pages' styles and scripts (badges, the index's filter, the family
index's sorting: :data:`metrics_registry.site.assets.STATIC`) are served from
``assets/metrics-registry/`` of the host site and loaded on every page; the
scripts do nothing on a page without their table.
"""

from __future__ import annotations

import posixpath
import re
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation, Section

__all__ = ["RegistryPlugin", "RegistryPluginConfig"]

#: Where the pages' styles and scripts go in the host site (a folder of their own: no clash).
ASSETS_FOLDER = "assets/metrics-registry"
#: The generated pages' styles and scripts, relative to the package's static folder.
STYLES = ("stylesheets/registry.css",)
SCRIPTS = ("javascripts/metrics-index.js", "javascripts/family-index.js")

#: The Markdown extensions the generated pages are written for, with their settings.
EXTENSIONS: dict[str, dict[str, Any]] = {
    "admonition": {},
    "attr_list": {},
    "md_in_html": {},
    "tables": {},
    "pymdownx.details": {},
    "pymdownx.superfences": {},
    "pymdownx.arithmatex": {"generic": True},
}
# A Markdown link or image target in the generated pages: the templates write links only
# as [text](target), so this is all the syntax there is to find (written by hand: a parser
# would not give back the source to rewrite).
_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]*)\)")


class RegistryPluginConfig(Config):
    """The plugin's options in ``mkdocs.yml``."""

    families = options.ListOfItems(options.Type(str), default=[])
    path = options.Type(str, default="metrics")
    registry = options.ListOfItems(options.Type(str), default=[])
    nav_title = options.Type(str, default="Metrics")


class RegistryPlugin(BasePlugin[RegistryPluginConfig]):
    """Adds the registry's pages to the site (see the module)."""

    def __init__(self) -> None:
        self._pages: dict[str, str] = {}  # src_uri -> Markdown
        self._index: list[str] = []  # src_uris of the section's pages, in order

    def on_config(self, config: Any) -> Any:
        for name, settings in EXTENSIONS.items():
            if name not in config.markdown_extensions:
                config.markdown_extensions.append(name)
            config.mdx_configs.setdefault(name, {}).update(
                {key: value for key, value in settings.items() if key not in config.mdx_configs.get(name, {})}
            )
        for name in STYLES:
            if f"{ASSETS_FOLDER}/{name}" not in config.extra_css:
                config.extra_css.append(f"{ASSETS_FOLDER}/{name}")
        loaded = {str(script) for script in config.extra_javascript}
        for name in SCRIPTS:
            if f"{ASSETS_FOLDER}/{name}" not in loaded:
                config.extra_javascript.append(options.ExtraScriptValue(f"{ASSETS_FOLDER}/{name}"))
        self._pages, self._index = self._generate(Path(config.config_file_path or ".").parent)
        return config

    def _generate(self, site_root: Path) -> tuple[dict[str, str], list[str]]:
        from metrics_registry.api import load
        from metrics_registry.registry import Registry, RegistryError
        from metrics_registry.site.generate import generate_pages

        files = [str(site_root / name) for name in self.config.registry]
        try:
            registry = load(files) if files else load()
        except (RegistryError, OSError) as error:
            raise PluginError(f"metrics-registry: {error}") from error
        chosen = self.config.families or list(registry.families)
        unknown = [family for family in chosen if family not in registry.families]
        if unknown:
            known = ", ".join(sorted(registry.families))
            raise PluginError(f"metrics-registry: unknown families {', '.join(unknown)} (known: {known})")
        subset = Registry(
            {family: registry.families[family] for family in chosen},
            [entry for entry in registry if entry.family.id in chosen],
            registry.concepts,
        )
        prefix = self.config.path.strip("/")
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "site"
            (Path(work) / "docs" / "en").mkdir(parents=True)  # no hand-written pages of ours
            written = generate_pages(subset, Path(work), out, lang="en")
            wanted = [
                path.relative_to(out).as_posix()
                for path in written
                if path.relative_to(out).as_posix() == "metrics.md"
                or path.relative_to(out).parts[0] == "reference"
            ]
            pages = {f"{prefix}/{page}": (out / page).read_text(encoding="utf-8") for page in wanted}
        pages = {uri: _local_links(text, uri, pages) for uri, text in pages.items()}
        index = [f"{prefix}/metrics.md", *(f"{prefix}/reference/{family}.md" for family in chosen)]
        return pages, [uri for uri in index if uri in pages]

    def on_files(self, files: Files, *, config: Any) -> Files:
        for uri, text in self._pages.items():
            if files.get_file_from_path(uri) is not None:
                raise PluginError(
                    f"metrics-registry: the site already has a page {uri}; choose another 'path'"
                )
            files.append(File.generated(config, uri, content=text))
        from metrics_registry.site.assets import STATIC

        for name in (*STYLES, *SCRIPTS):
            uri = f"{ASSETS_FOLDER}/{name}"
            if files.get_file_from_path(uri) is None:  # the host's own copy, if any, wins
                files.append(File.generated(config, uri, abs_src_path=str(STATIC / name)))
        return files

    def on_nav(self, nav: Navigation, *, config: Any, files: Files) -> Navigation:
        if not config.nav:
            return nav  # MkDocs lists every page itself
        pages = [files.get_file_from_path(uri).page for uri in self._index]  # type: ignore[union-attr]
        section = Section(self.config.nav_title, [page for page in pages if page is not None])
        nav.items.append(section)
        return nav

    def on_page_content(self, html: str, *, page: Any, config: Any, files: Files) -> str:
        if page.file.src_uri not in self._pages:
            return html  # the host's own pages are its business
        from metrics_registry.site.sanitize import clean_html, clean_text

        if page.title is not None:
            page.meta["title"] = clean_text(str(page.title))
        for item in page.toc:
            _clean_toc(item, clean_text)
        return clean_html(html).lstrip()


def _clean_toc(item: Any, clean_text: Any) -> None:
    item.title = clean_text(item.title)
    for child in item.children:
        _clean_toc(child, clean_text)


def _local_links(markdown: str, uri: str, pages: dict[str, str]) -> str:
    """``markdown`` with every relative link to a page the plugin does not add turned into its text."""

    def rewrite(match: re.Match[str]) -> str:
        image, text, target = match.groups()
        path = target.split("#", 1)[0]
        if image or not path or "://" in path or path.startswith(("mailto:", "/")):
            return match.group(0)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(uri), path))
        return match.group(0) if resolved in pages else text

    return _LINK.sub(rewrite, markdown)
