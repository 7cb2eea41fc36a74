r"""One small batch of tensors, fed to every framework's reference to show the numbers each one logs.

The concept pages of the site (``concepts/<id>/``) set the keys of every
framework that measure the same quantity side by side; their *worked example*
runs each key's reference implementation on this one batch, at build time, so
that a reader sees, for example, that verl's ``actor/ppo_kl`` and TRL's
``policy/approxkl_avg`` give different numbers on the same tensors.

The batch ([`example_batch()`][example_batch]) is seeded and small: ``G = 2``
micro-batches of ``B = 3`` completions (one prompt's group each) of at most
``T = 5`` tokens over a vocabulary of ``V = 4``, with uneven lengths and
padding. Every tensor has the micro-batch as its first dimension
([`grid`][ExampleBatch.grid]); [`flat`][ExampleBatch.flat] joins the micro-batches
into one batch of six, [`micro_batches`][ExampleBatch.micro_batches] splits them.

A reference function takes part through an *adapter* declared next to it: a
function of (reference function, batch) that calls it the way the framework
does (with the framework's default configuration) and returns its result::

    @example_adapter(each_micro_batch(lambda t: {"logprobs": t.logprobs, "mask": t.mask}))
    def my_metric(logprobs, mask): ...

[`once()`][once] calls the function once with keyword arguments built from the
batch (a framework whose reference reduces over micro-batches itself takes
``batch.grid`` or ``batch.micro_batches()``); [`each_micro_batch()`][each_micro_batch]
calls it per micro-batch and averages the results, as a trainer that logs the
mean of its micro-batch values does. A function defined where a decorator
cannot be added gets its adapter with [`attach()`][attach]. The registry entry's
``reference`` names the function and its worked examples' ``output`` the field
of the result it logs; nothing else is needed, so a new framework adds data
and reference functions, not code here.

Only functions of this package (``metrics_registry.reference.*``) are run: a
registry file is contributor input, and a ``reference`` naming another module
is never imported.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any, TypeVar

import torch

from metrics_registry.reference.examples import resolve, select_output

__all__ = [
    "PACKAGE",
    "ExampleBatch",
    "Tensors",
    "adapter_of",
    "attach",
    "each_micro_batch",
    "example_adapter",
    "example_batch",
    "example_value",
    "once",
    "runnable",
]

#: The package whose functions the concept pages may run.
PACKAGE = "metrics_registry.reference"
#: The attribute an adapter is stored under, on the reference function.
ADAPTER_ATTRIBUTE = "example_adapter"
SEED = 20250515
GROUPS, COMPLETIONS, POSITIONS, VOCABULARY, REWARD_FUNCTIONS = 2, 3, 5, 4, 2
#: Tokens per completion, one row per micro-batch (uneven, some full length, one of a single token).
LENGTHS = ((5, 3, 4), (2, 5, 1))
#: Completions that stopped at the length limit instead of an EOS token.
TRUNCATED = ((True, False, False), (False, True, False))
#: Prompt tokens of each completion (the completions of one micro-batch share their prompt).
PROMPT_LENGTHS = ((7, 7, 7), (4, 4, 4))

Adapter = Callable[[Callable[..., Any], "ExampleBatch"], Any]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Tensors:
    """The example's tensors; shapes below without the leading micro-batch dimension of ``grid``.

    Attributes:
        mask: `(B, T)` true on the completion's real tokens.
        tokens: `(B, T)` sampled token ids (0 on padding).
        logits: `(B, T, V)` of the policy being updated.
        logprobs: `(B, T)` its log-probabilities of the sampled tokens.
        old_logprobs: `(B, T)` of the policy that sampled them (recomputed by the trainer).
        ref_logprobs: `(B, T)` of the frozen reference model.
        sampling_logprobs: `(B, T)` as the inference engine returned them.
        rewards_per_func: `(B, F)` raw rewards of two reward functions.
        scores: `(B,)` their sum: the raw reward of each completion.
        advantages: `(B,)` group-normalised scores (each micro-batch is one prompt's group).
        token_advantages: `(B, T)` the same, repeated over the tokens.
        values: `(B, T)` value predictions of the critic being updated.
        old_values: `(B, T)` value predictions at sampling time.
        returns: `(B, T)` value targets.
        completion_lengths: `(B,)` real tokens per completion.
        prompt_lengths: `(B,)` tokens of each completion's prompt.
        is_truncated: `(B,)` completions cut by the length limit.
        num_generations: completions per prompt.
    """

    mask: torch.Tensor
    tokens: torch.Tensor
    logits: torch.Tensor
    logprobs: torch.Tensor
    old_logprobs: torch.Tensor
    ref_logprobs: torch.Tensor
    sampling_logprobs: torch.Tensor
    rewards_per_func: torch.Tensor
    scores: torch.Tensor
    advantages: torch.Tensor
    token_advantages: torch.Tensor
    values: torch.Tensor
    old_values: torch.Tensor
    returns: torch.Tensor
    completion_lengths: torch.Tensor
    prompt_lengths: torch.Tensor
    is_truncated: torch.Tensor
    num_generations: int = COMPLETIONS


@dataclass(frozen=True)
class ExampleBatch:
    """The example batch, micro-batches first (``grid``), joined (``flat``) or split (``micro_batches``)."""

    seed: int
    grid: Tensors

    @property
    def flat(self) -> Tensors:
        """The micro-batches joined into one batch of ``G * B`` completions."""
        return _map(self.grid, lambda tensor: tensor.reshape(-1, *tensor.shape[2:]))

    def micro_batches(self) -> list[Tensors]:
        """One [`Tensors`][Tensors] per micro-batch."""
        return [_map(self.grid, lambda tensor, i=i: tensor[i]) for i in range(self.grid.mask.shape[0])]


def _map(tensors: Tensors, change: Callable[[torch.Tensor], torch.Tensor]) -> Tensors:
    return replace(
        tensors,
        **{f.name: change(getattr(tensors, f.name)) for f in fields(tensors) if f.name != "num_generations"},
    )


@cache
def example_batch(seed: int = SEED) -> ExampleBatch:
    """The seeded example batch (float64; the same numbers on every machine and every build)."""
    generator = torch.Generator().manual_seed(seed)

    def normal(*shape: int, scale: float = 1.0) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale

    shape = (GROUPS, COMPLETIONS, POSITIONS)
    lengths = torch.tensor(LENGTHS)
    mask = torch.arange(POSITIONS) < lengths.unsqueeze(-1)
    logits = normal(*shape, VOCABULARY, scale=1.5)
    tokens = torch.multinomial(
        torch.softmax(logits, -1).reshape(-1, VOCABULARY), 1, generator=generator
    ).reshape(shape)
    tokens = torch.where(mask, tokens, 0)

    def sampled(of: torch.Tensor) -> torch.Tensor:
        """Log-probabilities of the sampled tokens under ``softmax(of)`` (always a valid log-probability)."""
        return torch.log_softmax(of, -1).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)

    logprobs = sampled(logits)
    old_logits = logits + normal(*shape, VOCABULARY, scale=0.3)
    old_logprobs = sampled(old_logits)
    ref_logprobs = sampled(logits + normal(*shape, VOCABULARY, scale=0.5))
    sampling_logprobs = sampled(old_logits + normal(*shape, VOCABULARY, scale=0.05))
    rewards_per_func = torch.round(normal(GROUPS, COMPLETIONS, REWARD_FUNCTIONS) * 4) / 4
    scores = rewards_per_func.sum(-1)
    centred = scores - scores.mean(-1, keepdim=True)
    advantages = centred / (scores.std(-1, keepdim=True) + 1e-4)
    values = normal(*shape, scale=0.5) + scores.unsqueeze(-1) * 0.3
    old_values = values + normal(*shape, scale=0.3)
    returns = scores.unsqueeze(-1).expand(shape).clone()

    def padded(tensor: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, tensor, torch.zeros((), dtype=tensor.dtype))

    grid = Tensors(
        mask=mask,
        tokens=tokens,
        logits=logits,
        logprobs=padded(logprobs),
        old_logprobs=padded(old_logprobs),
        ref_logprobs=padded(ref_logprobs),
        sampling_logprobs=padded(sampling_logprobs),
        rewards_per_func=rewards_per_func,
        scores=scores,
        advantages=advantages,
        token_advantages=padded(advantages.unsqueeze(-1).expand(shape)),
        values=padded(values),
        old_values=padded(old_values),
        returns=padded(returns),
        completion_lengths=lengths,
        prompt_lengths=torch.tensor(PROMPT_LENGTHS),
        is_truncated=torch.tensor(TRUNCATED),
    )
    return ExampleBatch(seed, grid)


# ------------------------------------------------------------------ adapters


def example_adapter(adapter: Adapter, concept: str | None = None) -> Callable[[F], F]:
    """Decorator: ``adapter`` calls the decorated reference function on the example batch.

    ``concept`` limits it to the keys of that concept, for a function several
    quantities share (one function for prompt and response lengths).
    """

    def decorate(function: F) -> F:
        return attach(function, adapter, concept)

    return decorate


def attach(function: F, adapter: Adapter, concept: str | None = None) -> F:
    """Give ``function`` its adapter (for a function defined where a decorator cannot go)."""
    adapters = getattr(function, ADAPTER_ATTRIBUTE, None)
    if not isinstance(adapters, dict):
        adapters = {}
        setattr(function, ADAPTER_ATTRIBUTE, adapters)
    adapters[concept] = adapter
    return function


def adapter_of(function: Callable[..., Any], concept: str | None = None) -> Adapter | None:
    """The adapter of ``function`` for keys of ``concept`` (or for any concept), if it has one."""
    adapters = getattr(function, ADAPTER_ATTRIBUTE, None)
    if not isinstance(adapters, dict):
        return None
    return adapters.get(concept) or adapters.get(None)


def once(arguments: Callable[[ExampleBatch], Mapping[str, Any]]) -> Adapter:
    """An adapter calling the function once with the keyword arguments ``arguments`` builds."""

    def adapter(function: Callable[..., Any], batch: ExampleBatch) -> Any:
        return function(**arguments(batch))

    return adapter


def each_micro_batch(arguments: Callable[[Tensors], Mapping[str, Any]]) -> Adapter:
    """An adapter calling the function per micro-batch and averaging the results (field by field)."""

    def adapter(function: Callable[..., Any], batch: ExampleBatch) -> Any:
        results = [function(**arguments(tensors)) for tensors in batch.micro_batches()]
        if isinstance(results[0], Mapping):
            return {key: _mean([result[key] for result in results]) for key in results[0]}
        return _mean(results)

    return adapter


def _mean(values: list[Any]) -> torch.Tensor:
    stacked = torch.stack([torch.as_tensor(value, dtype=torch.float64) for value in values])
    return stacked.mean(0)


# ------------------------------------------------------------------ running


@cache
def _import_references() -> None:
    """Import every module of the package, so that adapters attached from other modules are in place."""
    package = importlib.import_module(PACKAGE)
    for module in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        importlib.import_module(module.name)


def runnable(reference: str | None, concept: str | None = None) -> Callable[..., Any] | None:
    """The function ``reference`` names if it is this package's and has an adapter, else ``None``."""
    if not reference or not reference.startswith(f"{PACKAGE}."):
        return None
    _import_references()
    try:
        function = resolve(reference)
    except (ImportError, AttributeError, ValueError):
        return None
    return function if adapter_of(function, concept) is not None else None


@cache
def example_value(
    reference: str | None, output: str | None = None, concept: str | None = None, seed: int = SEED
) -> float | None:
    """The number a key logs on the example batch: its reference ``reference``, field ``output``.

    ``concept`` is the key's concept (it picks the adapter of a function several
    quantities share). ``None`` when the function has no adapter or its result
    is not one number (a histogram, a table).
    """
    function = runnable(reference, concept)
    if function is None:
        return None
    adapter = adapter_of(function, concept)
    assert adapter is not None
    result = adapter(function, example_batch(seed))
    try:
        value = torch.as_tensor(select_output(result, output))
    except (KeyError, AttributeError, TypeError, RuntimeError):  # an `output` the result has not
        return None
    if value.numel() != 1:
        return None
    return float(value.reshape(()).item())
