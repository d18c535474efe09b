#!/usr/bin/env python3
# Copied unchanged (below this header) from the project's shared anchors, shared/anchors/torch_ladder.py,
# the competitor script every Go figure here is measured beside (written 2026-12-02; step 11, CUDA graphs +
# fused SGD, added 2026-12-03). It reproduces the PyTorch tutorial "training optimizations: 5x throughput
# with GPU profiling and memory analysis" (torchvision MobileNetV2 on CIFAR-10 upsampled to 224) and goes beyond it.
# How the project runs it: anchors/README.md and assets/gpu-runs/2026-12-04-h200-run27/run.sh.
"""MobileNetV2 / CIFAR-10-shaped training-throughput ladder on one NVIDIA GPU.

Reproduces the optimization ladder of the tutorial "PyTorch training
optimizations: 5x throughput with GPU profiling and memory analysis"
(torchvision MobileNetV2, num_classes=10, CIFAR-10 upsampled to 224x224,
CrossEntropyLoss, SGD(lr=0.001, momentum=0.9)) and adds steps beyond it.
Every step is cumulative on the previous one unless noted:

   1 base: fp32, batch 32, DataLoader(shuffle=True), num_workers=0
   2 + AMP: autocast fp16 around forward+loss, with torch.amp.GradScaler
   3 + batch 128
   4 + uint8 H2D copy: Resize(224)+PILToTensor on CPU, normalize on GPU
   5 + num_workers=2
   6 + pin_memory=True and .to(device, non_blocking=True)
   7 + num_workers=8 (--workers-max)
   8 + channels_last (model and inputs) + bf16 autocast (no GradScaler)
   9 + torch.compile(model) (default mode)
  10 GPU-resident data: the uint8 32x32 training set lives on the GPU, random
     batches are gathered by index and resized to 224 on the GPU with
     F.interpolate(bilinear); no DataLoader; channels_last + bf16 +
     torch.compile; batch 128 and batch 256 (two result lines, both "step": 10)
  11 step 10 + CUDA graphs (torch.compile mode="reduce-overhead") + fused SGD:
     PyTorch's answer to per-step launch overhead; same batches as step 10

CIFAR-10 cannot be downloaded on the target machine, so a synthetic,
class-dependent, CIFAR-10-shaped training set (50,000 x 32x32x3 uint8,
labels 0..9) is generated with numpy and served through a Dataset that behaves
like torchvision.datasets.CIFAR10 (Image.fromarray on the HWC uint8 array, then
the transform), so the CPU-side input-pipeline cost is the same.

Output (stdout): one JSON line with versions/GPU, one JSON line per ladder
step, then a markdown table. Progress messages go to stderr.

Usage:  python bench_ladder.py [--steps 60] [--warmup 10] [--only 1,6,9,10]
                               [--workers-max 8]
"""

import argparse
import gc
import json
import math
import os
import platform
import sys
import threading
import time
import traceback
from dataclasses import asdict, dataclass, replace

import numpy as np
import PIL
from PIL import Image

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Dataset

# Module-level knobs (kept here so that a CPU smoke test can shrink them).
DEVICE = torch.device("cuda")
IMG_SIZE = 224          # tutorial: T.Resize(224) on 32x32 CIFAR images
N_TRAIN = 50_000        # CIFAR-10 training-set size
NUM_CLASSES = 10
DATA_SEED = 1234
GB = 1e9                # memory is reported in decimal GB (bytes / 1e9)
PREFETCH_FACTOR = 2     # DataLoader default when num_workers > 0

# Published results of the tutorial on a Quadro RTX 4000 (samples/s).
TUTORIAL_RTX4000 = {1: 273.5, 2: 395.1, 3: 551.5, 4: 631.6, 5: 877.8, 6: 1381.6}


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def emit(obj):
    print(json.dumps(obj), flush=True)


