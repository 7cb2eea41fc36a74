"""Which framework (and family) wrote a run, told from its keys alone.

A framework is what a family's ``versions_of`` names (``trl`` for TRL's
three families, ``verl`` for verl's): the project whose releases number its
keys. Nothing here names one; a new family file is a new candidate.

Every logged key is looked up in every form a tracker may have written it
(:func:`~metrics_registry.runs.identify.lookup_forms`: transformers' and
the trainers' own ``train/``, ``eval/`` prefixes undone, aliases, templated
keys, the ``eval_`` prefix), and each family that knows it in any form
*recognises* it. A key recognised by the families of one framework only is
evidence for that framework; a key only one family recognises, for that
family. The framework with the most such keys wins:

``detected``
    it has at least :data:`STRONG_KEYS` keys of its own, and more than
    twice as many as the runner-up;
``weak``
    it wins on less than that (a few keys, or a mixed log): reported as
    such, and still used to settle keys;
``format``
    the keys tie, and the log's file format is one that only one of the
    tied frameworks writes (a family's ``log_formats``: transformers'
    ``trainer_state.json`` is a TRL run, verl's file logger a verl run);
``tie``
    two or more frameworks have as many keys of their own (or none has any
    while several recognise keys) and the file's format does not tell them
    apart: nothing is settled by the framework;
``none``
    no key is recognised;
``given``
    ``--framework`` or ``--family`` named it.

The family is then the framework's only family, or the one with the most
keys of its own (``None`` on a tie inside the framework, e.g. a TRL log of
transformers' keys only, which GRPO and PPO runs share).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.registry import Match, Registry

__all__ = [
    "STRONG_KEYS",
    "Detection",
    "FrameworkScore",
    "detect",
    "frameworks",
    "resolve_framework",
    "writer_of",
]

#: A framework detected with fewer keys of its own than this is reported as weak evidence.
STRONG_KEYS = 3

How = Literal["given", "detected", "weak", "format", "tie", "none"]


def frameworks(registry: Registry) -> dict[str, list[str]]:
    """Every framework of the registry and its family ids, sorted."""
    out: dict[str, list[str]] = {}
    for family in sorted(registry.families.values(), key=lambda f: f.id):
        out.setdefault(family.versions_of, []).append(family.id)
    return dict(sorted(out.items()))


def resolve_framework(registry: Registry, name: str) -> str | None:
    """The framework ``name`` means (case-insensitive; a family id names its framework), else ``None``."""
    known = frameworks(registry)
    for framework in known:
        if framework.casefold() == name.casefold():
            return framework
    family = registry.families.get(name)
    return family.versions_of if family is not None else None


@dataclass(frozen=True)
class FrameworkScore:
    """What one framework's families recognise in a log."""

    framework: str
    recognised: int  # keys some family of the framework knows
    own: tuple[str, ...]  # keys (as logged) that only this framework's families know, sorted


@dataclass(frozen=True)
class Detection:
    """The framework and family of a run, and the evidence (see the module's docstring)."""

    how: How
    framework: str | None
    family: str | None
    total: int  # keys logged
    scores: tuple[FrameworkScore, ...]  # best first
    family_own: Mapping[str, tuple[str, ...]]  # keys only that family knows, per family, sorted
    version: str | None = None  # the release the run used, of ``framework`` (``--version``)
    log_format: str | None = None  # the file format that settled a tie (``how == "format"``)
    version_unused: bool = False  # a ``--version`` was given but no framework is known to apply it to
    names: Mapping[str, str] = field(default_factory=dict)  # framework id -> project name (``TRL``)

    def label(self, framework: str) -> str:
        """How ``framework`` is named to a reader (:meth:`Registry.framework_label`)."""
        return self.names.get(framework, framework)

    def to_dict(self) -> dict[str, object]:
        """The detection as data (the JSON report's ``detection``)."""
        return {
            "how": self.how,
            "framework": self.framework,
            "family": self.family,
            "version": self.version,
            "version_unused": self.version_unused,
            "log_format": self.log_format,
            "keys": self.total,
            "frameworks": [
                {
                    "framework": s.framework,
                    "recognised": s.recognised,
                    "own": len(s.own),
                    "example": s.own[:1],
                }
                for s in self.scores
            ],
            "evidence": self.evidence,
        }

    def score(self, framework: str | None) -> FrameworkScore | None:
        return next((s for s in self.scores if s.framework == framework), None)

    @property
    def tied(self) -> tuple[str, ...]:
        """The frameworks sharing the top score, on a tie."""
        return self.tied_on_keys if self.how == "tie" else ()

    @property
    def tied_on_keys(self) -> tuple[str, ...]:
        """The frameworks sharing the top score (one when the keys settled it)."""
        if not self.scores:
            return ()
        top = len(self.scores[0].own)
        return tuple(s.framework for s in self.scores if len(s.own) == top and s.recognised)

    @property
    def evidence(self) -> str | None:
        """A key that only the chosen family (else framework) logs, to name in the report."""
        own = self.family_own.get(self.family or "", ())
        if own:
            return own[0]
        score = self.score(self.framework)
        return score.own[0] if score is not None and score.own else None


