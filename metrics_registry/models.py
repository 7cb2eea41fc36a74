"""Typed model of a registry file and of one metric.

The YAML files under ``metrics_registry/data/`` (and any extension file) are
validated against these models; the JSON Schema that editors use is generated
from them (see :mod:`metrics_registry.schema`), so the models are the single
definition of the format.

Models are frozen and forbid unknown fields: a typo in a field name is an
error with a line number, never a silently ignored value.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from metrics_registry.conditions import Condition
from metrics_registry.keys import KEY_PATTERN, REFERENCE_PATTERN
from metrics_registry.log_formats import LogFileFormat
from metrics_registry.modelbase import VERSION_PATTERN, Model, VersionRange
from metrics_registry.semantics import CONCEPT_ID_PATTERN, KnownIssue, MeaningDependency, ReductionStep

__all__ = [
    "Aggregation",
    "Category",
    "Change",
    "CrossProcess",
    "DirectionRule",
    "FamilyInfo",
    "FiniteRule",
    "Gate",
    "Goal",
    "HealthyRule",
    "KnownIssue",
    "MeaningDependency",
    "Metric",
    "RangeRule",
    "Reduce",
    "ReductionStep",
    "RegistryFile",
    "Severity",
    "SpikeRule",
    "Unit",
    "VersionRange",
    "WorkedExample",
]

FAMILY_ID_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
#: A project's name as readers see it in the terminal and on pages: letters, digits and a few
#: separators, never markup.
PROJECT_NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9 ._+-]{0,38}[A-Za-z0-9+])?$"
DOTTED_PATH_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$"


#: The base of every model (frozen, unknown fields forbidden); the old private name stays for importers.
_Model = Model


class Category(StrEnum):
    """What a metric is about; drives grouping on the pages."""

    reward = "reward"
    kl = "kl"
    entropy = "entropy"
    policy = "policy"
    value = "value"
    loss = "loss"
    clipping = "clipping"
    advantage = "advantage"
    length = "length"
    sampling = "sampling"
    tools = "tools"
    throughput = "throughput"
    schedule = "schedule"
    progress = "progress"
    evaluation = "evaluation"
    group = "group"


class Unit(StrEnum):
    """Closed list of units, so the same quantity is never spelled two ways."""

    nats = "nats"
    fraction = "fraction"  # in [0, 1]
    ratio = "ratio"  # a positive ratio of probabilities, 1 = unchanged
    dimensionless = "dimensionless"
    reward = "reward"  # in the reward model's own scale
    tokens = "tokens"
    seconds = "seconds"
    count = "count"
    episodes = "episodes"
    per_second = "per_second"
    learning_rate = "learning_rate"
    turns = "turns"
    distribution = "distribution"  # a histogram, not a scalar


class Reduce(StrEnum):
    """The reduction that turns per-item values into the logged number."""

    mean = "mean"
    sum = "sum"
    min = "min"
    max = "max"
    std = "std"
    var = "var"
    median = "median"
    count = "count"
    fraction = "fraction"
    histogram = "histogram"
    last = "last"
    value = "value"  # a single value read off, nothing reduced (e.g. the learning rate)


class CrossProcess(StrEnum):
    """How values from several processes (ranks) are combined."""

    gather = "gather"  # gathered from all ranks, then reduced
    mean = "mean"  # each rank reduces, then the per-rank results are averaged
    sum = "sum"
    main_process = "main_process"  # only the main process computes it
    none = "none"  # per process, not combined


class Goal(StrEnum):
    """Which way is better, for dashboards (W&B ``define_metric`` objective)."""

    maximize = "maximize"
    minimize = "minimize"
    target = "target"  # should stay near a value or in a band
    none = "none"  # descriptive only


class Severity(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"


class Change(_Model):
    """A change of meaning, computation or key between releases."""

    version: Annotated[str, Field(pattern=VERSION_PATTERN)] = Field(
        description="Release in which the change shipped."
    )
    description: str = Field(description="What changed and what it means for old plots (Markdown).")


class Gate(_Model):
    """A configuration option without which the metric is not logged at all.

    An option that only changes what the value means belongs in ``meaning_depends_on``.
    """

    option: str = Field(description="Config field, e.g. 'beta' or 'use_vllm'.")
    condition: str = Field(description="When the metric is logged, e.g. '!= 0.0' or '== True'.")
    note: str | None = Field(default=None, description="Optional explanation (Markdown).")


class Aggregation(_Model):
    """How per-token or per-sample values become the logged number."""

    reduce: Reduce = Field(description="The final reduction.")
    over: str = Field(description="What is reduced over, in words (e.g. 'completion tokens, masked').")
    across_processes: CrossProcess = Field(description="How ranks are combined.")


class _RuleBase(_Model):
    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")] = Field(
        description="Rule id, unique within the metric (kebab-case)."
    )
    severity: Literal["warning", "error"] = "warning"
    suggests: str = Field(description="What a violation usually means and what to try (Markdown).")
    applies_when: Condition | None = Field(
        default=None,
        description="The rule holds only for these releases and configuration values; check-run skips it"
        " for a run known to be outside them.",
    )
    except_when: Condition | None = Field(
        default=None,
        description="The rule does not hold for these releases and configuration values (e.g. a known"
        " artefact); check-run skips it for a run known to be inside them.",
    )


class RangeRule(_RuleBase):
    """The value should stay inside ``[min, max]`` (either bound optional)."""

    kind: Literal["range"]
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _bounds(self) -> RangeRule:
        if self.min is None and self.max is None:
            raise ValueError("a range rule needs 'min', 'max' or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"'min' ({self.min}) is larger than 'max' ({self.max})")
        return self


class DirectionRule(_RuleBase):
    """Over the run the value should go up, go down, or stay level."""

    kind: Literal["direction"]
    direction: Literal["increase", "decrease", "stable"]


class FiniteRule(_RuleBase):
    """The value must never be NaN or infinite."""

    kind: Literal["finite"]


class SpikeRule(_RuleBase):
    """A value more than ``factor`` times the running median is a spike."""

    kind: Literal["spike"]
    factor: float = Field(gt=1.0)


class ConstantRule(_RuleBase):
    """The value should not sit at ``value`` for the whole run (e.g. stuck at 0)."""

    kind: Literal["not_constant"]
    value: float | None = Field(default=None, description="The stuck value; any constant if empty.")


JsonValue = Any


class WorkedExample(_Model):
    """Inputs -> expected value for the reference implementation; the tests run it.

    Nested lists become tensors (booleans -> ``torch.bool``, integers only ->
    ``torch.int64``, otherwise ``torch.float64``); scalars and strings are
    passed as they are.
    """

    description: str = Field(description="What the example shows, in one sentence.")
    inputs: dict[str, JsonValue] = Field(description="Keyword arguments of the reference function.")
    expected: JsonValue = Field(description="The value the reference returns (a number, list or mapping).")
    output: str | None = Field(
        default=None,
        description="Field of the returned object or mapping to compare, if not the whole value.",
    )
    tolerance: float = Field(default=1e-6, ge=0, description="Absolute tolerance of the comparison.")


HealthyRule = Annotated[
    RangeRule | DirectionRule | FiniteRule | SpikeRule | ConstantRule,
    Field(discriminator="kind"),
]

_TITLE_MAX = 80
_SUMMARY_MAX = 240


class Metric(_Model):
    """One logged key and everything a reader or a tool needs about it."""

    key: Annotated[str, Field(pattern=KEY_PATTERN)] = Field(
        description="The key as logged, e.g. 'objective/kl'; '{name}' marks a templated part."
    )
    aliases: list[Annotated[str, Field(pattern=KEY_PATTERN)]] = Field(
        default_factory=list,
        description="Other keys the same trainer logs with the same value.",
    )
    replaces: list[Annotated[str, Field(pattern=REFERENCE_PATTERN)]] = Field(
        default_factory=list,
        description="Older metrics this one succeeds ('family:key' or 'key').",
    )
    replaced_by: list[Annotated[str, Field(pattern=REFERENCE_PATTERN)]] = Field(
        default_factory=list,
        description="Newer metrics that succeed this one ('family:key' or 'key').",
    )
    versions: VersionRange | None = Field(
        default=None, description="Releases that log it; the family's range when empty."
    )
    kind: Literal["scalar", "histogram", "table"] = Field(
        default="scalar",
        description="A number per step, a distribution (histogram), or a table printed or saved.",
    )
    category: Category
    concept: Annotated[str, Field(pattern=CONCEPT_ID_PATTERN)] | None = Field(
        default=None,
        description="Id of the quantity it measures, from the closed list in"
        " metrics_registry/data/concepts/concepts.yaml (e.g. 'clip-fraction-low').",
    )
    title: str = Field(max_length=_TITLE_MAX)
    summary: str = Field(max_length=_SUMMARY_MAX, description="One sentence.")
    details: str = Field(
        description="Markdown: meaning; how it is computed (estimator, direction, masking, "
        "what is averaged over and across processes, sign)."
    )
    formula: str | None = Field(default=None, description="LaTeX, without surrounding $ signs.")
    aggregation: Aggregation
    reduction: Annotated[list[ReductionStep], Field(max_length=12)] = Field(
        default_factory=list,
        description="How per-token values become the logged number, one stage per item, innermost first.",
    )
    unit: Unit
    goal: Goal = Goal.none
    crucial: bool = Field(default=False, description="One of the values to watch first.")
    healthy: list[HealthyRule] = Field(default_factory=list)
    gated_by: list[Gate] = Field(
        default_factory=list, description="Options without which the key is not logged at all."
    )
    meaning_depends_on: Annotated[list[MeaningDependency], Field(max_length=20)] = Field(
        default_factory=list,
        description="Options that change what the value means; the key is logged either way.",
    )
    modes: list[Literal["train", "eval"]] = Field(
        default_factory=lambda: ["train"],
        description="Whether it is logged in training, evaluation (with the family's eval prefix) or both.",
    )
    changes: list[Change] = Field(default_factory=list)
    known_issues: Annotated[list[KnownIssue], Field(max_length=20)] = Field(
        default_factory=list,
        description="Metrics-only bugs: releases that log a wrong value while training is right.",
    )
    docs_note: str | None = Field(
        default=None,
        description="Where TRL's own documentation says something different from the code (Markdown).",
    )
    source: str | None = Field(
        default=None, description="Where upstream computes it, e.g. 'trl/trainer/grpo_trainer.py'."
    )
    computable: bool | None = Field(
        default=None,
        description="Whether the value is computed from tensors (log-probabilities, logits, rewards, "
        "masks, lengths), so that a reference implementation can reproduce it: true entries need "
        "'reference' and 'examples'. False for counters, timers, tables, configuration values and "
        "counts read from files. Unset means not classified yet.",
    )
    reference: Annotated[str, Field(pattern=DOTTED_PATH_PATTERN)] | None = Field(
        default=None, description="Dotted path of the reference implementation."
    )
    examples: list[WorkedExample] = Field(
        default_factory=list, description="Worked examples of the reference implementation."
    )
    see_also: list[Annotated[str, Field(pattern=REFERENCE_PATTERN)]] = Field(default_factory=list)

    @field_validator("summary")
    @classmethod
    def _one_sentence(cls, value: str) -> str:
        text = value.strip()
        if not text.endswith((".", "?", "!")):
            raise ValueError("a summary is one sentence ending with a full stop")
        # A full stop followed by a capital letter starts a second sentence;
        # 'e.g. ' and 'i.e. ' are not sentence ends.
        body = re.sub(r"\b(e\.g|i\.e|vs|etc)\.", "", text[:-1])
        if re.search(r"[.!?]\s+[A-Z]", body):
            raise ValueError("a summary is one sentence; move the rest into 'details'")
        return value

    @field_validator("aliases", "replaces", "replaced_by", "see_also")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        for item in value:
            if item in seen:
                raise ValueError(f"'{item}' is listed twice")
            seen.add(item)
        return value


class FamilyInfo(_Model):
    """The header of a registry file: one family of metrics."""

    id: Annotated[str, Field(pattern=FAMILY_ID_PATTERN)] = Field(
        description="Family id used in references ('grpo:kl') and URLs."
    )
    title: str
    trainer: str = Field(description="Trainer class that logs these metrics, e.g. 'GRPOTrainer'.")
    summary: str = Field(description="One paragraph introducing the family (Markdown).")
    source: str | None = Field(default=None, description="Upstream code the entries were checked against.")
    versions_of: str = Field(
        default="trl",
        description="Whose releases the 'versions' fields count (TRL, or the extension's own project).",
    )
    project: Annotated[str, Field(pattern=PROJECT_NAME_PATTERN)] | None = Field(
        default=None,
        description=(
            "The project 'versions_of' names, as it spells its name ('TRL', 'OpenRLHF', 'NeMo-RL'),"
            " shown to readers; the families of one project agree. Default: the 'versions_of' id."
        ),
    )
    eval_prefix: str | None = Field(
        default=None,
        description="Prefix added to keys logged during evaluation (transformers adds 'eval_').",
    )
    log_formats: list[LogFileFormat] = Field(
        default_factory=list,
        description=(
            "Log files this framework's trainers write and no other framework's do (trainer-state:"
            " transformers' trainer_state.json; verl-jsonl, verl-console: verl's file and console"
            " loggers). When a log's keys alone do not tell frameworks apart, its format does."
        ),
    )
    versions: VersionRange


class RegistryFile(_Model):
    """One YAML file: a family header and its metrics."""

    family: FamilyInfo
    metrics: list[Metric] = Field(min_length=1)
