# Reliability: the bad-input catalogue (every case exits 2 with one stderr line naming the field, and
# nothing on stdout) and the replay of the fuzzers' seed corpora and regression inputs.
# Included from tests/CMakeLists.txt after cli_tests.cmake, whose kvplan_cli_ok / kvplan_cli_bad it uses.
# Every expected message is worked out from the code that raises it (the comment names it).
set(KVPLAN_REL ${CMAKE_CURRENT_SOURCE_DIR}/reliability/fixtures)
set(KVPLAN_REL_GEN ${CMAKE_CURRENT_BINARY_DIR}/reliability)

# --- Generated fixtures: deep nesting (100,000 levels) is too big to commit. The reader refuses nesting
# past 64 levels (presets/src/json_file.cpp, kMaxJsonDepth) at the 65th, naming the path of 64 levels.
string(REPEAT "[" 100000 kvplan_open)
string(REPEAT "]" 100000 kvplan_close)
file(WRITE ${KVPLAN_REL_GEN}/deep-array.json "${kvplan_open}${kvplan_close}\n")
file(WRITE ${KVPLAN_REL_GEN}/deep-unclosed.json "${kvplan_open}")
file(WRITE ${KVPLAN_REL_GEN}/deep-value.json "{\"num_hidden_layers\": ${kvplan_open}${kvplan_close}}\n")
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/llama-like/config.json kvplan_llama)
string(REGEX REPLACE "}[ \r\n]*\n$" ", \"unused\": {\"deep\": ${kvplan_open}${kvplan_close}}}\n" kvplan_llama "${kvplan_llama}")
file(WRITE ${KVPLAN_REL_GEN}/deep-unused-key.json "${kvplan_llama}")
unset(kvplan_open)
unset(kvplan_close)
unset(kvplan_llama)

function(kvplan_bad name err_re)
  kvplan_cli_bad("catalogue: ${name}" "${err_re}" ${ARGN})
endfunction()

# --- Files: malformed, misplaced, empty, binary, missing (presets/src/presets.cpp read_json_file).
# nlohmann counts the end of input as a character: 48 characters, the error at column 49.
kvplan_bad("malformed json" "truncated.json: malformed JSON: parse error at line 1, column 49: syntax error while parsing object key - unexpected end of input; expected string literal\n$"
  size ${KVPLAN_REL}/truncated.json)
kvplan_bad("empty file" "whitespace-only.json: is empty\n$" size ${KVPLAN_REL}/whitespace-only.json)
# 0x89, the first byte of a PNG signature, starts no JSON token.
kvplan_bad("binary file" "binary.json: malformed JSON: parse error at line 1, column 1: syntax error while parsing value - invalid literal"
  size ${KVPLAN_REL}/binary.json)
kvplan_bad("missing file" "reliability/fixtures/no-such-file.json: no such file\n$" size ${KVPLAN_REL}/no-such-file.json)
kvplan_bad("array where the config object belongs" "top-level-array.json: a config must be a JSON object, got an array\n$"
  size ${KVPLAN_REL}/top-level-array.json)
kvplan_bad("array where text_config belongs" "text-config-array.json: /text_config: must be an object\n$"
  size ${KVPLAN_REL}/text-config-array.json)
kvplan_bad("object where layer_types belongs" "layer-types-object.json: /layer_types: must be an array, got an object\n$"
  size ${KVPLAN_REL}/layer-types-object.json)
kvplan_bad("deep nesting as the config" "deep-array.json: (/0)+: nested deeper than 64 levels \\(the limit\\)\n$"
  size ${KVPLAN_REL_GEN}/deep-array.json)
kvplan_bad("deep nesting unclosed" "deep-unclosed.json: (/0)+: nested deeper than 64 levels \\(the limit\\)\n$"
  size ${KVPLAN_REL_GEN}/deep-unclosed.json)
kvplan_bad("deep nesting as a count" "deep-value.json: /num_hidden_layers(/0)+: nested deeper than 64 levels \\(the limit\\)\n$"
  size ${KVPLAN_REL_GEN}/deep-value.json)
