#!/usr/bin/env python3
# Copied unchanged (below this header) from the project's shared anchors, shared/anchors/jax_mobilenet.py,
# the competitor script every Go figure here is measured beside (written 2026-12-03).
# The same MobileNetV2 in JAX/Flax on the same XLA as the Go code (K steps per call, data on the device).
# How the project runs it: anchors/README.md and assets/gpu-runs/2026-12-04-h200-run27/run.sh.
"""JAX/Flax anchor on the same XLA as the Go project: torchvision-layout MobileNetV2 (10 classes), CIFAR-10-shaped
uint8 data resident on the GPU, resized to 224 on the device, bf16 compute with float32 master weights,
SGD(0.001, momentum 0.9), K training steps per call (lax.fori_loop) -- the Go ladder's best configuration, written
the way a JAX user would. Times compile, first execution and a steady window separately; with --cache, JAX's
persistent compilation cache (serialized executables) is used, so a second process shows a warm start.

One JSON line per batch on stdout; progress on stderr.
  python3 jax_mobilenet.py --batches 512,256,128 --k 10 --steps 60 --cache /tmp/jaxcache
"""
import argparse, json, os, sys, time
from functools import partial

import jax, jax.numpy as jnp
from jax import lax
import flax.linen as nn
import optax
import numpy as np

P = argparse.ArgumentParser()
P.add_argument("--batches", default="512,256,128")
P.add_argument("--k", type=int, default=10)
P.add_argument("--steps", type=int, default=60)
P.add_argument("--warmup-calls", type=int, default=2)
P.add_argument("--cache", default="")
P.add_argument("--tag", default="")
A = P.parse_args()
if A.cache:
    jax.config.update("jax_compilation_cache_dir", A.cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)

def log(*a):
    print(*a, file=sys.stderr, flush=True)

BF = jnp.bfloat16
PAD1 = ((1, 1), (1, 1))  # PyTorch's padding=1, not 'SAME' (asymmetric at stride 2)

class ConvBN(nn.Module):
    out: int
    k: int = 1
    stride: int = 1
    groups: int = 1
    act: bool = True
    @nn.compact
    def __call__(self, x, train):
        x = nn.Conv(self.out, (self.k, self.k), (self.stride, self.stride), padding=PAD1 if self.k == 3 else 0,
                    feature_group_count=self.groups, use_bias=False, dtype=BF, param_dtype=jnp.float32,
                    kernel_init=nn.initializers.variance_scaling(2.0, "fan_out", "normal"))(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.9, epsilon=1e-5, dtype=BF,
                         param_dtype=jnp.float32)(x)
        return jnp.clip(x, 0, 6) if self.act else x

class Block(nn.Module):
    inp: int
    out: int
    stride: int
    t: int
    @nn.compact
    def __call__(self, x, train):
        h = self.inp * self.t
        y = x
        if self.t != 1:
            y = ConvBN(h)(y, train)
        y = ConvBN(h, 3, self.stride, groups=h)(y, train)
        y = ConvBN(self.out, act=False)(y, train)
        return x + y if (self.stride == 1 and self.inp == self.out) else y

class MobileNetV2(nn.Module):
    classes: int = 10
    @nn.compact
    def __call__(self, x, train=True):
        x = ConvBN(32, 3, 2)(x, train)
        inp = 32
        for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                           (6, 160, 3, 2), (6, 320, 1, 1)]:
            for i in range(n):
                x = Block(inp, c, s if i == 0 else 1, t)(x, train)
                inp = c
        x = ConvBN(1280)(x, train)
        x = jnp.mean(x.astype(jnp.float32), axis=(1, 2))
        x = nn.Dropout(0.2, deterministic=not train)(x)
        return nn.Dense(self.classes, dtype=BF, param_dtype=jnp.float32)(x)

N = 50000
rng = np.random.default_rng(0)
labels_np = rng.integers(0, 10, N).astype(np.int32)
base = rng.integers(0, 256, (10, 32, 32, 3)).astype(np.int16)
imgs_np = np.clip(base[labels_np] + rng.integers(-40, 41, (N, 32, 32, 3)), 0, 255).astype(np.uint8)
data = jax.device_put(imgs_np)
labels = jax.device_put(labels_np)

