"""Links to a metric's section on the documentation site.

Every metric has a section on its family's reference page, at an anchor
derived from its key (:func:`metrics_registry.anchor`), the same in every
language: ``<site>/<lang>/reference/<family>/#<anchor>``. MkDocs serves
``reference/<family>.md`` as the folder URL ``reference/<family>/``.
"""

from __future__ import annotations

from metrics_registry.registry import Entry
from metrics_registry.reporting import SITE_URL_ENV

__all__ = ["DEFAULT_SITE_URL", "SITE_URL_ENV", "metric_url"]

#: Relative to the site root when no base URL is configured.
DEFAULT_SITE_URL = ""


def metric_url(entry: Entry, *, lang: str = "en", base_url: str = DEFAULT_SITE_URL) -> str:
    """The URL of ``entry``'s section in language ``lang``.

    >>> from metrics_registry import load
    >>> entry = load().lookup("kl", family="grpo").entry
    >>> metric_url(entry)
    'en/reference/grpo/#kl'
    >>> metric_url(entry, lang="vi", base_url="https://example.org/metrics")
    'https://example.org/metrics/vi/reference/grpo/#kl'
    """
    base = base_url if not base_url or base_url.endswith("/") else base_url + "/"
    return f"{base}{lang}/reference/{entry.family.id}/#{entry.anchor}"
