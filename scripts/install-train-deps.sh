#!/usr/bin/env bash
# Extra Debian packages for tools/train (training the bundled demo models); not needed to build, run or test.
# python3-sentencepiece trains the translation demo's source.spm / target.spm.
# libopenblas0 replaces the reference BLAS that Debian's torch otherwise uses (about 10x faster training).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3 python3-numpy python3-torch python3-sentencepiece libopenblas0-openmp
