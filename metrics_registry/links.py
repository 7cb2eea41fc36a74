"""Where a metric lives on the documentation site: the one place that says it.

Every metric has its own page, the same path in every language:
``<site>/<lang>/reference/<family>/<slug>/``, from the Markdown source
``reference/<family>/<slug>.md``. The slug is the metric's anchor
(:func:`metrics_registry.anchor`), which was its section's id on the family
page before metrics had pages of their own; the family page
(``reference/<family>/``) still answers ``#<anchor>`` with a link row of
that id and a script that opens the metric's page, so old links keep
landing on the metric.

Generators, exports and reports call these functions rather than writing a
path themselves, so the layout can change in one place.
"""

from __future__ import annotations

import hashlib
import posixpath
from functools import lru_cache

from metrics_registry.registry import Entry
from metrics_registry.reporting import SITE_URL_ENV

__all__ = [
    "DEFAULT_SITE_URL",
    "SITE_URL_ENV",
    "family_markdown",
    "family_page",
    "metric_markdown",
    "metric_page",
    "metric_slug",
    "metric_url",
    "relative_link",
]

#: Relative to the site root when no base URL is configured.
DEFAULT_SITE_URL = ""


def metric_slug(entry: Entry) -> str:
    """The last part of the metric page's path: its anchor, unless that cannot name a page.

    An anchor is empty for a key without an ASCII letter or digit, and
    ``index`` would take the family page's own file; those get a slug that
    no anchor can be (anchors never end with ``-``).

    >>> from metrics_registry import load
    >>> metric_slug(load().lookup("objective/kl", family="ppo").entry)
    'objective-kl'
    """
    slug = entry.anchor
    if slug == "index":
        return "index-"
    if not slug:
        return hashlib.sha256(entry.key.encode("utf-8")).hexdigest()[:10] + "-"
    return slug


def family_markdown(family_id: str) -> str:
    """The Markdown source of a family's index page, below a language's docs folder."""
    return f"reference/{family_id}.md"


def family_page(family_id: str) -> str:
    """The URL path of a family's index page below a language's root."""
    return f"reference/{family_id}/"


def metric_markdown(entry: Entry) -> str:
    """The Markdown source of ``entry``'s page, below a language's docs folder (for links between pages)."""
    return f"reference/{entry.family.id}/{metric_slug(entry)}.md"


def metric_page(entry: Entry) -> str:
    """The URL path of ``entry``'s page below a language's root, as MkDocs serves it.

    >>> from metrics_registry import load
    >>> metric_page(load().lookup("kl", family="grpo").entry)
    'reference/grpo/kl/'
    """
    return f"reference/{entry.family.id}/{metric_slug(entry)}/"


def relative_link(source: str, here: str) -> str:
    """A Markdown link from the page ``here`` to the page ``source`` (both below the docs folder).

    >>> relative_link("reference/grpo/kl.md", "reference/ppo/objective-kl.md")
    '../grpo/kl.md'
    """
    return _relative_from(source, posixpath.dirname(here) or ".")


# by folder, not by page: a family's pages, all in one folder, link to the same pages over and
# over, and a build generates each page once (relpath asks the system for the working folder)
@lru_cache(maxsize=1 << 16)
def _relative_from(source: str, folder: str) -> str:
    return posixpath.relpath(source, folder)


def metric_url(entry: Entry, *, lang: str = "en", base_url: str = DEFAULT_SITE_URL) -> str:
    """The URL of ``entry``'s page in language ``lang``.

    >>> from metrics_registry import load
    >>> entry = load().lookup("kl", family="grpo").entry
    >>> metric_url(entry)
    'en/reference/grpo/kl/'
    >>> metric_url(entry, lang="vi", base_url="https://example.org/metrics")
    'https://example.org/metrics/vi/reference/grpo/kl/'
    """
    base = base_url if not base_url or base_url.endswith("/") else base_url + "/"
    return f"{base}{lang}/{metric_page(entry)}"