# --------------------------------------------------------------------------
# Synthetic CIFAR-10-shaped data
# --------------------------------------------------------------------------

def make_synthetic_cifar10(n=None, seed=DATA_SEED, chunk=10_000):
    """Return (images, targets) shaped like torchvision CIFAR10.data/.targets.

    images: np.uint8 array [n, 32, 32, 3] (HWC, like CIFAR10.data)
    targets: list of Python ints in 0..9, balanced (like CIFAR10.targets)

    Each class has its own mean colour and its own low-frequency sinusoidal
    grating (orientation/frequency), plus per-pixel Gaussian noise, so the task
    is learnable but not trivially separable from a single pixel.
    """
    if n is None:
        n = N_TRAIN
    rng = np.random.default_rng(seed)
    labels = np.arange(n, dtype=np.int64) % NUM_CLASSES
    rng.shuffle(labels)

    class_color = rng.uniform(60.0, 196.0, size=(NUM_CLASSES, 3)).astype(np.float32)
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32)
    patterns = np.empty((NUM_CLASSES, 32, 32, 1), dtype=np.float32)
    for c in range(NUM_CLASSES):
        theta = math.pi * c / NUM_CLASSES
        freq = 2.0 * math.pi * (1 + c % 3) / 32.0
        patterns[c, :, :, 0] = 30.0 * np.sin(
            freq * (xx * math.cos(theta) + yy * math.sin(theta)))

    images = np.empty((n, 32, 32, 3), dtype=np.uint8)
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        lab = labels[s:e]
        x = rng.standard_normal(size=(e - s, 32, 32, 3), dtype=np.float32)
        x *= 40.0
        x += class_color[lab][:, None, None, :]
        x += patterns[lab]
        np.rint(x, out=x)
        np.clip(x, 0.0, 255.0, out=x)
        images[s:e] = x.astype(np.uint8)
    return images, labels.tolist()


class SyntheticCIFAR10(Dataset):
    """Same __getitem__ as torchvision.datasets.CIFAR10.

    Holds the whole numpy array; DataLoader workers are forked, so they share
    it copy-on-write instead of pickling it.
    """

    def __init__(self, data, targets, transform=None):
        self.data = data
        self.targets = targets
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        img = Image.fromarray(img)
        if self.transform is not None:
            img = self.transform(img)
        return img, target


# --------------------------------------------------------------------------
# Ladder definition
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class StepCfg:
    step: int
    name: str
    batch: int
    amp: str = "none"            # 'none' | 'fp16' | 'bf16'
    grad_scaler: bool = False
    uint8_h2d: bool = False      # PILToTensor (uint8) + normalize on GPU
    workers: int = 0
    pin_memory: bool = False     # also implies .to(..., non_blocking=True)
    channels_last: bool = False
    compile: bool = False
    gpu_data: bool = False       # GPU-resident dataset, no DataLoader
    cudagraphs: bool = False     # torch.compile(mode="reduce-overhead") + fused SGD


def build_ladder(workers_max, step10_batches):
    def w(n):
        return max(0, min(n, workers_max))

    s1 = StepCfg(1, "Base (fp32, bs32, num_workers=0)", batch=32)
    s2 = replace(s1, step=2, name="+ AMP fp16 autocast (+GradScaler)",
                 amp="fp16", grad_scaler=True)
    s3 = replace(s2, step=3, name="+ batch 128", batch=128)
    s4 = replace(s3, step=4, name="+ uint8 H2D, normalize on GPU", uint8_h2d=True)
    s5 = replace(s4, step=5, name=f"+ num_workers={w(2)}", workers=w(2))
    s6 = replace(s5, step=6, name="+ pin_memory + non_blocking", pin_memory=True)
    s7 = replace(s6, step=7, name=f"+ num_workers={w(workers_max)}",
                 workers=w(workers_max))
    s8 = replace(s7, step=8, name="+ channels_last + bf16 autocast (no scaler)",
                 channels_last=True, amp="bf16", grad_scaler=False)
    s9 = replace(s8, step=9, name="+ torch.compile(model)", compile=True)
    ladder = [s1, s2, s3, s4, s5, s6, s7, s8, s9]
    for b in step10_batches:
        ladder.append(StepCfg(
            10, "GPU-resident data + GPU resize (cl+bf16+compile, no DataLoader)",
            batch=b, amp="bf16", uint8_h2d=True, channels_last=True,
            compile=True, gpu_data=True))
    for b in step10_batches:
        ladder.append(StepCfg(
            11, "step 10 + CUDA graphs (compile mode=reduce-overhead) + fused SGD",
            batch=b, amp="bf16", uint8_h2d=True, channels_last=True,
            compile=True, gpu_data=True, cudagraphs=True))
    return ladder


