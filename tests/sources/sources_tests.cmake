# Model sources (GGUF headers): fixtures written at test time by tests/sources/make_gguf.py, then the real
# binary on them. Expected figures are worked by hand in tests/test_gguf.cpp.
find_program(KVPLAN_PYTHON3 python3)
if(KVPLAN_PYTHON3)
  set(gguf_dir ${CMAKE_CURRENT_BINARY_DIR}/gguf)
  add_test(NAME "sources: write GGUF fixtures"
           COMMAND ${KVPLAN_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/sources/make_gguf.py ${gguf_dir})
  set_tests_properties("sources: write GGUF fixtures" PROPERTIES FIXTURES_SETUP kvplan_gguf)
  # 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token; weights 5,172,420,864 B from the tensors.
  kvplan_cli_ok("size GGUF: exact weights from the tensor infos"
    "\"bytes_per_token\": 131072,.*\"weights_bytes\": 5172420864,.*\"weights_source\": \"GGUF tensors [(]exact[)]\""
    size ${gguf_dir}/llama-3.1-8b-q4km.gguf --json)
  kvplan_cli_ok("size GGUF: the weights line" "weights +[0-9.]+ GiB, 8,030,261,312 parameters [(]GGUF tensors [(]exact[)][)]"
    size ${gguf_dir}/llama-3.1-8b-q4km.gguf)
  kvplan_cli_ok("show GGUF" "0-31 .*weights .*5,172,420,864 B.*GGUF tensors" show ${gguf_dir}/llama-3.1-8b-q4km.gguf)
  # ../shared/cases/engine-logs.json llamacpp-legacy-mla-gguf-deepseek-coder-v2-lite: n_ctx 16384 over 8 sequences,
  # K 16 x 192 and V 16 x 128 per head at f16: 6,144 x 27 x 2,048 x 8 B = 2592.00 MiB, V 1728.00 MiB.
  kvplan_cli_ok("size legacy-MLA GGUF under llama.cpp: K and V per head"
    "2048 cells, +27 layers, +8/8 seqs[)], K [(]f16[)]: 2592.00 MiB, V [(]f16[)]: 1728.00 MiB"
    size ${gguf_dir}/deepseek-coder-v2-lite-legacy.gguf --engine llamacpp --context 2048 --users 8 --weights 1GiB)
  kvplan_cli_bad("GGUF big-endian" "big-endian.gguf: version: a big-endian GGUF file"
    size ${gguf_dir}/big-endian.gguf)
  kvplan_cli_bad("GGUF truncated" "truncated.gguf: tensor 'blk.31.ffn_down.weight' offset: truncated header"
    size ${gguf_dir}/truncated.gguf)
  kvplan_cli_bad("GGUF unknown value type" "bad-type.gguf: general.architecture: unknown GGUF value type 13"
    size ${gguf_dir}/bad-type.gguf)
  # safetensors: a model folder, weights from its header (tests/sources/make_safetensors.py works 284,288 B).
  add_test(NAME "sources: write safetensors fixtures"
           COMMAND ${KVPLAN_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/sources/make_safetensors.py ${gguf_dir})
  set_tests_properties("sources: write safetensors fixtures" PROPERTIES FIXTURES_SETUP kvplan_safetensors)
  kvplan_cli_ok("size folder: exact weights from the safetensors header"
    "\"weights_bytes\": 284288,.*\"weights_source\": \"safetensors headers [(]exact[)]\""
    size ${gguf_dir}/tiny-llama --json)
  kvplan_cli_ok("size config.json: the architecture estimate" "\"weights_source\": \"architecture [(]estimate[)]\""
    size ${KVPLAN_FIXTURES}/llama-like/config.json --json)
  # A repo id from the Hub cache ($HF_HUB_CACHE), main or a commit; one that is not there names the folder.
  kvplan_cli_ok("size repo id from the HF cache"
    "\"weights_bytes\": 284288,.*\"weights_source\": \"safetensors headers [(]exact[)]\""
    size kvplan-test/tiny-llama --json)
  kvplan_cli_ok("size repo id at a commit from the HF cache" "kvplan-test/tiny-llama@0123456789abcdef0123456789abcdef01234567"
    size kvplan-test/tiny-llama --revision 0123456789abcdef0123456789abcdef01234567)
  kvplan_cli_bad("repo id not in the HF cache"
    "model: 'kvplan-test/absent' is not a preset, and revision 'main' of it is not in the Hugging Face cache [(]searched .*/hub[)]"
    size kvplan-test/absent)
  kvplan_cli_bad("--revision without a model" "--revision: needs a Hugging Face repo id as MODEL" size --revision main)
  foreach(t "cli: size repo id from the HF cache" "cli: size repo id at a commit from the HF cache"
            "cli: bad input: repo id not in the HF cache")
    set_tests_properties("${t}" PROPERTIES ENVIRONMENT "${KVPLAN_TEST_ENVIRONMENT};HF_HUB_CACHE=${gguf_dir}/hub;HF_HUB_OFFLINE=1")
  endforeach()
  foreach(t "cli: size folder: exact weights from the safetensors header" "cli: size repo id from the HF cache"
            "cli: size repo id at a commit from the HF cache")
    set_tests_properties("${t}" PROPERTIES FIXTURES_REQUIRED kvplan_safetensors)
  endforeach()
  foreach(t "cli: size legacy-MLA GGUF under llama.cpp: K and V per head"
            "cli: size GGUF: exact weights from the tensor infos" "cli: size GGUF: the weights line" "cli: show GGUF"
            "cli: bad input: GGUF big-endian" "cli: bad input: GGUF truncated" "cli: bad input: GGUF unknown value type")
    set_tests_properties("${t}" PROPERTIES FIXTURES_REQUIRED kvplan_gguf)
  endforeach()
  # The Hugging Face Hub through libcurl, against a local stand-in (tests/hub/hub_server.py, 127.0.0.1, a port
  # chosen at run time); each case in its own temporary caches (tests/hub/hub_cases.py works the figures).
  foreach(case qwen3 refresh config_only llama_gated not_found offline_miss no_network truncated slow not_json no_range short_range unwritable single
               many_shards deadline progress hostile_headers secrets gguf gguf_refusals)
    add_test(NAME "hub: ${case}" COMMAND ${KVPLAN_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/hub/hub_cases.py ${case}
                                         $<TARGET_FILE:kvplan>)
    set_tests_properties("hub: ${case}" PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "\nPASS\n")
  endforeach()
endif()
