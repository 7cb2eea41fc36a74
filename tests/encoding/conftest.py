"""Fixtures of the encoding tests (their clean texts: clean_texts.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _dictionaries() -> None:
    """Load the language model once for the whole session (about a second)."""
    from metrics_registry.encoding import language_model

    language_model.load()
