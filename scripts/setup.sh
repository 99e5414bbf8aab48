#!/usr/bin/env bash
# Installs kvplan's build dependencies from Debian's packages, only those missing.
# Idempotent; prints nothing when everything is present.
set -euo pipefail
packages=(cmake ninja-build g++ libfmt-dev nlohmann-json3-dev libcli11-dev catch2
          qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libeigen3-dev libopenblas-dev
          clang-14 libclang-rt-14-dev)  # clang: the libFuzzer targets (fuzz/README.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
echo "setup: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
