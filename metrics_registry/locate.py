"""Where the project's translation catalogs (``i18n/``) are, seen from the installed package.

The catalogs are not package data: they live in the project folder next to
the registry sources. Commands that show translated text look for them from
the current folder upwards (the way ``metrics-registry i18n`` does), then in
the source checkout the package was installed from (``pip install -e``).
When neither has them, there is nothing to translate with and every text is
reported as untranslated.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["find_i18n_root"]


def find_i18n_root(start: Path | None = None) -> Path | None:
    """The project folder holding ``i18n/babel.cfg``, or ``None``."""
    here = (start or Path.cwd()).resolve()
    checkout = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents, checkout):
        if (folder / "i18n" / "babel.cfg").is_file():
            return folder
    return None
