"""Which registry entry each logged key of a run is.

Lookup itself is :meth:`Registry.find` (aliases, templated keys such as
``rewards/accuracy_reward/mean``, the ``eval_`` prefix, TRL versions). Two
things are added for real logs:

transformers' prefixes
    transformers' TensorBoard and W&B callbacks rewrite every key:
    ``loss`` -> ``train/loss``, ``eval_loss`` -> ``eval/loss``. Some
    registry keys really start with ``train/`` or ``eval/`` (the multi-turn
    extension logs ``train/groups_kept`` and ``eval/accuracy`` itself), so a
    prefixed key is looked up both as written and with the rewrite undone
    (``train/x`` -> ``x``, ``eval/x`` -> ``eval_x``). When only one form is
    known, it wins. When both are, the run decides: a run whose keys show
    the callbacks' marks (``train/epoch``, ``train/global_step``) prefers the
    undone form, any other run the key as written.

families and frameworks
    A key such as ``objective/kl`` exists in several families with different
    meanings. The run's framework is detected from all its keys
    (:mod:`metrics_registry.runs.detect`), or given (``--framework``,
    ``--family``); a key is then read as that family's entry wherever it has
    one, else as that framework's (keys of other families, such as
    transformers' ``loss`` in a GRPO run, stay what they are). A release
    (``--version`` of the detected framework, ``--trl-version`` of TRL)
    keeps only the entries that release logs. What is still ambiguous is
    settled by votes: every key that only one family knows votes for that
    family, and an ambiguous key takes the candidate of the family with the
    most votes; on a tie it is reported as ambiguous and its rules are not
    evaluated.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Literal

from metrics_registry.exports.rename_map import current_successors
from metrics_registry.registry import Entry, Match, Registry
from metrics_registry.runs.detect import Detection, detect

__all__ = ["Identified", "KeyInfo", "KeyStatus", "identify_keys", "identify_run", "lookup_forms"]

KeyStatus = Literal["known", "legacy", "unknown", "ambiguous"]


@dataclass(frozen=True)
class KeyInfo:
    """A logged key and what it is."""

    logged: str
    lookup: str  # the key found in the registry (transformers' rewrite undone), else as logged
    status: KeyStatus
    match: Match | None = None
    candidates: tuple[Match, ...] = ()  # the families to choose from, when ambiguous
    successors: tuple[Entry, ...] = ()  # current keys, when legacy

    @property
    def entry(self) -> Entry | None:
        return self.match.entry if self.match is not None else None


def lookup_forms(key: str, hf_prefixed: bool) -> list[str]:
    """The keys to look ``key`` up as, preferred first.

    >>> lookup_forms("train/loss", True)
    ['loss', 'train/loss']
    >>> lookup_forms("eval/reward", False)
    ['eval/reward', 'eval_reward']
    >>> lookup_forms("kl", True)
    ['kl']
    """
    undone = None
    for prefix, replacement in (("train/", ""), ("eval/", "eval_"), ("test/", "test_")):
        if key.startswith(prefix) and len(key) > len(prefix):
            undone = replacement + key[len(prefix) :]
            break
    if undone is None:
        return [key]
    return [undone, key] if hf_prefixed else [key, undone]


def identify_keys(
    keys: list[str],
    registry: Registry,
    *,
    hf_prefixed: bool = False,
    family: str | None = None,
    trl_version: str | None = None,
) -> tuple[dict[str, KeyInfo], Counter[str]]:
    """What every key is, and the family votes that settled ambiguous keys (see :func:`identify_run`)."""
    found = identify_run(
        keys,
        registry,
        hf_prefixed=hf_prefixed,
        family=family,
        version=trl_version,
        version_of="trl" if trl_version is not None else None,
    )
    return found.keys, found.votes


@dataclass(frozen=True)
class Identified:
    """Every key of a run identified, the family votes and how the framework was told."""

    keys: dict[str, KeyInfo]
    votes: Counter[str]
    detection: Detection


Forms = list[tuple[str, list[Match]]]


def _forms(key: str, registry: Registry, hf_prefixed: bool) -> Forms:
    """Every form ``key`` may have been logged as, preferred first, with what each matches."""
    return [(form, registry.find(form)) for form in lookup_forms(key, hf_prefixed)]


def _released(forms: Forms, release: tuple[str, str] | None) -> Forms:
    """``forms`` without the entries that the run's release of their framework does not log."""
    if release is None:
        return forms
    framework, version = release
    return [
        (
            form,
            [
                m
                for m in matches
                if m.entry.family.versions_of != framework or m.entry.versions.contains(version)
            ],
        )
        for form, matches in forms
    ]


