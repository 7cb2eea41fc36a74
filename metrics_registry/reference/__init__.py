"""Readable PyTorch reference implementations of the computable metrics.

Shared primitives here, one package per family. The modules at this level
hold what every framework builds on:

| module | what it holds |
| --- | --- |
| `masked` | masked sum, mean, variance and whitening |
| `kl` | the k1 / k2 / k3 KL estimators, exact categorical KL |
| `entropy` | categorical entropy from logits, sampled entropy |
| `gae` | generalised advantage estimation and returns |
| `lengths` | completion lengths, truncation, EOS counts |
| `multiturn` | the multi-turn GRPO extension |
| `examples` | running the registry's worked examples |

Each family has a package named after its data file
(`metrics_registry/data/<name>.yaml` -> `reference/<name>/`), split into
modules of one area each, whose `__init__` re-exports the public functions:

| package | family |
| --- | --- |
| `ppo` | TRL `PPOTrainer` (PPOv2) metrics |
| `legacy_ppo` | TRL v0.7 `PPOTrainer` metrics (`ppo/*`, ...) |
| `grpo` | TRL `GRPOTrainer` metrics |

A family package imports the shared primitives, never another family's
package, so a new framework is a data file plus a package (and its tests in
`tests/reference/<name>/`), with no change here.

Each registry entry with `computable: true` names its function in
`reference` by the module that defines it (e.g. `metrics_registry.reference.kl.k3`,
`metrics_registry.reference.grpo.rewards.reward_mean`) and holds worked
examples that the tests run through it.

Importing this package does not import torch (the registry and the command
line work without it); every submodule does. Install the `torch` extra to
use them.

Conventions shared by every module:

* A `mask` is a boolean (or 0/1) tensor of the same shape as the values it
  selects, `True` for real tokens. Masked positions are ignored even when
  they hold NaN or infinity (TRL multiplies by the mask instead, which gives
  the same numbers for finite values).
* Shapes are named `B` (sequences), `T` (positions), `V` (vocabulary),
  `G` (groups, or grid cells of micro-batches), `n` (completions per group).
* Results are 0-dimensional tensors (or dicts of them), computed in the dtype
  of the inputs, as the trainers do; pass float64 to reproduce a number
  exactly. Functions named after a TRL quirk reproduce the quirk; the clean
  definition next to them says what differs.
"""