# --------------------------------------------------------------------------
# Batch sources
# --------------------------------------------------------------------------

class LoaderSource:
    """Tutorial-style DataLoader pipeline; returns GPU (inputs, labels)."""

    def __init__(self, cfg, images, targets):
        if cfg.uint8_h2d:
            transform = T.Compose([T.Resize(IMG_SIZE), T.PILToTensor()])
        else:
            transform = T.Compose([
                T.Resize(IMG_SIZE),
                T.ToTensor(),
                T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
            ])
        dataset = SyntheticCIFAR10(images, targets, transform=transform)
        kwargs = dict(batch_size=cfg.batch, shuffle=True,
                      num_workers=cfg.workers, pin_memory=cfg.pin_memory,
                      # drop_last: every step has exactly `batch` samples and
                      # torch.compile never sees a ragged last batch.
                      drop_last=True)
        if cfg.workers > 0:
            kwargs.update(persistent_workers=True,
                          prefetch_factor=PREFETCH_FACTOR,
                          # Python 3.12's default on Linux; explicit so the
                          # workers share the numpy array copy-on-write.
                          multiprocessing_context="fork")
        self.loader = DataLoader(dataset, **kwargs)
        self.it = iter(self.loader)
        self.non_blocking = cfg.pin_memory
        self.uint8 = cfg.uint8_h2d
        self.channels_last = cfg.channels_last

    def _next_cpu(self):
        try:
            return next(self.it)
        except StopIteration:          # epoch end: start the next epoch
            self.it = iter(self.loader)
            return next(self.it)

    def next(self):
        inputs, labels = self._next_cpu()
        inputs = inputs.to(DEVICE, non_blocking=self.non_blocking)
        labels = labels.to(DEVICE, non_blocking=self.non_blocking)
        if self.channels_last:
            # (on the uint8 tensor when uint8_h2d: 4x fewer bytes to permute)
            inputs = inputs.contiguous(memory_format=torch.channels_last)
        if self.uint8:
            # exactly the tutorial's GPU-side normalisation
            inputs = (inputs.to(torch.float32) / 255. - 0.5) / 0.5
        return inputs, labels

    def close(self):
        it, self.it = self.it, None
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            try:
                shutdown()
            except Exception:
                pass
        self.loader = None


