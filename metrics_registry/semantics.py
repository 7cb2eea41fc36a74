"""What a logged value means beyond its definition: config it depends on, known bugs, its reduction.

These parts of a metric let entries of different trainers be compared
(issue 15) and let ``check-run`` say more than whether a value is in range:

``meaning_depends_on``
    Options that change what the value means while the key is logged
    either way (``gated_by`` is for options without which it is absent).
``known_issues``
    Metrics-only bugs: releases where the logged number is wrong although
    training is right, with the tracker link.
``reduction``
    How per-token values become the logged number, stage by stage
    (micro-batch, ranks, epochs, the logging window...): "a mean of
    micro-batch means" and "a token-weighted global mean" are different numbers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from metrics_registry.conditions import OPTION_PATTERN, ConfigCondition
from metrics_registry.modelbase import Model, Version, VersionRange

__all__ = [
    "CONCEPT_ID_PATTERN",
    "IssueEffect",
    "KnownIssue",
    "MeaningDependency",
    "ReductionLevel",
    "ReductionOp",
    "ReductionStep",
]

#: A concept id: kebab-case, e.g. ``clip-fraction-low``.
CONCEPT_ID_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+){0,7}$"
_URL_MAX = 500


class MeaningDependency(Model):
    """An option that changes what the logged value means; the key is logged either way."""

    option: Annotated[str, Field(pattern=OPTION_PATTERN)] = Field(
        description="Config field (or trainer argument, environment variable), e.g. 'kl_estimator'."
    )
    condition: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="The values concerned, as a condition on the option, e.g. '== \"k3\"' or '> 1'."
    )
    effect: str = Field(description="How the value's meaning changes then (Markdown).")


class IssueEffect(StrEnum):
    """What a metrics-only bug does to the logged value."""

    inflated = "inflated"
    deflated = "deflated"
    wrong_sign = "wrong-sign"
    constant = "constant"
    stale = "stale"
    wrong = "wrong"


class KnownIssue(Model):
    """A metrics-only bug: releases in which the logged value is wrong while training is right."""

    url: Annotated[str, Field(max_length=_URL_MAX)] = Field(
        description="https link to the tracker issue, pull request or the commit that explains it."
    )
    affects: VersionRange = Field(description="Releases that log the wrong value.")
    when: Annotated[list[ConfigCondition], Field(max_length=10)] = Field(
        default_factory=list,
        description="Configuration under which the bug shows (all must hold); empty: always.",
    )
    effect: IssueEffect = Field(description="inflated, deflated, wrong-sign, constant, stale or wrong.")
    description: str = Field(description="What is wrong, by how much, and how to read old values (Markdown).")
    fixed_in: Version | None = Field(default=None, description="Release with the fix, if any.")

    @field_validator("url")
    @classmethod
    def _https(cls, value: str) -> str:
        if any(ord(char) <= 0x20 or 0x7F <= ord(char) <= 0x9F for char in value):
            raise ValueError("a URL holds no spaces or control characters")
        parts = urlsplit(value)
        if parts.scheme != "https" or not parts.hostname:
            raise ValueError("the link must be an https:// URL with a host, e.g. https://github.com/...")
        if parts.username is not None or parts.password is not None:
            raise ValueError("the link must not carry a user name or password")
        return value

    @model_validator(mode="after")
    def _fixed_after_start(self) -> KnownIssue:
        from packaging.version import Version as Release

        if self.fixed_in is not None and Release(self.fixed_in) <= Release(self.affects.introduced):
            raise ValueError(
                f"'fixed_in' ({self.fixed_in}) must be later than the first affected release"
                f" ({self.affects.introduced})"
            )
        return self


class ReductionLevel(StrEnum):
    """A stage of the reduction, innermost first; each combines the values of the stage before."""

    token = "token"
    sequence = "sequence"
    group = "group"  # the completions of one prompt (GRPO)
    micro_batch = "micro-batch"
    mini_batch = "mini-batch"
    epoch = "epoch"
    rank = "rank"  # data-parallel processes
    step = "step"  # one optimizer step, or one rollout batch of an on-policy trainer
    logging_window = "logging-window"  # every value since the last log


class ReductionOp(StrEnum):
    """How a stage combines the values of the stage before."""

    mean = "mean"
    token_weighted_mean = "token-weighted-mean"
    sample_weighted_mean = "sample-weighted-mean"
    mean_of_means = "mean-of-means"
    sum = "sum"
    max = "max"
    min = "min"
    last = "last"
    std = "std"
    var = "var"
    median = "median"
    count = "count"
    fraction = "fraction"
    gather = "gather"  # collected as they are; a later stage reduces them


class ReductionStep(Model):
    """One stage: at ``level`` the values of the stage before are combined with ``reduce``."""

    level: ReductionLevel = Field(
        description="Stage: token, sequence, group, micro-batch, ... logging-window."
    )
    reduce: ReductionOp = Field(description="How the values are combined, e.g. mean or token-weighted-mean.")
    note: str | None = Field(default=None, description="What is included or masked, in words (Markdown).")
