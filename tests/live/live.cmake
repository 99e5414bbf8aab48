# The live suite (docs/live-llamacpp.md): the real llama.cpp, through the pinned npm package
# node-llama-cpp@3.21.1 that scripts/setup.sh installs into tests/live/node_modules, allocates the KV
# cache of tiny GGUF files and kvplan must print its lines. One ctest per group of tests/live/cases.mjs.
# Without node or the package the tests run and fail, naming what is missing: never skipped.
find_program(KVPLAN_NODE node)
if(NOT KVPLAN_NODE)
  set(KVPLAN_NODE node)  # the tests fail: "node: not found"
endif()
foreach(group dense iswa mla hybrid)
  add_test(NAME "llamacpp-live: ${group}"
           COMMAND ${KVPLAN_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/live/live.mjs --kvplan $<TARGET_FILE:kvplan> ${group})
  set_tests_properties("llamacpp-live: ${group}" PROPERTIES TIMEOUT 120 PROCESSORS 1)
endforeach()
