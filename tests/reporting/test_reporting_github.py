"""GitHub workflow commands: one line per finding, read back as the runner reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from _ci import parse_command, parse_commands
from hypothesis import given
from hypothesis import strategies as st

from metrics_registry.reporting import Annotation, RuleInfo, annotation_line, github_text
from metrics_registry.reporting.annotation import encodable
from metrics_registry.reporting.github import CONTROL_CHARACTERS
from metrics_registry.terminal import CONTROL_CHARACTERS as TERMINAL_CONTROL_CHARACTERS

RULE = RuleInfo("MR102", "unknown-field", "A field the format does not define.")


def visible(text: str) -> str:
    """What a message shows once the runner unescaped it: CR and LF kept, other controls as escapes."""
    return encodable(
        "".join(
            c
            if c in "\r\n" or not CONTROL_CHARACTERS.match(c)
            else c.encode("unicode_escape").decode("ascii")
            for c in text
        )
    )


def test_the_control_characters_are_the_terminals() -> None:
    assert CONTROL_CHARACTERS.pattern == TERMINAL_CONTROL_CHARACTERS.pattern


def test_a_finding_with_file_line_and_column() -> None:
    line = annotation_line(Annotation(RULE, "error", "unknown field 'crucal'", Path("ppo.yaml"), 27, 5))
    assert line == "::error file=ppo.yaml,line=27,col=5,title=MR102::unknown field 'crucal'"


@pytest.mark.parametrize(
    ("level", "command"), [("error", "error"), ("warning", "warning"), ("note", "notice")]
)
def test_levels(level: str, command: str) -> None:
    assert annotation_line(Annotation(RULE, level, "m")).startswith(f"::{command} title=MR102::")  # type: ignore[arg-type]


def test_no_line_without_a_file_and_no_column_without_a_line() -> None:
    assert parse_command(annotation_line(Annotation(RULE, "error", "m", None, 3, 4)))[1] == {"title": "MR102"}
    properties = parse_command(annotation_line(Annotation(RULE, "error", "m", Path("a.md"), None, 4)))[1]
    assert properties == {"file": "a.md", "title": "MR102"}


HOSTILE_MESSAGES = [
    "::error file=forged.py,line=1::forged",
    "first line\n::add-mask::secret\r\n::stop-commands::token",
    "100% sure, 50%0A is not a line break, nor is %25",
    "ends with a newline\n",
    "\x1b[2J\x1b]0;title\x07 cleared the screen \u202eevil",
    "a lone surrogate \ud800 from a JSON log",
    "",
]


@pytest.mark.parametrize("message", HOSTILE_MESSAGES)
def test_a_hostile_message_stays_one_annotation(message: str) -> None:
    line = annotation_line(Annotation(RULE, "warning", message, Path("docs/page.md"), 2))
    assert "\n" not in line and "\r" not in line
    assert "\x1b" not in line and "\u202e" not in line
    line.encode("utf-8")
    command, properties, shown = parse_command(line)
    assert command == "warning"
    assert properties == {"file": "docs/page.md", "line": "2", "title": "MR102"}
    assert shown == visible(message)


@pytest.mark.parametrize(
    "name", ["a,b.md", "a:b.md", "line=2,title=x.md", "50%.md", "a::b.md", "new\nline.md"]
)
def test_a_hostile_file_name_stays_the_file_property(name: str) -> None:
    rule = RuleInfo("rule,with:colons", "n", "d")
    command, properties, message = parse_command(
        annotation_line(Annotation(rule, "error", "m", Path(name), 7))
    )
    assert (command, message) == ("error", "m")
    assert properties == {"file": name, "line": "7", "title": "rule,with:colons"}


def test_a_file_outside_the_current_folder_is_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = tmp_path / "repo"
    inside.mkdir()
    monkeypatch.chdir(inside)
    properties = parse_command(annotation_line(Annotation(RULE, "error", "m", tmp_path / "other.md")))[1]
    assert properties["file"] == (tmp_path / "other.md").as_posix()
    properties = parse_command(annotation_line(Annotation(RULE, "error", "m", inside / "docs" / "x.md")))[1]
    assert properties["file"] == "docs/x.md"


def test_github_text_is_one_line_per_annotation() -> None:
    annotations = [Annotation(RULE, "error", message) for message in HOSTILE_MESSAGES]
    text = github_text(annotations)
    assert text.endswith("\n")
    assert [message for _c, _p, message in parse_commands(text)] == [visible(m) for m in HOSTILE_MESSAGES]
    assert github_text([]) == ""


_NAMES = st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=30).filter(
    lambda name: name not in {".", ".."}
)


@given(message=st.text(max_size=200), name=_NAMES, rule_id=st.text(min_size=1, max_size=30))
def test_any_text_round_trips_through_the_runner(message: str, name: str, rule_id: str) -> None:
    """Whatever a message, file name or rule id holds, the runner reads back what was meant."""
    rule = RuleInfo(rule_id, "n", "d")
    line = annotation_line(Annotation(rule, "error", message, Path(name), 1))
    assert "\n" not in line and "\r" not in line
    assert CONTROL_CHARACTERS.search(line) is None
    command, properties, shown = parse_command(line)
    assert command == "error"
    assert shown == visible(message)
    assert properties == {"file": visible(name), "line": "1", "title": visible(rule_id)}
