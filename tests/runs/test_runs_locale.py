"""A report's language when the catalog is hand-edited and broken: English and a warning, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from metrics_registry.runs.locale import Localizer, placeholder_problem

KEYS = "%(total)s logged: %(known)s known"
ERRORS = ("%(n)s error", "%(n)s errors")


@pytest.mark.parametrize(
    ("english", "translation", "problem"),
    [
        ("%(count)s values", "%(count)s giá trị", None),
        ("%(count)s values", "giá trị", None),  # drops the number, but formats
        ("no placeholder", "100% sure", None),  # never formatted
        ("%(count)s values", "%(cout)s giá trị", "unknown placeholder %(cout)s"),
        ("%(count)s values", "%(count) trên giá trị", "unsupported format character 't'"),
        ("%(count)s values", "%(count) giá trị", "must be real number, not str"),  # "% g": a format
        ("%(count)s values", "%(count)d giá trị", "%d format: a real number is required, not str"),
        ("%(count)s values", "100% %(count)s", "unsupported format character"),
        ("%s of %s", "%s", "not all arguments converted"),
        ("%s of %s", "%(a)s", "format requires a mapping"),
    ],
)
def test_placeholder_problem(english: str, translation: str, problem: str | None) -> None:
    found = placeholder_problem(english, translation)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)


def write_ui_catalog(root: Path, messages: list[tuple[object, object]]) -> Path:
    """A Vietnamese ui.po as Babel writes it, with these (msgid, msgstr) pairs."""
    catalog = Catalog(locale="vi", domain="ui")
    for msgid, msgstr in messages:
        catalog.add(msgid, msgstr, flags=("python-format",))
    path = root / "i18n" / "vi" / "LC_MESSAGES" / "ui.po"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return path


def test_a_broken_placeholder_falls_back_to_english_with_a_warning(tmp_path: Path) -> None:
    po = write_ui_catalog(
        tmp_path,
        [(KEYS, "%(total)s đã ghi: %(knwn)s đã biết"), (ERRORS, ("%(n)d lỗi",)), ("Format", "Định dạng")],
    )
    loc = Localizer("vi", i18n_root=tmp_path)
    assert loc.gettext(KEYS) % {"total": "3", "known": "2"} == "3 logged: 2 known"
    assert loc.ngettext(*ERRORS, 2) % {"n": "2"} == "2 errors"
    assert loc.gettext("Format") == "Định dạng"  # the sound translations are kept
    lines = po.read_text(encoding="utf-8").splitlines()
    keys_line = lines.index(f'msgid "{KEYS}"') + 1
    assert loc.warnings[0].startswith(f"{po}:{keys_line}: the vi translation of '{KEYS}'")
    assert "broken placeholder (unknown placeholder %(knwn)s)" in loc.warnings[0]
    assert "broken placeholder (%d format" in loc.warnings[1]
    assert len(loc.warnings) == 2
    loc.gettext(KEYS)
    assert len(loc.warnings) == 2  # each broken text is named once
    assert loc.has_fallbacks  # the report says some texts are in English


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=x; plural=0;\\n"\n', "not a valid catalog"),
        (
            b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'
            b'\nmsgid "Format"\nmsgstr "\xff"\n',
            ":6: not UTF-8 (byte 0xff)",
        ),
        (b'garbage "\n msgid \n', "ui.po: "),
    ],
    ids=["bad-plural-header", "not-utf-8", "syntax"],
)
def test_a_catalog_that_cannot_be_read_gives_english_and_a_warning(
    tmp_path: Path, content: bytes, message: str
) -> None:
    po = tmp_path / "i18n" / "vi" / "LC_MESSAGES" / "ui.po"
    po.parent.mkdir(parents=True)
    po.write_bytes(content)
    loc = Localizer("vi", i18n_root=tmp_path)
    assert loc.gettext("Format") == "Format"
    (warning,) = loc.warnings
    assert warning.startswith(str(po)) and message in warning
    assert warning.endswith("the report is in English where it needs this catalog")


def test_a_damaged_compiled_catalog_gives_english_and_a_warning(tmp_path: Path) -> None:
    mo = tmp_path / "i18n" / "vi" / "LC_MESSAGES" / "ui.mo"
    mo.parent.mkdir(parents=True)
    mo.write_bytes(b"\xde\x12\x04\x95" + b"\xff" * 10)  # the magic number, then a cut header
    loc = Localizer("vi", i18n_root=tmp_path)
    assert loc.gettext("Format") == "Format"
    (warning,) = loc.warnings
    assert warning.startswith(f"{mo}: not a compiled catalog")
