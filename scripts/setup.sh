#!/usr/bin/env bash
# Installs kvplan's build and packaging dependencies from Debian's packages, only those missing.
# Idempotent; prints nothing when everything is present. `setup.sh --list` prints the list, one a
# line (scripts/check-deps.sh compares what configure used against it).
# dpkg-dev and file: `cpack -G DEB` runs dpkg-shlibdeps (dpkg-dev), which CPack finds ELF files with
# `file`, to compute the package's Depends.
set -euo pipefail
packages=(cmake ninja-build g++ libfmt-dev nlohmann-json3-dev libcli11-dev catch2
          qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libeigen3-dev libopenblas-dev
          dpkg-dev file clang-14 libclang-rt-14-dev python3
          libcurl4-openssl-dev)  # dpkg-dev, file: cpack -G DEB; clang: the libFuzzer
# targets; qt6-svg-dev: kvplan-gui's SVG chart export (QSvgGenerator); python3: the GGUF fixtures of
# tests/sources; libcurl4-openssl-dev: the Hugging Face Hub fetches
if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
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
