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

families
    A key such as ``objective/kl`` exists in several families with different
    meanings. ``family`` (``--family``) picks that family's entry wherever it
    has one (keys of other families, such as transformers' ``loss`` in a GRPO
    run, stay what they are); ``trl_version`` keeps only the entries that
    release logs. What is still ambiguous is settled by votes: every key that
    only one family knows votes for that family, and an ambiguous key takes
    the candidate of the family with the most votes; on a tie it is reported
    as ambiguous and its rules are not evaluated.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from metrics_registry.exports.rename_map import current_successors
from metrics_registry.registry import Entry, Match, Registry

__all__ = ["KeyInfo", "KeyStatus", "identify_keys", "lookup_forms"]

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
    """What every key is, and the family votes that settled ambiguous keys."""
    found: dict[str, tuple[str, list[Match]]] = {}
    for key in keys:
        forms = lookup_forms(key, hf_prefixed)
        for form in forms:
            matches = registry.find(form, trl_version=trl_version)
            if matches:
                found[key] = (form, matches)
                break
        else:
            found[key] = (key, [])
    votes: Counter[str] = Counter()
    for _form, matches in found.values():
        families = {m.entry.family.id for m in matches}
        if len(families) == 1:
            votes[families.pop()] += 1
    successors = current_successors(registry)
    out: dict[str, KeyInfo] = {}
    for key, (form, matches) in found.items():
        if not matches:
            out[key] = KeyInfo(key, key, "unknown")
            continue
        chosen: Match | None = matches[0]
        preferred = [m for m in matches if m.entry.family.id == family]
        if preferred:
            chosen = preferred[0]
        elif len({m.entry.family.id for m in matches}) > 1:
            ranked = sorted(matches, key=lambda m: -votes[m.entry.family.id])
            top = votes[ranked[0].entry.family.id]
            tied = [m for m in ranked if votes[m.entry.family.id] == top]
            chosen = ranked[0] if len(tied) == 1 else None
        if chosen is None:
            out[key] = KeyInfo(key, form, "ambiguous", candidates=tuple(matches))
            continue
        later = tuple(successors.get(chosen.entry.id, ()))
        status: KeyStatus = "legacy" if later else "known"
        out[key] = KeyInfo(key, form, status, chosen, successors=later)
    return out, votes
