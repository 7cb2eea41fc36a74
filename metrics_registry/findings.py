"""Validation findings: data, not exceptions.

Every problem the loader or a check finds is a :class:`Finding` with a
stable rule id, so that users can search for it, tools can filter it, and
tests can assert exactly which rule fired on which line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from metrics_registry.models import Severity

__all__ = ["RULES", "Finding", "Rule"]


@dataclass(frozen=True)
class Rule:
    """A validation rule: stable id, short name, default severity, what it checks."""

    id: str
    name: str
    severity: Severity
    description: str


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {rule.id: rule for rule in rules}


RULES: dict[str, Rule] = _rules(
    Rule("MR100", "yaml-syntax", Severity.error, "The file is not valid YAML."),
    Rule("MR101", "yaml-duplicate-field", Severity.error, "A mapping repeats a field name."),
    Rule("MR102", "unknown-field", Severity.error, "A field the format does not define (often a typo)."),
    Rule("MR103", "missing-field", Severity.error, "A required field is absent."),
    Rule(
        "MR104", "invalid-value", Severity.error, "A field's value has the wrong type or is out of its range."
    ),
    Rule(
        "MR105",
        "missing-modeline",
        Severity.error,
        "The file does not start with the yaml-language-server modeline pointing at the schema.",
    ),
    Rule("MR106", "unreadable-file", Severity.error, "The file cannot be read as UTF-8 text."),
    Rule(
        "MR107",
        "too-large",
        Severity.error,
        "The file is too large, nested too deep or expands too far through YAML aliases to be read safely.",
    ),
    Rule(
        "MR108",
        "control-character",
        Severity.error,
        "A text holds a control character (an escape sequence, a bidirectional override) that would"
        " act on a terminal or hide what the text says.",
    ),
    Rule(
        "MR110",
        "duplicate-key",
        Severity.error,
        "A key or alias appears twice in one family (two families may share a key).",
    ),
    Rule("MR111", "duplicate-family", Severity.error, "Two files declare the same family id."),
    Rule(
        "MR112",
        "dangling-reference",
        Severity.error,
        "see_also, replaces or replaced_by names a metric that does not exist.",
    ),
    Rule("MR113", "malformed-template", Severity.error, "A key (templated or not) is not well formed."),
    Rule(
        "MR114", "unbalanced-latex", Severity.error, "Braces, \\left/\\right or $ delimiters do not balance."
    ),
    Rule(
        "MR115",
        "one-sided-replacement",
        Severity.warning,
        "A replaced_by link without the matching replaces link on the successor (or the reverse).",
    ),
    Rule(
        "MR116",
        "versions-outside-family",
        Severity.warning,
        "A metric's versions fall outside its family's range.",
    ),
    Rule("MR117", "duplicate-rule-id", Severity.error, "Two healthy rules of one metric share an id."),
    Rule("MR118", "anchor-collision", Severity.error, "Two keys of one family give the same page anchor."),
    Rule("MR119", "placeholder-left", Severity.error, "A scaffolded entry still holds TODO text."),
    Rule("MR120", "self-reference", Severity.warning, "A metric lists itself in see_also."),
    Rule(
        "MR121",
        "project-name-conflict",
        Severity.error,
        "Two families of one project (same versions_of) spell its name differently in 'project'.",
    ),
    # Reference implementations (metrics_registry/reference/); see checks.check_references_implemented.
    Rule(
        "MR130",
        "missing-reference",
        Severity.error,
        "A metric marked computable has no reference implementation.",
    ),
    Rule(
        "MR131",
        "missing-example",
        Severity.error,
        "A computable metric (or one with a reference) has no worked example.",
    ),
    Rule(
        "MR132",
        "reference-does-not-import",
        Severity.error,
        "The reference names a module that cannot be found or a function the module does not define.",
    ),
    Rule(
        "MR133",
        "example-does-not-fit-reference",
        Severity.error,
        "A worked example passes an argument the reference does not take, or leaves out a required one.",
    ),
    Rule(
        "MR134",
        "computable-undeclared",
        Severity.error,
        "A family classifies its metrics with 'computable' but this entry does not say.",
    ),
    Rule(
        "MR135",
        "reference-on-non-computable",
        Severity.warning,
        "A metric marked computable: false has a reference or worked examples.",
    ),
    # What values mean (metrics_registry/concepts.py, metrics_registry/semantic_checks.py).
    Rule(
        "MR160",
        "unknown-concept",
        Severity.error,
        "A metric's concept is not in the closed list (metrics_registry/data/concepts/concepts.yaml).",
    ),
    Rule(
        "MR161",
        "invalid-concept-list",
        Severity.error,
        "The concept list cannot be read, or a concept is invalid, listed twice or has an unknown parent.",
    ),
    Rule(
        "MR162",
        "versions-outside-metric",
        Severity.warning,
        "A known issue or a healthy rule's condition names only releases that do not log the metric.",
    ),
    # Text files of the project (metrics_registry/textfiles.py).
    Rule(
        "MR140",
        "mojibake",
        Severity.error,
        "A registry file, catalog or docs page holds UTF-8 text decoded with a wrong code page.",
    ),
    # Markup in registry texts and translations (metrics_registry/markup.py); the site removes it.
    Rule(
        "MR150",
        "raw-html",
        Severity.error,
        "A registry text or a translation holds raw HTML (or sets HTML attributes with '{...}').",
    ),
    Rule(
        "MR151",
        "dangerous-url",
        Severity.error,
        "A link or HTML attribute holds a javascript:, data: or vbscript: URL (in any spelling).",
    ),
    Rule(
        "MR152",
        "stray-heading",
        Severity.error,
        "A line of a registry text or a translation starts with '#': the page gets a heading (and an id)"
        " the text never meant.",
    ),
    # Translations (metrics_registry/i18n/qa.py); checked on translated, non-fuzzy entries.
    Rule(
        "I18N200",
        "catalog-invalid",
        Severity.error,
        "A catalog cannot be parsed, or its header lacks Language or Plural-Forms.",
    ),
    Rule("I18N201", "code-span-mismatch", Severity.error, "Inline code spans differ from the English."),
    Rule(
        "I18N202", "metric-key-mismatch", Severity.error, "A metric key of the English is missing or changed."
    ),
    Rule(
        "I18N203",
        "placeholder-mismatch",
        Severity.error,
        "{placeholders} or %(names)s differ from the English.",
    ),
    Rule("I18N204", "latex-mismatch", Severity.error, "$...$ formulas differ from the English."),
    Rule("I18N205", "url-mismatch", Severity.error, "URLs differ from the English."),
    Rule("I18N206", "link-mismatch", Severity.error, "Markdown link targets differ from the English."),
    Rule("I18N207", "unbalanced-backticks", Severity.error, "A code span is opened and never closed."),
    Rule(
        "I18N208",
        "mojibake",
        Severity.error,
        "The translation holds UTF-8 text decoded with a Windows code page.",
    ),
    Rule("I18N209", "glossary-term", Severity.warning, "The translation does not use the glossary's term."),
    Rule(
        "I18N210",
        "catalog-check",
        Severity.error,
        "Babel's catalog checks failed (python-format placeholders, number of plural forms).",
    ),
    Rule(
        "I18N211",
        "chinese-punctuation",
        Severity.warning,
        "ASCII parentheses or straight quotes around Chinese text (full-width ones belong there).",
    ),
)


@dataclass(frozen=True)
class Finding:
    """One problem, located as precisely as the input allows."""

    rule: str
    file: Path
    line: int | None
    message: str
    fix: str
    key: str | None = None
    field: str | None = None
    severity: Severity | None = None

    def __post_init__(self) -> None:
        if self.severity is None:
            object.__setattr__(self, "severity", RULES[self.rule].severity)

    @property
    def name(self) -> str:
        """The rule's short name, e.g. ``unknown-field``."""
        return RULES[self.rule].name

    @property
    def is_error(self) -> bool:
        return self.severity == Severity.error

    def location(self) -> str:
        """``file:line`` as editors and terminals link it."""
        return f"{self.file}:{self.line}" if self.line else str(self.file)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["file"] = str(self.file)
        data["severity"] = Severity(self.severity).value
        data["name"] = self.name
        return data

    def about(self) -> str:
        """``[key.field]``, ``[key]`` or ``[field]``: what the finding is about ('' when nothing)."""
        if self.key:
            return f"[{self.key}{'.' + self.field if self.field else ''}]"
        return f"[{self.field}]" if self.field else ""

    def format(self) -> str:
        """One line for a terminal: location, severity, rule, message, fix."""
        about = f" {self.about()}" if self.about() else ""
        severity = Severity(self.severity).value
        where = self.location()
        line = f"{where}: {severity} {self.rule} {self.name}{about}: {self.message}. Fix: {self.fix}"
        # One line, whatever the file holds: a line break in a field name would start a line of
        # its own (in a CI log, a forged '::error' workflow command); other controls escaped too.
        from metrics_registry.terminal import printable  # rich, only when printing

        return printable(line).replace("\n", "\\n")
