"""Capture adapter for TRL's `GRPOTrainer`: what each optimizer step used, paired with what it logged.

```python
from trl import GRPOTrainer
from metrics_registry.conformance.trl_adapter import capturing

trainer = capturing(GRPOTrainer)(model=..., args=..., ...)
trainer.train()
for capture, logged in trainer.conformance_steps:
    assert all(r.ok for r in check(capture, logged, family="grpo", version=trl.__version__))
```

`capturing(cls)` subclasses any `GRPOTrainer` (TRL's, or your own copy or
subclass of it) and hooks four methods; nothing in the training changes:

* `_calculate_rewards`: the rewards per function of each generation batch;
* `_compute_loss`: marks the loss-time call of
  `_get_per_token_logps_and_entropies`, whose log-probabilities are
  recorded with the micro-batch's advantages, old and reference
  log-probabilities, loss mask, and the logits of a no-grad forward pass
  (for the entropy reference);
* `_clip_grad_norm`: the gradients before clipping (else at
  `on_pre_optimizer_step`, when `max_grad_norm` is 0);
* `log`: closes the step's capture; a callback pairs it with the dictionary
  that reaches `on_log`.

Use `logging_steps=1` so that each logged dictionary covers one optimizer
step. One process (the captured tensors are this process's).
"""

from __future__ import annotations

from typing import Any

from metrics_registry.conformance.capture import Layout, MicroBatch, StepCapture

__all__ = ["capturing", "log_pairing_callback"]


def _cpu(tensor: Any) -> Any:
    return None if tensor is None else tensor.detach().to("cpu").clone()


def log_pairing_callback() -> type:
    """A `TrainerCallback` class that pairs the capture a trainer finished (`_mr_ready`) with the
    next logs, into `conformance_steps`; both TRL adapters use it (transformers imported here)."""
    from transformers import TrainerCallback

    class PairWithLogs(TrainerCallback):
        def __init__(self, trainer: Any) -> None:
            self.trainer = trainer

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
            ready = self.trainer._mr_ready
            if ready is not None and logs is not None:
                self.trainer.conformance_steps.append((ready, dict(logs)))
                self.trainer._mr_ready = None

    return PairWithLogs


def capturing(trainer_class: type) -> type:
    """A subclass of `trainer_class` (a `GRPOTrainer`) that fills `conformance_steps` with (capture, logs)."""
    import torch

    class _PairWithLogs(log_pairing_callback()):  # type: ignore[misc]
        def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.trainer._mr_grads is None:
                self.trainer._mr_record_grads(kwargs.get("model") or self.trainer.model)

    class Capturing(trainer_class):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conformance_steps: list[tuple[StepCapture, dict[str, float]]] = []
            self._mr_micro: list[MicroBatch] = []
            self._mr_rewards: Any = None
            self._mr_grads: list[Any] | None = None
            self._mr_in_loss: dict[str, Any] | None = None
            self._mr_ready: StepCapture | None = None
            self.add_callback(_PairWithLogs(self))

        def _calculate_rewards(self, *args: Any, **kwargs: Any) -> Any:
            rewards = super()._calculate_rewards(*args, **kwargs)
            if self.model.training:
                self._mr_rewards = _cpu(rewards)
            return rewards

        def _compute_loss(self, model: Any, inputs: Any) -> Any:
            self._mr_in_loss = {"model": model, "inputs": inputs}
            try:
                return super()._compute_loss(model, inputs)
            finally:
                self._mr_in_loss = None

        def _get_per_token_logps_and_entropies(
            self,
            model: Any,
            input_ids: Any,
            attention_mask: Any,
            logits_to_keep: int,
            *args: Any,
            **kwargs: Any,
        ) -> Any:
            result = super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
            if self._mr_in_loss is not None and model.training:
                inputs = self._mr_in_loss["inputs"]
                self._mr_in_loss = None  # one record per loss call
                with torch.no_grad():
                    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
                logps = result[0]
                mask = inputs["completion_mask"]
                if "tool_mask" in inputs:
                    mask = mask * inputs["tool_mask"]
                old = inputs.get("old_per_token_logps")
                self._mr_micro.append(
                    MicroBatch(
                        {
                            "logprobs": _cpu(logps),
                            "old_logprobs": _cpu(logps if old is None else old),
                            **(
                                {"ref_logprobs": _cpu(inputs["ref_per_token_logps"])}
                                if self.beta != 0.0
                                else {}
                            ),
                            "advantages": _cpu(inputs["advantages"]),
                            "mask": _cpu(mask),
                            "logits": _cpu(logits[:, -logits_to_keep - 1 : -1, :]),
                            "completion_ids": _cpu(inputs["completion_ids"]),
                            "eos_token_ids": torch.tensor(list(self.eos_token_ids)),
                            **(
                                {"num_items_in_batch": _cpu(torch.as_tensor(inputs["num_items_in_batch"]))}
                                if "num_items_in_batch" in inputs
                                else {}
                            ),
                        }
                    )
                )
            return result

        def _mr_record_grads(self, model: Any) -> None:
            self._mr_grads = [_cpu(p.grad) for p in model.parameters() if p.grad is not None]

        def _clip_grad_norm(self, model: Any) -> Any:
            self._mr_record_grads(model)
            return super()._clip_grad_norm(model)

        def _mr_config(self) -> dict[str, Any]:
            import trl

            args = self.args
            return {
                "trl_version": trl.__version__,
                "beta": float(self.beta),
                "epsilon_low": float(self.epsilon_low),
                "epsilon_high": float(self.epsilon_high),
                "temperature": float(self.temperature),
                "use_bias_correction_kl": bool(getattr(args, "use_bias_correction_kl", False)),
                "num_generations": int(self.num_generations),
                "scale_rewards": str(self.scale_rewards),
                "loss_type": str(self.loss_type),
                "gradient_accumulation_steps": int(args.gradient_accumulation_steps),
                "steps_per_generation": int(args.steps_per_generation),
                "max_completion_length": int(args.max_completion_length),
                "pad_token_id": self._tokenizer.pad_token_id,
            }

        def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
            if self._mr_micro and self.model.training:
                step: dict[str, Any] = {"reward_weights": _cpu(self.reward_weights)}
                if self._mr_rewards is not None:
                    step["rewards_per_func"] = self._mr_rewards
                if self._mr_grads is not None:
                    step["grads"] = self._mr_grads
                self._mr_ready = StepCapture(
                    micro_batches=self._mr_micro,
                    layout=Layout(
                        epochs=int(self.num_iterations),
                        grad_accum=int(self.args.gradient_accumulation_steps),
                        world_size=int(self.accelerator.num_processes),
                    ),
                    config=self._mr_config(),
                    step=step,
                    reward_names=list(self.reward_func_names),
                    dtype=str(self._mr_micro[0]["logprobs"].dtype).removeprefix("torch."),
                )
                self._mr_micro, self._mr_rewards, self._mr_grads = [], None, None
            super().log(logs, start_time)

    Capturing.__name__ = Capturing.__qualname__ = f"Capturing{trainer_class.__name__}"
    return Capturing
