r"""OpenRLHF evaluation metrics: `eval_<datasource>_pass<n>` and `eval_<datasource>_pass1`.

`compute_eval_metrics` (`openrlhf/trainer/ppo_trainer.py:82-145@3c3be623`)
groups the `n` samples of each evaluation prompt, takes their max (pass@n)
and mean (pass1) reward, and averages over the prompts of one datasource.
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_float

__all__ = ["eval_pass_rates"]


def eval_pass_rates(rewards: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""Pass@n (mean over prompts of the best of n rewards) and pass1 (mean reward) of one datasource.

    $$
    \mathrm{pass@}n = \frac{1}{P}\sum_p \max_i r_{p,i},\qquad
    \mathrm{pass1} = \frac{1}{P}\sum_p \frac{1}{n}\sum_i r_{p,i}
    $$

    Args:
        rewards: `(P, n)` rewards of the `n` samples of each of the `P` prompts.

    Returns:
        `pass_n` and `pass1`. For rewards other than 0/1 these are a mean of
        maxima and a mean reward, not pass rates. With `n = 1` OpenRLHF logs only
        `pass1`.
    """
    r = as_float(rewards)
    return {"pass_n": r.max(dim=-1).values.mean(), "pass1": r.mean(dim=-1).mean()}
