"""Readable PyTorch reference implementations of the computable metrics.

One module per topic:

| module | what it holds |
| --- | --- |
| `masked` | masked sum, mean, variance and whitening |
| `kl` | the k1 / k2 / k3 KL estimators, exact categorical KL |
| `entropy` | categorical entropy from logits, sampled entropy |
| `gae` | generalised advantage estimation and returns |
| `ppo` | TRL `PPOTrainer` (PPOv2) metrics |
| `legacy` | TRL v0.7 `PPOTrainer` metrics (`ppo/*`, ...) |
| `grpo` | TRL `GRPOTrainer` metrics |
| `lengths` | completion lengths, truncation, EOS counts |
| `multiturn` | the multi-turn GRPO extension |
| `examples` | running the registry's worked examples |

Each registry entry with `computable: true` names its function in
`reference` (e.g. `metrics_registry.reference.kl.k3`) and holds worked
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
