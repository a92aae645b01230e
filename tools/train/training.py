# SPDX-License-Identifier: MIT
"""What every training script here shares: its command line, seeding, and one optimizer step with its log line."""
import argparse
import os
import time

import torch


def setup(default_steps, extra_arguments=None):
    """Parses OUT [--steps N] [--seed S] (plus what extra_arguments(parser) adds), seeds torch, uses one thread
    (reproducible, and the machine is shared) and creates OUT. Returns the parsed arguments."""
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=default_steps)
    ap.add_argument("--seed", type=int, default=1234)
    if extra_arguments:
        extra_arguments(ap)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    return args


def optimizer_step(model, opt, sched, loss, step, steps, log_every, t0):
    """Backpropagates `loss`, clips gradients at 1.0, steps the optimizer and the schedule, and logs now and then."""
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % log_every == 0 or step == steps - 1:
        print(f"step {step} loss {loss.item():.4f} ({time.time() - t0:.0f}s)", flush=True)
