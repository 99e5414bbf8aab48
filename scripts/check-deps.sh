#!/usr/bin/env bash
# Fails when a configured build used a Debian package that scripts/setup.sh neither installs nor
# pulls in as a dependency, so that a package installed by hand cannot hide behind a green CI.
#   bash scripts/check-deps.sh BUILD_DIR
# What configure used: every package config it found (<Name>_DIR in CMakeCache.txt, holding
# <Name>Config.cmake or <name>-config.cmake), the C++ compiler and the build tool; each mapped to its
# owning package with dpkg-query -S. What setup.sh provides: its list (setup.sh --list, or
# $KVPLAN_DEPS_LIST, space-separated, for the test of this check) and everything it depends on
# (apt-cache depends --recurse). CUDA is optional (KVPLAN_CUDA=AUTO) and not setup.sh's to install:
# its entries are not package configs and are not checked.
# Exit 0: all provided (or not a Debian system: says so); 1: a package is missing (named); 2: usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: check-deps.sh BUILD_DIR}
cache=$build/CMakeCache.txt
[[ -f $cache ]] || { echo "check-deps: $cache: no such file (configure first)" >&2; exit 2; }
if ! command -v dpkg-query >/dev/null || ! command -v apt-cache >/dev/null; then
  echo "check-deps: not a Debian system (no dpkg-query/apt-cache): not checked" >&2
  exit 0
fi

# What configure used: "ENTRY=FILE" pairs.
used=()
while IFS= read -r line; do
  name=${line%%_DIR:PATH=*}
  dir=${line#*=}
  [[ -d $dir ]] || continue
  lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
  for f in "$dir/${name}Config.cmake" "$dir/${lower}-config.cmake"; do
    if [[ -f $f ]]; then
      used+=("${name}_DIR=$f")
      break
    fi
  done
done < <(grep -E '^[A-Za-z0-9_]+_DIR:PATH=/' "$cache" | grep -v '_INCLUDE_DIR:')
for tool in CMAKE_CXX_COMPILER CMAKE_MAKE_PROGRAM; do
  f=$(sed -n "s/^$tool:[A-Z]*=//p" "$cache")
  [[ -n $f ]] && used+=("$tool=$(readlink -f "$f")")
done

# What setup.sh provides: its list and everything it depends on, recursively.
if [[ -n ${KVPLAN_DEPS_LIST:-} ]]; then
  read -ra wanted <<<"$KVPLAN_DEPS_LIST"
else
  mapfile -t wanted < <(bash "$here/setup.sh" --list)
fi
declare -A provided=()
while IFS= read -r p; do
  [[ -n $p ]] && provided[$p]=1
done < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
           --no-replaces --no-enhances "${wanted[@]}" 2>/dev/null |
         sed -E 's/^[[:space:]|]*(Pre)?Depends:[[:space:]]*//; s/^[[:space:]|]+//; s/[<>]//g; s/:[a-z0-9]+$//')

# The owners of every file, in one dpkg-query call (one a file is slow). A file is looked up as
# given, through its symlinks (/etc/alternatives: OpenBLAS) and, for merged /usr, without /usr.
candidates() { printf '%s\n' "$1" "$(readlink -f "$1")" "${1#/usr}"; }
declare -A owners=()
mapfile -t queries < <(for pair in "${used[@]}"; do candidates "${pair#*=}"; done | sort -u)
while IFS= read -r line; do
  [[ $line == *": /"* ]] || continue  # "diversion by ..." and the like
  path=${line#*: }
  owners[$path]="${owners[$path]:-} $(sed -E 's/, /\n/g' <<<"${line%%: /*}" | sed -E 's/:[a-z0-9]+$//' | tr '\n' ' ')"
done < <(dpkg-query -S "${queries[@]}" 2>/dev/null || true)

bad=0
for pair in "${used[@]}"; do
  entry=${pair%%=*}
  file=${pair#*=}
  pkgs=""
  while IFS= read -r c; do pkgs+=" ${owners[$c]:-}"; done < <(candidates "$file")
  read -ra pkgs <<<"$pkgs"
  if ((${#pkgs[@]} == 0)); then
    echo "check-deps: $entry: $file belongs to no Debian package (installed by hand?)" >&2
    bad=1
    continue
  fi
  ok=0
  for p in "${pkgs[@]}"; do [[ -n ${provided[$p]:-} ]] && ok=1; done
  if ((ok == 0)); then
    echo "check-deps: $entry: $file is from $(printf '%s\n' "${pkgs[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//')," \
         "which scripts/setup.sh does not install (add it to setup.sh's list)" >&2
    bad=1
  fi
done
((bad == 0)) || exit 1
echo "check-deps: the ${#used[@]} package configs and tools configure used all come from setup.sh's list"
