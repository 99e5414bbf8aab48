# The engines' flag names and vLLM's number suffixes (issue 29): each alias plans exactly what kvplan's own
# flag does, and an error names the flag as the user typed it. Uses kvplan_cli_ok / kvplan_cli_bad from
# cli_tests.cmake.

# kvplan_cli_same(NAME OUT_REGEX ARGS... SAME_AS ARGS...): both commands exit 0 with the same stdout and
# stderr, and that stdout matches.
function(kvplan_cli_same name out_re)
  list(FIND ARGN SAME_AS at)
  list(SUBLIST ARGN 0 ${at} first)
  math(EXPR after "${at} + 1")
  list(SUBLIST ARGN ${after} -1 second)
  list(JOIN first "|" args)
  list(JOIN second "|" same)
  add_test(NAME "cli: ${name}"
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:kvplan> "-DARGS=${args}" "-DSAME_AS=${same}"
                   "-DOUT_RE=${out_re}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_same_case.cmake)
  set_tests_properties("cli: ${name}" PROPERTIES ENVIRONMENT "${KVPLAN_TEST_ENVIRONMENT}")
endfunction()

# --- Numbers as vLLM's human_readable_int reads them --------------------------------------------------
# Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B per token.
# 32K = 32 x 1,024 = 32,768 tokens: 131,072 x 32,768 = 4,294,967,296 B per sequence.
kvplan_cli_same("suffix: --context 32K is 32,768 tokens"
  "\"kv_bytes_per_sequence\": 4294967296,"
  size llama-3.1-8b --context 32K --json SAME_AS size llama-3.1-8b --context 32768 --json)
kvplan_cli_same("suffix: --context 32Ki is 32K"
  "\"kv_bytes_per_sequence\": 4294967296,"
  size llama-3.1-8b --context 32Ki --json SAME_AS size llama-3.1-8b --context 32K --json)
# 32k = 32,000 tokens: 131,072 x 32,000 = 4,194,304,000 B.
kvplan_cli_same("suffix: --context 32k is 32,000 tokens"
  "\"kv_bytes_per_sequence\": 4194304000,"
  size llama-3.1-8b --context 32k --json SAME_AS size llama-3.1-8b --context 32000 --json)
# 1M = 2^20 = 1,048,576 tokens: 131,072 x 2^20 = 2^37 = 137,438,953,472 B; 1m = 10^6: 131,072,000,000 B.
kvplan_cli_ok("suffix: --context 1M is 2^20 tokens" "\"kv_bytes_per_sequence\": 137438953472,"
  size llama-3.1-8b --context 1M --json)
kvplan_cli_ok("suffix: --context 1m is 10^6 tokens" "\"kv_bytes_per_sequence\": 131072000000,"
  size llama-3.1-8b --context 1m --json)
kvplan_cli_bad("suffix: an unknown one" "^kvplan: error: --context: unknown suffix 'x' \\(k m g t = 10\\^3"
  size llama-3.1-8b --context 32x)
kvplan_cli_bad("suffix: a fraction of a token" "^kvplan: error: --context: must be a whole number of tokens\n$"
  size llama-3.1-8b --context 1.0001k)
# vLLM's human_readable_int refuses a decimal with a binary suffix, whole or not (1.5K was taken as 1,536):
# int("1.5") raises before the multiplier. 1.5k = 1,500 is decimal: 131,072 x 1,500 = 196,608,000 B.
kvplan_cli_bad("suffix: a decimal with a binary suffix"
  "^kvplan: error: --context: '1.5K': decimals are not allowed with binary suffixes like K"
  size llama-3.1-8b --context 1.5K)
kvplan_cli_bad("suffix: a decimal with --max-model-len's binary suffix"
  "^kvplan: error: --max-model-len: '0.5M': decimals are not allowed with binary suffixes like M"
  size llama-3.1-8b --max-model-len 0.5M)
kvplan_cli_ok("suffix: --context 1.5k is 1,500 tokens" "\"kv_bytes_per_sequence\": 196608000,"
  size llama-3.1-8b --context 1.5k --json)
# The rule is in --help once, beside --context.
kvplan_cli_ok("suffix: the rule in size --help" "32k = 32,000, 32K = +32,768" size --help)

# --- vLLM's flag names ---------------------------------------------------------------------------------
# Llama 3.1 70B at fp8 (vLLM's fp8 is fp8_e4m3): 80 layers x 8 KV heads x 128 x 2 x 1 B = 163,840 B per token.
kvplan_cli_same("alias: a vLLM launch's flags"
  "\"bytes_per_token\": 163840,"
  size meta-llama/Llama-3.1-70B --engine vllm --gpu h100-sxm --users 16 --max-model-len 32K
    --tensor-parallel-size 4 --pipeline-parallel-size 2 --kv-cache-dtype fp8 --gpu-memory-utilization 0.85
    --max-num-batched-tokens 4K --json
  SAME_AS size meta-llama/Llama-3.1-70B --engine vllm --gpu h100-sxm --users 16 --context 32768 --tp 4 --pp 2
    --kv-dtype fp8_e4m3 --gpu-util 0.85 --max-num-batched-tokens 4096 --json)
# -tp and -pp: single-dash long names CLI11 cannot register, read as --tp and --pp ("-tp=4" too).
kvplan_cli_same("alias: vLLM's -tp and -pp"
  "\"tp\": 4,"
  size meta-llama/Llama-3.1-70B --gpu h100-sxm -tp 4 -pp=2 --json
  SAME_AS size meta-llama/Llama-3.1-70B --gpu h100-sxm --tp 4 --pp 2 --json)

# fit takes the aliases of the capacity options, and -tp/-pp as its own --tp/--pp lists.
kvplan_cli_same("alias: fit with vLLM's and llama.cpp's names"
  "8 users x 32,768 tokens"
  fit llama-3.1-8b --max-model-len 32K -np 8 --gpu h100-sxm -tp 1 -pp 1 --top 1
  SAME_AS fit llama-3.1-8b --context 32768 --users 8 --gpu h100-sxm --tp 1 --pp 1 --top 1)

# --- SGLang's ------------------------------------------------------------------------------------------
kvplan_cli_same("alias: an SGLang launch's flags"
  "\"bytes_per_token\": 131072,"
  size llama-3.1-8b --engine sglang --gpu h100-sxm --context-length 8192 --tp-size 2 --pp-size 1
    --mem-fraction-static 0.8 --page-size 64 --json
  SAME_AS size llama-3.1-8b --engine sglang --gpu h100-sxm --context 8192 --tp 2 --pp 1 --gpu-util 0.8
    --block-size 64 --json)

# --- llama.cpp's ---------------------------------------------------------------------------------------
# -c is every slot's cells together: -c 32768 -np 4 is 4 slots of 8,192 tokens. q8_0 is 34 B per 32 values:
# 8 KV heads x 128 = 1,024 values = 1,088 B for K, as much for V, x 32 layers = 69,632 B per token.
kvplan_cli_same("alias: a llama-server launch's flags"
  "\"bytes_per_token\": 69632,"
  size llama-3.1-8b --engine llamacpp -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -ub 256 --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 4 --k-dtype q8_0 --v-dtype q8_0
    --ubatch 256 --json)
kvplan_cli_same("alias: llama.cpp's long names"
  "\"context\": 8192,"
  size llama-3.1-8b --engine llamacpp --ctx-size 32K --parallel 4 --cache-type-k q8_0 --cache-type-v f16
    --ubatch-size 256 --json
  SAME_AS size llama-3.1-8b --engine llamacpp -c32768 -np 4 -ctk q8_0 -ctv f16 -ub 256 --json)
# -c not a multiple of -np: llama.cpp takes it (src/llama-context.cpp: n_ctx = pad(32768, 256) = 32768,
# n_ctx_seq = pad(32768 / 3 = 10922, 256) = 11008 cells per stream); kvplan plans 3 slots of 10,923 tokens,
# the same 11,008 cells. Unified, one stream of pad(10923 x 3, 256) = 33,024 cells would exceed llama.cpp's
# 32,768: refused.
kvplan_cli_ok("alias: -c not a multiple of the slots"
  "llama_kv_cache: size = 4128.00 MiB \\( 11008 cells,  32 layers,  3/3 seqs\\)"
  size llama-3.1-8b --engine llamacpp -c 32768 -np 3)
kvplan_cli_bad("alias: -c not a multiple of the slots, unified"
  "^kvplan: error: -c: 32,768 cells are not a multiple of the 3 slots \\(-np\\) and, with --kv-unified, 10,923 per slot would pad to more cells than llama.cpp's 32,768"
  size llama-3.1-8b --engine llamacpp -c 32768 -np 3 --kv-unified)
kvplan_cli_bad("alias: -c with --context"
  "^kvplan: error: (-c: cannot be given with --max-model-len|--max-model-len: cannot be given with -c)\n$"
  size llama-3.1-8b -c 32768 --max-model-len 8192)

# --- Errors name the flag as typed ----------------------------------------------------------------------
kvplan_cli_bad("alias: a bad --max-model-len" "^kvplan: error: --max-model-len: must be positive\n$"
  size llama-3.1-8b --max-model-len 0)
kvplan_cli_bad("alias: --max-model-len without a value" "^kvplan: error: --max-model-len: needs a value"
  size llama-3.1-8b --max-model-len)
kvplan_cli_bad("alias: --gpu-memory-utilization= without a value"
  "^kvplan: error: --gpu-memory-utilization: needs a value"
  size llama-3.1-8b --gpu-memory-utilization=)
kvplan_cli_bad("alias: a bad --mem-fraction-static"
  "^kvplan: error: --mem-fraction-static: must be in \\(0, 1\\], got '1.5'\n$"
  size llama-3.1-8b --gpu h100-sxm --mem-fraction-static 1.5)
# Core names the key (tp); the CLI words it as typed. 70B has 8 KV heads: 3 does not divide them.
kvplan_cli_bad("alias: core's tp error names -tp" "^kvplan: error: -tp: 3 "
  size llama-3.1-70b -tp 3)
kvplan_cli_bad("alias: one option given twice by two names"
  "^kvplan: error: --tp/-tp: given 2 times; give it once"
  size llama-3.1-70b --tp 2 -tp 4)
kvplan_cli_bad("alias: an unknown --kv-cache-dtype" "^kvplan: error: --kv-cache-dtype: unknown type 'fp9'"
  size llama-3.1-8b --kv-cache-dtype fp9)
# V's flag is named as kvplan's: it was not typed (its help lists -ctv).
kvplan_cli_bad("alias: -ctk without -ctv" "^kvplan: error: --v-dtype: missing \\(required with -ctk\\)\n$"
  size llama-3.1-8b --engine llamacpp -ctk q8_0)
# core's block_size error, worded as the SGLang name typed.
kvplan_cli_bad("alias: --page-size under llama.cpp" "^kvplan: error: --page-size: applies to "
  size llama-3.1-8b --engine llamacpp --page-size 64)

# --- size --from-launch: a whole launch line --------------------------------------------------------------
kvplan_cli_same("launch: vllm serve"
  "\"bytes_per_token\": 163840,"
  size --from-launch "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32K --kv-cache-dtype fp8 --gpu-memory-utilization 0.85 --port 8000 --trust-remote-code"
    --gpu h100-sxm --users 16 --json
  SAME_AS size meta-llama/Llama-3.1-70B --engine vllm --tp 4 --context 32768 --kv-dtype fp8_e4m3 --gpu-util 0.85
    --gpu h100-sxm --users 16 --json)
# What kvplan fit writes: an environment word before the command, a quoted value and a comment after it.
kvplan_cli_same("launch: environment, quotes and a comment"
  "\"context\": 8192,"
  size --from-launch "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 python -m vllm.entrypoints.openai.api_server --model 'llama-3.1-8b' -tp=2 --max-model-len 8K  # a note"
    --json
  SAME_AS size llama-3.1-8b --engine vllm --tp 2 --context 8192 --json)
kvplan_cli_same("launch: python -m sglang.launch_server"
  "\"bytes_per_token\": 131072,"
  size --from-launch "python3 -m sglang.launch_server --model-path llama-3.1-8b --tp 2 --context-length 8192 --mem-fraction-static 0.8 --page-size 64 --host 0.0.0.0"
    --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine sglang --tp 2 --context 8192 --gpu-util 0.8 --block-size 64 --gpu h100-sxm --json)
# -c 32768 over -np 4 slots: 8,192 tokens a slot; q8_0: 69,632 B per token (as above).
kvplan_cli_same("launch: llama-server"
  "\"bytes_per_token\": 69632,"
  size --from-launch "./build/bin/llama-server -m llama-3.1-8b -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -ngl 999 -fa on --port 8080"
    --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 4 --k-dtype q8_0 --v-dtype q8_0 --json)
kvplan_cli_same("launch: trtllm-serve"
  "\"context\": 8192,"
  size --from-launch "trtllm-serve serve llama-3.1-8b --tp_size 2 --pp_size 1 --max_seq_len 8192 --port 8000" --json
  SAME_AS size llama-3.1-8b --engine trtllm --tp 2 --pp 1 --context 8192 --json)
# trtllm-serve's budget flags: --kv_cache_free_gpu_memory_fraction is --gpu-util (TensorRT-LLM's
# free_gpu_memory_fraction), --max_num_tokens is --max-num-batched-tokens (the profile's forward pass),
# --max_batch_size the users; --tensor_parallel_size and --ep_size (expert parallel within tp) as serve.py
# names them; the PyTorch backend only.
kvplan_cli_same("launch: trtllm-serve budget flags"
  "\"users\": 16,"
  size --from-launch "trtllm-serve llama-3.1-8b --tensor_parallel_size 2 --max_seq_len 8192 --max_batch_size 16 --kv_cache_free_gpu_memory_fraction 0.8 --max_num_tokens 4096 --ep_size 2 --backend pytorch"
    --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine trtllm --tp 2 --context 8192 --users 16 --gpu-util 0.8
    --max-num-batched-tokens 4096 --gpu h100-sxm --json)
kvplan_cli_bad("launch: trtllm-serve's TensorRT engine backend"
  "--backend tensorrt: kvplan models TensorRT-LLM's PyTorch backend only"
  size --from-launch "trtllm-serve llama-3.1-8b --max_seq_len 8192 --backend tensorrt")
kvplan_cli_bad("launch: trtllm-serve's YAML options"
  "--extra_llm_api_options.*YAML file of LLM API options.*--kv-dtype, --max-tokens and --block-size"
  size --from-launch "trtllm-serve llama-3.1-8b --max_seq_len 8192 --extra_llm_api_options extra.yaml")
# An engine's name typed under another engine takes the chosen engine's meaning, said in a warning: SGLang's
# --mem-fraction-static is a share of the free memory before the load, TensorRT-LLM's fraction of what its
# profile leaves. A launch line's own flags (trtllm-serve's --tp_size) are no such name.
kvplan_cli_warns("alias: another engine's name under trtllm"
  "Memory budget per GPU \\(TensorRT-LLM"
  "warning: --mem-fraction-static \\(a name from vLLM, SGLang\\) under --engine trtllm is read as --gpu-util, with TensorRT-LLM's meaning"
  size llama-3.1-8b --engine trtllm --mem-fraction-static 0.8 --gpu h100-sxm)
kvplan_cli_bad("launch: a flag kvplan does not model"
  "^kvplan: error: --from-launch: --swap-space \\(vllm serve\\): not modelled by kvplan; remove it to plan without it\n$"
  size --from-launch "vllm serve llama-3.1-8b --swap-space 4")
kvplan_cli_bad("launch: a bad value names the line's flag" "^kvplan: error: --max-model-len: must be positive\n$"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 0")
kvplan_cli_bad("launch: a flag without its value" "^kvplan: error: --max-model-len: needs a value \\(in --from-launch\\)\n$"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len")
kvplan_cli_bad("launch: another program" "^kvplan: error: --from-launch: 'ollama' is not a launch line kvplan reads"
  size --from-launch "ollama run llama3")
kvplan_cli_bad("launch: an open quote" "^kvplan: error: --from-launch: a ' quote is not closed\n$"
  size --from-launch "vllm serve 'llama-3.1-8b")
kvplan_cli_bad("launch: a shell variable" "^kvplan: error: --from-launch: '\\$' needs a shell to expand it"
  size --from-launch "vllm serve $MODEL")
# (A pipe cannot be tested here: the cases' arguments are '|'-separated.)
kvplan_cli_bad("launch: a redirection" "^kvplan: error: --from-launch: '>' joins commands or redirects"
  size --from-launch "vllm serve llama-3.1-8b > log")
kvplan_cli_bad("launch: and --engine" "^kvplan: error: --from-launch: names the engine, and --engine was given too"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192" --engine sglang)
kvplan_cli_bad("launch: and the same option typed" "^kvplan: error: --tp/--tensor-parallel-size: given 2 times; give it once"
  size --tp 8 --from-launch "vllm serve llama-3.1-8b --tensor-parallel-size 4 --max-model-len 8192")
# Data parallel. vLLM's -tp is per DP rank: -tp 1 -dp 8 with expert parallel is kvplan's --tp 8
# --dp-attention 8; SGLang's --tp already counts every GPU. Without DP attention the ranks are replicas.
kvplan_cli_same("launch: vLLM DP attention with expert parallel"
  "\"dp_attention\": 8,"
  size --from-launch "vllm serve deepseek-v3 -tp 1 --data-parallel-size 8 --enable-expert-parallel --max-model-len 32K"
    --gpu h200 --json
  SAME_AS size deepseek-v3 --engine vllm --tp 8 --dp-attention 8 --context 32768 --gpu h200 --json)
kvplan_cli_same("launch: SGLang DP attention"
  "\"dp_attention\": 8,"
  size --from-launch "python -m sglang.launch_server --model-path deepseek-v3 --tp 8 --dp 8 --enable-dp-attention"
    --context 32K --gpu h200 --json
  SAME_AS size deepseek-v3 --engine sglang --tp 8 --dp-attention 8 --context 32768 --gpu h200 --json)
# -tp 2 x -dp 4 = 8 GPUs, 4 replicas.
kvplan_cli_same("launch: vLLM data-parallel replicas"
  "\"dp\": 4,"
  size --from-launch "vllm serve llama-3.1-8b -tp 2 -dp 4 --max-model-len 8192" --json
  SAME_AS size llama-3.1-8b --engine vllm --tp 2 --gpus 8 --context 8192 --json)
kvplan_cli_bad("launch: --dtype other than auto"
  "^kvplan: error: --dtype: 'float16': llama-3.1-8b's checkpoint is bf16; kvplan plans the checkpoint's dtype \\(auto, or its own dtype named\\)"
  size --from-launch "vllm serve llama-3.1-8b --dtype float16 --max-model-len 8192")
# The checkpoint's own dtype named (llama-3.1-8b's config.json: torch_dtype bfloat16) plans as auto does.
kvplan_cli_same("launch: --dtype naming the checkpoint's own"
  "\"context\": 8192,"
  size --from-launch "vllm serve llama-3.1-8b --dtype bfloat16 --max-model-len 8192" --json
  SAME_AS size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192" --json)
kvplan_cli_bad("launch: an unknown --dtype"
  "^kvplan: error: --dtype: 'float8': kvplan plans the checkpoint's dtype \\(auto\\)"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --dtype float8 --context-length 8192")
kvplan_cli_bad("launch: no model" "^kvplan: error: --from-launch: names no model \\(python -m sglang.launch_server\\)\n$"
  size --from-launch "python -m sglang.launch_server --tp 2")
# Without its context flag an engine takes the limit it derives from the config: kvplan's --context max.
# llama-3.1-8b: max_position_embeddings 131,072; rope_scaling's rope_type llama3 is not multiplied by vLLM
# (vllm/config/model.py _get_and_verify_max_len), SGLang (get_context_length: llama3, factor 1) or
# TensorRT-LLM (_infer_max_seq_len_from_config skips llama3): 131,072 for all three.
kvplan_cli_same("launch: vllm serve without --max-model-len takes the derived length"
  "\"context\": 131072,"
  size --from-launch "vllm serve llama-3.1-8b --tensor-parallel-size 2" --json
  SAME_AS size llama-3.1-8b --engine vllm --tp 2 --context max --json)
kvplan_cli_same("launch: sglang without --context-length takes the derived length"
  "\"context\": 131072,"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b" --json
  SAME_AS size llama-3.1-8b --engine sglang --context MAX --json)
kvplan_cli_warns("context max says the rule" "context +131,072 tokens"
  "warning: the context is the engine's own limit for the model: vLLM's derived max_model_len 131,072"
  size llama-3.1-8b --engine vllm --context max)
kvplan_cli_bad("context max without a length"
  "^kvplan: error: --context: max: the model gives no context length \\(max_position_embeddings or another length key\\): give a number of tokens\n$"
  size --layers 2 --heads 8 --head-dim 64 --context max)
# llama-server without -c takes n_ctx_train and shrinks it to the free memory (common.h fit_params, which kvplan
# does not follow); -c 0 is n_ctx_train whole: llama-3.1-8b's config.json has max_position_embeddings 131072.
kvplan_cli_bad("launch: llama-server without -c"
  "^kvplan: error: --from-launch: llama-server without -c takes the model's trained context shrunk to fit the free memory \\(llama_params_fit\\), which kvplan does not follow: give -c N, or -c 0 for the whole trained context\n$"
  size --from-launch "llama-server -m llama-3.1-8b -np 1")
kvplan_cli_same("launch: llama-server -c 0 is the trained context"
  "\"context\": 131072,"
  size --from-launch "llama-server -m llama-3.1-8b -c 0 -np 1" --json
  SAME_AS size llama-3.1-8b --engine llamacpp -c 0 --users 1 --json)
kvplan_cli_warns("llama.cpp: -c 0 says what it took"
  "131,072"
  "-c 0: llama.cpp takes the model's trained context, 131,072 tokens \\(n_ctx_train\\)"
  size llama-3.1-8b --engine llamacpp -c 0)
kvplan_cli_same("launch: the context beside the line"
  "\"context\": 8192,"
  size --from-launch "vllm serve llama-3.1-8b" --max-model-len 8K --json
  SAME_AS size llama-3.1-8b --engine vllm --context 8192 --json)
# llama-server without -np: 4 slots sharing one unified cache of -c cells (-c 32768: 8,192 tokens a slot).
kvplan_cli_same("launch: llama-server's default slots"
  "\"users\": 4,"
  size --from-launch "llama-server -m llama-3.1-8b -c 32768" --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 4 --kv-unified --json)
kvplan_cli_bad("launch: given twice" "^kvplan: error: --from-launch: given 2 times; give it once\n$"
  size --from-launch "vllm serve a" --from-launch "vllm serve b")
kvplan_cli_same("launch: llama-server -np -1 is auto"
  "\"users\": 4,"
  size --from-launch "llama-server -m llama-3.1-8b -c 32768 -np -1" --json
  SAME_AS size --from-launch "llama-server -m llama-3.1-8b -c 32768" --json)

# vLLM's --max-num-seqs in a launch line sets the budget's sampler: 256 sequences on an H100 put the peak on
# the forward pass of 8,192 tokens, 8,192 x (3 x 14,336 + 4 x 4,096) x 2 B = 973,078,528 B.
kvplan_cli_same("from-launch: vLLM's --max-num-seqs reaches the memory budget"
  "\"activation\": 973078528,.*\"max_num_seqs\": 256,"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192 --max-num-seqs 256 --gpu-memory-utilization 0.95" --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine vllm --context 8192 --users 256 --max-num-seqs 256 --gpu-util 0.95 --gpu h100-sxm --json)
# A pinned pool (fit's vLLM lines carry --kv-cache-memory-bytes) is the KV memory kvplan plans against.
kvplan_cli_same("from-launch: --kv-cache-memory-bytes is the KV memory"
  "\"kv_memory_bytes\": 40000000000"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192 --kv-cache-memory-bytes 40000000000" --json
  SAME_AS size llama-3.1-8b --engine vllm --context 8192 --kv-memory 40000000000 --json)
# Data-parallel ranks without -tp are replicas of tp 1 (the engine's default tp), not tensor parallel.
kvplan_cli_same("from-launch: -dp without -tp is replicas of tp 1"
  "\"dp\": 2,.*\"tp\": 1"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192 --data-parallel-size 2" --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine vllm --context 8192 --tp 1 --gpus 2 --gpu h100-sxm --json)
# kvplan fit's SGLang DP attention lines carry --ep-size tp: expert parallel within tp changes no figure.
kvplan_cli_same("launch: SGLang DP attention with --ep-size"
  "\"dp_attention\": 8,"
  size --from-launch "python -m sglang.launch_server --model-path deepseek-v3 --tp 8 --dp 8 --enable-dp-attention --ep-size 8"
    --context 32K --gpu h200 --json
  SAME_AS size deepseek-v3 --engine sglang --tp 8 --dp-attention 8 --context 32768 --gpu h200 --json)
# -fa off is --no-flash-attn (llama.cpp common/arg.cpp -fa on|off|auto): a quantised V is then refused, as
# llama_init_from_model refuses it ("quantized V cache requires flash_attn to be enabled"), naming -ctv.
kvplan_cli_bad("launch: llama-server -fa off with a quantised V"
  "^kvplan: error: -ctv: llama.cpp refuses a quantised V cache \\(q8_0\\) with flash attention off"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ctk q8_0 -ctv q8_0 -fa off")
kvplan_cli_same("launch: llama-server -fa off"
  "\"bytes_per_token\": 131072,"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -fa off" --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 1 --no-flash-attn --json)
# SGLang's --max-running-requests is the concurrent requests: kvplan's --users (fit's SGLang lines carry it).
kvplan_cli_same("launch: SGLang --max-running-requests is the users"
  "\"users\": 16,"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --tp 1 --context-length 8192 --max-running-requests 16 --mem-fraction-static 0.835"
    --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine sglang --context 8192 --users 16 --gpu-util 0.835 --gpu h100-sxm --json)

# --- From a new user's report (launch lines and engine flags) ---------------------------------------------
# --engine-version's help lists every engine's versions (core's engine_versions): SGLang's 0.5 and 0.4 too.
kvplan_cli_ok("help: --engine-version lists SGLang's versions"
  "--engine-version TEXT +vllm: v1 [^;]*; sglang: 0.5 0.4; llamacpp: 2026" size --help)

# vLLM's --max-num-seqs is the sequences its scheduler runs at once: kvplan's --users, as SGLang's
# --max-running-requests is read (it planned 1 user). One scheduler per data-parallel rank: -dp 8 x 4 = 32.
kvplan_cli_same("launch: vLLM --max-num-seqs is the users"
  "\"users\": 64,"
  size --from-launch "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --max-num-seqs 64" --json
  SAME_AS size meta-llama/Llama-3.1-8B --engine vllm --context 32768 --users 64 --max-num-seqs 64 --json)
kvplan_cli_same("launch: vLLM --max-num-seqs on each data-parallel rank"
  "\"users\": 32,"
  size --from-launch "vllm serve deepseek-v3 -tp 1 -dp 8 --enable-expert-parallel --max-model-len 8192 --max-num-seqs 4" --gpu h200 --json
  SAME_AS size deepseek-v3 --engine vllm --tp 8 --dp-attention 8 --context 8192 --users 32 --max-num-seqs 4 --gpu h200 --json)
# SGLang's plain data-parallel replicas each take the whole --max-running-requests (model_runner divides it
# only under DP attention): --dp 2 x 16 = 32 users.
kvplan_cli_same("launch: SGLang --max-running-requests on each replica"
  "\"users\": 32,"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --tp 1 --dp 2 --context-length 8192 --max-running-requests 16 --mem-fraction-static 0.8" --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine sglang --tp 1 --gpus 2 --context 8192 --users 32 --gpu-util 0.8 --gpu h100-sxm --json)
kvplan_cli_ok("help: --from-launch says what --max-num-seqs is read as"
  "vLLM's --max-num-seqs and SGLang's --max-running-requests are read as --users" size --help)

# SGLang's --max-total-tokens caps the pool (model_runner.py init_memory_pool: min(profiled,
# max_total_tokens)): 100,000 tokens on an H100 at 0.8, where the profiled pool is larger (48 GiB / 131,072
# B > 390,000 tokens); 100,000 / 8,192 = 12.2: 12 users. It was refused.
kvplan_cli_ok("launch: SGLang --max-total-tokens caps the pool"
  "max users at 8,192 tokens +12\n.*max_total_num_tokens=100000, context_len=8192"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8192 --max-total-tokens 100000 --mem-fraction-static 0.8" --gpu h100-sxm)
kvplan_cli_same("launch: --max-total-tokens is --max-tokens"
  "\"kv_cache_tokens\": 100000,"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8192 --max-total-tokens 100000 --mem-fraction-static 0.8" --gpu h100-sxm --json
  SAME_AS size llama-3.1-8b --engine sglang --context 8192 --max-tokens 100000 --gpu-util 0.8 --gpu h100-sxm --json)

# SGLang turns --enable-dp-attention off at dp_size 1 (server_args.py _handle_data_parallelism): said, not
# silently dropped.
kvplan_cli_warns("launch: SGLang --enable-dp-attention without --dp"
  "\"dp_attention\": 1," "kvplan: warning: --enable-dp-attention without --dp: SGLang turns DP attention off when dp_size is 1"
  size --from-launch "python -m sglang.launch_server --model-path deepseek-v3 --tp 8 --context-length 8192 --enable-dp-attention" --gpu h200 --json)

# Numbers as each engine reads them: llama.cpp's std::stoi takes "32K" as 32; SGLang's int refuses "8K";
# vLLM's human_readable_int refuses a thousands separator and reads --kv-cache-memory-bytes 40G as 40 x 2^30.
kvplan_cli_bad("launch: llama-server -c with a suffix"
  "^kvplan: error: -c: '32K': llama-server reads it with std::stoi \\(common/arg.cpp\\), which stops at the first other character and takes 32: give the digits\n$"
  size --from-launch "llama-server -m llama-3.1-8b -c 32K -np 1")
kvplan_cli_bad("launch: llama-server -ub with a suffix" "^kvplan: error: -ub: '1k': llama-server reads it with std::stoi"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ub 1k")
kvplan_cli_bad("launch: SGLang --context-length with a suffix"
  "^kvplan: error: --context-length: '8K': python -m sglang.launch_server reads an integer here \\(Python's int\\), and refuses it"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8K")
kvplan_cli_bad("launch: vLLM --max-model-len with a separator"
  "^kvplan: error: --max-model-len: '32,768': vLLM's human_readable_int refuses a thousands separator\n$"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 32,768")
kvplan_cli_same("launch: vLLM --kv-cache-memory-bytes 40G"
  "\"kv_memory_bytes\": 42949672960,"
  size --from-launch "vllm serve llama-3.1-8b --max-model-len 8192 --kv-cache-memory-bytes 40G" --json
  SAME_AS size llama-3.1-8b --engine vllm --context 8192 --kv-memory 40GiB --json)

# llama-server flags users paste: -ngl past the layers is every layer (Llama 3.1 8B has 32: 99 is all);
# -ngl 32 leaves the output layer on the CPU (a warning); fewer moves layers and their KV cache to the CPU.
kvplan_cli_same("launch: llama-server -ngl 99" "\"bytes_per_token\": 131072,"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ngl 99" --json
  SAME_AS size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1" --json)
kvplan_cli_warns("launch: llama-server -ngl of the layers" "\"bytes_per_token\": 131072,"
  "kvplan: warning: --n-gpu-layers 32: llama.cpp keeps the output layer on the CPU"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 --n-gpu-layers 32" --json)
kvplan_cli_bad("launch: llama-server partial offload"
  "^kvplan: error: -ngl: '20': llama.cpp keeps the first 12 of Llama 3.1 8B's 32 layers on the CPU with their KV cache"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ngl 20")
kvplan_cli_bad("launch: llama-server --no-kv-offload"
  "^kvplan: error: --from-launch: --no-kv-offload \\(llama-server\\) keeps the whole KV cache in host memory"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 --no-kv-offload")
# -ctk alone: V stays llama.cpp's f16. q8_0 K: 1,024 values x 34 / 32 = 1,088 B, f16 V 2,048 B, x 32 layers
# = 100,352 B per token.
kvplan_cli_same("launch: llama-server -ctk without -ctv" "\"bytes_per_token\": 100352,"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ctk q8_0" --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 1 --k-dtype q8_0 --v-dtype f16 --json)
# -b under the micro-batch is the micro-batch (n_ubatch = min(n_batch, n_ubatch)): Gemma 2's SWA cache is
# pad(4,096 + 256, 256) = 4,352 cells at -b 256, not the 4,608 of -ub 512.
kvplan_cli_same("launch: llama-server -b under -ub" "\"cells\": 4352,"
  size --from-launch "llama-server -m gemma-2-9b -c 8192 -np 1 -b 256" --json
  SAME_AS size gemma-2-9b --engine llamacpp --context 8192 --users 1 --ubatch 256 --json)
kvplan_cli_same("launch: llama-server -b over -ub changes nothing" "\"cells\": 4608,"
  size --from-launch "llama-server -m gemma-2-9b -c 8192 -np 1 -b 4096" --json
  SAME_AS size gemma-2-9b --engine llamacpp --context 8192 --users 1 --json)
# -kvu / -no-kvu: the last one wins; without -np llama-server turns kv_unified on anyway.
kvplan_cli_same("launch: llama-server --no-kv-unified after -kvu" "\"users\": 2,"
  size --from-launch "llama-server -m llama-3.1-8b -c 16384 -np 2 -kvu --no-kv-unified" --json
  SAME_AS size llama-3.1-8b --engine llamacpp --context 8192 --users 2 --json)
kvplan_cli_warns("launch: llama-server --no-kv-unified without -np" "\"users\": 4,"
  "kvplan: warning: --no-kv-unified: llama-server without -np \\(slots auto\\) turns kv_unified on anyway"
  size --from-launch "llama-server -m llama-3.1-8b -c 32768 --no-kv-unified" --json)
# --n-rs-seq 0 is llama.cpp's own value (no rollback snapshots): taken, as leaving it out.
kvplan_cli_same("--n-rs-seq 0 is the default" "\"bytes_per_token\": 131072,"
  size llama-3.1-8b --engine llamacpp --n-rs-seq 0 --json SAME_AS size llama-3.1-8b --engine llamacpp --json)
# SGLang's --moe-dense-tp-size changes the dense MLP layers' weights per GPU: refused, saying so.
kvplan_cli_bad("launch: SGLang --moe-dense-tp-size"
  "^kvplan: error: --from-launch: --moe-dense-tp-size \\(python -m sglang.launch_server\\) sets the tp of the dense MLP layers"
  size --from-launch "python -m sglang.launch_server --model-path deepseek-v3 --tp 8 --dp 8 --enable-dp-attention --context-length 8192 --moe-dense-tp-size 1")
# DP attention over two nodes (SGLang's DeepSeek recipes: --tp 16 --dp 16 --enable-dp-attention --nnodes 2).
kvplan_cli_same("launch: SGLang DP attention over two nodes" "\"dp_attention\": 16,"
  size --from-launch "python -m sglang.launch_server --model-path deepseek-v3 --tp 16 --dp 16 --enable-dp-attention --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 --context-length 8192" --gpu h200 --json
  SAME_AS size deepseek-v3 --engine sglang --tp 16 --dp-attention 16 --context 8192 --gpu h200 --json)
# --chunked-prefill-size moves SGLang's default --mem-fraction-static; beside a fraction it changes nothing.
kvplan_cli_bad("launch: SGLang --chunked-prefill-size without a fraction"
  "^kvplan: error: --chunked-prefill-size: changes SGLang's default --mem-fraction-static"
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8192 --chunked-prefill-size 4096")
kvplan_cli_same("launch: SGLang --chunked-prefill-size with a fraction" "\"kv_cache_tokens\": "
  size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8192 --chunked-prefill-size 4096 --mem-fraction-static 0.8" --gpu h100-sxm --json
  SAME_AS size --from-launch "python -m sglang.launch_server --model-path llama-3.1-8b --context-length 8192 --mem-fraction-static 0.8" --gpu h100-sxm --json)
# A stray word after a flag's value is named, and never read as the model.
kvplan_cli_bad("launch: a stray word after --model-path"
  "^kvplan: error: --from-launch: 'flags' \\(python -m sglang.launch_server\\): a stray word after --model-path command-line"
  size --from-launch "python -m sglang.launch_server --model-path command-line flags --context-length 8192")
# -ctk alone leaves V at llama.cpp's f16 (common.h); refused on an MLA model, the error names the engine's flag
# for that type (-ctv), not kvplan's --v-dtype, which the line never gave.
kvplan_cli_bad("launch: -ctk alone on an MLA model names -ctv"
  "^kvplan: error: -ctv: llama.cpp refuses different K and V cache types on an MLA model \\(K q8_0, V fp16\\)"
  size --from-launch "llama-server -m deepseek-v2-lite -c 8192 -np 1 -ctk q8_0 -fa off")
# An option after `--` is an argument to CLI11: the error says so, not that --tp is no option of size.
kvplan_cli_bad("an option after --"
  "^kvplan: error: --tp: read as an argument, not an option: it follows `--`, which ends the options; give it before `--` \\(kvplan size --help\\)\n$"
  size llama-3.1-8b -- --tp 2)
# llama.cpp's -c under another engine is still llama.cpp's n_ctx (every user's context together): the warning
# says so, and -c 32768 with 4 users plans 8,192 tokens each, as --context 8192 does.
kvplan_cli_warns("alias: -c under vLLM keeps llama.cpp's meaning"
  "8,192"
  "-c \\(a name from llama.cpp\\) under --engine vllm is read as --ctx-size, with llama.cpp's meaning: every user's context together, ceil\\(N / --users\\) tokens each \\(vLLM has no such flag: give --context for one user's\\)"
  size llama-3.1-8b --engine vllm -c 32768 --users 4)
