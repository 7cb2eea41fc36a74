"""The loaded registry and lookup of a logged key.

A logged key can reach an entry in several ways: exactly, through an alias,
as a concrete instance of a templated key (`rewards/accuracy_reward/mean`
is `rewards/{reward_func_name}/mean`), or with the evaluation prefix the
trainer adds (`eval_reward` is `reward` logged during evaluation). One
key may also exist in several families with different meanings
(`objective/kl` in PPO and in legacy PPO): lookup then needs a family or
a TRL version, and says which families exist when it gets neither.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from metrics_registry.keys import Reference, compile_template, is_templated, shown, template_problem
from metrics_registry.models import FamilyInfo, Metric, VersionRange

if TYPE_CHECKING:
    from metrics_registry.concepts import Concept

__all__ = [
    "AmbiguousMetricError",
    "Entry",
    "InvalidVersionError",
    "Match",
    "Registry",
    "RegistryError",
    "UnknownMetricError",
    "anchor",
    "logged_by",
    "project_name",
]


def project_name(family: FamilyInfo) -> str:
    """How the project whose releases a family counts is named to a reader: its ``project``
    (``TRL``, ``NeMo-RL``), else its ``versions_of`` id. Data, not code: a new framework's
    family file names it."""
    return family.project or family.versions_of


def logged_by(matches: Sequence[Match]) -> str:
    """Every framework the matches belong to, with its families: ``TRL: grpo, ppo; verl: verl``."""
    groups: dict[str, list[str]] = {}
    for match in matches:
        family = match.entry.family
        names = groups.setdefault(project_name(family), [])
        if family.id not in names:
            names.append(family.id)
    return "; ".join(f"{name}: {', '.join(families)}" for name, families in groups.items())


class RegistryError(Exception):
    """Base class of the registry's errors; the message says what to do."""


class InvalidVersionError(RegistryError, ValueError):
    """A release number that is not a version (`--trl-version x`)."""


_VERSION_MAX = 40


def check_version(text: str) -> str:
    """`text` if it is a release number (PEP 440, as TRL's are); raise `InvalidVersionError`.

    >>> check_version("0.7.10")
    '0.7.10'
    """
    from packaging.version import InvalidVersion, Version

    try:
        if len(text) > _VERSION_MAX:  # a huge number would make the comparison convert a huge integer
            raise InvalidVersion(text)
        Version(text)
    except (InvalidVersion, TypeError, ValueError):
        raise InvalidVersionError(
            f"'{text}' is not a release number; write it as the project numbers its releases (PEP 440),"
            " e.g. 0.7.10 or 1.2"
        ) from None
    return text