# The llama-like fixture with a 100,000-deep value under a key kvplan does not read: refused all the same
# (the bound holds whatever the key; 4 MiB of "[" took 504 MB before).
kvplan_bad("deep nesting under an unused key" "deep-unused-key.json: /unused/deep(/0)+: nested deeper than 64 levels \\(the limit\\)\n$"
  size ${KVPLAN_REL_GEN}/deep-unused-key.json)

# --- Numbers (presets/src/hf_config.cpp Reader::u64 / positive; JSON numbers nlohmann cannot hold).
kvplan_bad("number as a string" "layers-as-string.json: /num_hidden_layers: must be a non-negative integer, got a string\n$"
  size ${KVPLAN_REL}/layers-as-string.json)
kvplan_bad("fraction where an integer belongs" "heads-fraction.json: /num_attention_heads: must be a non-negative integer, got 32.5\n$"
  size ${KVPLAN_REL}/heads-fraction.json)
kvplan_bad("1e400" "hidden-1e400.json: /head_dim: number overflow parsing '1e400'\n$" size ${KVPLAN_REL}/hidden-1e400.json)
# 2^64 does not fit uint64: nlohmann stores it as the double 1.8446744073709552e+19.
kvplan_bad("integer past 2^64" "vocab-too-big.json: /vocab_size: must be a non-negative integer, got 1.8446744073709552e\\+19\n$"
  size ${KVPLAN_REL}/vocab-too-big.json)
kvplan_bad("negative count" "kv-heads-negative.json: /num_key_value_heads: must be a non-negative integer, got -8\n$"
  size ${KVPLAN_REL}/kv-heads-negative.json)
kvplan_bad("zero count" "layers-zero.json: /num_hidden_layers: must be a positive integer, got 0\n$"
  size ${KVPLAN_REL}/layers-zero.json)
kvplan_bad("layer count past any model" "layers-huge.json: /num_hidden_layers: 4000000000 layers: a config may have at most 100000\n$"
  size ${KVPLAN_REL}/layers-huge.json)
kvplan_bad("kv heads not dividing heads" "kv-heads-not-dividing.json: /num_key_value_heads: 5 does not divide num_attention_heads 32\n$"
  size ${KVPLAN_REL}/kv-heads-not-dividing.json)
kvplan_bad("active experts past the experts" "experts-per-token.json: /num_experts_per_tok: 10 active experts exceed the 8 experts\n$"
  size ${KVPLAN_REL}/experts-per-token.json)

# --- Layer patterns.
kvplan_bad("layer_types of the wrong length" "layer-types-short.json: /layer_types: has 3 entries for 4 layers\n$"
  size ${KVPLAN_REL}/layer-types-short.json)
kvplan_bad("layer_types with an unknown kind" "layer-types-unknown.json: /layer_types/2: unknown layer type 'cross_attention'\n$"
  size ${KVPLAN_REL}/layer-types-unknown.json)
kvplan_bad("sliding layer without a window" "layer-types-no-window.json: /sliding_window: missing \\(required for this architecture\\)\n$"
  size ${KVPLAN_REL}/layer-types-no-window.json)
kvplan_bad("zero window" "window-zero.json: /sliding_window: must be a positive integer, got 0\n$"
  size ${KVPLAN_REL}/window-zero.json)

# --- Presets (presets.cpp from_preset): the config's errors carry "/config".
kvplan_bad("preset with negative published params" "preset-negative-params.json: /published_params: must be a positive integer\n$"
  size ${KVPLAN_REL}/preset-negative-params.json)
# KV figures never need vocab_size; a capacity plan needs the weights, so it asks for --weights (core
# names the key, weights; the CLI words it as its flag in the field and in the reason).
kvplan_bad("preset config missing a key" "--weights: the model's weights are unknown \\(the config has no vocab_size\\): give the weights' size \\(--weights\\) for a capacity plan\n$"
  size ${KVPLAN_REL}/preset-config-no-vocab.json --gpu h100-sxm)

