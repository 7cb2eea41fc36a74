"""Tests of :mod:`metrics_registry.encoding.candidates` that no other module's tests cover."""

from __future__ import annotations

from metrics_registry.encoding import candidates
from metrics_registry.encoding import language_model as lm


def test_a_document_with_accented_letters_intact_may_keep_a_lone_lead_byte_as_a_letter() -> None:
    assert candidates.keep_cost(lm.DocumentContext.from_text("Tiếng Việt và 中文")) == 0.0
    assert candidates.keep_cost(lm.DocumentContext.from_text("只有中文 and ASCII")) == candidates.KEEP_COST
