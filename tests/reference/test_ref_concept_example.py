"""The concept pages' example batch and the adapters that feed it to the references."""

from __future__ import annotations

import math
import sys

import pytest
import torch

from metrics_registry import Registry
from metrics_registry.reference import entropy, grpo, kl, lengths, ppo
from metrics_registry.reference import legacy_ppo as legacy
from metrics_registry.reference.concept_example import (
    adapter_of,
    attach,
    each_micro_batch,
    example_batch,
    example_value,
    once,
    runnable,
)


def test_the_batch_is_seeded_and_made_of_valid_tensors() -> None:
    batch = example_batch()
    again = example_batch.__wrapped__()  # built afresh, not the cached one
    grid = batch.grid
    assert torch.equal(grid.logprobs, again.grid.logprobs)
    assert grid.mask.shape == grid.logprobs.shape == grid.ref_logprobs.shape == (2, 3, 5)
    for name in ("logprobs", "old_logprobs", "ref_logprobs", "sampling_logprobs"):
        values = getattr(grid, name)
        assert (values[grid.mask] < 0).all(), name  # log-probabilities of sampled tokens
        assert (values[~grid.mask] == 0).all(), name  # padding
    assert torch.equal(grid.completion_lengths, grid.mask.sum(-1))
    # the current policy's log-probabilities are those of its logits
    from_logits = torch.log_softmax(grid.logits, -1).gather(-1, grid.tokens.unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(from_logits[grid.mask], grid.logprobs[grid.mask])
    # the policies differ enough for clipping to show on both sides
    ratio = (grid.logprobs - grid.old_logprobs).exp()[grid.mask]
    assert (ratio > 1.2).any() and (ratio < 0.8).any()
    assert batch.flat.mask.shape == (6, 5)
    assert [tuple(t.mask.shape) for t in batch.micro_batches()] == [(3, 5), (3, 5)]


def test_each_micro_batch_averages_the_micro_batch_values() -> None:
    batch = example_batch()
    adapter = each_micro_batch(lambda t: {"values": t.scores})
    result = adapter(lambda values: {"mean": values.mean(), "max": values.max()}, batch)
    per_micro = batch.grid.scores
    assert result["mean"] == pytest.approx(per_micro.mean(-1).mean().item())
    assert result["max"] == pytest.approx(per_micro.max(-1).values.mean().item())
    # not the mean over the joined batch when the micro-batches differ in size
    lengths = each_micro_batch(lambda t: {"mask": t.mask})(
        lambda mask: grpo.global_masked_mean(mask, mask), batch
    )
    assert lengths == pytest.approx(1.0)


def test_an_adapter_can_be_limited_to_one_concept() -> None:
    def shared(values: torch.Tensor) -> torch.Tensor:
        return values.sum()

    attach(shared, once(lambda b: {"values": b.flat.prompt_lengths}), "prompt-length")
    attach(shared, once(lambda b: {"values": b.flat.completion_lengths}))
    batch = example_batch()
    assert adapter_of(shared, "prompt-length")(shared, batch) == batch.flat.prompt_lengths.sum()
    assert adapter_of(shared, "response-length")(shared, batch) == batch.flat.completion_lengths.sum()


def test_the_numbers_are_those_of_direct_calls() -> None:
    """The values the pages print, against the references called by hand the way each trainer does."""
    b = example_batch()
    micro = b.micro_batches()
    grpo_kl = torch.stack(
        [
            grpo.kl_mean(
                t.logprobs, t.ref_logprobs, t.mask, old_logprobs=t.old_logprobs, use_bias_correction_kl=True
            )
            for t in micro
        ]
    ).mean()
    assert example_value("metrics_registry.reference.grpo.kl_mean") == pytest.approx(grpo_kl.item())
    ppo_kl = kl.sequence_kl_mean(b.flat.old_logprobs, b.flat.ref_logprobs, b.flat.mask)
    assert example_value("metrics_registry.reference.kl.sequence_kl_mean") == pytest.approx(ppo_kl.item())
    # the three clip fractions: the same rule, the same batch
    region = torch.stack(
        [grpo.clip_ratios(t.logprobs, t.old_logprobs, t.advantages, t.mask)["region_mean"] for t in micro]
    )
    value = example_value("metrics_registry.reference.grpo.clip_ratios", "region_mean")
    assert value == pytest.approx(region.mean().item())
    grid = b.grid
    clipfrac = ppo.policy_clipfrac_avg(grid.logprobs, grid.old_logprobs, grid.token_advantages, grid.mask)
    assert example_value("metrics_registry.reference.ppo.policy_clipfrac_avg") == pytest.approx(
        clipfrac.item()
    )
    # PPOv2 averages the entropy over padding too; GRPO and v0.7 mask it: different numbers
    assert example_value("metrics_registry.reference.ppo.entropy_avg") == pytest.approx(
        ppo.entropy_avg(grid.logits).item()
    )
    assert example_value("metrics_registry.reference.legacy_ppo.policy_entropy") != pytest.approx(
        example_value("metrics_registry.reference.ppo.entropy_avg")
    )
    stats = lengths.completion_length_stats(b.flat.completion_lengths, b.flat.is_truncated)
    assert example_value(
        "metrics_registry.reference.lengths.completion_length_stats", "clipped_ratio"
    ) == pytest.approx(stats["clipped_ratio"].item())
    assert example_value("metrics_registry.reference.entropy.sampled_sequence_entropy") == pytest.approx(
        entropy.sampled_sequence_entropy(b.flat.old_logprobs, b.flat.mask).item()
    )
    queries = legacy.lengths_mean(b.flat.prompt_lengths).item()
    lengths_mean = "metrics_registry.reference.legacy_ppo.lengths_mean"
    assert example_value(lengths_mean, None, "prompt-length") == queries
    assert example_value(lengths_mean, None, "response-length") != queries


def test_only_scalar_results_are_printed() -> None:
    assert example_value("metrics_registry.reference.legacy_ppo.ratio_histogram") is None  # no adapter
    assert example_value("metrics_registry.reference.grpo.clip_ratios", "no_such_field") is None
    assert example_value("metrics_registry.reference.grpo.clip_ratios") is None  # a mapping, not a number


@pytest.mark.parametrize(
    "reference",
    ["antigravity.fly", "os.system", "metrics_registry.reference.nowhere.f", "metrics_registry.cli.main", ""],
)
def test_a_reference_outside_the_package_is_never_imported(reference: str) -> None:
    """A registry file is contributor input: only this package's reference functions run."""
    before = set(sys.modules)
    assert runnable(reference) is None
    assert example_value(reference) is None
    assert "antigravity" not in set(sys.modules) - before


def test_every_reference_with_an_adapter_gives_a_finite_number(registry: Registry) -> None:
    """A TRL reference the pages run gives a number for each of its keys (or None for a distribution)."""
    shown = 0
    for entry in registry:
        metric = entry.metric
        if runnable(metric.reference, metric.concept) is None:
            continue
        output = next((e.output for e in metric.examples if e.output), None)
        value = example_value(metric.reference, output, metric.concept)
        if metric.kind == "histogram":
            assert value is None, entry.id
            continue
        assert value is not None and math.isfinite(value), entry.id
        shown += 1
    assert shown >= 50