class GpuSource:
    """Whole uint8 32x32 training set on the GPU; batches gathered by index."""

    def __init__(self, cfg, images, targets):
        # [N, 32, 32, 3] uint8, NHWC exactly as in the numpy array
        self.x = torch.from_numpy(images).to(DEVICE)
        self.y = torch.tensor(targets, dtype=torch.long, device=DEVICE)
        self.n = int(self.x.shape[0])
        self.batch = cfg.batch
        self.steps_per_epoch = self.n // self.batch   # drop_last semantics
        if self.steps_per_epoch < 1:
            raise ValueError(f"batch {self.batch} > dataset size {self.n}")
        self.pos = self.steps_per_epoch               # new permutation first
        self.perm = None
        self.channels_last = cfg.channels_last

    def next(self):
        if self.pos >= self.steps_per_epoch:          # shuffle=True per epoch
            self.perm = torch.randperm(self.n, device=DEVICE)
            self.pos = 0
        idx = self.perm[self.pos * self.batch:(self.pos + 1) * self.batch]
        self.pos += 1
        # [B,32,32,3] -> logical NCHW view whose strides are channels_last
        x = self.x[idx].permute(0, 3, 1, 2)
        if not self.channels_last:
            x = x.contiguous()
        x = (x.to(torch.float32) / 255. - 0.5) / 0.5   # convert, then resize
        x = F.interpolate(x, size=(IMG_SIZE, IMG_SIZE), mode="bilinear",
                          align_corners=False, antialias=False)
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        else:
            x = x.contiguous()
        return x, self.y[idx]

    def close(self):
        self.x = self.y = self.perm = None


# --------------------------------------------------------------------------
# GPU utilisation sampling (NVML)
# --------------------------------------------------------------------------

def init_nvml():
    """Return (pynvml module, handle, note); module/handle None if unavailable."""
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pynvml
    except Exception as e:
        return None, None, f"pynvml import failed: {e!r}"
    try:
        pynvml.nvmlInit()
        handle = _nvml_handle_for_torch_device(pynvml)
        pynvml.nvmlDeviceGetUtilizationRates(handle)   # probe once
        return pynvml, handle, "ok"
    except Exception as e:
        return None, None, f"nvml init failed: {e!r}"


def _nvml_handle_for_torch_device(pynvml):
    idx = DEVICE.index if DEVICE.index is not None else torch.cuda.current_device()
    # 1) match torch's device UUID against NVML's ("GPU-<uuid>")
    try:
        uuid = str(torch.cuda.get_device_properties(idx).uuid).lower()
        if uuid:
            for i in range(pynvml.nvmlDeviceGetCount()):
                h = pynvml.nvmlDeviceGetHandleByIndex(i)
                u = pynvml.nvmlDeviceGetUUID(h)
                if isinstance(u, bytes):
                    u = u.decode()
                if u.lower().endswith(uuid):
                    return h
    except Exception:
        pass
    # 2) CUDA_VISIBLE_DEVICES mapping
    cvd = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    entries = [e.strip() for e in cvd.split(",") if e.strip()]
    if idx < len(entries):
        e = entries[idx]
        if e.isdigit():
            return pynvml.nvmlDeviceGetHandleByIndex(int(e))
        try:
            return pynvml.nvmlDeviceGetHandleByUUID(e)
        except Exception:
            pass
    # 3) same index
    return pynvml.nvmlDeviceGetHandleByIndex(idx)