model = MobileNetV2()
tx = optax.sgd(0.001, momentum=0.9)  # optax's trace: v = g + 0.9 v; p -= lr v (PyTorch's form)

def sample(key, B, data_g, labels_g):
    idx = jax.random.randint(key, (B,), 0, N)
    x = data_g[idx].astype(jnp.float32)
    x = jax.image.resize(x, (B, 224, 224, 3), "bilinear")
    x = (x / 255.0 - 0.5) / 0.5
    return x.astype(BF), labels_g[idx]

def loss_fn(params, bstats, x, y, key):
    logits, upd = model.apply({"params": params, "batch_stats": bstats}, x, train=True, rngs={"dropout": key},
                              mutable=["batch_stats"])
    loss = optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), y).mean()
    return loss, upd["batch_stats"]

def make_run(B, K):
    def run(params, bstats, opt, key, data_, labels_):
        def body(i, c):
            params, bstats, opt, key, _ = c
            key, k1, k2 = jax.random.split(key, 3)
            x, y = sample(k1, B, data_, labels_)
            (loss, bstats), g = jax.value_and_grad(loss_fn, has_aux=True)(params, bstats, x, y, k2)
            upd, opt = tx.update(g, opt, params)
            return optax.apply_updates(params, upd), bstats, opt, key, loss
        return lax.fori_loop(0, K, body, (params, bstats, opt, key, jnp.float32(0)))
    return jax.jit(run, donate_argnums=(0, 1, 2))

dev = jax.devices()[0]
log(f"jax {jax.__version__} device {dev.device_kind} cache={A.cache or 'off'}")
hdr = {"jax": jax.__version__, "device": dev.device_kind, "tag": A.tag, "cache": bool(A.cache)}
for B in [int(b) for b in A.batches.split(",")]:
    t0 = time.perf_counter()
    v = model.init({"params": jax.random.PRNGKey(0), "dropout": jax.random.PRNGKey(1)},
                   jnp.zeros((2, 224, 224, 3), BF), train=True)
    params, bstats = v["params"], v["batch_stats"]
    nparams = sum(int(np.prod(p.shape)) for p in jax.tree_util.tree_leaves(params))
    opt = tx.init(params)
    key = jax.random.PRNGKey(2)
    run = make_run(B, A.k)
    t1 = time.perf_counter()
    comp = run.lower(params, bstats, opt, key, data, labels).compile()
    t2 = time.perf_counter()
    mem = comp.memory_analysis()
    params, bstats, opt, key, loss = comp(params, bstats, opt, key, data, labels)
    loss0 = float(loss)
    t3 = time.perf_counter()
    for _ in range(A.warmup_calls):
        params, bstats, opt, key, loss = comp(params, bstats, opt, key, data, labels)
    jax.block_until_ready(loss)
    calls = max(1, A.steps // A.k)
    times = []
    for _ in range(calls):
        s = time.perf_counter()
        params, bstats, opt, key, loss = comp(params, bstats, opt, key, data, labels)
        jax.block_until_ready(loss)
        times.append(time.perf_counter() - s)
    tot = sum(times)
    r = dict(hdr, batch=B, k=A.k, params=nparams, init_s=round(t1 - t0, 2), compile_s=round(t2 - t1, 2),
             first_exec_s=round(t3 - t2, 2), step_ms=round(1000 * tot / (calls * A.k), 3),
             samples_per_s=round(B * calls * A.k / tot, 1), loss_first=round(loss0, 4), loss_last=round(float(loss), 4),
             temp_gb=round(getattr(mem, "temp_size_in_bytes", 0) / 1e9, 3) if mem else None,
             peak_gb=round(dev.memory_stats().get("peak_bytes_in_use", 0) / 1e9, 3))
    print(json.dumps(r), flush=True)
    log(f"B={B}: {r['samples_per_s']}/s step {r['step_ms']} ms compile {r['compile_s']} s first exec {r['first_exec_s']} s")
    del params, bstats, opt, comp, run
