# bash completion for kvplan. Installed by `cmake --install` into
# share/bash-completion/completions/kvplan. The options come from the installed kvplan itself
# (`kvplan COMMAND --help`), so they never drift from the program; preset ids from `kvplan models` and
# `kvplan gpus`.
_kvplan() {
  local cur prev words cword
  _init_completion 2>/dev/null || {
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  }
  local commands="models gpus show size compare fit prefill"
  local cmd="" i
  for ((i = 1; i < cword; i++)); do
    case " $commands " in *" ${words[i]} "*) cmd=${words[i]}; break ;; esac
  done
  if [[ -z $cmd ]]; then
    COMPREPLY=($(compgen -W "$commands --help --version --presets" -- "$cur"))
    return
  fi
  case $prev in
    --gpu)
      COMPREPLY=($(compgen -W "$(kvplan gpus 2>/dev/null | awk '$1 !~ /^-/ {print $1}')" -- "$cur"))
      return ;;
    --engine)
      COMPREPLY=($(compgen -W "ideal vllm sglang llamacpp trtllm" -- "$cur"))
      return ;;
    --units)
      COMPREPLY=($(compgen -W "iec si" -- "$cur"))
      return ;;
    --from-log | --presets | --calibration)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(kvplan "$cmd" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
      tr -d ' ,' | sort -u)" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "$(kvplan models 2>/dev/null | awk '$1 !~ /^-/ {print $1}')" -- "$cur"))
  COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -F _kvplan kvplan
