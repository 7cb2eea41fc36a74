"""The one HTML policy of the site for text that is not trusted (nh3, i.e. Rust's ammonia).

Registry files, catalogs (registry texts and UI strings) and extension notes
are contributor input; the generated pages carry them, and the site is
public. Every such page is cleaned here after Markdown made it HTML (the
MkDocs hook :mod:`metrics_registry.site.hooks`), and plain texts that reach
the theme outside a page's body (titles, navigation, notices on hand-written
pages) go through the same policy with no tag allowed. Hand-written pages
and templates are trusted and not cleaned.

The policy keeps exactly what the site's Markdown extensions and templates
write (``tests/site/test_sanitize.py`` checks that cleaning a clean build's
pages removes nothing) and drops the rest: ``<script>``, ``<iframe>``,
``<svg>``, ``<style>``, every event handler, every ``style`` but text
alignment, and every URL whose scheme is not ``http``, ``https`` or
``mailto`` -- which refuses ``javascript:``, ``data:`` and ``vbscript:`` in
any spelling, since ammonia reads entities, case and whitespace as a
browser does. ``validate`` reports the same markup beforehand
(:mod:`metrics_registry.markup`, MR150 and MR151).
"""

from __future__ import annotations

import re
import secrets
from functools import lru_cache

import nh3

__all__ = [
    "ATTRIBUTES",
    "ATTRIBUTE_VALUES",
    "TAGS",
    "URL_SCHEMES",
    "clean_html",
    "clean_text",
    "markdown_text",
    "url_allowed",
]