def _family_of(registry: Registry) -> dict[str, str]:
    return {family_id: family.versions_of for family_id, family in registry.families.items()}


def writer_of(registry: Registry, log_format: str | None) -> str | None:
    """The one framework whose trainers write files of ``log_format``, else ``None``."""
    writers = {f.versions_of for f in registry.families.values() if log_format in f.log_formats}
    return writers.pop() if len(writers) == 1 else None


def detect(
    candidates: Mapping[str, Sequence[Match]],
    registry: Registry,
    *,
    framework: str | None = None,
    family: str | None = None,
    log_format: str | None = None,
) -> Detection:
    """Detect the framework and family of a log whose keys have these ``candidates`` (in any form).

    ``framework`` or ``family`` (already checked to exist) are what the user said; a family
    implies its framework. ``log_format`` is the file's format, evidence when the keys tie.
    """
    framework_of = _family_of(registry)
    if family is not None:
        framework = framework_of[family]
    recognised: Counter[str] = Counter()
    own: dict[str, list[str]] = {}
    family_own: dict[str, list[str]] = {}
    for key, matches in candidates.items():
        families = {m.entry.family.id for m in matches}
        owners = {framework_of[f] for f in families}
        for owner in owners:
            recognised[owner] += 1
        if len(owners) == 1:
            own.setdefault(next(iter(owners)), []).append(key)
        if len(families) == 1:
            family_own.setdefault(next(iter(families)), []).append(key)
    scores = tuple(
        sorted(
            (FrameworkScore(name, recognised[name], tuple(sorted(own.get(name, ())))) for name in recognised),
            key=lambda s: (-len(s.own), -s.recognised, s.framework),
        )
    )
    owned = {name: tuple(sorted(keys)) for name, keys in family_own.items()}
    how: How
    if framework is not None:
        how = "given"
    elif not scores:
        how = "none"
    else:
        best = len(scores[0].own)
        runner_up = len(scores[1].own) if len(scores) > 1 else 0
        writer = writer_of(registry, log_format)
        tied = {s.framework for s in scores if len(s.own) == best and s.recognised}
        if best == runner_up and writer in tied:
            framework, how = writer, "format"
        elif best == runner_up:
            how = "tie"
        else:
            framework = scores[0].framework
            how = "detected" if best >= STRONG_KEYS and best > 2 * runner_up else "weak"
    if family is None and framework is not None:
        family = _top_family(framework, owned, framework_of)
    written = log_format if how == "format" else None
    names = {name: registry.framework_label(name) for name in frameworks(registry)}
    return Detection(how, framework, family, len(candidates), scores, owned, log_format=written, names=names)


def _top_family(
    framework: str, owned: Mapping[str, tuple[str, ...]], framework_of: Mapping[str, str]
) -> str | None:
    """The framework's only family, else its family with the most keys of its own; ``None`` on a tie."""
    families = [family for family, owner in framework_of.items() if owner == framework]
    if len(families) == 1:
        return families[0]
    counts = sorted(
        ((len(keys), family) for family, keys in owned.items() if framework_of[family] == framework),
        reverse=True,
    )
    if not counts or (len(counts) > 1 and counts[0][0] == counts[1][0]):
        return None
    return counts[0][1]
