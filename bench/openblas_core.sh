# SPDX-License-Identifier: MIT
# Sourced by the bench scripts: sets OPENBLAS_CORETYPE to the OpenBLAS core the engine itself uses, so that a peer
# (numpy, PyTorch) in the same script multiplies with the same kernels. The rule is engine/core/blas.cpp's: AVX-512
# F/BW/DQ/VL gives SkylakeX, else Haswell (AVX2 + FMA); a core set by the caller wins, for both sides (the engine honours
# the variable too). Without this a peer's OpenBLAS detects on its own, and falls back to its SSE3 Prescott kernels on
# CPUs newer than its release, while the engine does not.
flags=$(grep -m1 '^flags' /proc/cpuinfo)
core=Haswell
[[ " $flags " == *" avx512f "* && " $flags " == *" avx512bw "* && " $flags " == *" avx512dq "* && " $flags " == *" avx512vl "* ]] && core=SkylakeX
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-$core}
cpu_name="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')), $(nproc) threads"
# The same for how long OpenBLAS's idle workers spin before they sleep: the engine shortens it to 2^18 cycles
# (engine/core/blas.cpp, shortenWorkerSpin) unless the caller set one; a peer gets the engine's value.
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-18}