# --- kvplan-bench reports for prefill --calibration (presets/src/calibration.cpp).
kvplan_bad("calibration schema not a string" "calibration-schema-number.json: /schema: not a kvplan-bench/1 report\n$"
  prefill llama-3.1-8b --prompt 1000 --calibration ${KVPLAN_REL}/calibration-schema-number.json)
kvplan_bad("calibration flag as a string" "calibration-causal-string.json: /runs/0/causal: must be true or false\n$"
  prefill llama-3.1-8b --prompt 1000 --calibration ${KVPLAN_REL}/calibration-causal-string.json)
kvplan_bad("calibration head_dim as a string"
  "calibration-head-dim-string.json: /runs/0/head_dim: must be a non-negative integer\n$"
  prefill llama-3.1-8b --prompt 1000 --calibration ${KVPLAN_REL}/calibration-head-dim-string.json)
kvplan_bad("calibration without a usable run"
  "calibration-no-causal-run.json: /runs: no causal run with a passed check and a fitted attention_flops_per_s\n$"
  prefill llama-3.1-8b --prompt 1000 --calibration ${KVPLAN_REL}/calibration-no-causal-run.json)

# --- Flag values (core/src/units.cpp parse_tokens / parse_bytes / parse_count, cli/options.cpp).
kvplan_bad("context not a number" "--context: 'abc' is not a number\n$" size llama-3.1-8b --context abc)
# vLLM's human_readable_int: int("1.5") raises; a decimal goes with k m g t only.
kvplan_bad("context a fraction" "--context: '1.5': a count without a suffix is a whole number" size llama-3.1-8b --context 1.5)
kvplan_bad("context zero" "--context: must be positive\n$" size llama-3.1-8b --context 0)
kvplan_bad("context 1e400" "--context: unknown suffix 'e400' \\(k m g t = 10\\^3 10\\^6 10\\^9 10\\^12; K M G T or Ki Mi Gi Ti = 2\\^10 2\\^20 2\\^30 2\\^40\\)\n$" size llama-3.1-8b --context 1e400)
kvplan_bad("context past 2^64" "--context: overflows 64-bit arithmetic\n$" size llama-3.1-8b --context 99999999999999999999)
kvplan_bad("users negative" "--users: must be positive, got '-1'\n$" size llama-3.1-8b --users -1)
kvplan_bad("users a fraction" "--users: must be a positive integer, got '2.5'\n$" size llama-3.1-8b --users 2.5)
kvplan_bad("gpu-util zero" "--gpu-util: must be in \\(0, 1\\], got '0'\n$" size llama-3.1-8b --gpu h100-sxm --gpu-util 0)
kvplan_bad("gpu-util infinity" "--gpu-util: must be a number in \\(0, 1\\], got 'inf'\n$" size llama-3.1-8b --gpu h100-sxm --gpu-util inf)
kvplan_bad("gpu-util 1e400" "--gpu-util: must be a number in \\(0, 1\\], got '1e400'\n$" size llama-3.1-8b --gpu h100-sxm --gpu-util 1e400)
kvplan_bad("tp zero" "--tp: must be positive, got 0\n$" size llama-3.1-8b --tp 0)
# core/src/kv.cpp pipeline_stages: every figure walks the stages; 4e9 of them used to end in std::bad_alloc.
kvplan_bad("pp past any deployment" "^kvplan: error: --pp: 4000000000 stages: kvplan plans at most 4096\n$"
  size --layers 4096 --heads 1 --head-dim 1 --pp 4000000000)
# core/include/kvplan/limits.hpp kMaxLayers (core/src/model.cpp validate).
kvplan_bad("layers past the limit" "^kvplan: error: --layers: 4,000,000,000 layers: kvplan plans at most 4,096\n$"
  size --layers 4000000000 --heads 1 --head-dim 1)
