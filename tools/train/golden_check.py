# SPDX-License-Identifier: MIT
"""Checks a PyTorch re-implementation against an HF fixture's golden logits (the *_torch.py modules' self-test)."""
import os
import sys

import numpy as np
import torch


def logits_error(logits, golden_dir):
    """Prints and returns max |logits - golden_dir/logits.npy|."""
    diff = np.abs(logits - np.load(os.path.join(golden_dir, "logits.npy"))).max()
    print(f"max |logits - HF golden| = {diff:.2e}")
    return diff


def main(check_fixture, tolerance=1e-4):
    """Runs check_fixture(sys.argv[1]) on one thread; exit status 0 when its error is within `tolerance`."""
    torch.set_num_threads(1)
    sys.exit(0 if check_fixture(sys.argv[1]) < tolerance else 1)
