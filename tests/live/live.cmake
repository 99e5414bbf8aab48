# The live suite (docs/live-llamacpp.md): the real llama.cpp, through the pinned npm package
# node-llama-cpp@3.21.1 that scripts/setup.sh installs into tests/live/node_modules, allocates the KV
# cache of tiny GGUF files and kvplan must print its lines. One ctest per group of tests/live/cases.mjs.
# Without node, the package or the harness the tests run and fail, naming what is missing: never skipped.
find_program(KVPLAN_NODE node)
if(NOT KVPLAN_NODE)
  set(KVPLAN_NODE node)  # the tests fail: "node: not found"
endif()

# The harness (live/harness.cpp) for what node-llama-cpp's binding cannot pass (kv_unified, n_rs_seq,
# n_batch apart from n_ubatch): linked against the package's own prebuilt libllama, compiled against the
# headers setup.sh takes from the llama.cpp source the package ships (node_modules/.llama-headers).
set(live_dir ${CMAKE_CURRENT_SOURCE_DIR}/live/node_modules)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(live_platform linux-arm64)
else()
  set(live_platform linux-x64)
endif()
set(live_bins ${live_dir}/@node-llama-cpp/${live_platform}/bins/${live_platform})
set(live_harness_args)
if(EXISTS ${live_bins}/libllama.v0.4.0.so AND EXISTS ${live_dir}/.llama-headers/include/llama.h)
  add_executable(kvplan-live-harness live/harness.cpp)
  target_include_directories(kvplan-live-harness SYSTEM PRIVATE ${live_dir}/.llama-headers/include
                                                                ${live_dir}/.llama-headers/ggml/include)
  target_link_libraries(kvplan-live-harness PRIVATE ${live_bins}/libllama.v0.4.0.so
                                                    ${live_bins}/libggml.v0.4.0.so ${live_bins}/libggml-base.so
                                                    kvplan_warnings)
  set_target_properties(kvplan-live-harness PROPERTIES BUILD_RPATH ${live_bins})
  set(live_harness_args --harness $<TARGET_FILE:kvplan-live-harness> --backends ${live_bins})
else()
  message(STATUS "kvplan: no node-llama-cpp in ${live_dir} (scripts/setup.sh installs it): the "
                 "llamacpp-live tests will fail")
endif()

foreach(group dense iswa mla hybrid harness compute)
  add_test(NAME "llamacpp-live: ${group}"
           COMMAND ${KVPLAN_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/live/live.mjs --kvplan $<TARGET_FILE:kvplan>
                   ${live_harness_args} ${group})
  # The harness under a sanitizer build: llama.cpp's own allocations are not kvplan's to leak-check.
  set_tests_properties("llamacpp-live: ${group}" PROPERTIES TIMEOUT 120 PROCESSORS 1
                       ENVIRONMENT "${KVPLAN_TEST_ENVIRONMENT};ASAN_OPTIONS=detect_leaks=0")
endforeach()