kvplan_bad("gpus not a multiple of tp" "--gpus: 3 is not a multiple of tp x pp = 2\n$" size llama-3.1-8b --gpus 3 --tp 2)
kvplan_bad("gpu memory negative" "--gpu-memory: must not be negative\n$" size llama-3.1-8b --gpu-memory -80GiB)
# 99,999,999 x 2^40 = 1.1e20 > 2^64.
kvplan_bad("gpu memory past 2^64" "--gpu-memory: overflows 64-bit arithmetic\n$" size llama-3.1-8b --gpu-memory 99999999TiB)
kvplan_bad("weights 1e400" "--weights: unknown unit 'e400'" size llama-3.1-8b --gpu h100-sxm --weights 1e400)
# A 10^15-token context on a hybrid (4 of 40 layers keep KV): its decode step's FLOPs pass 2^64 and are
# estimated in doubles, as the TTFT's are; it said "--prompt: overflows", a flag size does not have.
kvplan_cli_ok("catalogue: a 10^15 context on a hybrid has a speed"
  "TTFT \\(1,000,000,000,000,000 tokens\\)"
  size granite-4.0-h-tiny --engine llamacpp --context 1000000000000000 --kv-unified --gpu h100-sxm)
# A 300-byte model name is echoed as its first 120 bytes and its length, not whole.
string(REPEAT "x" 300 kvplan_name_300)
string(REPEAT "x" 120 kvplan_name_120)
kvplan_bad("model name 300 bytes" "model: unknown model '${kvplan_name_120}\\.\\.\\. \\(300 bytes\\)': not a file"
  size ${kvplan_name_300})
# A plain number is bytes: 54 is 54 B, below 1 MiB = 1,048,576 B, so a unit was surely left out.
kvplan_bad("kv-memory plain small number" "--kv-memory: '54' is 54 bytes \\(a plain number is bytes\\); give a unit, e.g. 54GiB\n$"
  size llama-3.1-8b --gpu h100-sxm --kv-memory 54)
kvplan_bad("gpu-memory plain small number" "--gpu-memory: '80' is 80 bytes" size llama-3.1-8b --gpu-memory " 80 ")
kvplan_bad("fit overhead plain small number" "--overhead: '2' is 2 bytes" fit llama-3.1-8b --context 8192 --overhead 2)
kvplan_bad("overhead fractional bytes" "--overhead: a plain number of bytes must be a whole number\n$"
  size llama-3.1-8b --gpu h100-sxm --overhead 1.5)
kvplan_bad("units unknown" "--units: must be iec or si, got 'parsecs'\n$" size llama-3.1-8b --units parsecs)
kvplan_bad("layers zero" "--layers: must be positive, got 0\n$" size --layers 0 --heads 8 --head-dim 64)
kvplan_bad("head-dim a fraction" "--head-dim: must be a positive integer, got '1.5'\n$" size --layers 2 --heads 8 --head-dim 1.5)
kvplan_bad("kv-heads zero" "--kv-heads: must be positive, got 0\n$" size --layers 2 --heads 8 --kv-heads 0 --head-dim 64)
kvplan_bad("window zero" "--window: must be positive, got 0\n$" size --layers 2 --heads 8 --head-dim 64 --window 0)
kvplan_bad("ratio nan" "--swa-full-tokens-ratio: must be a number in \\(0, 1\\], got 'nan'\n$"
  size gemma-2-9b --engine sglang --swa-full-tokens-ratio nan)
kvplan_bad("block size zero" "--block-size: must be positive, got 0\n$" size llama-3.1-8b --engine vllm --block-size 0)
# core/src/engine.cpp validate_engine_options: the bounds name the option (before, the overflow they
# caused named the bytes or the context).
kvplan_bad("block size past its bound" "--block-size: must be at most 1,048,576, got 18,446,744,073,709,551,615\n$"
  size llama-3.1-8b --engine vllm --block-size 18446744073709551615)
kvplan_bad("ubatch past its bound" "--ubatch: must be at most 1,048,576, got 18,446,744,073,709,551,615\n$"
  size gpt-oss-20b --engine llamacpp --ubatch 18446744073709551615)
