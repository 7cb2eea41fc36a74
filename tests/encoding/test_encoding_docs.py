"""The project's own pages (all three languages) quote mojibake and are clean text to fix-encoding."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from metrics_registry.encoding import diagnose
from metrics_registry.encoding.markup import layout

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGUAGES = ("en", "vi", "zh")


def fix_encoding(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", "fix-encoding", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_the_pages_quote_mojibake() -> None:
    """What makes the next test worth running: the encoding pages show damage in their code, which
    taken out of its page is reported."""
    for language in LANGUAGES:
        text = (DOCS / language / "tools" / "repairing-encoding.md").read_text(encoding="utf-8")
        examples = [text[start:end] for start, end in layout(text, "markdown").code]
        assert sum(bool(diagnose(example)) for example in examples) >= 3, language


def test_every_file_under_docs_passes_check(tmp_path: Path) -> None:
    files = sorted(str(path.relative_to(ROOT)) for path in DOCS.rglob("*") if path.is_file())
    assert {f"docs/{language}/tools/repairing-encoding.md" for language in LANGUAGES} <= set(files)
    result = fix_encoding("--check", *files, cwd=ROOT)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")

    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy)
    result = fix_encoding("--in-place", *files, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    after = sorted(str(path.relative_to(tmp_path)) for path in copy.rglob("*") if path.is_file())
    assert after == files  # no backup: nothing was rewritten
    for name in files:
        assert (tmp_path / name).read_bytes() == (ROOT / name).read_bytes(), name
