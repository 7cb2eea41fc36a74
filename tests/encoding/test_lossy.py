"""Tests of :mod:`metrics_registry.encoding.lossy` that no other module's tests cover."""

from __future__ import annotations

from metrics_registry.encoding import repair
from metrics_registry.encoding.damage import mojibake

#: 非 is E9 9D 9E: Windows-1254 leaves both continuation bytes undefined, so only "é" remains.
_MANUAL = "回车换行符会被转换为 UNIX 系统的单个换行符. 非 UNIX 系统的文本文件中可能含有单个换行符."


def test_a_lone_lead_byte_in_chinese_mojibake_is_not_kept_as_a_letter() -> None:
    damaged = mojibake(_MANUAL, "cp1254", lossy=True)
    assert ". é UNIX" in damaged  # the case: the character lost every byte but its lead
    # Kept as "é", it was clean text on the line, and the line's every finding a quotation.
    assert repair(damaged) == _MANUAL
