# CLI tests of `kvplan fit` and of the speed figures `size` adds (the functions are cli_tests.cmake's).

# The README's job (figures worked in tests/test_fit.cpp): bf16 KV needs 8 H100s at tp 8 (tp 4 holds 15 of 16 users).
# --weight-dtype ckpt in the tests of other dimensions: the checkpoint's bf16 weights alone (the default also
# searches them quantised to fp8 at load, which holds the users on 4 GPUs: tested below).
kvplan_cli_ok("fit llama-3.1-70b bf16: 8 GPUs at tp 8 first"
  "\n +1  h100-sxm +8  8 x 1 x 1 +bf16 +bf16 .*\n +vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 8 --pipeline-parallel-size 1 --max-model-len 32768 --max-num-seqs 16 --kv-cache-dtype auto --gpu-memory-utilization 0.90\n"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --kv-dtype bf16 --weight-dtype ckpt)
# fp8_e4m3 KV: 4 GPUs at tp 4, free 19,143,297,433 B per GPU.
kvplan_cli_ok("fit llama-3.1-70b fp8 json: 4 GPUs at tp 4 first"
  "\"configurations\": \\[\n +[{][^}]*\"free_bytes_per_gpu\": 19143297433,[^}]*\"gpu\": \"h100-sxm\",\n +\"gpus\": 4,[^}]*\"kv_dtype\": \"fp8_e4m3\",[^}]*\"tp\": 4,"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --json)
kvplan_cli_ok("fit nothing fits: nearest and by how much, exit 0"
  "nothing fits within 4 GPUs; nearest: 4 x h100-sxm \\(tp 4 x pp 1 x 1 replica, KV bf16\\): 15 of 16 users fit at 32,768 tokens \\(KV per GPU 40.0 GiB needed, 37.8 GiB available: short by 2.17 GiB\\); 16 users fit up to 30,989 tokens"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --kv-dtype bf16 --max-gpus 4 --weight-dtype ckpt)
kvplan_cli_ok("fit every preset, price ranking" "Ranked by cost per million output tokens.*\\$/Mtok"
  fit llama-3.1-8b --context 8192 --users 32 --price-per-gpu-hour 2.5 --top 3)
kvplan_cli_ok("fit sglang launch line" "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp 8"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --kv-dtype bf16 --engine sglang)
kvplan_cli_ok("size with a GPU shows speed" "Speed \\(roofline.*decode TPOT at the full context +[0-9.]+ ms \\(memory-bound\\).*TTFT \\(32,768 tokens\\)"
  size llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --tp 8)
kvplan_cli_ok("size json speed" "\"speed\": [{].*\"tpot_s\": [0-9.e-]+"
  size llama-3.1-8b --gpu h100-sxm --json)

# One GPU named twice, in two spellings, is one preset searched (it said "over 2 GPU presets").
kvplan_cli_ok("fit one gpu named twice" "judged over 1 GPU preset up to"
  fit llama-3.1-8b --context 8192 --gpu h100-sxm,H100-SXM --gpu h100-sxm)