kvplan_bad("max tokens past TRT-LLM's int32" "--max-tokens: must be at most 2,147,483,647, got 2,147,483,648\n$"
  size llama-3.1-8b --engine trtllm --max-tokens 2147483648)
kvplan_bad("a V1 option under vLLM V0" "--max-num-batched-tokens: has no effect under vLLM V0's rules \\(a V1 option\\)\n$"
  size llama-3.1-8b --engine vllm --engine-version v0 --max-num-batched-tokens 64)
kvplan_bad("prompt zero" "--prompt: must be positive\n$" prefill llama-3.1-8b --prompt 0)
kvplan_bad("compare context zero" "--context: must be positive\n$" compare llama-3.1-8b --context 0)

# --- Arithmetic: every byte and token product is checked; an overflow is named by the flag and value
# that caused it (cli/options.cpp rethrow_naming_input), not by the figure it happened in.
# 10^9 heads: refused before any product (limits.hpp kMaxDimension, 2^20), named by its flag.
kvplan_bad("the issue's overflow" "^kvplan: error: --heads: 1,000,000,000 is past any real model's \\(kvplan takes at most 1,048,576\\)\n$"
  size --layers 4096 --heads 1000000000 --kv-heads 1000000000 --head-dim 1000000000 --context 4000000000)
# 131,072 B per token x 10^15 tokens = 1.3e20 > 2^64.
kvplan_bad("context overflows a sequence" "^kvplan: error: --context: 1000000000000000: the KV cache of one sequence overflows 2\\^64 B \\(131,072 B per token x 1,000,000,000,000,000 tokens\\)\n$"
  size llama-3.1-8b --context 1000000000000000)
# 131,072 B x 4,096 tokens = 2^29 B per sequence, x (2^64 - 1) users.
kvplan_bad("users overflow the total" "^kvplan: error: --users: 18446744073709551615: the KV cache of the users overflows 2\\^64 B \\(536,870,912 B per sequence x 18,446,744,073,709,551,615 users\\)\n$"
  size llama-3.1-8b --users 18446744073709551615)

# Prefill (core/src/prefill.cpp): 2 x heads x (head_dim_k + head_dim_v) FLOPs per causal pair; 2 x 2^63
# heads used to wrap to 0 FLOPs. A 2^64 - 1-token prompt has (2^64 - 1) x 2^63 causal pairs; k + 1 used to
# wrap and give 0 pairs.
# 2^63 heads are now refused before the FLOPs (past 2^20, limits.hpp kMaxDimension), by the flag.
kvplan_bad("prefill heads overflow" "^kvplan: error: --heads: 9,223,372,036,854,775,808 is past any real model's"
  prefill --layers 1 --heads 9223372036854775808 --kv-heads 1 --head-dim 1 --prompt 1000)
# The prompt is named with its value, as size names --context (cli/options.hpp naming_overflow).
kvplan_bad("prefill prompt overflow" "^kvplan: error: --prompt 18446744073709551615: the prefill FLOPs overflow 2\\^64 \\(2 x active parameters per token, plus the attention's causal pairs\\)\n$"
  prefill --layers 1 --heads 4 --head-dim 1 --prompt 18446744073709551615)

# --- Regressions of wrong numbers found while hardening (engines' own arithmetic).
# One 8-token window: exact KV is 8 x 4 B; TensorRT-LLM counts windowed layers in full,
# ceil((2^64 - 1) / 32) x 32 = 2^64 tokens: an overflow, it used to wrap to 0 B.
kvplan_bad("trtllm context wrap" "--context: 18446744073709551615: the KV cache of one sequence overflows 2\\^64 B under the engine's rules"
  size --layers 1 --heads 1 --head-dim 1 --window 8 --context 18446744073709551615 --engine trtllm)
