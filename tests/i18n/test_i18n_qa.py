"""Every QA rule, on single translations and on the real catalogs."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.findings import RULES
from metrics_registry.i18n import I18nError
from metrics_registry.i18n.catalogs import read_catalog, render_po
from metrics_registry.i18n.qa import check_catalogs, check_message, find_mojibake, load_glossary

ROOT = Path(__file__).resolve().parents[2]
SEEDS = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"


@pytest.mark.parametrize(
    ("source", "translation", "rule"),
    [
        ("Set `beta` to 0.", "Đặt `beta ` thành 0 và `x`.", "I18N201"),
        ("Compare with objective/kl here.", "So sánh ở đây.", "I18N202"),
        ("One per {reward_func_name}.", "Một cho mỗi {ten_ham}.", "I18N203"),
        ("Logged by %(trainer)s.", "Được ghi bởi %(lop)s.", "I18N203"),
        ("It is $\\log r$.", "Nó là $\\log q$.", "I18N204"),
        ("See https://github.com/huggingface/trl now.", "Xem https://example.com.", "I18N205"),
        ("See [the code](https://x.org/a).", "Xem [mã](https://x.org/b).", "I18N206"),
        ("Use `ppo/mean_scores`.", "使用 `ppo/mean_scores' 。", "I18N207"),
        ("The mean.", "Giá trá»‹ trung bình.", "I18N208"),
        ("The policy drifts.", "Chính sách trôi đi.", "I18N209"),
        ("The reward goes up.", "The reward 上升。", "I18N209"),
        ("Clipped (not masked).", "被裁剪(未被掩码)。", "I18N211"),
        ('Called "clipped".', '称为"被裁剪"。', "I18N211"),
    ],
)
def test_each_rule_fires(source: str, translation: str, rule: str) -> None:
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in translation) else "vi"
    rules = {
        r
        for r, _, _ in check_message(
            source, translation, lang, keys={"objective/kl"}, glossary=load_glossary(ROOT)
        )
    }
    assert rule in rules
    assert rule in RULES


def test_a_faithful_translation_has_no_findings() -> None:
    source = "Mean of `objective/kl` per {reward_func_name}, i.e. $\\sum_t k_t$; see [TRL](https://github.com/huggingface/trl)."
    translation = "`objective/kl` 按 {reward_func_name} 的均值，即 $\\sum_t k_t$；见 [TRL](https://github.com/huggingface/trl)。"
    assert (
        list(check_message(source, translation, "zh", keys={"objective/kl"}, glossary=load_glossary(ROOT)))
        == []
    )


def test_ascii_brackets_around_formulas_and_english_stay_in_chinese() -> None:
    """I18N211 is about Chinese text in ASCII marks; tuples, formulas and English keep theirs."""
    source = 'Groups (1, 1) and (0, 1): exp(0.5) per "sequence" (KL).'
    translation = "组 (1, 1) 和 (0, 1)：每个“序列”为 exp(0.5)（KL），max(未裁剪时 4, 1)。"
    assert "I18N211" not in {r for r, _, _ in check_message(source, translation, "zh")}
    assert "I18N211" not in {r for r, _, _ in check_message("Clipped (not masked).", "Bị cắt (chưa)", "vi")}


def test_mojibake_detector_on_the_damaged_seed_and_on_clean_text() -> None:
    damaged = (SEEDS / "training-logs-enhancements.zh.mojibake.md").read_text(encoding="utf-8")
    assert find_mojibake(damaged) is not None
    for clean in ("logging.vi.md", "logging-v0.7.zh.md"):
        text = (SEEDS / clean).read_text(encoding="utf-8")
        assert find_mojibake(text) is None, clean


def test_the_chinese_seeds_unbalanced_backticks_are_caught() -> None:
    line = next(
        line
        for line in (SEEDS / "logging-v0.7.zh.md").read_text(encoding="utf-8").splitlines()
        if "`ppo/mean_scores'" in line
    )
    assert "I18N207" in {r for r, _, _ in check_message("Alias of `ppo/mean_scores`.", line, "zh")}


def test_the_shipped_catalogs_have_no_findings() -> None:
    assert check_catalogs(ROOT) == []


def _break(project: Path, lang: str, context: str, translation: str) -> Path:
    path = project / "i18n" / lang / "LC_MESSAGES" / "registry.po"
    catalog = read_catalog(path)
    message = next(m for m in catalog if m.context == context)
    message.string = translation
    path.write_text(render_po(catalog), encoding="utf-8")
    return path


def test_check_catalogs_locates_findings_in_a_real_catalog(project: Path) -> None:
    path = _break(
        project, "zh", "grpo:kl|summary", "策略相对参考模型的 KL 散度的 `k3 估计，在补全的 token 上取平均。"
    )
    findings = check_catalogs(project)
    assert {f.rule for f in findings} == {"I18N207"}
    (finding,) = findings
    assert finding.file == path and finding.key == "grpo:kl|summary"
    assert path.read_text(encoding="utf-8").split("\n")[finding.line - 1].startswith(("msgctxt", "msgid"))


def test_glossary_check_on_a_real_catalog(project: Path) -> None:
    _break(
        project,
        "vi",
        "grpo:kl|summary",
        "Trung bình trên các token completion của ước lượng k3 cho phân kỳ KL"
        " từ chính sách đến mô hình tham chiếu.",
    )
    findings = check_catalogs(project, ["vi"])
    assert [f.rule for f in findings] == ["I18N209"]
    assert "polic" in findings[0].message


def test_fuzzy_entries_are_not_checked(project: Path) -> None:
    path = project / "i18n" / "zh" / "LC_MESSAGES" / "registry.po"
    catalog = read_catalog(path)
    message = next(m for m in catalog if m.context == "grpo:kl|summary")
    message.string = "Ã¤Â¸Â"
    message.flags.add("fuzzy")
    path.write_text(render_po(catalog), encoding="utf-8")
    assert check_catalogs(project) == []


def test_header_without_plural_forms_and_broken_po_are_reported(project: Path) -> None:
    path = project / "i18n" / "vi" / "LC_MESSAGES" / "ui.po"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"Plural-Forms: nplurals=1; plural=0;\\n"\n', ""), encoding="utf-8")
    assert "I18N200" in {f.rule for f in check_catalogs(project, ["vi"])}
    path.write_text(text + '\nmsgid "unterminated\n', encoding="utf-8")
    assert "I18N200" in {f.rule for f in check_catalogs(project, ["vi"])}


def test_babel_catalog_check_reports_python_format(project: Path) -> None:
    path = project / "i18n" / "zh" / "LC_MESSAGES" / "ui.po"
    catalog = read_catalog(path)
    message = catalog.get("Logged by %(trainer)s.")
    message.string = "由 %(trainer)d 记录。"
    path.write_text(render_po(catalog), encoding="utf-8")
    assert "I18N210" in {f.rule for f in check_catalogs(project, ["zh"])}


def test_glossary_avoid_flags_a_form_even_next_to_the_right_one() -> None:
    glossary = load_glossary(ROOT)
    translation = "Một lần chạy bình thường, lành mạnh."
    found = list(check_message("A healthy run.", translation, "vi", glossary=glossary))
    assert [rule for rule, _, _ in found] == ["I18N209"]
    assert "avoids lành mạnh" in found[0][1]
    assert list(check_message("A healthy run.", "Một lần chạy bình thường.", "vi", glossary=glossary)) == []
    # the avoided form is only checked where the English has the term
    assert list(check_message("The loss.", "Loss lành mạnh.", "vi", glossary=glossary)) == []


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("The probability ratio is 1.", "Tỷ lệ xác suất bằng 1."),  # a ratio is tỉ số, spelt with i
        ("The fraction of tokens.", "Tỷ lệ token."),
        ("Where the clip binds.", "Nơi phép cắt ràng buộc."),
        ("The frozen reference model.", "Mô hình tham chiếu cố định."),
        ("Up to 0.10.1 it was 0.", "Đến 0.10.1 nó bằng 0."),
        ("The loss mask.", "损失屏蔽。"),
    ],
)
def test_the_wording_decisions_of_the_glossary_are_enforced(source: str, translation: str) -> None:
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in translation) else "vi"
    found = check_message(source, translation, lang, glossary=load_glossary(ROOT))
    assert "I18N209" in {rule for rule, _, _ in found}


def test_glossary_avoid_must_map_languages_to_lists(tmp_path: Path) -> None:
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "glossary.yaml").write_text(
        "terms:\n  - en: healthy\n    vi: [bình thường]\n    avoid: {vi: lành mạnh}\n", encoding="utf-8"
    )
    with pytest.raises(I18nError, match=r"glossary.yaml:2: term 'healthy': 'avoid' must map"):
        load_glossary(tmp_path)