#: What Python-Markdown with the site's extensions (tables, admonition,
#: pymdownx.details/highlight/arithmatex, toc, attr_list, md_in_html) and the
#: page templates produce.
TAGS = frozenset(
    {
        *("a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "hr", "i"),
        *("img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "s", "small", "span", "strong"),
        *("sub", "summary", "sup", "u", "ul", "wbr"),
        *("h1", "h2", "h3", "h4", "h5", "h6"),
        *("table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"),
        *("dl", "dt", "dd"),
        # the filter of the index of metrics (index-of-metrics.md.j2)
        *("form", "input", "label", "option", "output", "select"),
    }
)
#: Attributes per tag ("*": every tag). No event handler, no ``srcdoc``, no ``formaction``.
ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "id", "title", "lang", "dir", "aria-label", "aria-hidden", "role"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "details": {"open"},
    "ol": {"start"},
    "th": {"style", "colspan", "rowspan"},
    "td": {"style", "colspan", "rowspan"},
    "span": {"data-family"},
    # blocks the search index leaves out (tables the metric pages repeat, code the API page shows)
    "div": {"data-search-exclude"},
    "input": {"name", "placeholder", "value"},
    "select": {"name"},
    "option": {"value"},
}
#: Attributes allowed with these values only.
ATTRIBUTE_VALUES: dict[str, dict[str, set[str]]] = {"input": {"type": {"search", "checkbox"}}}
#: Schemes a link or an image may use; relative URLs are kept.
URL_SCHEMES = frozenset({"http", "https", "mailto"})
#: The tables extension aligns columns with ``style``; nothing else may be styled.
_STYLES = frozenset({"text-align"})

_CLEANER = nh3.Cleaner(
    tags=set(TAGS),
    clean_content_tags={"script", "style"},
    attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
    tag_attribute_values={
        tag: {name: set(allowed) for name, allowed in values.items()}
        for tag, values in ATTRIBUTE_VALUES.items()
    },
    url_schemes=set(URL_SCHEMES),
    link_rel=None,  # the site's own links stay as they are; no target= is allowed anyway
    filter_style_properties=set(_STYLES),
    strip_comments=True,
)
_TEXT_CLEANER = nh3.Cleaner(tags=set(), clean_content_tags={"script", "style"}, attributes={})

# Python-Markdown's backslash escapes for what could open a link, an image,
# a code span, an attribute list or an emphasis in a plain text. Not '(':
# '\(' opens a formula for pymdownx.arithmatex.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]])")


def clean_html(html: str) -> str:
    """``html`` (a page body made from untrusted text) with only what the policy allows.

    >>> clean_html('<p><a href="JaVa&#x09;script:alert(1)" onclick="x()">x</a><script>alert(1)</script></p>')
    '<p><a>x</a></p>'
    >>> clean_html('<table><tr><td style="text-align: center; background: url(x)">1</td></tr></table>')
    '<table><tbody><tr><td style="text-align:center">1</td></tr></tbody></table>'
    >>> clean_html('<pre><code><span class="k">def</span> f(x=&quot;<span class="s">a</span>"):</code></pre>')
    '<pre><code><span class="k">def</span> f(x=&quot;<span class="s">a</span>"):</code></pre>'
    """
    regions: list[str] = []

    def set_aside(match: re.Match[str]) -> str:
        regions.append(match.group(1))
        return f"<code>{_MARK}{len(regions) - 1}&gt;</code>"

    marked = _CODE_OF_SPANS.sub(set_aside, html)
    if not regions:
        return _CLEANER.clean(html)
    cleaned, restored = _MARKED.subn(
        lambda match: f"<code>{regions[int(match.group(1))]}</code>", _CLEANER.clean(marked)
    )
    if restored != len(regions):  # a mark dropped (its code was inside removed markup) or repeated
        return _CLEANER.clean(html)
    return cleaned


# Code elements whose content is text and class-only spans (what Pygments writes, through
# pymdownx.highlight, for every code block: half of a metric page's HTML) are set aside before
# nh3 parses the page, and put back after, in place of a mark that nh3 leaves in a text node:
# 35% less of nh3's time on a metric page. Hand-written because nh3 (ammonia) cannot be handed
# fragments it need not parse. Why it keeps the policy: a mark is put back only where nh3's output
# reads ``<code>`` + mark + ``</code>``, and nh3 writes ``<`` as ``&lt;`` in text and in attribute
# values, so those are a real code element's tags and the mark its whole text (a serializer that
# kept ``<`` in attribute values, as the HTML standard allows, keeps ``>`` there too, and the
# mark's ``&gt;`` would not be found). Put back there, the content can only make text and spans
# with a class of letters, digits, ``_``, ``-`` and spaces, as nh3 would keep them. The mark holds
# a random token so page text cannot repeat it; a missing or repeated mark cleans the page whole.
_CODE_OF_SPANS = re.compile(r'<code>((?:[^<>]++|<span class="[A-Za-z0-9_ -]*+">|</span>)*+)</code>')
_MARK = f"mr-code-{secrets.token_hex(16)}-"
_MARKED = re.compile(f"<code>{re.escape(_MARK)}([0-9]+)&gt;</code>")


def clean_text(text: str) -> str:
    """A plain text (a title, a navigation label) as HTML that shows it and runs nothing.

    Tags are removed (``<script>`` with its content), what is left is
    escaped; an entity already written stays one.

    >>> clean_text('KL <script>alert(1)</script>& co <b>bold</b> a < b')
    'KL &amp; co bold a &lt; b'
    """
    return _TEXT_CLEANER.clean(text)


@lru_cache(maxsize=65536)  # family and concept titles, on page after page
def markdown_text(text: str) -> str:
    """A plain text for a Markdown source: :func:`clean_text`, on one line, with no Markdown syntax.

    For UI strings that a hand-written (trusted, uncleaned) page shows, such
    as the notice of an untranslated page: a translation must not turn into
    a link, a code span or an attribute list (``{ onclick=... }``) there.

    >>> markdown_text('Help [x](javascript:alert(1)) {: onclick="y" }')
    'Help \\\\[x\\\\](javascript:alert(1)) \\\\{: onclick="y" \\\\}'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(clean_text(text).split()))


@lru_cache(maxsize=65536)  # the same links recur on every page of a build
def url_allowed(url: str) -> bool:
    """Whether the policy keeps ``url`` as a link target, read as a browser reads an attribute.

    For a URL that Markdown put in an attribute as written (entities stay
    entities, so ``&#106;avascript:`` is still ``javascript:`` to a browser).

    >>> url_allowed("reference/grpo.md#kl"), url_allowed("https://x.org"), url_allowed("&#106;avascript:x")
    (True, True, False)
    """
    if ":" not in url and "&" not in url:
        # no scheme in any spelling (a colon, or an entity that could make one): a relative URL,
        # which the policy keeps; ~3,000 such links a language without asking nh3 for each
        return True
    return _kept_by_policy(url)


def _kept_by_policy(url: str) -> bool:
    """Whether nh3 with the site's policy keeps ``url`` as a link's ``href``."""
    probe = '<a href="' + url.replace('"', "&quot;") + '">x</a>'
    return "href=" in clean_html(probe)
