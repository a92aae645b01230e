# SPDX-License-Identifier: MIT
"""Writes the Fortran-order .npy files of tests/data/npy-fortran/ with numpy (np.save of np.asfortranarray).

Element [i, j, k] of f4_2x3x4.npy is 100 i + 10 j + k; [i, j] of i8_3x2.npy and f8_2x5.npy is 10 i + j; the test
computes these values itself, so the files only have to be in Fortran order.
Run: /usr/bin/python3 tools/make_npy_fortran.py tests/data/npy-fortran"""
import os
import sys

import numpy as np


def main(out):
    os.makedirs(out, exist_ok=True)
    i, j, k = np.indices((2, 3, 4))
    arrays = {"f4_2x3x4": (100 * i + 10 * j + k).astype("<f4")}
    i, j = np.indices((3, 2))
    arrays["i8_3x2"] = (10 * i + j).astype("<i8")
    i, j = np.indices((2, 5))
    arrays["f8_2x5"] = (10 * i + j).astype("<f8")
    for name, a in arrays.items():
        f = np.asfortranarray(a)
        assert f.flags.f_contiguous and not f.flags.c_contiguous
        np.save(os.path.join(out, name + ".npy"), f)
        with open(os.path.join(out, name + ".npy"), "rb") as check:
            assert b"'fortran_order': True" in check.read(128)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/npy-fortran")
