"""The theme's own strings (site name, footer, palette, permalinks, 404) come from the ui catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.i18n.translate import UiTranslations, load_catalog
from metrics_registry.site.theme import MATERIAL_LINK, theme_settings

ROOT = Path(__file__).resolve().parents[2]


def _settings(lang: str) -> dict:
    if lang == "en":
        return theme_settings(lambda message: message)
    ui = UiTranslations(lang, load_catalog(ROOT, lang, "ui"))
    settings = theme_settings(ui.gettext)
    assert not ui.fallbacks, f"untranslated in {lang}: {sorted(ui.fallbacks)}"
    return settings


def test_english_settings() -> None:
    settings = _settings("en")
    assert settings["site_name"] == "RL Metrics Registry"
    assert settings["markdown_extensions"] == {"toc": {"permalink_title": "Permanent link"}}
    assert (
        settings["copyright"]
        == f'Made with <a href="{MATERIAL_LINK}" target="_blank" rel="noopener">Material for MkDocs</a>'
    )
    assert settings["extra"]["generator"] is False  # Material's own English "Made with" is replaced


@pytest.mark.parametrize(
    ("lang", "name", "permalink"),
    [("vi", "Registry chỉ số RL", "Liên kết cố định"), ("zh", "RL 指标注册表", "永久链接")],
)
def test_translated_settings(lang: str, name: str, permalink: str) -> None:
    settings = _settings(lang)
    english = _settings("en")
    assert settings["site_name"] == name
    assert settings["markdown_extensions"]["toc"]["permalink_title"] == permalink
    assert MATERIAL_LINK in settings["copyright"] and "Made with" not in settings["copyright"]
    texts = settings["extra"]["theme_text"]
    assert texts.keys() == english["extra"]["theme_text"].keys()
    assert all(texts[key] != english["extra"]["theme_text"][key] for key in texts)


def test_palette_follows_the_system_and_offers_a_toggle() -> None:
    light, dark = _settings("vi")["theme"]["palette"]
    assert light["media"] == "(prefers-color-scheme: light)" and light["scheme"] == "default"
    assert dark["media"] == "(prefers-color-scheme: dark)" and dark["scheme"] == "slate"
    assert light["toggle"]["name"] == "Chuyển sang chế độ tối"
    assert dark["toggle"]["name"] == "Chuyển sang chế độ sáng"