# llama.cpp pads n_ctx to 256: ceil((2^64 - 1) / 256) x 256 = 2^64; it used to wrap to 0 cells.
kvplan_bad("llamacpp context wrap" "--context: 18446744073709551615: the KV cache of one sequence overflows 2\\^64 B under the engine's rules"
  size --layers 1 --heads 1 --head-dim 1 --window 8 --context 18446744073709551615 --engine llamacpp)
# Every layer Mamba (period 8, offset 4, 2 layers): SGLang's token pool divided by a zero cell size.
kvplan_bad("sglang without attention layers" "--engine: SGLang's token pool is for attention layers and this model has none"
  size ${KVPLAN_REL}/all-mamba.json --engine sglang --kv-memory 1GiB)
# Mistral 7B v0.1 with sliding_window 2^64 - 1: vLLM holds min(W - 1 + 8,192, 100,000) = 100,000 tokens:
# ceil(100,000 / 16) + 1 = 6,251 pages of 16 x 8 x (128 + 128) x 2 B = 65,536 B, 32 layers in one group:
# 65,536 x 6,251 x 32 = 13,109,297,152 B. W - 1 + 8,192 used to wrap to 8,190 (513 pages, 1,075,838,976 B).
kvplan_cli_ok("catalogue: vllm window near 2^64" "\"engine\": [{][^}]*\"kv_bytes_total\": 13109297152,"
  size ${KVPLAN_REL}/window-near-2-64.json --engine vllm --context 100000 --json)

# --- The fuzz targets, without libFuzzer: their seed corpora and every regression input replay here
# (and under ASan + UBSan in the sanitizer build). A finding becomes a file in regressions/<target>/.
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
set(kvplan_fuzz_dir ${PROJECT_SOURCE_DIR}/fuzz)
foreach(target preset hf_config units size calibration safetensors gguf hf_cache hub)
  set(exe kvplan_replay_${target})
  add_executable(${exe} ${kvplan_fuzz_dir}/fuzz_${target}.cpp ${kvplan_fuzz_dir}/replay_main.cpp)
  target_link_libraries(${exe} PRIVATE kvplan::core kvplan::presets kvplan_warnings)
  target_compile_definitions(${exe} PRIVATE KVPLAN_SOURCE_PRESETS="${KVPLAN_PRESETS_DIR}")
  add_test(NAME "reliability: replay ${target}"
           COMMAND ${exe} ${kvplan_fuzz_dir}/corpus/${target}
                   ${CMAKE_CURRENT_SOURCE_DIR}/reliability/regressions/${target})
  set_tests_properties("reliability: replay ${target}" PROPERTIES ENVIRONMENT "${KVPLAN_TEST_ENVIRONMENT}")
endforeach()
# The scenario loader is the GUI logic library's (no widgets): replayed where the GUI is built.
if(TARGET kvplan_gui_logic)
  add_executable(kvplan_replay_scenario ${kvplan_fuzz_dir}/fuzz_scenario.cpp ${kvplan_fuzz_dir}/replay_main.cpp)
  target_link_libraries(kvplan_replay_scenario PRIVATE kvplan::gui_logic kvplan_warnings)
  target_compile_definitions(kvplan_replay_scenario PRIVATE KVPLAN_SOURCE_PRESETS="${KVPLAN_PRESETS_DIR}")
  add_test(NAME "reliability: replay scenario"
           COMMAND kvplan_replay_scenario ${kvplan_fuzz_dir}/corpus/scenario
                   ${CMAKE_CURRENT_SOURCE_DIR}/reliability/regressions/scenario)
endif()
target_sources(kvplan_replay_size PRIVATE ${PROJECT_SOURCE_DIR}/cli/options.cpp ${PROJECT_SOURCE_DIR}/cli/aliases.cpp
                                         ${PROJECT_SOURCE_DIR}/cli/launch.cpp ${PROJECT_SOURCE_DIR}/cli/render.cpp)
target_include_directories(kvplan_replay_size PRIVATE ${PROJECT_SOURCE_DIR}/cli)
target_link_libraries(kvplan_replay_size PRIVATE fmt::fmt CLI11::CLI11)

