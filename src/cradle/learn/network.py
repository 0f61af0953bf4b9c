"""The network the trainer fits and exports (JAX): a multilayer perceptron over a seat's flat
observation, scaled to [-1, 1], with a policy head (a logit per action id) and a value head
(a logit per seat, relative to the observing seat; its sigmoid that seat's expected rank
reward). ``export`` writes the checkpoint format the native search reads (docs/research.md,
"The checkpoint format"): the input scales folded into the first layer, so the native side
reads the raw observation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

Array = jax.Array
Params = dict[str, dict[str, Array]]
# One training step: (params, optimiser state, x, mask, target, value target) -> (params,
# state, policy loss, value loss).
Step = Callable[..., tuple[Params, optax.OptState, Array, Array]]

FORMAT = "cradle-mlp"
VERSION = "1"


def init(key: Array, inputs: int, hidden: Sequence[int], actions: int, players: int) -> Params:
    """He-initialised hidden layers; zero heads (equal priors and even values at first)."""
    params: Params = {}
    width = inputs
    for k, size in enumerate(hidden):
        key, sub = jax.random.split(key)
        scale = np.sqrt(2.0 / width)
        params[f"layer{k}"] = {
            "weight": jax.random.normal(sub, (width, size), jnp.float32) * scale,
            "bias": jnp.zeros((size,), jnp.float32),
        }
        width = size
    params["policy"] = {
        "weight": jnp.zeros((width, actions), jnp.float32),
        "bias": jnp.zeros((actions,), jnp.float32),
    }
    params["value"] = {
        "weight": jnp.zeros((width, players), jnp.float32),
        "bias": jnp.zeros((players,), jnp.float32),
    }
    return params


def layers(params: Params) -> int:
    return sum(1 for name in params if name.startswith("layer"))


def forward(params: Params, x: Array) -> tuple[Array, Array]:
    """Logits of every action id and value logits per seat, for scaled observations ``x``."""
    h = x
    for k in range(layers(params)):
        layer = params[f"layer{k}"]
        h = jax.nn.relu(h @ layer["weight"] + layer["bias"])
    policy = h @ params["policy"]["weight"] + params["policy"]["bias"]
    value = h @ params["value"]["weight"] + params["value"]["bias"]
    return policy, value


def losses(
    params: Params, x: Array, mask: Array, target: Array, value_target: Array
) -> tuple[Array, tuple[Array, Array]]:
    """The policy's cross-entropy against the search's visits over the legal actions, and the
    values' binary cross-entropy against each seat's rank reward (relative seats)."""
    logits, value_logits = forward(params, x)
    logits = jnp.where(mask, logits, -1e9)
    policy_loss = -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits), axis=1))
    value_loss = jnp.mean(optax.sigmoid_binary_cross_entropy(value_logits, value_target))
    return policy_loss + value_loss, (policy_loss, value_loss)


def optimiser(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    return optax.adamw(learning_rate, weight_decay=weight_decay)


def make_step(opt: optax.GradientTransformation) -> Step:
    """One jitted training step: (params, state, batch...) -> (params, state, losses)."""

    @jax.jit
    def step(
        params: Params,
        state: optax.OptState,
        x: Array,
        mask: Array,
        target: Array,
        value_target: Array,
    ) -> tuple[Params, optax.OptState, Array, Array]:
        grads, (policy_loss, value_loss) = jax.grad(losses, has_aux=True)(
            params, x, mask, target, value_target
        )
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, policy_loss, value_loss

    return step


def export(params: Params, scales: np.ndarray, path: Path, metadata: dict[str, str]) -> None:
    """Write ``params`` as a checkpoint (float32), the observation ``scales`` folded into the
    first layer; written to a temporary file and renamed, so a reader never sees half of it."""
    from safetensors.numpy import save_file

    tensors: dict[str, np.ndarray] = {}
    for name, layer in params.items():
        weight = np.asarray(layer["weight"], np.float32)
        if name == "layer0":
            weight = weight / scales.astype(np.float32)[:, None]
        tensors[f"{name}.weight"] = np.ascontiguousarray(weight)
        tensors[f"{name}.bias"] = np.asarray(layer["bias"], np.float32)
    meta = {"format": FORMAT, "version": VERSION, **metadata}
    temporary = path.with_name(path.name + ".tmp")
    save_file(tensors, str(temporary), metadata=meta)
    temporary.replace(path)


def restore(path: Path, scales: np.ndarray) -> Params:
    """The parameters of a checkpoint ``export`` wrote (the scales taken out again)."""
    from safetensors.numpy import load_file

    tensors = load_file(str(path))
    params: Params = {}
    for key, value in tensors.items():
        name, _, part = key.rpartition(".")
        if name == "layer0" and part == "weight":
            value = value * scales.astype(np.float32)[:, None]
        params.setdefault(name, {})[part] = jnp.asarray(value, jnp.float32)
    return params
