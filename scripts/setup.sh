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
          libcurl4-openssl-dev nodejs git groff-base)  # dpkg-dev, file: cpack -G DEB; clang: the libFuzzer
# targets; qt6-svg-dev: kvplan-gui's SVG chart export (QSvgGenerator); python3: the GGUF fixtures of
# tests/sources; libcurl4-openssl-dev: the Hugging Face Hub fetches; nodejs (20 or later, with npm):
# the live suite against llama.cpp (tests/live), whose one npm package is installed below; git: its
# headers, taken from the llama.cpp source the package ships; groff-base: the install test renders the
# man page
if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} != 0)); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The live suite's engine (docs/live-llamacpp.md): the pinned npm package node-llama-cpp and its prebuilt
# CPU library for this platform (llama.cpp v0.4.0), into tests/live/node_modules (ignored by git).
# --ignore-scripts: its postinstall would look for a GPU build to download; the prebuilt CPU binary is in
# @node-llama-cpp/<platform>-<arch>, and --omit=optional leaves out the CUDA and Vulkan builds (600 MB).
# Skipped when that version is already there.
live=$(cd "$(dirname "$0")/../tests/live" && pwd)
nlc_version=3.21.1
platform=$(node -p 'process.platform + "-" + process.arch')
installed() {
  node -e 'const [d, v, p] = process.argv.slice(1);
    const ok = (f) => { try { return require(f).version === v; } catch { return false; } };
    process.exit(ok(`${d}/node_modules/node-llama-cpp/package.json`) &&
                 ok(`${d}/node_modules/@node-llama-cpp/${p}/package.json`) ? 0 : 1)' "$live" "$nlc_version" "$platform"
}
if ! installed; then
  echo "setup: installing node-llama-cpp@$nlc_version ($platform) into $live/node_modules" >&2
  (cd "$live" && npm install --no-save --no-package-lock --no-audit --no-fund --omit=optional --ignore-scripts \
     --loglevel=error "node-llama-cpp@$nlc_version" "@node-llama-cpp/$platform@$nlc_version" >/dev/null)
  installed || { echo "setup: node-llama-cpp@$nlc_version did not install" >&2; exit 1; }
  rm -rf "$live/node_modules/.llama-headers"
fi
# The live suite's C++ harness compiles against llama.h and ggml's headers of the same release: the
# package ships llama.cpp's source as a git bundle; its include/ and ggml/include/ are taken out once.
headers=$live/node_modules/.llama-headers
if [[ ! -f $headers/include/llama.h ]]; then
  tmp=$(mktemp -d)
  git clone -q --bare "$live/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$tmp/llama.git"
  mkdir -p "$headers.tmp"
  git --git-dir="$tmp/llama.git" archive HEAD include ggml/include | tar -x -C "$headers.tmp"
  rm -rf "$tmp" "$headers"
  mv "$headers.tmp" "$headers"
fi