# --- Regressions of the size parser (found by fuzz_units): 30 decimals times 2^30 exceeded 128 bits.
# floor(6.514444444444444444444444441444 x 2^30) = 6,994,831,460 exactly (rational arithmetic); the
# fraction's product used to wrap and give 6,654,549,093.
kvplan_cli_ok("catalogue: size with 30 decimals" "\"memory_bytes\": 6994831460"
  size llama-3.1-8b --gpu-memory 6.514444444444444444444444441444GiB --json)

# --- Regressions of capped searches: max context and max users were searched below 2^50 or 2^40 and the
# cap reported as the limit (vLLM: "unbounded"). One layer, one head of dim 1, a whole 2^64 - 1 B GPU:
# fp8 K + V = 2 B per token: floor((2^64 - 1) / 2) = 9,223,372,036,854,775,807 tokens (was 2^50 - 1).
kvplan_cli_ok("catalogue: max context past 2^50" "\"max_context\": 9223372036854775807,"
  size --layers 1 --heads 1 --head-dim 1 --kv-dtype fp8 --gpu-memory 18446744073709551615 --weights 0
       --overhead 0 --gpu-util 1 --json)
# llama.cpp, f16: 4 B per cell. Context: 4 x pad(L, 256) <= 2^64 - 1 gives L = 2^62 - 256 =
# 4,611,686,018,427,387,648. Users at 4,096 tokens: 4 x 4,096 B per stream, floor((2^64 - 1) / 16,384)
# = 1,125,899,906,842,623 (was 2^40).
kvplan_cli_ok("catalogue: llamacpp max context and users past 2^40"
  "\"max_context\": 4611686018427387648,.*\"max_users\": 1125899906842623,"
  size --layers 1 --heads 1 --head-dim 1 --kv-dtype fp16 --gpu-memory 18446744073709551615 --weights 0
       --overhead 0 --gpu-util 1 --engine llamacpp --json)
# vLLM, fp16: a 16-token page of 4 B tokens is 64 B; floor((2^64 - 1) / 64) = 2^58 - 1 blocks hold
# 16 x (2^58 - 1) = 4,611,686,018,427,387,888 tokens: a limit, not "unbounded".
kvplan_cli_ok("catalogue: vllm max context past 2^40" "\"max_context\": 4611686018427387888,"
  size --layers 1 --heads 1 --head-dim 1 --kv-dtype fp16 --kv-memory 18446744073709551615 --engine vllm --json)

# A sliding_window of the wrong type was skipped (the model then planned as full attention, 8x too much).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sliding-window-string.json
     "{\"model_type\": \"mistral\", \"num_hidden_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 32000, \"sliding_window\": \"4096\"}")
kvplan_bad("sliding window as a string" "sliding-window-string.json: /sliding_window: must be a non-negative integer, got a string\n$"
  size ${CMAKE_CURRENT_BINARY_DIR}/sliding-window-string.json)
# fit searches every GPU count up to --max-gpus: a limit past 4,096 would run for minutes.
kvplan_bad("fit max gpus past its limit" "--max-gpus: 99999999: at most 4096 GPUs are searched\n$"
  fit llama-3.1-70b --context 32768 --users 16 --max-gpus 99999999)
# LFM2's width multiplier went through an unchecked double -> integer conversion (undefined past 2^64).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/lfm2-multiplier-huge.json
     "{\"model_type\": \"lfm2\", \"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"vocab_size\": 10, \"block_ff_dim\": 300, \"block_ffn_dim_multiplier\": 1e308, \"full_attn_idxs\": [1]}")
kvplan_bad("lfm2 width multiplier out of range" "lfm2-multiplier-huge.json: /block_ffn_dim_multiplier: must be a number in \\(0, 64\\] giving a width below 2\\^53, got 1e\\+308\n$"
  size ${CMAKE_CURRENT_BINARY_DIR}/lfm2-multiplier-huge.json)
