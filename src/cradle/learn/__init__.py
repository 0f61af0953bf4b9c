"""AlphaZero-style training of a learned network for the search (``python -m cradle.learn``):
native batched self-play with the current model, a replay window of its shards, JAX + optax
on the CPU, export to the checkpoint the native search reads, a gate against the previous
model; or imitation of a teacher bot's games (``--teacher``, cradle.learn.teacher).
docs/research.md ("Training a network") says how to run it; cradle.learn.loop how it
works. Needs the ``learn`` extra (JAX, optax, safetensors, tqdm, matplotlib)."""
