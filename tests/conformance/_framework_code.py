"""The logging code of each bug in the table, written the way the framework wrote it, buggy and fixed.

Plain torch on the capture's tensors, independent of the kit (which must
*find* the bug): each function imitates the framework's reduction loop. The
fixture files store the numbers these produce; the bug-table test checks that
the stored numbers are reproduced and that the kit diagnoses the buggy one.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from metrics_registry.conformance import StepCapture

Code = Callable[[StepCapture], float]


def _ratio(t: dict) -> torch.Tensor:
    return torch.exp(t["logprobs"].double() - t["old_logprobs"].double())


def _token_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    mask = mask.double().expand_as(x)
    return (x * mask).sum() / mask.sum()


# stable-baselines3 #149: clip_fraction is overwritten in the mini-batch loop, the last one is logged
def sb3_149_buggy(c: StepCapture) -> float:
    for mb in c.micro_batches:
        clip_fraction = torch.mean(
            (torch.abs(_ratio(mb.tensors) - 1) > c.config["clip_range"]).double()
        ).item()
    return clip_fraction


def sb3_149_fixed(c: StepCapture) -> float:
    clip_fractions = [
        torch.mean((torch.abs(_ratio(mb.tensors) - 1) > c.config["clip_range"]).double()).item()
        for mb in c.micro_batches
    ]
    return sum(clip_fractions) / len(clip_fractions)


# RLinf #1471: per-token values broadcast over (chunks, action_dim) and summed instead of averaged
def _rlinf_1471(c: StepCapture, per_token: Callable[[dict], torch.Tensor], buggy: bool) -> float:
    chunks, action_dim = c.layout.others["chunks"], c.layout.others["action_dim"]
    values = []
    for mb in c.micro_batches:
        x = per_token(mb.tensors).unsqueeze(-1).unsqueeze(-1).expand(-1, -1, chunks, action_dim)
        x = x.sum(dim=(-1, -2)) if buggy else x.mean(dim=(-1, -2))
        values.append(_token_mean(x, mb["mask"]).item())
    return sum(values) / len(values)


def _k1(t: dict) -> torch.Tensor:
    return t["old_logprobs"].double() - t["logprobs"].double()


def _clipped(t: dict) -> torch.Tensor:
    return (torch.abs(_ratio(t) - 1) > 0.2).double()


# RLinf #1529: the value clip flag compares the clipped values with themselves
def rlinf_1529(c: StepCapture, buggy: bool) -> float:
    eps = c.config["clip_range_value"]
    values = []
    for mb in c.micro_batches:
        v, old = mb["values"].double(), mb["old_values"].double()
        clipped = old + torch.clamp(v - old, -eps, eps)
        flag = (clipped - clipped).abs() > eps if buggy else (v - old).abs() > eps
        values.append(_token_mean(flag.double(), mb["mask"]).item())
    return sum(values) / len(values)


# RLinf #1247: explained variance computed per micro-batch and averaged
def _explained_variance(v: torch.Tensor, r: torch.Tensor, m: torch.Tensor) -> float:
    v, r = v.double()[m], r.double()[m]
    return (1 - torch.var(r - v) / torch.var(r)).item()


def rlinf_1247(c: StepCapture, buggy: bool) -> float:
    if buggy:
        parts = [_explained_variance(mb["values"], mb["returns"], mb["mask"]) for mb in c.micro_batches]
        return sum(parts) / len(parts)
    cat = {n: torch.cat([mb[n] for mb in c.micro_batches]) for n in ("values", "returns", "mask")}
    return _explained_variance(cat["values"], cat["returns"], cat["mask"])


# verl #5766: metrics accumulated with += over every mini-batch of every epoch
def _pg_loss(t: dict, eps: float) -> torch.Tensor:
    ratio, adv = _ratio(t), t["advantages"].double().unsqueeze(-1)
    return torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - eps, 1 + eps))


def _kl_k3(t: dict) -> torch.Tensor:
    log_r = t["ref_logprobs"].double() - t["logprobs"].double()
    return torch.exp(log_r) - 1 - log_r


def verl_5766(c: StepCapture, per_token: Callable[[dict], torch.Tensor], buggy: bool) -> float:
    values = [_token_mean(per_token(mb.tensors), mb["mask"]).item() for mb in c.micro_batches]
    return sum(values) if buggy else sum(values) / len(values)


# verl #4711: the loss already divided by the micro-batch count for accumulation is logged divided again
def verl_4711(c: StepCapture, buggy: bool) -> float:
    n = c.layout.grad_accum
    logged = []
    for mb in c.micro_batches:
        loss = (
            _token_mean(_pg_loss(mb.tensors, c.config["clip_range"]), mb["mask"]) / n
        )  # scaled for backward
        logged.append((loss / n if buggy else loss * n).item())
    return sum(logged) / len(logged)


# verl #972: pg_clipfrac_lower tested on the already-bounded loss, which can never exceed the bound
def verl_972(c: StepCapture, buggy: bool) -> float:
    eps, cap = c.config["clip_range"], c.config["clip_ratio_c"]
    values = []
    for mb in c.micro_batches:
        adv = mb["advantages"].double().unsqueeze(-1)
        clip_pg_losses1 = _pg_loss(mb.tensors, eps)
        pg_losses3 = -adv * cap
        clip_pg_losses2 = torch.min(pg_losses3, clip_pg_losses1)
        tested = clip_pg_losses2 if buggy else clip_pg_losses1
        flag = torch.gt(tested, pg_losses3) * (adv < 0)
        values.append(_token_mean(flag.double(), mb["mask"]).item())
    return sum(values) / len(values)


# verl #7817: response clip ratio compares lengths with the padded width of the batch
def verl_7817(c: StepCapture, buggy: bool) -> float:
    mask = torch.cat([mb["mask"] for mb in c.micro_batches])
    lengths = mask.sum(-1)
    limit = mask.shape[-1] if buggy else c.config["max_response_length"]
    return torch.eq(lengths, limit).double().mean().item()


# NeMo-RL #1426: the grad norm is added once per micro-batch
def nemo_rl_1426(c: StepCapture, buggy: bool) -> float:
    norm = torch.sqrt(sum((g.double() ** 2).sum() for g in c.step["grads"])).item()
    return sum(norm for _ in c.micro_batches) if buggy else norm


# TRL PPO <= 1.12: a (epochs, mini-batches, accumulation) grid of which only the run cells are written
def trl_ppo_grid(c: StepCapture, buggy: bool) -> float:
    layout = c.layout
    grid = torch.zeros(layout.epochs, layout.mini_batches, layout.grad_accum, dtype=torch.float64)
    written = torch.zeros_like(grid, dtype=torch.bool)
    slot: dict[tuple[int, int], int] = {}
    for mb in c.micro_batches:
        index = slot.get((mb.epoch, mb.mini_batch), 0)
        slot[(mb.epoch, mb.mini_batch)] = index + 1
        grid[mb.epoch, mb.mini_batch, index] = _ratio(mb.tensors).mean()
        written[mb.epoch, mb.mini_batch, index] = True
    return (grid.mean() if buggy else grid[written].mean()).item()


# TRL #6078 review: the low clip flag paired with a positive advantage
def trl_6078(c: StepCapture, buggy: bool) -> float:
    eps = c.config["epsilon_low"]
    values = []
    for mb in c.micro_batches:
        adv = mb["advantages"].double().unsqueeze(-1)
        flag = (_ratio(mb.tensors) < 1 - eps) & ((adv > 0) if buggy else (adv < 0))
        values.append(_token_mean(flag.double(), mb["mask"]).item())
    return sum(values) / len(values)


#: (case id, key) -> (buggy, fixed)
CODE: dict[tuple[str, str], tuple[Code, Code]] = {
    ("sb3-149", "train/clip_fraction"): (sb3_149_buggy, sb3_149_fixed),
    ("rlinf-1471", "actor/approx_kl"): (
        lambda c: _rlinf_1471(c, _k1, True),
        lambda c: _rlinf_1471(c, _k1, False),
    ),
    ("rlinf-1471", "actor/clip_fraction"): (
        lambda c: _rlinf_1471(c, _clipped, True),
        lambda c: _rlinf_1471(c, _clipped, False),
    ),
    ("rlinf-1529", "critic/value_clip_ratio"): (
        lambda c: rlinf_1529(c, True),
        lambda c: rlinf_1529(c, False),
    ),
    ("rlinf-1247", "critic/explained_variance"): (
        lambda c: rlinf_1247(c, True),
        lambda c: rlinf_1247(c, False),
    ),
    ("verl-5766", "actor/pg_loss"): (
        lambda c: verl_5766(c, lambda t: _pg_loss(t, c.config["clip_range"]), True),
        lambda c: verl_5766(c, lambda t: _pg_loss(t, c.config["clip_range"]), False),
    ),
    ("verl-5766", "actor/kl_loss"): (
        lambda c: verl_5766(c, _kl_k3, True),
        lambda c: verl_5766(c, _kl_k3, False),
    ),
    ("verl-4711", "actor/pg_loss"): (lambda c: verl_4711(c, True), lambda c: verl_4711(c, False)),
    ("verl-972", "actor/pg_clipfrac_lower"): (lambda c: verl_972(c, True), lambda c: verl_972(c, False)),
    ("verl-7817", "response_length/clip_ratio"): (
        lambda c: verl_7817(c, True),
        lambda c: verl_7817(c, False),
    ),
    ("nemo-rl-1426", "grad_norm"): (lambda c: nemo_rl_1426(c, True), lambda c: nemo_rl_1426(c, False)),
    ("trl-ppo-1.12", "val/ratio"): (lambda c: trl_ppo_grid(c, True), lambda c: trl_ppo_grid(c, False)),
    ("trl-6078", "clip_ratio/low_mean"): (lambda c: trl_6078(c, True), lambda c: trl_6078(c, False)),
}