class UnknownMetricError(RegistryError, KeyError):
    """No entry matches the key."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class AmbiguousMetricError(RegistryError, LookupError):
    """The key exists in several families; a family or a version is needed."""

    def __init__(self, message: str, matches: list[Match]) -> None:
        super().__init__(message)
        self.matches = matches


@lru_cache(maxsize=1 << 16)  # every page links to many metrics: one computation per key
def anchor(key: str) -> str:
    """The page anchor of a metric: stable, the same in every language.

    Lower case; every run of characters other than `a-z`, `0-9` and
    `_` becomes one `-`, and no `_` starts or ends a part between two `-`:
    the pages write anchors in attr_list (`{ #id }`), which Markdown reads
    as text first, and `-_layer_-` there became emphasis and lost the id.

    >>> anchor("objective/kl")
    'objective-kl'
    >>> anchor("rewards/{reward_func_name}/mean")
    'rewards-reward_func_name-mean'
    >>> anchor("train/moe/moe/{aux_loss}_layer_{layer}")
    'train-moe-moe-aux_loss-layer-layer'
    """
    out: list[str] = []
    for char in key.lower():
        if char.isascii() and (char.isalnum() or char == "_"):
            out.append(char)
        elif out and out[-1] != "-":
            out.append("-")
    parts = (part.strip("_") for part in "".join(out).split("-"))
    return "-".join(part for part in parts if part)


@dataclass(frozen=True)
class Entry:
    """A metric together with its family and where it was defined."""

    metric: Metric
    family: FamilyInfo
    path: Path
    line: int | None = None

    @property
    def key(self) -> str:
        return self.metric.key

    @property
    def id(self) -> str:
        """Globally unique id, `family:key`."""
        return f"{self.family.id}:{self.metric.key}"

    @property
    def anchor(self) -> str:
        return anchor(self.metric.key)

    @property
    def versions(self) -> VersionRange:
        """The metric's own releases, or its family's."""
        return self.metric.versions or self.family.versions

    @property
    def templated(self) -> bool:
        return is_templated(self.metric.key)

    def version_text(self, *, short: bool = False) -> str:
        """Releases that log it: `TRL ≥ 0.9.2, < 1.13.0` (short) or `TRL 0.14.0 and later`."""
        versions = self.versions
        who = project_name(self.family)
        if versions.removed:
            if short:  # an open upper bound: "0.2.0–0.12.0" would read as inclusive
                return f"{who} ≥ {versions.introduced}, < {versions.removed}"
            return f"{who} {versions.introduced} up to (not including) {versions.removed}"
        return f"{who} ≥ {versions.introduced}" if short else f"{who} {versions.introduced} and later"

    def logged_in(self, trl_version: str) -> bool:
        """Whether TRL `trl_version` logs it (extensions are not versioned by TRL)."""
        if self.family.versions_of != "trl":
            return True
        return self.versions.contains(trl_version)


@dataclass(frozen=True)
class Match:
    """How a logged key reached an entry."""

    entry: Entry
    logged_key: str
    how: Literal["key", "alias", "template", "alias-template"]
    mode: Literal["train", "eval"] = "train"
    bindings: dict[str, str] = field(default_factory=dict)


class Registry:
    """All loaded families and their metrics, with lookup by logged key.

    `concepts` is the closed list of concepts (`metrics_registry.concepts`) the
    metrics' `concept` fields name.
    """

    def __init__(
        self,
        families: dict[str, FamilyInfo],
        entries: list[Entry],
        concepts: Mapping[str, Concept] | None = None,
    ) -> None:
        self.families = families
        self.entries = entries
        self.concepts: dict[str, Concept] = dict(concepts or {})
        #: The user-cache key of the files this registry was loaded from (their content, this
        #: package's code), set by ``validate()``; None for a registry put together otherwise.
        #: The site build names its inputs by it rather than by digesting every metric again.
        self.source_key: str | None = None
        self._by_name: dict[str, list[tuple[Entry, str]]] = {}
        self._templates: list[tuple[Entry, str, str]] = []
        # per family and per template name, so a site of N metrics does not scan all N per page
        self._by_family: dict[str, list[Entry]] = {}
        self._template_by_name: dict[str, list[Entry]] = {}
        for entry in entries:
            self._by_family.setdefault(entry.family.id, []).append(entry)
            names = [(entry.metric.key, "key")] + [(alias, "alias") for alias in entry.metric.aliases]
            for name, how in names:
                if is_templated(name):
                    if template_problem(name) is None:
                        self._templates.append((entry, name, how))
                        self._template_by_name.setdefault(name, []).append(entry)
                else:
                    self._by_name.setdefault(name, []).append((entry, how))

    def framework_label(self, framework: str) -> str:
        """How a framework (a ``versions_of`` id) is named to a reader: the ``project`` its
        families give (``TRL`` for ``trl``), else the id."""
        named = (f.project for f in self.families.values() if f.versions_of == framework and f.project)
        return next(named, framework)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def family(self, family_id: str) -> FamilyInfo:
        try:
            return self.families[family_id]
        except KeyError:
            known = ", ".join(sorted(self.families))
            raise UnknownMetricError(f"unknown family '{family_id}' (known: {known})") from None

    def in_family(self, family_id: str) -> list[Entry]:
        self.family(family_id)
        return list(self._by_family.get(family_id, []))

    def resolve(self, reference: str, from_family: str) -> Entry | None:
        """The entry a `see_also`/`replaces`/`replaced_by` reference names."""
        ref = Reference.parse(reference)
        family = ref.family or from_family
        for entry, _how in self._by_name.get(ref.key, []):
            if entry.family.id == family and entry.metric.key == ref.key:
                return entry
        for entry in self._template_by_name.get(ref.key, []):
            if entry.family.id == family:
                return entry
        return None

    def _match_names(self, key: str, mode: Literal["train", "eval"]) -> list[Match]:
        exact = [
            Match(entry, key, "key" if how == "key" else "alias", mode)
            for entry, how in self._by_name.get(key, [])
        ]
        if exact:
            return exact
        found = []
        for entry, name, how in self._templates:
            hit = compile_template(name).match(key)
            if hit:
                kind: Literal["template", "alias-template"] = "template" if how == "key" else "alias-template"
                found.append(Match(entry, key, kind, mode, hit.groupdict()))
        return found

    def find(self, key: str, *, family: str | None = None, trl_version: str | None = None) -> list[Match]:
        """Every entry `key` can mean, best matches first; empty if none.

        Exact keys and aliases win over templates; a key matches with the
        evaluation prefix removed only when nothing matches it as written.
        """
        if family is not None:
            self.family(family)
        matches = self._match_names(key, "train")
        if not matches:
            for prefix in sorted({f.eval_prefix for f in self.families.values() if f.eval_prefix}):
                if key.startswith(prefix):
                    matches = [
                        m
                        for m in self._match_names(key[len(prefix) :], "eval")
                        if m.entry.family.eval_prefix == prefix and "eval" in m.entry.metric.modes
                    ]
                    matches = [Match(m.entry, key, m.how, "eval", m.bindings) for m in matches]
                    if matches:
                        break
        if family is not None:
            matches = [m for m in matches if m.entry.family.id == family]
        if trl_version is not None:
            check_version(trl_version)
            matches = [m for m in matches if m.entry.logged_in(trl_version)]
        unique: dict[str, Match] = {}
        for match in matches:
            unique.setdefault(match.entry.id, match)
        return list(unique.values())

    def lookup(self, key: str, *, family: str | None = None, trl_version: str | None = None) -> Match:
        """The one entry `key` means; raises when none or several match.

        >>> from metrics_registry import load
        >>> load().lookup("rewards/accuracy_reward/mean").entry.key
        'rewards/{reward_func_name}/mean'
        """
        matches = self.find(key, family=family, trl_version=trl_version)
        if len(matches) == 1:
            return matches[0]
        scope = "".join(
            [f" in family '{family}'" if family else "", f" for TRL {trl_version}" if trl_version else ""]
        )
        if not matches:
            raise UnknownMetricError(
                f"no metric '{shown(key)}'{scope}; run 'metrics-registry export' to list the known keys"
            )
        families = ", ".join(f"{m.entry.family.id} ({m.entry.version_text()})" for m in matches)
        frameworks = list(dict.fromkeys(project_name(m.entry.family) for m in matches))
        of = (
            f"of {len(frameworks)} frameworks ({', '.join(frameworks)})"
            if len(frameworks) > 1
            else f"of {frameworks[0]}"
        )
        choose = "a family or a TRL version" if "TRL" in frameworks else "a family"
        raise AmbiguousMetricError(
            f"'{key}' is logged by {len(matches)} families {of} with different meanings: {families};"
            f" pass {choose} to choose",
            matches,
        )
