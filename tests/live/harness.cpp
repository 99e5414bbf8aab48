// The live suite's C++ harness: what node-llama-cpp's binding cannot pass to llama.cpp (kv_unified,
// n_rs_seq, n_batch apart from n_ubatch). Linked against the same prebuilt libllama that node-llama-cpp
// ships (tests/live/live.cmake), it loads a GGUF, creates one context and prints llama.cpp's log on
// stdout, then "context: ok" or "context: refused". Exit 0 either way; 2 on bad arguments; 1 when the
// model does not load.
//   kvplan-live-harness BACKEND_DIR MODEL n_ctx n_seq n_batch n_ubatch type_k type_v flash(0/1/-1)
//                       swa_full kv_unified n_rs_seq [n_outputs_max]
// n_outputs_max: llama-server's (tools/server/server-context.cpp server_output_limits: n_parallel x (1 +
// draft tokens), at most n_batch); 0 or absent: the library's default, n_batch.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ggml-backend.h"
#include "llama.h"

namespace {
/// Every line of llama.cpp's log, as it prints it, on stdout.
void log_line(ggml_log_level /*level*/, const char* text, void* /*user*/) { std::fputs(text, stdout); }

/// A number argument; exits 2 naming it when it is not one.
long number(const char* text, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0') {
    std::fprintf(stderr, "kvplan-live-harness: %s: not a number: '%s'\n", what, text);
    std::exit(2);
  }
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 13 && argc != 14) {
    std::fprintf(stderr,
                 "usage: kvplan-live-harness BACKEND_DIR MODEL n_ctx n_seq n_batch n_ubatch type_k type_v "
                 "flash(0/1/-1) swa_full kv_unified n_rs_seq [n_outputs_max] (types: ggml_type numbers)\n");
    return 2;
  }
  llama_log_set(log_line, nullptr);
  ggml_backend_load_all_from_path(argv[1]);  // the CPU backends are loadable modules
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(argv[2], mp);
  if (model == nullptr) {
    std::puts("model: not loaded");
    return 1;
  }
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(number(argv[3], "n_ctx"));
  cp.n_seq_max = static_cast<uint32_t>(number(argv[4], "n_seq"));
  cp.n_batch = static_cast<uint32_t>(number(argv[5], "n_batch"));
  cp.n_ubatch = static_cast<uint32_t>(number(argv[6], "n_ubatch"));
  cp.type_k = static_cast<ggml_type>(number(argv[7], "type_k"));
  cp.type_v = static_cast<ggml_type>(number(argv[8], "type_v"));
  const long fa = number(argv[9], "flash");
  cp.flash_attn_type = fa < 0 ? LLAMA_FLASH_ATTN_TYPE_AUTO
                              : (fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED);
  cp.swa_full = number(argv[10], "swa_full") != 0;
  cp.kv_unified = number(argv[11], "kv_unified") != 0;
  cp.n_rs_seq = static_cast<uint32_t>(number(argv[12], "n_rs_seq"));
  if (argc == 14) cp.n_outputs_max = static_cast<uint32_t>(number(argv[13], "n_outputs_max"));
  cp.n_threads = cp.n_threads_batch = 1;
  llama_context* ctx = llama_init_from_model(model, cp);
  std::fflush(stdout);
  std::puts(ctx != nullptr ? "context: ok" : "context: refused");
  if (ctx != nullptr) llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
