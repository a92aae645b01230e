#!/usr/bin/env bash
# Installs every build, run and test dependency from Debian 12 packages. Idempotent.
set -euo pipefail
pkgs=(
  cmake make g++ ninja-build pkg-config
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  libeigen3-dev libopenblas-pthread-dev nlohmann-json3-dev libsentencepiece-dev
  libvulkan-dev mesa-vulkan-drivers glslc spirv-tools vulkan-tools vulkan-validationlayers
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  xvfb xauth imagemagick fonts-dejavu-core poppler-utils librsvg2-bin
  python3 python3-numpy
  clang-14 libclang-rt-14-dev
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