def _candidates(forms: Forms) -> list[Match]:
    unique: dict[str, Match] = {}
    for _form, matches in forms:
        for match in matches:
            unique.setdefault(match.entry.id, match)
    return list(unique.values())


def _all_candidates(forms: dict[str, Forms]) -> dict[str, list[Match]]:
    return {key: _candidates(key_forms) for key, key_forms in forms.items()}


def identify_run(
    keys: list[str],
    registry: Registry,
    *,
    hf_prefixed: bool = False,
    family: str | None = None,
    framework: str | None = None,
    version: str | None = None,
    version_of: str | None = None,
    log_format: str | None = None,
) -> Identified:
    """What every key is, the family votes, and the framework detected from the keys.

    ``version`` is the release the run used of ``version_of`` (``--trl-version``: TRL), or,
    without ``version_of``, of the framework given or detected (``--version``).
    """
    forms = {key: _forms(key, registry, hf_prefixed) for key in keys}
    first = detect(
        _all_candidates(forms), registry, framework=framework, family=family, log_format=log_format
    )
    release_of = version_of or first.framework
    release = (release_of, version) if version is not None and release_of is not None else None
    if release is not None:
        forms = {key: _released(f, release) for key, f in forms.items()}
    detection = replace(
        detect(_all_candidates(forms), registry, framework=first.framework, family=family),
        how=first.how,
        scores=first.scores,
        log_format=first.log_format,
        version=version if release is not None else None,
        version_unused=version is not None and release is None,
    )
    votes: Counter[str] = Counter({name: len(own) for name, own in detection.family_own.items()})
    settled = detection.framework if detection.how in ("given", "detected", "weak", "format") else None
    successors = current_successors(registry)
    out: dict[str, KeyInfo] = {}
    for key, key_forms in forms.items():
        form, matches = _pick_form(key, key_forms, family, settled)
        if not matches:
            out[key] = KeyInfo(key, key, "unknown")
            continue
        chosen = _choose(matches, family, settled, votes)
        if chosen is None:
            out[key] = KeyInfo(key, form, "ambiguous", candidates=tuple(matches))
            continue
        later = tuple(successors.get(chosen.entry.id, ()))
        status: KeyStatus = "legacy" if later else "known"
        out[key] = KeyInfo(key, form, status, chosen, successors=later)
    return Identified(out, votes, detection)


def _pick_form(key: str, forms: Forms, family: str | None, framework: str | None) -> tuple[str, list[Match]]:
    """The form to read ``key`` as: one the family knows, else one the framework knows, else any known."""
    for wanted in (
        (lambda m: m.entry.family.id == family) if family is not None else None,
        (lambda m: m.entry.family.versions_of == framework) if framework is not None else None,
        lambda _m: True,
    ):
        if wanted is None:
            continue
        for form, matches in forms:
            if any(wanted(m) for m in matches):
                return form, matches
    return key, []


def _choose(
    matches: list[Match], family: str | None, framework: str | None, votes: Counter[str]
) -> Match | None:
    """The match the run means: its family's, else its framework's, settled by votes; ``None`` on a tie."""
    preferred = [m for m in matches if m.entry.family.id == family]
    if preferred:
        return preferred[0]
    pool = [m for m in matches if m.entry.family.versions_of == framework] or matches
    if len({m.entry.family.id for m in pool}) == 1:
        return pool[0]
    ranked = sorted(pool, key=lambda m: -votes[m.entry.family.id])
    top = votes[ranked[0].entry.family.id]
    tied = [m for m in ranked if votes[m.entry.family.id] == top]
    return ranked[0] if len(tied) == 1 else None
