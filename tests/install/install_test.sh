#!/usr/bin/env bash
# What a user does with kvplan: copy the source, build kvplan alone (tests, GUI and benchmark off, to
# keep this short), install it, package it (cpack -G DEB, where dpkg-deb is), delete the source copy
# and the build folder, move the installed tree, then list the models, plan the README's job and add
# a preset of their own under a temporary $XDG_DATA_HOME; the .deb's kvplan runs the same job.
#   install_test.sh SOURCE_DIR WORK_DIR [extra cmake configure arguments]
# Exit 0 when all of it works; otherwise the first failing step says what it expected.
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
shift 2
rm -rf "$work"
mkdir -p "$work/src"
work=$(cd "$work" && pwd)
fail() {
  echo "install test: $*" >&2
  exit 1
}
step() { echo "--- $*"; }

step "copy the source"
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
  # The working tree as it is (uncommitted and new files included), without ignored build folders.
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$work/src"
else
  (cd "$src" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$work/src"
fi
[[ -f $work/src/CMakeLists.txt ]] || fail "the source copy has no CMakeLists.txt"

step "configure and build kvplan, tests, GUI and benchmark off"
cmake -S "$work/src" -B "$work/build" -G Ninja -DKVPLAN_BUILD_TESTS=OFF -DKVPLAN_BUILD_GUI=OFF \
  -DKVPLAN_BUILD_BENCH=OFF "$@" >"$work/configure.log" || { cat "$work/configure.log"; fail "configure failed"; }
cmake --build "$work/build" >"$work/build.log" || { tail -50 "$work/build.log"; fail "build failed"; }

step "install"
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
[[ -x $work/prefix/bin/kvplan ]] || fail "no bin/kvplan in the installed tree"
[[ -f $work/prefix/share/kvplan/models/llama-3.1-70b.json && -f $work/prefix/share/kvplan/gpus.json ]] ||
  fail "no presets in share/kvplan"
# The man page, the shell completions and the copyright file, where man, bash-completion, zsh and dpkg look.
for f in share/man/man1/kvplan.1 share/bash-completion/completions/kvplan share/zsh/vendor-completions/_kvplan \
  share/doc/kvplan/copyright; do
  [[ -f $work/prefix/$f ]] || fail "no $f in the installed tree"
done
grep -q '^\.TH KVPLAN 1' "$work/prefix/share/man/man1/kvplan.1" || fail "kvplan.1 is not a man page"
# groff (groff-base, installed by scripts/setup.sh) renders it as man would.
command -v groff >/dev/null || fail "groff is missing: run scripts/setup.sh"
page=$(groff -man -Tutf8 "$work/prefix/share/man/man1/kvplan.1" 2>&1) || fail "groff cannot read kvplan.1"
grep -q 'KV-cache capacity planner' <<<"$page" || fail "kvplan.1 renders without its NAME line: $page"
bash -n "$work/prefix/share/bash-completion/completions/kvplan" || fail "the bash completion does not parse"
# The bash completion, sourced, completes the commands and fit's own options from the installed kvplan.
got=$(PATH="$work/prefix/bin:$PATH" bash -c '
  source "$1"
  COMP_WORDS=(kvplan f); COMP_CWORD=1; _kvplan; echo "${COMPREPLY[*]}"
  COMP_WORDS=(kvplan fit --gpus-per); COMP_CWORD=2; _kvplan; echo "${COMPREPLY[*]}"
  COMP_WORDS=(kvplan size --gpu h20); COMP_CWORD=3; _kvplan; echo "${COMPREPLY[*]}"' _ \
  "$work/prefix/share/bash-completion/completions/kvplan")
[[ $got == $'fit\n--gpus-per-node\nh200' ]] || fail "bash completion: '$got', expected fit, --gpus-per-node, h200"
if command -v zsh >/dev/null; then
  zsh -n "$work/prefix/share/zsh/vendor-completions/_kvplan" || fail "the zsh completion does not parse"
fi

deb=""
if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
  step "cpack -G DEB"
  (cd "$work/build" && cpack -G DEB >"$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
  deb=$(ls "$work"/build/kvplan_*.deb)
  contents=$(dpkg-deb -c "$deb")
  grep -q ' ./usr/bin/kvplan$' <<<"$contents" || fail "$deb has no usr/bin/kvplan: $contents"
  grep -q ' ./usr/share/kvplan/models/llama-3.1-70b.json$' <<<"$contents" || fail "$deb has no presets"
  for f in usr/share/doc/kvplan/copyright usr/share/man/man1/kvplan.1 usr/share/bash-completion/completions/kvplan \
    usr/share/zsh/vendor-completions/_kvplan; do
    grep -q " ./$f\$" <<<"$contents" || fail "$deb has no $f"
  done
  depends=$(dpkg-deb -f "$deb" Depends)
  # dpkg-shlibdeps names the shared libraries kvplan links: the C and C++ runtimes and fmt at least.
  for lib in libc6 libstdc++6 libfmt; do
    grep -q "$lib" <<<"$depends" || fail "$deb: Depends ($depends) lacks $lib"
  done
  echo "Depends: $depends"
  mv "$deb" "$work/"
  deb=$work/$(basename "$deb")
fi

step "delete the source copy and the build folder, move the installed tree"
rm -rf "$work/src" "$work/build"
mv "$work/prefix" "$work/moved"
kvplan=$work/moved/bin/kvplan
export KVPLAN_PRESETS="" XDG_DATA_HOME="$work/xdg" HF_HUB_OFFLINE=1 HF_HUB_CACHE="$work/hf-cache"

step "kvplan models"
out=$("$kvplan" models) || fail "kvplan models failed"
grep -q '^llama-3.1-70b  *meta-llama/Llama-3.1-70B ' <<<"$out" || fail "kvplan models: no llama-3.1-70b: $out"
! grep -q '(user)' <<<"$out" || fail "kvplan models: a user preset where there is none: $out"

step "the README's plan"
plan=(size meta-llama/Llama-3.1-70B --context 32768 --users 16 --gpu h100-sxm --tp 4)
out=$("$kvplan" "${plan[@]}") || fail "kvplan ${plan[*]} failed"
# The README's figures (tests/cli_tests.cmake works them out): 10,737,418,240 B per sequence, 15 users fit.
for re in 'per sequence \(32,768 tokens\) +10.0 GiB \(10,737,418,240 B\)' 'fits +NO' \
  'max users at 32,768 tokens +15' 'max context for 16 users +30,989 tokens'; do
  grep -Eq "$re" <<<"$out" || fail "the plan lacks '$re': $out"
done

step "a user preset under \$XDG_DATA_HOME/kvplan"
mkdir -p "$XDG_DATA_HOME/kvplan/models" "$XDG_DATA_HOME/kvplan/gpus"
cat >"$XDG_DATA_HOME/kvplan/models/my-model.json" <<'EOF'
{"id": "my-model", "name": "My Model", "hf_repo": "me/my-model",
 "config": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 16,
            "num_key_value_heads": 4, "num_hidden_layers": 16, "vocab_size": 32000}}
EOF
echo '{"id": "my-gpu", "name": "My GPU 48GB", "memory_bytes": 51539607552}' >"$XDG_DATA_HOME/kvplan/gpus/my-gpu.json"
out=$("$kvplan" models)
grep -q "^my-model  *me/my-model  *My Model  (user) $XDG_DATA_HOME/kvplan/models/my-model.json$" <<<"$out" ||
  fail "kvplan models does not list the user preset: $out"
# 16 layers x 4 KV heads x 128 (2048 / 16) x 2 (K, V) x 2 B (bf16) = 32,768 B per token.
out=$("$kvplan" size my-model --gpu my-gpu --json) || fail "kvplan size my-model failed"
grep -q '"bytes_per_token": 32768' <<<"$out" || fail "my-model: not 32,768 B per token: $out"
grep -q '"memory_bytes": 51539607552' <<<"$out" || fail "my-gpu: not 48 GiB: $out"

step "a malformed user preset: exit 2, one line naming the file and the field"
echo '{"id": "my-gpu", "name": "My GPU", "memory_bytes": "48GB"}' >"$XDG_DATA_HOME/kvplan/gpus/my-gpu.json"
set +e
err=$("$kvplan" size my-model --gpu my-gpu 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc == 2 ]] || fail "a malformed user GPU: exit $rc, expected 2"
[[ $err == "kvplan: error: $XDG_DATA_HOME/kvplan/gpus/my-gpu.json: /memory_bytes: must be a positive integer" ]] ||
  fail "a malformed user GPU: '$err'"

rm "$XDG_DATA_HOME/kvplan/gpus/my-gpu.json"

if [[ -n $deb ]]; then
  step "the .deb's kvplan, unpacked (not installed), plans the same job"
  dpkg-deb -x "$deb" "$work/deb"
  out=$("$work/deb/usr/bin/kvplan" "${plan[@]}") || fail "the packaged kvplan failed"
  grep -Eq 'max users at 32,768 tokens +15' <<<"$out" || fail "the packaged kvplan's plan: $out"
fi
rm -rf "$work"
echo "install test: passed"
