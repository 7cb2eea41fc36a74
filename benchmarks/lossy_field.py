"""Count the words of the Chinese translations of programs' messages for the lossy repair's field model.

The second pass of the lossy repair mixes the general word trigram model with
counts of the field's prose (:mod:`metrics_registry.encoding.domain`): the
project's own catalogs (``metrics-registry i18n domain-model``) and these,
:data:`metrics_registry.encoding.domain.MESSAGES`, counted from the gettext
catalogs installed on this machine (``/usr/share/locale/zh_{CN,TW}/LC_MESSAGES/*.mo``:
apt, coreutils, git, gtk, PostgreSQL, systemd, ...), read with Babel.

Left out: the ``iso_*`` catalogs (names of countries, languages and
currencies, the kind of text of ``benchmarks/lossy.py``'s CLDR corpus), and
manpages-zh, on which ``benchmarks/lossy_manuals.py`` checks the repair.
Words and word pairs seen fewer than :data:`MIN_COUNT` times are dropped, which
keeps the file near 220 KB.

Run: ``.venv/bin/python benchmarks/lossy_field.py [--write]`` (without
``--write``, says what it would write).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from babel.messages.mofile import read_mo

from metrics_registry.encoding.domain import MESSAGES, DomainModel, counts_bytes
from metrics_registry.fileio import atomic_write

LOCALES = Path("/usr/share/locale")
LANGUAGES = ("zh_CN", "zh_TW")
#: Fewest occurrences of a word or a pair of words kept.
MIN_COUNT = 2
ABOUT = (
    "Word counts of the Chinese translations of programs' messages (gettext catalogs of a Debian "
    "system, iso_* left out); written by benchmarks/lossy_field.py, do not edit."
)


def catalogs() -> list[Path]:
    """The catalogs counted, in a stable order."""
    found: list[Path] = []
    for language in LANGUAGES:
        found += sorted((LOCALES / language / "LC_MESSAGES").glob("*.mo"))
    return [path for path in found if not path.name.startswith("iso_")]


def messages(paths: list[Path]) -> Iterator[str]:
    """Every translation of every message of ``paths`` (each plural form)."""
    for path in paths:
        with path.open("rb") as handle:
            catalog = read_mo(handle)
        for message in catalog:
            forms = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
            yield from (form for form in forms if form)


def counts(paths: list[Path]) -> DomainModel:
    """The word and word-pair counts of ``paths``' translations, rare ones dropped."""
    full = DomainModel.from_texts(messages(paths))
    return DomainModel(
        Counter({word: n for word, n in full.unigrams.items() if n >= MIN_COUNT}),
        Counter({pair: n for pair, n in full.bigrams.items() if n >= MIN_COUNT}),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {MESSAGES}")
    args = parser.parse_args()
    paths = catalogs()
    model = counts(paths)
    data = counts_bytes(MESSAGES, model.to_json(ABOUT))
    print(
        f"{len(paths)} catalogs: {len(model.unigrams):,} words, {len(model.bigrams):,} pairs, "
        f"{len(data):,} bytes gzipped"
    )
    if args.write:
        atomic_write(MESSAGES, data)
        print(f"wrote {MESSAGES}")


if __name__ == "__main__":
    main()
