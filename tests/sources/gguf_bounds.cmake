# Issue 25: strict GGUF reading, and hostile GGUF headers (written by make_gguf.py for the "sources: write GGUF fixtures" test)
# refused within 5 s and 512 MB, the issue's bound, each with one line naming the file and the field.
# Before, at 9309a5a: the 2 GiB string array took 12.4 s and 1.06 GB; the 2 GiB string and the keys
# read past the reader's buffer (a missing key, or a garbage value type, instead of the real reason).
# Included from tests/CMakeLists.txt after reliability/bounds.cmake (kvplan_bounded).
if(NOT KVPLAN_PYTHON3)  # make_gguf.py writes the files
  return()
endif()
set(kvplan_gguf_dir ${CMAKE_CURRENT_BINARY_DIR}/gguf)
set(kvplan_gguf_bound -DMAX_S=5 -DMAX_KB=512000 -DOUT_EMPTY=1)
if(KVPLAN_SANITIZE)
  set(kvplan_gguf_bound -DMAX_S=30 -DMAX_KB=512000 -DOUT_EMPTY=1)  # several times slower under ASan
endif()
kvplan_bounded("GGUF: a 1.9 GiB string in a 2 GiB sparse file" ${kvplan} 2
  "^kvplan: error: hostile-string-2gib.gguf: tokenizer.chat_template: the header runs past 256 MiB: refused"
  OPTIONS ${kvplan_gguf_bound} ARGS size ${kvplan_gguf_dir}/hostile-string-2gib.gguf)
kvplan_bounded("GGUF: 268 million empty tokens in a 2 GiB sparse file" ${kvplan} 2
  "^kvplan: error: hostile-tokens-2gib.gguf: tokenizer.ggml.tokens: the header runs past 256 MiB: refused"
  OPTIONS ${kvplan_gguf_bound} ARGS size ${kvplan_gguf_dir}/hostile-tokens-2gib.gguf)
kvplan_bounded("GGUF: 600,000 keys" ${kvplan} 2
  "^kvplan: error: hostile-keys.gguf: metadata\\[[0-9]+\\] key: the header keeps over 128 MiB"
  OPTIONS ${kvplan_gguf_bound} ARGS size ${kvplan_gguf_dir}/hostile-keys.gguf)
kvplan_bounded("GGUF: 397 bytes claiming 1 PiB of tensors" ${kvplan} 2
  "^kvplan: error: hostile-1pib.gguf: tensor 'token_embd.weight': its data \\(1125899906842624 B at offset [0-9]+\\) runs past the end of the file \\(397 B\\)"
  OPTIONS ${kvplan_gguf_bound} ARGS size ${kvplan_gguf_dir}/hostile-1pib.gguf)
foreach(t "GGUF: a 1.9 GiB string in a 2 GiB sparse file" "GGUF: 268 million empty tokens in a 2 GiB sparse file"
          "GGUF: 600,000 keys" "GGUF: 397 bytes claiming 1 PiB of tensors")
  set_tests_properties("bounds: ${t}" PROPERTIES FIXTURES_REQUIRED kvplan_gguf)
endforeach()

# Strictness: what llama.cpp refuses (or misread: a boolean head_count_kv was planned as MQA).
kvplan_cli_bad("GGUF boolean head_count_kv"
  "^kvplan: error: bool-kv-heads.gguf: llama.attention.head_count_kv: must be an unsigned integer or an array of them, not a boolean\n$"
  size ${kvplan_gguf_dir}/bool-kv-heads.gguf)
kvplan_cli_bad("GGUF duplicate tensor"
  "^kvplan: error: duplicate-tensor.gguf: tensor 'blk.0.attn_q.weight': duplicate tensor name [(]llama.cpp refuses the file[)]\n$"
  size ${kvplan_gguf_dir}/duplicate-tensor.gguf)
kvplan_cli_bad("GGUF 9 of 8 experts"
  "^kvplan: error: experts-9-of-8.gguf: llama.expert_used_count: 9 must be in 1..8 [(]expert_count[)]\n$"
  size ${kvplan_gguf_dir}/experts-9-of-8.gguf)
foreach(t "GGUF boolean head_count_kv" "GGUF duplicate tensor" "GGUF 9 of 8 experts")
  set_tests_properties("cli: bad input: ${t}" PROPERTIES FIXTURES_REQUIRED kvplan_gguf)
endforeach()