class UtilSampler:
    """Background thread: nvmlDeviceGetUtilizationRates(...).gpu every interval."""

    def __init__(self, nvml, handle, interval):
        self.nvml = nvml
        self.handle = handle
        self.interval = interval
        self.samples = []
        self._stop = threading.Event()
        self._thread = None

    def _run(self):
        while not self._stop.is_set():
            try:
                self.samples.append(
                    float(self.nvml.nvmlDeviceGetUtilizationRates(self.handle).gpu))
            except Exception:
                pass
            self._stop.wait(self.interval)

    def start(self):
        if self.nvml is None:
            return self
        self._thread = threading.Thread(target=self._run, name="nvml-util",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Return (mean util %, number of samples); (None, 0) if unavailable."""
        if self._thread is None:
            return None, 0
        self._stop.set()
        self._thread.join(timeout=5.0)
        if not self.samples:
            try:
                self.samples.append(
                    float(self.nvml.nvmlDeviceGetUtilizationRates(self.handle).gpu))
            except Exception:
                return None, 0
        return sum(self.samples) / len(self.samples), len(self.samples)


# --------------------------------------------------------------------------
# One ladder step
# --------------------------------------------------------------------------

def make_train_step(model, criterion, optimizer, scaler, amp_dtype, cudagraphs=False):
    def train_step(inputs, labels):
        if cudagraphs:
            # a new iteration: CUDA-graph trees may reuse the last outputs' memory
            torch.compiler.cudagraph_mark_step_begin()
        optimizer.zero_grad()
        if amp_dtype is not None:
            with torch.autocast(device_type=DEVICE.type, dtype=amp_dtype):
                outputs = model(inputs)
                loss = criterion(outputs, labels)
        else:
            outputs = model(inputs)
            loss = criterion(outputs, labels)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        return loss.detach().clone() if cudagraphs else loss.detach()
    return train_step


def _finite_or_str(v, nd):
    return round(v, nd) if math.isfinite(v) else str(v)


def run_step(cfg, args, images, targets, nvml, nvml_handle):
    torch.manual_seed(0)
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    t_setup0 = time.perf_counter()

    model = torchvision.models.mobilenet_v2(num_classes=NUM_CLASSES).to(DEVICE)
    if cfg.channels_last:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9,
                                **({"fused": True} if cfg.cudagraphs else {}))
    scaler = torch.amp.GradScaler("cuda") if cfg.grad_scaler else None
    amp_dtype = {"none": None, "fp16": torch.float16, "bf16": torch.bfloat16}[cfg.amp]
    if cfg.compile:
        fwd_model = torch.compile(model, mode="reduce-overhead") if cfg.cudagraphs \
            else torch.compile(model)
    else:
        fwd_model = model
    train_step = make_train_step(fwd_model, criterion, optimizer, scaler, amp_dtype,
                                 cudagraphs=cfg.cudagraphs)

    n_warm = args.warmup
    if cfg.compile:
        n_warm = max(n_warm, args.compile_warmup)
    if not cfg.gpu_data and cfg.workers > 0 and not args.no_prefetch_drain:
        # Also drain the batches the workers pre-fetched while we were idle
        # (prefetch_factor per worker), so the timed window is steady state.
        n_warm += PREFETCH_FACTOR * cfg.workers

    src = None
    sampler = None
    try:
        src = GpuSource(cfg, images, targets) if cfg.gpu_data else \
            LoaderSource(cfg, images, targets)

        x = y = None
        loss = loss_start = None
        for i in range(n_warm):
            x, y = src.next()
            loss = train_step(x, y)
            if i == 0:
                loss_start = loss
        torch.cuda.synchronize()
        setup_s = time.perf_counter() - t_setup0
        log(f"step {cfg.step} bs{cfg.batch}: warm-up of {n_warm} steps done "
            f"in {setup_s:.1f}s (incl. model build/compile), timing {args.steps}")

        sampler = UtilSampler(nvml, nvml_handle, args.util_interval).start()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            x, y = src.next()
            loss = train_step(x, y)
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        util, n_util = sampler.stop()
        sampler = None

        elapsed = t1 - t0
        loss_end = float(loss.item())
        loss_first = float(loss_start.item()) if loss_start is not None else float("nan")
        result = {
            "step": cfg.step,
            "name": cfg.name,
            "batch": cfg.batch,
            "step_ms": round(1000.0 * elapsed / args.steps, 3),
            "samples_per_s": round(cfg.batch * args.steps / elapsed, 1),
            "peak_alloc_gb": round(torch.cuda.max_memory_allocated(DEVICE) / GB, 3),
            "peak_reserved_gb": round(torch.cuda.max_memory_reserved(DEVICE) / GB, 3),
            "gpu_util_pct": None if util is None else round(util, 1),
            "loss": _finite_or_str(loss_end, 4),
            # extras
            "loss_start": _finite_or_str(loss_first, 4),
            "workers": 0 if cfg.gpu_data else cfg.workers,
            "warmup_steps": n_warm,
            "timed_steps": args.steps,
            "timed_s": round(elapsed, 3),
            "setup_s": round(setup_s, 1),
            "util_samples": n_util,
            "config": asdict(cfg),
        }
        return result
    finally:
        if sampler is not None:
            sampler.stop()
        if src is not None:
            src.close()
        # free everything of this step before the next one
        del src, train_step, fwd_model, model, optimizer, scaler
        x = y = loss = loss_start = None
        gc.collect()
        try:
            torch.cuda.empty_cache()
        except Exception:   # don't mask the step's own exception
            pass


def run_step_safe(cfg, args, images, targets, nvml, nvml_handle):
    t = time.perf_counter()
    try:
        res = run_step(cfg, args, images, targets, nvml, nvml_handle)
    except Exception as e:  # report and continue with the next step
        traceback.print_exc(file=sys.stderr)
        res = {"step": cfg.step, "name": cfg.name, "batch": cfg.batch,
               "step_ms": None, "samples_per_s": None, "peak_alloc_gb": None,
               "peak_reserved_gb": None, "gpu_util_pct": None, "loss": None,
               "error": f"{type(e).__name__}: {e}"[:2000],
               "config": asdict(cfg)}
    finally:
        if cfg.compile:
            try:
                _compiler_reset()
            except Exception:
                traceback.print_exc(file=sys.stderr)
        gc.collect()
        try:
            torch.cuda.empty_cache()
        except Exception:
            pass
    log(f"step {cfg.step} bs{cfg.batch}: finished in {time.perf_counter() - t:.1f}s")
    return res


def _compiler_reset():
    """torch.compiler.reset() (drops compiled graphs/guards of the last step)."""
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and hasattr(compiler, "reset"):
        compiler.reset()
    else:  # older torch
        import importlib
        importlib.import_module("torch._dynamo").reset()


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def _fmt(v, nd):
    return "-" if v is None else f"{v:.{nd}f}"


def markdown_table(results):
    base = next((r for r in results
                 if r.get("step") == 1 and r.get("samples_per_s")), None)
    lines = [
        "| # | Optim. technique | batch | GPU mem GB (peak alloc) "
        "| GPU mem GB (peak reserved) | avg step ms | samples/s "
        "| relative to base % | GPU util % | tutorial RTX 4000 samples/s |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        sps = r.get("samples_per_s")
        if base and sps:
            rel = f"{100.0 * sps / base['samples_per_s']:.0f}"
        else:
            rel = "-"
        tut = TUTORIAL_RTX4000.get(r["step"])
        tut_s = "-" if tut is None else f"{tut:.1f}"
        name = r["name"]
        if r.get("error"):
            name += f" **(failed: {r['error'][:80]})**"
        name = name.replace("|", "/")
        lines.append(
            f"| {r['step']} | {name} | {r['batch']} "
            f"| {_fmt(r.get('peak_alloc_gb'), 2)} "
            f"| {_fmt(r.get('peak_reserved_gb'), 2)} "
            f"| {_fmt(r.get('step_ms'), 1)} | {_fmt(sps, 1)} | {rel} "
            f"| {_fmt(r.get('gpu_util_pct'), 0)} "
            f"| {tut_s} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=60,
                   help="timed training steps per ladder step (default 60)")
    p.add_argument("--warmup", type=int, default=10,
                   help="warm-up steps per ladder step (default 10)")
    p.add_argument("--compile-warmup", type=int, default=15,
                   help="minimum warm-up steps for torch.compile steps (default 15)")
    p.add_argument("--only", type=str, default="",
                   help="comma list of ladder step numbers to run, e.g. 1,6,9,10 "
                        "(default: all; step 10 runs every --step10-batches)")
    p.add_argument("--workers-max", type=int, default=8,
                   help="num_workers of step 7 (and 8, 9); also caps step 5/6 "
                        "(default 8)")
    p.add_argument("--step10-batches", type=str, default="128,256",
                   help="batch sizes of steps 10 and 11 (default 128,256)")
    p.add_argument("--no-prefetch-drain", action="store_true",
                   help="do not add prefetch_factor*num_workers extra warm-up "
                        "steps for multi-worker DataLoader steps")
    p.add_argument("--util-interval", type=float, default=0.05,
                   help="NVML utilisation sampling interval in s (default 0.05)")
    p.add_argument("--no-compile", action="store_true",
                   help="run steps 9 and 10 without torch.compile (fallback if "
                        "compilation fails, e.g. no C compiler for Triton)")
    p.add_argument("--cudnn-benchmark", action="store_true",
                   help="set torch.backends.cudnn.benchmark=True for all steps "
                        "(default: PyTorch default, False, as in the tutorial)")
    args = p.parse_args(argv)
    if args.steps < 1 or args.warmup < 0 or args.compile_warmup < 0:
        p.error("--steps must be >= 1 and warm-ups >= 0")
    if args.workers_max < 0:
        p.error("--workers-max must be >= 0")
    try:
        args.only_set = {int(s) for s in args.only.split(",") if s.strip()}
        args.step10_batch_list = [int(s) for s in args.step10_batches.split(",")
                                  if s.strip()]
    except ValueError:
        p.error("--only and --step10-batches take comma-separated integers")
    bad = args.only_set - set(range(1, 12))
    if bad:
        p.error(f"--only: unknown step(s) {sorted(bad)}; valid are 1..11")
    if any(b < 1 for b in args.step10_batch_list):
        p.error("--step10-batches must be positive")
    return args


def _safe(fn):
    try:
        return fn()
    except Exception as e:
        return f"n/a ({type(e).__name__})"


def main(argv=None):
    args = parse_args(argv)
    t_start = time.perf_counter()
    if DEVICE.type == "cuda" and not torch.cuda.is_available():
        emit({"error": "CUDA is not available", "torch": torch.__version__})
        return 2
    torch.backends.cudnn.benchmark = bool(args.cudnn_benchmark)
    nvml, nvml_handle, nvml_note = init_nvml()

    try:
        affinity = len(os.sched_getaffinity(0))
    except Exception:
        affinity = None
    emit({
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(DEVICE),
        "torchvision": torchvision.__version__,
        "cuda": torch.version.cuda,
        "cudnn": _safe(torch.backends.cudnn.version),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pillow": PIL.__version__,
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "steps": args.steps,
        "warmup": args.warmup,
        "compile_warmup": args.compile_warmup,
        "workers_max": args.workers_max,
        "no_compile": args.no_compile,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "float32_matmul_precision": _safe(torch.get_float32_matmul_precision),
        "nvml": nvml_note,
        "mem_unit": "GB = 1e9 bytes",
    })

    ladder = build_ladder(args.workers_max, args.step10_batch_list)
    if args.only_set:
        ladder = [c for c in ladder if c.step in args.only_set]
    if args.no_compile:
        ladder = [replace(c, compile=False, name=c.name + " [--no-compile]")
                  if c.compile else c for c in ladder]

    t = time.perf_counter()
    images, targets = make_synthetic_cifar10()
    log(f"synthetic CIFAR-10: images {images.shape} {images.dtype}, "
        f"{len(targets)} labels, {time.perf_counter() - t:.1f}s")

    results = []
    for cfg in ladder:
        log(f"=== step {cfg.step}: {cfg.name} (batch {cfg.batch}) ===")
        res = run_step_safe(cfg, args, images, targets, nvml, nvml_handle)
        emit(res)
        results.append(res)
        log(f"elapsed so far: {time.perf_counter() - t_start:.0f}s")

    print("", flush=True)
    print(markdown_table(results), flush=True)
    if nvml is not None:
        try:
            nvml.nvmlShutdown()
        except Exception:
            pass
    log(f"total wall time: {time.perf_counter() - t_start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