kvplan_cli_bad("fit max-gpus 0" "^kvplan: error: --max-gpus: must be positive" fit llama-3.1-8b --max-gpus 0)
# The reason names the size once (it said "--tp: 3: 3 does not divide"): 32 heads, 3 does not divide them.
kvplan_cli_bad("fit tp the model cannot take" "^kvplan: error: --tp: 3 does not divide num_attention_heads 32\n$" fit llama-3.1-8b --tp 3)
kvplan_cli_bad("fit pp past the layers" "^kvplan: error: --pp: 33 stages exceed" fit llama-3.1-8b --pp 33)
kvplan_cli_bad("fit unknown gpu" "^kvplan: error: --gpu: unknown GPU 'nope'" fit llama-3.1-8b --gpu h100-sxm,nope)
kvplan_cli_bad("fit bad kv dtype" "^kvplan: error: --kv-dtype: " fit llama-3.1-8b --kv-dtype bf16,nope)
kvplan_cli_bad("fit negative price" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got '-1'\n$" fit llama-3.1-8b --price-per-gpu-hour -1)
kvplan_cli_bad("fit bad ttft" "^kvplan: error: --ttft: must be a positive number, got 'soon'" fit llama-3.1-8b --ttft soon)
kvplan_cli_bad("fit efficiency past 1" "^kvplan: error: --bandwidth-efficiency: must be in \\(0, 1\\], got '1.5'" fit llama-3.1-8b --bandwidth-efficiency 1.5)
kvplan_cli_bad("fit without a model" "MODEL" fit)

# StreamingLLM's cap (--sink-tokens, --recent-window) on size and compare: Llama-3.1-8B keeps 4 + 1,020 = 1,024
# tokens per layer, 131,072 B x 1,024 = 134,217,728 B per 32,768-token sequence, at any length.
kvplan_cli_ok("size with attention sinks" "\"kv_bytes_per_sequence\": 134217728.*\"max_context\": null"
  size llama-3.1-8b --context 32768 --sink-tokens 4 --recent-window 1020 --gpu h100-sxm --json)
# compare: the cap is one more row beside the uncapped variants, and says so. As configured 131,072 x 32,768 =
# 4 GiB; MHA (32 KV heads) 524,288 B per token x 32,768 = 16 GiB, 128 times the capped 128 MiB.
kvplan_cli_ok("compare with attention sinks"
  "as configured +131,072 +128 KiB +4.00 GiB +4.0x\n.*StreamingLLM 4\\+1,020 +131,072 +128 KiB +128 MiB +128.0x\n.*StreamingLLM 4\\+1,020: the model as configured, each full-attention layer keeping 4 sink tokens and the last 1,020 tokens \\(1,024 tokens in all; .*the cap is on this row only, the others are uncapped"
  compare llama-3.1-8b --context 32768 --sink-tokens 4 --recent-window 1020)
kvplan_cli_ok("compare json with attention sinks"
  "\"streaming\": [{]\n +\"capped_variants\": \\[\n +\"StreamingLLM 4\\+1,020\"\n +\\],\n +\"recent_window\": 1020,\n +\"sink_tokens\": 4,.*\"kv_bytes_per_sequence\": 134217728,[^}]*\"variant\": \"StreamingLLM 4\\+1,020\""
  compare llama-3.1-8b --context 32768 --sink-tokens 4 --recent-window 1020 --json)
# fit takes the cap as size does (worked in tests/test_fit.cpp): one H100 holds 59,834,464,665 / 134,217,728 =
# 445 capped sequences of Llama-3.1-8B; no engine keeps such a cache, so no launch line.
kvplan_cli_ok("fit with attention sinks"
  "\"kv_bytes_per_gpu\": 2147483648,[^}]*\"max_context\": null,\n +\"max_context_past_max_position_embeddings\": false,\n +\"max_users\": 445,"
  fit llama-3.1-8b --context 32768 --users 16 --gpu h100-sxm --tp 1 --pp 1 --kv-dtype bf16 --sink-tokens 4 --recent-window 1020 --json)
kvplan_cli_ok("fit with attention sinks: no launch line"
  "\n +1  h100-sxm +1  1 x 1 x 1 +bf16 .* 445 +any .*\n +\\(no launch line: no serving engine keeps an attention-sink cache"
  fit llama-3.1-8b --context 32768 --users 16 --gpu h100-sxm --tp 1 --pp 1 --kv-dtype bf16 --sink-tokens 4 --recent-window 1020)
kvplan_cli_bad("fit: attention sinks under an engine" "^kvplan: error: --sink-tokens: StreamingLLM's cache is kvplan's exact layout only \\(--engine ideal\\); sglang has no attention-sink cache"
  fit llama-3.1-8b --engine sglang --sink-tokens 4 --recent-window 1020)
kvplan_cli_bad("fit: sink tokens without a window" "^kvplan: error: --recent-window: missing" fit llama-3.1-8b --sink-tokens 4)
kvplan_cli_bad("sink tokens without a window" "^kvplan: error: --recent-window: missing" size llama-3.1-8b --sink-tokens 4)
kvplan_cli_bad("recent window zero" "^kvplan: error: --recent-window: must be positive" compare llama-3.1-8b --sink-tokens 4 --recent-window 0)
# A KV dtype the engine has no cache type for is the request's error (it was "no layout could be planned",
# exit 0); under the exact layout a dtype vLLM lacks gets no vllm line rather than one vLLM would refuse.
kvplan_cli_bad("fit: a KV dtype the engine lacks"
  "--kv-dtype: llama.cpp has no cache type fp8_e4m3 \\(its types: f32, f16, bf16, q8_0"
  fit llama-3.1-70b --context 4096 --users 16 --gpu h100-sxm --engine llamacpp --kv-dtype fp8_e4m3)
# One llama-server process splits the layers over at most 16 CUDA devices (GGML_CUDA_MAX_DEVICES): fit
# offered 40-42 stage splits of Llama 3.1 70B over L40S; size refuses pp 17 naming --pp.
kvplan_cli_bad("llama.cpp over more than 16 devices"
  "--pp: more than 16 stages: llama.cpp splits layers over the devices of one process, and ggml's CUDA backend drives at most 16"
  size llama-3.1-70b --engine llamacpp --gpu l40s --gpus 17 --pp 17 --tp 1)
kvplan_cli_ok("fit: no vllm line for a type vLLM lacks" "\\(no vllm line: vLLM has no KV cache type q8_0"
  fit llama-3.1-70b --context 4096 --users 16 --gpu h100-sxm --kv-dtype q8_0)
# No engine keeps attention sinks plus a window: under an engine's rules the cap is refused, naming the flag
# (vLLM planned it as a sliding window of 1,024 + 8,192 batched tokens, SGLang ignored it).
kvplan_cli_bad("attention sinks under an engine" "^kvplan: error: --sink-tokens: StreamingLLM's cache is kvplan's exact layout only \\(--engine ideal\\); vllm has no attention-sink cache"
  size llama-3.1-70b --engine vllm --sink-tokens 4 --recent-window 1020 --context 32768)
kvplan_cli_bad("attention sinks under an engine, compare" "^kvplan: error: --sink-tokens: .*sglang has no attention-sink cache"
  compare llama-3.1-8b --engine sglang --sink-tokens 4 --recent-window 1020)

# --tpot that nothing meets, some layouts holding the users: the fastest of them, and by how much it misses
# (worked in tests/test_fit.cpp: tp 8 decodes in 10.8 ms, tp 4 in 21.4 ms).
kvplan_cli_ok("fit: nothing meets the SLA, nearest is the fastest"
  "\nnothing within 8 GPUs meets the SLA \\(TPOT <= 5.0 ms\\): 2 layouts hold the 16 users, none fast enough; nearest: 8 x h100-sxm \\(tp 8 x pp 1 x 1 replica, KV fp8_e4m3\\): TPOT 10.8 ms against 5.0 ms \\(\\+116%\\)\n\n.* 8  8 x 1 x 1 +fp8_e4m3 "
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --tp 4,8 --kv-dtype fp8_e4m3 --max-gpus 8 --tpot 0.005 --weight-dtype ckpt)
kvplan_cli_ok("fit json: nothing meets the SLA"
  "\"holding\": 2,.*\"nearest\": [{][^}]*\"tp\": 8,.*\"nearest_misses\": \"sla\",\n +\"note\": \"nothing within 8 GPUs meets the SLA"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --tp 4,8 --kv-dtype fp8_e4m3 --max-gpus 8 --tpot 0.005 --json --weight-dtype ckpt)
kvplan_cli_ok("fit json: nothing holds the users, nearest by memory"
  "\"nearest_misses\": \"memory\",\n +\"note\": \"nothing fits within 4 GPUs; nearest: "
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --kv-dtype bf16 --max-gpus 4 --json --weight-dtype ckpt)

# Plurals and time units: one user is "1 user"; 2^32 users of 4,096 tokens on one H100 read 2^32 x 4,096 x
# 131,072 B = 2^61 B of KV plus 16,060,522,496 B of weights a step: 2,305,843,025,274,216,448 B / (3.35e12 x 0.8)
# = 860,389 s = 9.96 days (memory-bound: about 1.8e10 FLOPs x 2^32 / 4.95e14 = 1.6e5 s), not "860389192.0 ms".
kvplan_cli_ok("size: one user" "total \\(1 user, all GPUs\\).*KV cache \\(1 user\\).*max context for 1 user +"
  size llama-3.1-8b --gpu h100-sxm)
kvplan_cli_ok("size: a TPOT in days at 2^32 users" "decode TPOT at the full context +10.0 days \\(memory-bound\\)"
  size llama-3.1-8b --gpu h100-sxm --users 4294967296)
# GPT-2's config: max_position_embeddings 1,024 (n_positions). fit and compare warn as size does, and fit's
# JSON carries the warning.
kvplan_cli_warns("fit warns past max_position_embeddings" "vllm serve"
  "kvplan: warning: context 100,000 exceeds the model's max_position_embeddings 1,024\n"
  fit gpt2 --context 100000 --users 1 --gpu h100-sxm --top 1)
kvplan_cli_ok("fit json carries the context warning"
  "\"warnings\": \\[\n +\"context 100,000 exceeds the model's max_position_embeddings 1,024\"\n +\\]"
  fit gpt2 --context 100000 --users 1 --gpu h100-sxm --top 1 --json)
kvplan_cli_warns("compare warns past max_position_embeddings" "MHA"
  "kvplan: warning: context 100,000 exceeds the model's max_position_embeddings 1,024\n"
  compare gpt2 --context 100000)

# The max context found past the model's max_position_embeddings (Llama-3.1-70B: 131,072) is marked in size and
# fit. tp 8, fp8 KV: 58,256,560,537 B available per GPU / (16 users x 80 layers x 1 KV head x 128 x 2 x 1 B) =
# 177,784 tokens (worked in tests/test_fit.cpp).
kvplan_cli_ok("size marks a max context past max_position_embeddings"
  "max context for 16 users +177,784 tokens \\(past the model's 131,072 max_position_embeddings\\)\n"
  size llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --tp 8 --kv-dtype fp8_e4m3)
kvplan_cli_ok("size json marks a max context past max_position_embeddings"
  "\"max_context\": 177784,\n +\"max_context_past_max_position_embeddings\": true,"
  size llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --tp 8 --kv-dtype fp8_e4m3 --json)
kvplan_cli_ok("fit marks a max context past max_position_embeddings"
  " 177,784\\* .*\n +\\* context max past the model's 131,072 max_position_embeddings: what memory holds; each engine derives its own limit\n"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --tp 8 --kv-dtype fp8_e4m3)
kvplan_cli_ok("fit json marks a max context past max_position_embeddings"
  "\"max_context\": 177784,\n +\"max_context_past_max_position_embeddings\": true,.*\"max_position_embeddings\": 131072,"
  fit llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --pp 1 --tp 8 --kv-dtype fp8_e4m3 --json)
# A context asked past the limit: vLLM refuses --max-model-len 200000 unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
# (its rope_scaling is llama3: no factor, so vLLM's limit is max_position_embeddings 131,072).
kvplan_cli_ok("fit launch line past max_position_embeddings"
  "\n +VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-70B .*--max-model-len 200000 .*  # context 200,000 past vLLM's derived max_model_len 131,072 \\(max_position_embeddings 131,072; rope_scaling llama3: no factor\\): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
  fit llama-3.1-70b --context 200000 --users 1 --gpu h100-sxm --pp 1 --tp 8 --kv-dtype fp8_e4m3)
# Each engine's own limit (kvplan/context_limit.hpp). Gemma 3 27B: rope_scaling linear x8 on 131,072; vLLM
# applies no factor to gemma3 (131,072), SGLang does (1,048,576): 200,000 warns under vLLM, not SGLang.
kvplan_cli_warns("size warns past vLLM's derived max_model_len" "tokens"
  "kvplan: warning: context 200,000 passes vLLM's derived max_model_len 131,072 \\(max_position_embeddings 131,072; no rope_scaling factor for gemma3\\): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n"
  size gemma-3-27b --context 200000 --engine vllm)
kvplan_cli_warns("size under SGLang takes Gemma 3's scaled context" "tokens" "^$"
  size gemma-3-27b --context 200000 --engine sglang)
# A launch line that sets the engine's long-context variable (vllm/envs.py: stripped, lower case, 1 or true)
# is taken at its length: the warning says so instead of "refuses it without".
kvplan_cli_warns("from-launch with VLLM_ALLOW_LONG_MAX_MODEL_LEN: taken" "tokens"
  "kvplan: warning: context 200,000 passes vLLM's derived max_model_len 131,072 \\(max_position_embeddings 131,072; no rope_scaling factor for gemma3\\): VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set: the engine takes it, past the length the config gives\n"
  size --from-launch "VLLM_ALLOW_LONG_MAX_MODEL_LEN=True vllm serve gemma-3-27b --max-model-len 200000")
kvplan_cli_warns("from-launch with VLLM_ALLOW_LONG_MAX_MODEL_LEN=0: refused" "tokens"
  "vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n"
  size --from-launch "VLLM_ALLOW_LONG_MAX_MODEL_LEN=0 vllm serve gemma-3-27b --max-model-len 200000")

# fit's fp8 lines read back: --quantization fp8 is --weight-dtype fp8_e4m3 (quantised at load; Llama-3.1-70B at
# 72,656,373,952 B, worked in tests/test_fit.cpp); another method is the checkpoint's, read from its config.
kvplan_cli_ok("from-launch --quantization fp8 is the weights quantised at load" "\"weights_bytes\": 72656373952,"
  size --from-launch "vllm serve llama-3.1-70b --tensor-parallel-size 4 --max-model-len 32768 --quantization fp8" --json)
kvplan_cli_bad("from-launch --quantization awq" "^kvplan: error: --from-launch: --quantization awq: kvplan reads fp8 only"
  size --from-launch "vllm serve llama-3.1-70b --max-model-len 8192 --quantization awq")
# llama.cpp has no fp8 or int4 weights in a GGUF (ggml's types): refused, naming the flag.
kvplan_cli_bad("llamacpp weight type GGUF lacks" "^kvplan: error: --weight-dtype: int4: llama.cpp has no such weight type"
  size llama-3.1-8b --engine llamacpp --weight-dtype int4)
kvplan_cli_bad("fit llamacpp weight type GGUF lacks" "^kvplan: error: --weight-dtype: fp8_e4m3: llama.cpp has no such weight type"
  fit llama-3.1-8b --engine llamacpp --gpu l4 --weight-dtype ckpt,fp8_e4m3)
# llama-server's -ub past its default -b 2048: n_ubatch = min(n_batch, n_ubatch) (src/llama-context.cpp), so
# micro-batches of 2,048, said in a warning.
kvplan_cli_warns("from-launch -ub past the default -b" "at n_ubatch 2,048,"
  "kvplan: warning: -ub 4096 past llama.cpp's default -b 2048"
  size --from-launch "llama-server -m llama-3.1-8b -c 8192 -np 1 -ub 4096" --gpu l4)
# The weight search: under vllm on an H100, Llama-3.1-8B's bf16 checkpoint and the same quantised to fp8 at
# load (vLLM's --quantization fp8). One GPU holds one user either way; the model as given ranks first.
kvplan_cli_ok("fit searches fp8 weights quantised at load"
  "Searched: .*weights as given, fp8_e4m3 \\(quantised at load\\).*\n +1  h100-sxm +1  1 x 1 x 1 +bf16 +bf16 .*\n +vllm serve meta-llama/Llama-3.1-8B [^\n]*--gpu-memory-utilization 0.90[^\n]*\n +2  h100-sxm +1  1 x 1 x 1 +bf16 +fp8_e4m3 .*\n +vllm serve meta-llama/Llama-3.1-8B [^\n]* --quantization fp8\n.*  wts fp8_e4m3: the engine quantises the checkpoint at load \\(fp8_e4m3 per-tensor \\(quantised at load\\), bf16 embeddings\\)"
  fit llama-3.1-8b --context 8192 --gpu h100-sxm --engine vllm --tp 1 --pp 1 --kv-dtype bf16)
kvplan_cli_ok("fit --weight-dtype ckpt: no weight search" "Searched: tp 1 \\(within a node of 8 GPUs\\), pp 1, replicas\\.\n"
  fit llama-3.1-8b --context 8192 --gpu h100-sxm --engine vllm --tp 1 --pp 1 --kv-dtype bf16 --weight-dtype ckpt)
kvplan_cli_ok("fit json: a searched weight type" "\"weight_dtype\": \"fp8_e4m3\",\n +\"weight_dtype_searched\": true,"
  fit llama-3.1-8b --context 8192 --gpu h100-sxm --engine vllm --tp 1 --pp 1 --kv-dtype bf16 --json)
kvplan_cli_bad("fit --weight-dtype: ckpt after the first" "^kvplan: error: --weight-dtype: ckpt \\(the model as given\\) can only be the first item\n$"
  fit llama-3.1-8b --weight-dtype fp8_e4m3,ckpt)
kvplan_cli_bad("fit --weight-dtype: an empty item" "^kvplan: error: --weight-dtype: has an empty item\n$"
  fit llama-3.1-8b --weight-dtype ckpt,)
# --price-per-gpu-hour: one text for every miss, the range with its units (it said "must be a positive
# number" for 'inf', which a user does not read as "finite"; "at most 1,000,000 per GPU-hour" without a
# lower bound or a currency). Costs print in a bounded width, with thousands separators.
kvplan_cli_bad("fit price past the bound" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got '1e308'\n$"
  fit llama-3.1-8b --price-per-gpu-hour 1e308)
kvplan_cli_bad("fit price infinite" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got 'inf'\n$"
  fit llama-3.1-8b --price-per-gpu-hour inf)
kvplan_cli_bad("fit price zero" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got '0'\n$"
  fit llama-3.1-8b --price-per-gpu-hour 0)
kvplan_cli_bad("fit price not a number" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got '2.5usd'\n$"
  fit llama-3.1-8b --price-per-gpu-hour 2.5usd)
# strtod read hex: "0x10" was taken as 16 USD; a plain decimal only (the shared parse_positive, so
# --gpu-util, --ttft and the others alike).
kvplan_cli_bad("fit price in hex" "^kvplan: error: --price-per-gpu-hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000, got '0x10'\n$"
  fit llama-3.1-8b --price-per-gpu-hour 0x10)
kvplan_cli_bad("--gpu-util in hex" "^kvplan: error: --gpu-util: must be a number in \\(0, 1\\], got '0x0.8p0'\n$"
  size llama-3.1-8b --gpu h100-sxm --gpu-util 0x0.8p0)
# At 1,000 USD per GPU-hour one H100 serving one Llama-3.1-8B user costs 1,000 x 10^6 / (tok/s x 3600)
# per Mtok: thousands at a decode rate in the tens to hundreds of tokens/s, printed "2,345.678".
kvplan_cli_ok("fit cost with thousands separators" "\n +1  h100-sxm +1  .* +[1-9][0-9]?,[0-9][0-9][0-9]\\.[0-9][0-9][0-9]\n"
  fit llama-3.1-8b --context 8192 --users 1 --gpu h100-sxm --tp 1 --pp 1 --kv-dtype bf16 --price-per-gpu-hour 1000 --top 1)
# At the bound a row on one H100 costs 10^6 x 1 / (tokens/s x 3600) x 10^6: past 10^6 per Mtok, so three
# significant digits ("e+"), never a long run of digits.
kvplan_cli_ok("fit cost in a bounded width" "\n +1  h100-sxm +1  .* +[0-9.]+e\\+[0-9]+\n"
  fit llama-3.1-8b --context 8192 --users 1 --gpu h100-sxm --tp 1 --pp 1 --kv-dtype bf16 --price-per-gpu-hour 1000000 --top 1)
# Overflows name the input in fit and prefill as in size. Llama-3.1-8B: 131,072 B per token.
kvplan_cli_bad("fit overflow names the context"
  "^kvplan: error: --context: 18446744073709551615: the KV cache of one sequence overflows 2\\^64 B \\(131,072 B per token x 18,446,744,073,709,551,615 tokens\\)\n$"
  fit llama-3.1-8b --context 18446744073709551615 --gpu h100-sxm)
# 131,072 B x 2^40 tokens = 2^57 B per sequence; x 256 users = 2^65.
kvplan_cli_bad("fit overflow names the users"
  "^kvplan: error: --users: 256: the KV cache of the users overflows 2\\^64 B \\(144,115,188,075,855,872 B per sequence x 256 users\\)\n$"
  fit llama-3.1-8b --context 1099511627776 --users 256 --gpu h100-sxm)
kvplan_cli_bad("prefill overflow names the prompt"
  "^kvplan: error: --prompt 18446744073709551615: the prefill FLOPs overflow 2\\^64 "
  prefill llama-3.1-8b --prompt 18446744073709551615)
kvplan_cli_bad("prefill overflow names --vs"
  "^kvplan: error: --vs 18446744073709551615: the prefill FLOPs overflow 2\\^64 "
  prefill llama-3.1-8b --prompt 1000 --vs 18446744073709551615)
# A drafter whose page vLLM cannot unify with the target's (tests/fixtures/eagle-3kv-draft.json: 24,576 B
# against 65,536 B): --speculative-config caused it, not --engine.
# A drafter given as a kvplan preset id goes to vLLM as the preset's Hugging Face repo
# (presets/models/llama-3.1-8b.json hf_repo), as the target does; the id itself is no model vLLM can load.
kvplan_cli_ok("fit: a drafter preset id becomes its repo on the launch line"
  "vllm serve meta-llama/Llama-3.1-70B .*--speculative-config '\\{\"method\":\"draft_model\",\"model\":\"meta-llama/Llama-3.1-8B\",\"num_speculative_tokens\":3\\}'"
  fit llama-3.1-70b --context 32768 --users 4 --engine vllm --gpu h100-sxm --top 1
  "--speculative-config={\"method\": \"draft_model\", \"model\": \"llama-3.1-8b\", \"num_speculative_tokens\": 3}")
kvplan_cli_bad("vllm drafter page size names --speculative-config"
  "^kvplan: error: --speculative-config: the drafter's layers under the engine: vLLM cannot unify the page sizes"
  size llama-3.1-8b --engine vllm "--speculative-config={\"method\": \"eagle\", \"model\": \"${KVPLAN_FIXTURES}/eagle-3kv-draft.json\"}")
kvplan_cli_bad("vllm drafter page size names --speculative-config, fit"
  "^kvplan: error: --speculative-config: the drafter's layers under the engine: vLLM cannot unify the page sizes"
  fit llama-3.1-8b --engine vllm --gpu h100-sxm --pp 1 "--speculative-config={\"method\": \"eagle\", \"model\": \"${KVPLAN_FIXTURES}/eagle-3kv-draft.json\"}")
# Without --pp it offered pp 17 and more (the drafter alone on the last of 33 "layers"); vLLM splits the
# target's 32 layers and loads the drafter on the last rank, beside at least one target layer, so no pp helps.
kvplan_cli_bad("vllm drafter page size, fit over every pp"
  "^kvplan: error: --speculative-config: the drafter's layers under the engine: vLLM cannot unify the page sizes"
  fit llama-3.1-8b --engine vllm --gpu h100-sxm "--speculative-config={\"method\": \"eagle\", \"model\": \"${KVPLAN_FIXTURES}/eagle-3kv-draft.json\"}")
# The exact layout plans it, at tp 1 only: tp 2, 4, 8 (they divide the target's 32 heads) are left out for the
# drafter's 3 KV heads, and said so; pp stops at the target's 32 layers.
kvplan_cli_ok("fit names the tp sizes a drafter rules out"
  "\nNot searched: tp 2, 4, 8 skipped: tp and num_key_value_heads 3 \\(the drafter's\\): one must divide the other"
  fit llama-3.1-8b --gpu h100-sxm --kv-dtype bf16 "--speculative-config={\"method\": \"eagle\", \"model\": \"${KVPLAN_FIXTURES}/eagle-3kv-draft.json\"}")
kvplan_cli_bad("fit pp past the target's layers with a drafter"
  "^kvplan: error: --pp: 33 stages exceed the model's 32 layers \\(the drafter's 1 join the last stage"
  fit llama-3.1-8b --gpu h100-sxm --pp 33 "--speculative-config={\"method\": \"eagle\", \"model\": \"${KVPLAN_FIXTURES}/eagle-3kv-draft.json\"}")

# A 10M-token prompt on Llama 3.1 8B: its prefill FLOPs pass 2^64 (32 layers x 16,384 FLOPs per pair x
# 5.0e13 pairs = 2.6e19), the KV cache (1.19 TiB) does not. The plan and its speed print; fit no longer
# calls it a KV overflow (both failed: "--prompt: overflows", "the KV cache of one sequence overflows").
kvplan_cli_ok("size at 10M tokens with a GPU: speed past 2^64 prefill FLOPs"
  "KV cache: 1 user x 10,000,000 tokens need 1.19 TiB per GPU.*TTFT \\(10,000,000 tokens\\) +[0-9.]+ h"
  size llama-3.1-8b --context 10m --gpu h100-sxm)
kvplan_cli_ok("fit at 10M tokens: rows with TTFT, no false overflow"
  "\n +1  h100-sxm +[0-9]+ .* [0-9.]+ h\n"
  fit llama-3.1-8b --context 10m --users 1 --gpu h100-sxm)

# An fp32 checkpoint (tests/fixtures/fp32-llama-tiny.json) with KV "auto": each engine's serving dtype, 2 B a
# value whichever (2 layers x 8 KV heads x 64 x 2 (K, V) x 2 B = 4,096 B per token). vLLM
# (_resolve_auto_dtype, v0.10.1 and later) serves it in bf16 on compute capability 8.0+, fp16 before, and the
# warning says the GPU decides; SGLang (_get_and_verify_dtype) in fp16. It said fp16 under every engine.
kvplan_cli_warns("fp32 checkpoint, KV auto under vLLM: bf16, the GPU named"
  "KV cache dtype +bf16\n.*4,096 B"
  "^kvplan: warning: KV auto on the fp32 checkpoint fp32-llama-tiny: vLLM serves it in bf16 on GPUs of compute capability 8.0 and later, fp16 on 6.0-7.5 \\(V100, T4\\); 2 B a value either way"
  size ${KVPLAN_FIXTURES}/fp32-llama-tiny.json --engine vllm --gpu h100-sxm)
kvplan_cli_ok("fp32 checkpoint, KV auto under SGLang: fp16"
  "KV cache dtype +fp16\n"
  size ${KVPLAN_FIXTURES}/fp32-llama-tiny.json --engine sglang --gpu h100-sxm)
# Its weights, from the architecture (config: hidden 1,024, intermediate 2,816, 2 layers, 16 heads and 8 KV
# heads of 64, vocab 32,000, untied): per layer q 1,024 x 1,024 + k and v 1,024 x 512 each + o 1,024 x 1,024
# = 3,145,728, MLP 3 x 1,024 x 2,816 = 8,650,752, 2 norms of 1,024: 11,798,528 x 2 layers = 23,597,056;
# embeddings and LM head 2 x 32,000 x 1,024 = 65,536,000; final norm 1,024: 89,134,080 parameters. The
# engines load an fp32 checkpoint at their auto dtype: 2 B each = 178,268,160 B (170 MiB), not 4 B
# (356,536,320 B, 340 MiB, which --weight-dtype fp32 still asks for). It counted 4 B. vLLM's weights as
# loaded per GPU add its RoPE cos/sin cache, 4,096 positions x 64 x 2 B = 524,288 B: 178,792,448 B,
# 170.5 MiB, shown as 171 MiB (and 357,060,608 B, 340.5 MiB, shown as 341 MiB, at fp32).
kvplan_cli_warns("fp32 checkpoint's weights under vLLM: bf16, 2 B a parameter"
  "weights +bf16, 89,134,080 parameters \\(from the architecture\\)\n.*\n  weights +171 MiB\n"
  "kvplan: warning: weights of the fp32 checkpoint fp32-llama-tiny: vLLM's --dtype auto loads them in bf16 on compute capability 8.0 and later, fp16 before \\(vllm/config/model.py _resolve_auto_dtype\\), 2 B a parameter; a weight dtype of fp32 counts 4 B"
  size ${KVPLAN_FIXTURES}/fp32-llama-tiny.json --engine vllm --gpu h100-sxm)
# SGLang's budget adds the same RoPE cache (170.5 MiB, shown as 171 MiB).
kvplan_cli_warns("fp32 checkpoint's weights under SGLang: fp16"
  "weights +fp16, 89,134,080 parameters \\(from the architecture\\)\n.*\n  weights +171 MiB\n"
  "weights of the fp32 checkpoint fp32-llama-tiny: SGLang's --dtype auto loads them in fp16"
  size ${KVPLAN_FIXTURES}/fp32-llama-tiny.json --engine sglang --gpu h100-sxm)
kvplan_cli_ok("fp32 checkpoint's weights at --weight-dtype fp32: 4 B a parameter"
  "weights +fp32, 89,134,080 parameters \\(from the architecture\\)\n.*\n  weights +341 MiB\n"
  size ${KVPLAN_FIXTURES}/fp32-llama-tiny.json --engine vllm --gpu h100-sxm --weight-dtype fp32)

# DP attention with expert parallel (issue 29; figures worked in tests/test_fit.cpp): DeepSeek-V3, 32 users x
# 65,536 tokens on H200 at pp 1, bf16 KV: tp 8 with 8 attention ranks first, free 15,474,625,126 B per GPU.
# The checkpoint's fp8 block scales add 131,100,000 B a GPU to the plain-fp8 working in test_fit.cpp
# (100,840,687,968 against 100,709,587,968 B of weights): free 15,474,625,126 - 131,100,000.
kvplan_cli_ok("fit DP attention in json"
  "\"configurations\": \\[\n +[{][^}]*\"attention_tp\": 1,[^}]*\"dp_attention\": 8,[^}]*\"ep\": 8,\n +\"fits\": true,\n +\"free_bytes_per_gpu\": 15343525126,[^}]*\"gpus\": 8,[^}]*\"launch\": \"vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 1 [^\"]* --data-parallel-size 8 --enable-expert-parallel\""
  fit deepseek-v3 --context 65536 --users 32 --gpu h200 --pp 1 --kv-dtype bf16 --json)
kvplan_cli_ok("fit DP attention in text: the searched dimensions and the dpa column"
  "Searched: tp 1, 2, 4, 8 \\(within a node of 8 GPUs\\), pp 1, replicas, DP attention with expert parallel \\(at pp 1\\)\\.\n.*\n +1  h200 +8  8 x 1 x 1 dpa8 "
  fit deepseek-v3 --context 65536 --users 32 --gpu h200 --pp 1 --kv-dtype bf16)
kvplan_cli_ok("fit DP attention under SGLang: --dp, --enable-dp-attention, --ep-size"
  "--tp 8 --context-length 65536 --max-running-requests 32 --mem-fraction-static 0.90 --dp 8 --enable-dp-attention --ep-size 8"
  fit deepseek-v3 --context 65536 --users 32 --gpu h200 --pp 1 --kv-dtype bf16 --engine sglang --dp-attention 8
  --gpu-util 0.9)
# Without the fraction: SGLang's default at DP attention 8 on an H200 is 0.769 (33,280 of 143,771 MB
# reserved, server_args.py), and the line pins it.
kvplan_cli_ok("fit DP attention under SGLang pins SGLang's default fraction"
  "--tp 8 --context-length 65536 --max-running-requests [0-9]+ --mem-fraction-static 0.769 --dp 8 --enable-dp-attention --ep-size 8"
  fit deepseek-v3 --context 65536 --users 32 --gpu h200 --pp 1 --kv-dtype bf16 --engine sglang --dp-attention 8)
kvplan_cli_ok("fit under llama.cpp says DP attention is left out" "Not searched: DP attention and expert parallel: llama.cpp has neither"
  fit deepseek-v3 --context 4096 --users 1 --gpu h200 --engine llamacpp --max-gpus 8)
kvplan_cli_bad("fit tp past a node" "^kvplan: error: --tp: 16 is more than --gpus-per-node 8: tensor parallel \\(and a DP attention group\\) stays within one node; with --dp-attention N, tp / N GPUs a group, it may span nodes\n$"
  fit llama-3.1-70b --tp 16)
kvplan_cli_ok("fit --gpus-per-node 16 takes tp 16" "\n +1  h100-sxm +16  16 x 1 x 1 "
  fit llama-3.1-70b --tp 16 --gpus-per-node 16 --gpu h100-sxm --pp 1 --context 4096 --users 1)
kvplan_cli_bad("fit dp-attention on a dense model" "^kvplan: error: --dp-attention: needs a mixture-of-experts model"
  fit llama-3.1-8b --dp-attention 2)
# A fraction given with more than two decimals is printed as given: the pool was worked out at it, and
# SGLang at 0.83 would find fewer tokens than the --max-total-tokens the line pins.
kvplan_cli_ok("fit's SGLang line keeps the fraction given"
  "--mem-fraction-static 0.83555 --max-total-tokens "
  fit llama-3.1-8b --context 8192 --users 4 --gpu h100-sxm --engine sglang --gpu-util 0.83555)
# --overhead replaces SGLang's budget, not its default fraction (0.835 on one H100, server_args.py).
kvplan_cli_ok("SGLang with --overhead keeps its default fraction"
  "utilisation, reserve +0.835 \\(the engine's default\\), 2.00 GiB per GPU"
  size llama-3.1-8b --gpu h100-sxm --engine sglang --overhead 2GiB)
# --n-rs-seq's launch flags are draft-mtp's: only for a model with MTP (nextn) layers. Llama 3.1 8B has none,
# so its line carries no --spec-type draft-mtp (llama-server would find no MTP head) and says where n_rs_seq
# comes from instead; Qwen3.5-27B has one MTP layer (mtp_num_hidden_layers 1) and keeps the flags.
kvplan_cli_ok("fit: --n-rs-seq on a model without MTP layers"
  "-ngl 999  # n_rs_seq 4: the model has no MTP layers for --spec-type draft-mtp"
  fit llama-3.1-8b --engine llamacpp --context 8192 --users 2 --gpu h100-sxm --top 1 --n-rs-seq 4)
kvplan_cli_ok("fit: --n-rs-seq on a model with MTP layers"
  "-ngl 999 --spec-type draft-mtp --spec-draft-n-max 4\n"
  fit qwen3.5-27b --engine llamacpp --context 8192 --users 2 --gpu h100-sxm --top 1 --n-rs-seq 4)
# DP attention over two nodes: the attention groups (16 / 16 = 1 GPU) stay within a node of 8, the experts span
# both, as SGLang runs it (--tp 16 --dp 16 --enable-dp-attention --nnodes 2) and vLLM (-dp 16 -dpl 8); it was
# refused as tp past a node. The line says how to start it on each node.
kvplan_cli_ok("fit: DP attention over two nodes (SGLang)"
  " 16  16 x 1 x 1 dpa16 .*--dp 16 --enable-dp-attention --ep-size 16 [^\n]*--nnodes 2  # start it on each of the 2 nodes with --node-rank R"
  fit deepseek-v3 --engine sglang --context 8192 --users 64 --gpu h200 --tp 16 --dp-attention 16 --top 1)
kvplan_cli_ok("fit: DP attention over two nodes (vLLM)"
  "--tensor-parallel-size 1 [^\n]*--data-parallel-size 16 --enable-expert-parallel --data-parallel-size-local 8  # start it on each of the 2 nodes"
  fit deepseek-v3 --engine vllm --context 8192 --users 64 --gpu h200 --tp 16 --dp-attention 16 --top 1)
# Plain tp 16 is still not a layout past a node: only the DP attention rows are planned.
kvplan_cli_ok("fit: past a node only DP attention" "2 layouts judged .*dpa16.*dpa16"
  fit deepseek-v3 --engine sglang --context 8192 --users 64 --gpu h200 --tp 16 --dp-attention 1,16 --top 3)

# vLLM runs at most max_num_seqs sequences at once (1,024 by default on an H100: vllm/engine/arg_utils.py).
# 2,000 users of 128 tokens: the KV cache of one H100 at 0.95 holds 3,717 (tests/test_budget.cpp), the
# scheduler 1,024: size says so; fit raises --max-num-seqs to the users on one server, and its budget's sampler
# takes 2,000 sequences: at fit's 0.9, 58,123,608,064 B of KV at 1,024 less 14 x 976 x 128,256 B = 56,371,118,080
# B pinned; 2,000 x 8 blocks of 2 MiB = 31.2 GiB for the users, 21.2 GiB free, all 2,000 at once.
kvplan_cli_ok("limit: vLLM's max_num_seqs caps the users at once"
  "fits +NO\n  max users at 128 tokens +1,024\n.*concurrency: vllm runs at most 1,024 sequences at once \\(max_num_seqs, per replica\\), 2,000 asked; the others wait \\(the KV cache holds 3,717\\)"
  size llama-3.1-8b --context 128 --users 2000 --gpu h100-sxm --gpu-util 0.95 --engine vllm)
kvplan_cli_ok("fit: vLLM's --max-num-seqs raised past its default for the users of one server"
  "31\\.2 GiB +21\\.2 GiB +2,000 [^\n]*\n +vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 1 --pipeline-parallel-size 1 --max-model-len 128 --max-num-seqs 2000 --kv-cache-dtype auto --gpu-memory-utilization 0.90 --kv-cache-memory-bytes 56371118080"
  fit llama-3.1-8b --context 128 --users 2000 --gpu h100-sxm --engine vllm --kv-dtype bf16 --tp 1 --pp 1 --weight-dtype ckpt)
# A search past 20,000 layouts is refused before any is planned (a 4,096-layer model over 12 GPU presets up to
# 4,096 GPUs judged 276,480 layouts in 83 s and 818 MB): one line naming the count, the limit and the flags.
kvplan_cli_bad("fit: a search past its layout limit"
  "--max-gpus: the search would judge [0-9,]+ layouts .*more than the 20,000 one search judges \\(the limit\\): narrow it with --gpu, --tp, --pp"
  fit --layers 4096 --heads 8 --head-dim 128 --context 8192 --users 1 --max-gpus 4096)
# fit --context max, as its help offers: the engine's own limit (Llama 3.1's max_position_embeddings
# 131,072, no RoPE factor under vLLM), with the warning; it was refused as "'max' is not a number".
kvplan_cli_ok("fit --context max: the engine's limit" "1 user x 131,072 tokens, engine rules: vllm\n"
  fit llama-3.1-8b --context max --engine vllm --gpu h100-sxm)
