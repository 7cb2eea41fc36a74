"""Capture adapter for TRL's `PPOTrainer` (≤ 1.12): what each rollout batch used, paired with what it logged.

```python
from trl.experimental.ppo import PPOTrainer   # TRL 0.26 to 1.12 (trl.PPOTrainer before)
from metrics_registry.conformance.trl_ppo_adapter import capturing

trainer = capturing(PPOTrainer)(args=..., processing_class=..., model=..., ref_model=...,
                                reward_model=..., value_model=..., train_dataset=...)
trainer.train()
for capture, logged in trainer.conformance_steps:
    assert all(r.ok for r in check(capture, logged, family="ppo", version=trl.__version__))
```

PPO logs once per rollout batch, after `num_ppo_epochs` × `num_mini_batches`
optimizer steps; a capture is that rollout batch, with one micro-batch per
cell of the PPO loop. `PPOTrainer.train` is a single loop with no method per
micro-batch to override, so `capturing(cls)` subclasses the trainer and
hooks the two calls that loop makes, reading its tensors from the calling
frame by name (nothing in the training changes):

* a forward hook on the policy-and-value wrapper keeps the policy's logits of
  each training forward pass (TRL then divides them in place by the
  temperature);
* `accelerator.backward(loss)`, once per micro-batch: the new log-probabilities
  and value predictions, the rollout's old ones, the advantages, returns, the
  completion mask and its one-longer value mask, and the cell
  (epoch, mini-batch);
* `log(metrics)`, once per rollout batch: the rollout's log-probabilities,
  reference log-probabilities, scores and generated tokens; a callback then
  pairs the capture with the dictionary that reaches `on_log`.

A trainer whose `train` no longer has those local names raises a
`CaptureError` that names them. One process (the tensors are this process's).
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from metrics_registry.conformance.capture import CaptureError, Layout, MicroBatch, StepCapture
from metrics_registry.conformance.trl_adapter import _cpu, log_pairing_callback

__all__ = ["capturing"]

#: locals of TRL's `PPOTrainer.train` read at `accelerator.backward`, and at `self.log`
MICRO_LOCALS = (
    "new_logprobs", "mb_logprobs", "mb_advantage", "vpred", "mb_values", "mb_return", "padding_mask",
    "padding_mask_p1", "micro_batch_inds", "context_length", "ppo_epoch_idx", "minibatch_idx",
)  # fmt: skip
ROLLOUT_LOCALS = ("logprobs", "ref_logprobs", "padding_mask", "scores", "contain_eos_token", "responses")


def _locals(frame: FrameType | None, names: tuple[str, ...]) -> dict[str, Any]:
    """The named locals of the PPO loop's frame; a one-line `CaptureError` when the loop is not TRL's."""
    found = {} if frame is None else frame.f_locals
    missing = [name for name in names if name not in found]
    if missing:
        where = "no caller" if frame is None else f"{frame.f_code.co_name}()"
        raise CaptureError(
            f"the PPO loop ({where}) has no {', '.join(missing)}: this adapter reads TRL's PPOTrainer.train "
            "of releases 0.26 to 1.12; capture by hand for another loop"
        )
    return {name: found[name] for name in names}


def capturing(trainer_class: type) -> type:
    """A subclass of `trainer_class` (a `PPOTrainer`) that fills `conformance_steps` with (capture, logs)."""
    import torch

    _PairWithLogs = log_pairing_callback()

    class Capturing(trainer_class):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conformance_steps: list[tuple[StepCapture, dict[str, float]]] = []
            self._mr_micro: list[MicroBatch] = []
            self._mr_logits: Any = None
            self._mr_ready: StepCapture | None = None
            self.model.register_forward_hook(self._mr_keep_logits)
            self.add_callback(_PairWithLogs(self))

        def _mr_keep_logits(self, module: Any, inputs: Any, output: Any) -> None:
            # the wrapper runs only in the PPO loop (rollouts call the policy and value models directly)
            if torch.is_grad_enabled():
                self._mr_logits = _cpu(output[0].logits)

        def train(self, *args: Any, **kwargs: Any) -> Any:
            accelerator = self.accelerator
            backward = accelerator.backward

            def recording(loss: Any, **options: Any) -> Any:
                self._mr_record(sys._getframe(1))
                return backward(loss, **options)

            accelerator.backward = recording  # the instance attribute shadows the method during train()
            try:
                return super().train(*args, **kwargs)
            finally:
                del accelerator.backward

        def _mr_record(self, frame: FrameType | None) -> None:
            f = _locals(frame, MICRO_LOCALS)
            if self._mr_logits is None:
                raise CaptureError("the PPO loop called backward without a forward pass of the model")
            inds = f["micro_batch_inds"]
            start = int(f["context_length"]) - 1
            self._mr_micro.append(
                MicroBatch(
                    {
                        "logprobs": _cpu(f["new_logprobs"]),
                        "old_logprobs": _cpu(f["mb_logprobs"]),
                        "advantages": _cpu(f["mb_advantage"]),
                        "mask": _cpu(~f["padding_mask"][inds]),
                        "value_mask": _cpu(~f["padding_mask_p1"][inds]),
                        "values": _cpu(f["vpred"]),
                        "old_values": _cpu(f["mb_values"]),
                        "returns": _cpu(f["mb_return"]),
                        "logits": self._mr_logits[:, start:-1].clone(),
                    },
                    mini_batch=int(f["minibatch_idx"]),
                    epoch=int(f["ppo_epoch_idx"]),
                )
            )
            self._mr_logits = None

        def _mr_config(self) -> dict[str, Any]:
            import trl

            args = self.args
            cliprange = float(args.cliprange)
            penalty = args.missing_eos_penalty
            return {
                "trl_version": trl.__version__,
                "cliprange": cliprange,
                "epsilon_low": cliprange,  # the names of the kit's shared quantities
                "epsilon_high": cliprange,
                "cliprange_value": float(args.cliprange_value),
                "temperature": float(args.temperature),
                "kl_coef": float(args.kl_coef),
                "kl_estimator": str(args.kl_estimator),
                "missing_eos_penalty": None if penalty is None else float(penalty),
                "eos_token_id": int(self.processing_class.eos_token_id),
                "num_ppo_epochs": int(args.num_ppo_epochs),
                "num_mini_batches": int(args.num_mini_batches),
                "gradient_accumulation_steps": int(args.gradient_accumulation_steps),
                "per_device_train_batch_size": int(args.per_device_train_batch_size),
            }

        def _mr_step(self, frame: FrameType | None) -> dict[str, Any]:
            f = _locals(frame, ROLLOUT_LOCALS)
            contains_eos = _cpu(f["contain_eos_token"])
            scores = _cpu(f["scores"])
            penalty = self.args.missing_eos_penalty
            if penalty is not None:  # TRL subtracted it in place; the reference wants the model's scores
                scores = torch.where(contains_eos, scores, scores + penalty)
            return {
                "logprobs": _cpu(f["logprobs"]),
                "ref_logprobs": _cpu(f["ref_logprobs"]),
                "mask": _cpu(~f["padding_mask"]),
                "scores": scores,
                "contains_eos": contains_eos,
                "responses": _cpu(f["responses"]),
            }

        def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
            if self._mr_micro:
                args_ = self.args
                self._mr_ready = StepCapture(
                    micro_batches=self._mr_micro,
                    layout=Layout(
                        mini_batches=int(args_.num_mini_batches),
                        epochs=int(args_.num_ppo_epochs),
                        grad_accum=int(args_.gradient_accumulation_steps),
                        world_size=int(self.accelerator.num_processes),
                    ),
                    config=self._mr_config(),
                    step=self._mr_step(sys._getframe(1)),
                    dtype=str(self._mr_micro[0]["logprobs"].dtype).removeprefix("torch."),
                )
                self._mr_micro = []
            super().log(logs, *args, **kwargs)

    Capturing.__name__ = Capturing.__qualname__ = f"Capturing{trainer_class.__name__}"
    return Capturing
