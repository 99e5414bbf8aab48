#pragma once
/// @file plan.hpp
/// A whole plan: every figure for one model, dtype, context, user count and deployment,
/// with the inputs that produced it. The CLI and the GUI render a Plan; they compute nothing.

#include <optional>
#include <string>
#include <vector>

#include "kvplan/budget.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// A GPU: memory as the driver reports it (nvidia-smi's MiB x 2^20), bandwidth and dense bf16 peak.
struct Gpu {
  std::string id;
  std::string name;
  Bytes memory;
  std::uint64_t memory_bandwidth_bytes_per_s = 0;
  std::uint64_t bf16_dense_flops = 0;
  std::string source;
  /// One-way GPU-to-GPU bandwidth (NVLink, Infinity Fabric or PCIe; the datasheet's bidirectional
  /// figure halved): what a tensor-parallel all-reduce runs over. 0: unknown.
  std::uint64_t link_bandwidth_bytes_per_s = 0;
  bool fp8 = false;  ///< fp8 (e4m3/e5m2) tensor cores: fit tries an fp8 KV cache by default
  /// The memory the CUDA runtime reports (torch.cuda.mem_get_info's total, what vLLM budgets from): below
  /// nvidia-smi's figure (H100 80GB: 81,090 against 81,559 MiB). nullopt: unknown.
  std::optional<Bytes> runtime_memory;
  std::string runtime_memory_source;
  bool operator==(const Gpu&) const = default;
};

/// A GPU known only by its memory (the CLI's --gpu-memory, the GUI's custom memory): id "custom",
/// name "custom GPU", no bandwidth or FLOP figures.
Gpu custom_gpu(Bytes memory);

/// Default runtime reserve per GPU for the engines whose budget kvplan does not model component by
/// component (all but vLLM V1, whose budget is vllm_budget's): 1 GiB for the CUDA context, activations of
/// the forward pass and CUDA graphs, which the engine keeps outside weights and KV cache. Engines report
/// theirs at start-up (vLLM: "non-torch memory", "activation peak", "CUDA graph"); override it with the
/// figure your engine logs (Deployment::reserve).
inline constexpr Bytes kDefaultReserve{1ULL << 30};

/// Default share of GPU memory the engine may use (vLLM's gpu_memory_utilization default; TensorRT-LLM's and
/// llama.cpp's flat budgets use it too). SGLang's default depends on the GPU and the layout
/// (sglang_default_mem_fraction_static).
inline constexpr double kDefaultGpuUtilization = 0.90;

/// How the model is served.
struct Deployment {
  Parallelism parallel;
  /// In (0, 1]: vLLM's gpu_memory_utilization, SGLang's mem_fraction_static. nullopt: the engine's default
  /// (kDefaultGpuUtilization; SGLang's from its server_args.py); MemoryBudget::utilization says which.
  std::optional<double> gpu_memory_utilization;
  /// Runtime reserve per GPU given by the user (--overhead): replaces the engine's modelled budget
  /// components (activation, non-torch, CUDA graphs). nullopt: the engine's (vLLM V1: vllm_budget; the
  /// others: kDefaultReserve).
  std::optional<Bytes> reserve;
  std::optional<Bytes> weights;  ///< whole-model weights; default: from the architecture
  /// Data-parallel attention with expert parallel (SGLang `--tp T --dp N --enable-dp-attention`; vLLM
  /// `--tensor-parallel-size T/N --data-parallel-size N --enable-expert-parallel`): each replica's tp
  /// GPUs run attention as N data-parallel ranks of tp / N GPUs each, every rank holding only its own
  /// sequences' KV, and split the routed experts over all tp GPUs (EP = tp). 1: off. N must divide tp;
  /// MoE models only. See attention_parallelism and dp_attention_weight_bytes.
  std::uint64_t dp_attention = 1;
  bool operator==(const Deployment&) const = default;
};

/// The parallelism the KV cache sees: with DP attention N, {tp / N, pp, dp x N} (N attention ranks per
/// replica, each its own set of sequences, SGLang's compute_dp_attention_world_info: attn_tp_size =
/// tp_size // dp_size); else d.parallel. Throws kvplan::Error("dp_attention", ...) when N is 0 or does
/// not divide tp.
Parallelism attention_parallelism(const Deployment& d);

/// Weights per GPU under DP attention N of `total` whole-model weight bytes, of which `experts` are the
/// routed experts: ceil((total - experts) / (tp / N x pp)) + ceil(experts / (tp x pp)). The non-expert
/// share (embeddings, attention, dense and shared MLPs, norms) is replicated on every attention rank
/// and split by its tp; the routed experts are split over EP = tp (vLLM's expert_parallel_deployment:
/// EP size = TP x DP). With N = 1: ceil(total / (tp x pp)), as without DP attention. Throws
/// kvplan::Error("dp_attention", ...) as attention_parallelism, and when experts > total.
Bytes dp_attention_weight_bytes(const Deployment& d, Bytes total, Bytes experts);

/// Everything a plan depends on.
struct PlanInputs {
  ModelSpec model;
  KvDtypes kv;
  Tokens context{4096};
  std::uint64_t users = 1;
  Deployment deployment;
  std::optional<Gpu> gpu;  ///< none: figures without capacity (unless kv_memory is given)
  EngineOptions engine;    ///< whose allocation rules apply (default: ideal, the exact layout)
  /// KV-cache memory per GPU as the engine logs it (vLLM's "Available KV cache memory"); replaces
  /// memory x utilisation - weights - reserve when given.
  std::optional<Bytes> kv_memory;
  /// kv_memory is already every stage's pool, not rank 0's figure: a vLLM log with several stages' lines,
  /// of which the smallest was taken (nodes each log their own first rank's). Only read under vLLM with
  /// pp > 1 (make_plan then takes kv_memory as it is).
  bool kv_memory_is_pool = false;
  bool operator==(const PlanInputs&) const = default;
};

/// One layer group's figures, for the layout view.
struct GroupFigures {
  LayerGroup group;
  std::uint64_t first_layer = 0;
  Bytes bytes_per_token_per_layer;  ///< whole layer (tp = 1)
  Bytes bytes_per_token;            ///< x count
  Bytes kv_bytes_per_sequence;      ///< at the plan's context
  Bytes state_bytes_per_sequence;
};

/// Per-GPU figures (the fullest pipeline stage decides).
struct PerGpu {
  std::uint64_t users = 0;   ///< sequences this GPU serves: ceil(users / (dp x dp_attention))
  Bytes bytes_per_sequence;  ///< KV + state of one sequence on this GPU (fullest stage), exact layout
  Bytes kv_bytes_total;      ///< what the engine holds for the users (ideal: users x bytes_per_sequence)
  Bytes weights_bytes;       ///< ceil(weights / (tp x pp)); DP attention: dp_attention_weight_bytes
  Bytes reserve_bytes;       ///< runtime reserve
  Bytes usable_bytes;        ///< floor(memory x utilisation)
  Bytes available_kv_bytes;  ///< usable - weights - reserve (0 when negative)
  Bytes free_bytes;          ///< available - kv_bytes_total (0 when it does not fit)
};

/// What limits a plan, as data: each front end words it in the user's units (describe_limit).
struct Limit {
  enum class Kind {
    no_capacity,  ///< no GPU and no KV memory given: capacity not computed
    weights,      ///< weights + reserve exceed the usable memory per GPU
    fits,         ///< the users fit
    kv_cache,     ///< the users' KV cache does not fit
    concurrency,  ///< the KV cache holds the users, the engine runs fewer at once (vLLM max_num_seqs)
  };
  Kind kind = Kind::no_capacity;
  Engine engine = Engine::ideal;  ///< whose rules decided
  bool kv_memory_given = false;   ///< available is the engine's logged KV memory, not derived
  std::uint64_t users = 0;        ///< asked
  Tokens context{0};
  std::uint64_t max_users = 0;     ///< kv_cache under an engine: whole requests that fit
  std::uint64_t max_running = 0;   ///< concurrency: sequences the engine runs at once, over all replicas
  std::uint64_t kv_max_users = 0;  ///< concurrency: whole requests the KV cache holds, over all replicas
  Bytes weights;                   ///< per GPU
  Bytes reserve;                   ///< per GPU
  Bytes usable;                    ///< per GPU: memory x utilisation
  Bytes available;                 ///< per GPU, for the KV cache
  Bytes needed;                    ///< per GPU, the KV cache of the users (kv_cache)
  bool operator==(const Limit&) const = default;
};

/// One sentence for a limit, its sizes in `units` (e.g. "KV cache: 16 users x 32,768 tokens need 40 GiB
/// per GPU, only 37.8 GiB available per GPU").
std::string describe_limit(const Limit& l, UnitSystem units);

/// The result: every figure in exact bytes and tokens. Under an engine, every total and per-GPU figure
/// is what that engine allocates, GPU or not; the exact layout's stay in the ideal_* fields.
struct Plan {
  PlanInputs inputs;
  std::uint64_t layers = 0;
  std::uint64_t gpus = 1;  ///< tp x pp x dp
  std::vector<GroupFigures> groups;
  std::vector<StageBytes> stages;  ///< per pipeline stage, one rank, one sequence
  Bytes bytes_per_token;           ///< all cached layers, as if no window were full
  Bytes full_bytes_per_token;      ///< layers that never cap
  Bytes kv_bytes_per_sequence;     ///< one sequence at the context, KV only, whole model
  Bytes state_bytes_per_sequence;  ///< recurrent state of one sequence, whole model
  Bytes kv_bytes_total;        ///< KV + state of all users, summed over every GPU (replicas included), by the
                               ///< engine's rules
  Bytes ideal_kv_bytes_total;  ///< the same by the exact layout (equal under the ideal engine)
  Bytes ideal_per_gpu_kv_bytes_total;   ///< per_gpu.kv_bytes_total by the exact layout
  std::uint64_t parameters = 0;         ///< from the architecture
  std::uint64_t active_parameters = 0;  ///< per token (MoE: active experts)
  Bytes weights_bytes;                  ///< whole model
  bool weights_from_architecture = true;
  PerGpu per_gpu;
  bool has_gpu = false;  ///< capacity computed (a GPU or kv_memory given)
  bool fits = false;     ///< only meaningful with capacity; under an engine, by its rules
  /// At the context, over all replicas (engine: the whole requests its pool holds, at most the sequences
  /// it runs at once: max_running_sequences).
  std::uint64_t max_users = 0;
  std::optional<Tokens> max_context;  ///< for the users; nullopt when unbounded (every layer windowed)
  std::uint64_t ideal_max_users = 0;  ///< the exact layout's figures, whatever the engine
  std::optional<Tokens> ideal_max_context;
  EngineResult engine;  ///< what the engine allocates and logs (ideal: the exact layout)
  /// The memory budget per GPU, component by component (with a GPU and no kv_memory): per_gpu's
  /// usable_bytes is its requested, reserve_bytes its activation + non-torch + CUDA graphs.
  MemoryBudget budget;
  Limit limit;  ///< what limits the plan (describe_limit words it)
  std::vector<std::string> warnings;
};

/// What make_plan needs of a model that no dtype, deployment, GPU or engine changes, worked out once:
/// the model validated (validate), its layer count, whether it has routed experts, and its weights from
/// the architecture (parameter_count, active_parameter_count, model_weight_bytes and
/// routed_expert_weight_bytes, core/weights.hpp). A search that plans one model many times (fit,
/// series, kvplan-bench --planner) prepares it once and passes it to make_plan. It refers to the model:
/// valid while that ModelSpec lives unchanged (as an EnginePolicy is).
class PreparedModel {
 public:
  /// Validates `m` (throws kvplan::Error as validate does) and works out its figures. A weight figure
  /// that overflows is kept, not thrown: make_plan throws it where it needs that figure, as before.
  explicit PreparedModel(const ModelSpec& m);
  /// The model prepared.
  [[nodiscard]] const ModelSpec& model() const { return *m_; }
  /// num_layers(model()).
  [[nodiscard]] std::uint64_t layers() const { return layers_; }
  /// Some layer group has routed experts (MlpSpec::num_experts > 0).
  [[nodiscard]] bool moe() const { return moe_; }
  /// parameter_count, active_parameter_count and model_weight_bytes of the model; throws the
  /// kvplan::Error that computing them threw (an overflow).
  [[nodiscard]] std::uint64_t parameters() const;
  [[nodiscard]] std::uint64_t active_parameters() const;
  [[nodiscard]] Bytes architecture_weight_bytes() const;
  /// routed_expert_weight_bytes of the model; throws the kvplan::Error that computing it threw.
  [[nodiscard]] Bytes routed_expert_weight_bytes() const;
  /// The layer groups numbered by their attention layer: element i is the class of model().layers[i],
  /// equal for groups whose AttentionLayer compare equal (their KV bytes per token, window and state are
  /// the same), numbered 0, 1, ... in order of first appearance. gpt-oss-120b: 36 groups, 2 classes.
  /// make_plan sums a figure over the classes (x their layers) instead of over the groups. Empty (no
  /// classes) for a model of more than 64 distinct attention layers: it is planned group by group.
  [[nodiscard]] const std::vector<std::uint32_t>& attention_classes() const { return classes_; }
  /// Most classes a model is numbered with (attention_classes).
  static constexpr std::size_t kMaxAttentionClasses = 64;
  /// How many classes attention_classes numbers.
  [[nodiscard]] std::size_t attention_class_count() const { return class_layers_.size(); }
  /// The layers of each class in the whole model (indexed by class).
  [[nodiscard]] const std::vector<std::uint64_t>& attention_class_layers() const { return class_layers_; }
  /// The attention layer of each class (its first group's), indexed by class.
  [[nodiscard]] const AttentionLayer& attention_class(std::size_t c) const {
    return m_->layers[class_first_[c]].attention;
  }
  /// The first group of class c (an index into model().layers).
  [[nodiscard]] std::size_t attention_class_group(std::size_t c) const { return class_first_[c]; }
  /// Layers of class c among the model's first `layer` layers (layer <= layers()): what a pipeline
  /// stage [first, end) holds of the class is class_layers_before(c, end) - class_layers_before(c,
  /// first). O(log groups).
  [[nodiscard]] std::uint64_t class_layers_before(std::size_t c, std::uint64_t layer) const;
  /// class_layers_before(c, layer) for every class c at once, into out[c] (out holds at least
  /// attention_class_count() values): one search for the group holding `layer`, not one per class.
  void class_layers_before_all(std::uint64_t layer, std::uint64_t* out) const;

 private:
  const ModelSpec* m_;
  std::uint64_t layers_ = 0;
  bool moe_ = false;
  std::uint64_t parameters_ = 0, active_parameters_ = 0;
  Bytes weights_{0}, experts_{0};
  std::optional<Error> weights_error_, experts_error_;
  std::vector<std::uint32_t> classes_;       // per group
  std::vector<std::uint64_t> class_layers_;  // per class
  std::vector<std::size_t> class_first_;     // per class: its first group
  std::vector<std::uint64_t> group_first_;   // per group: its first layer
  std::vector<std::uint64_t> class_prefix_;  // [c x (groups + 1) + g]: layers of class c in groups [0, g)
};

/// The warning when `context` passes the context limit `engine` derives for the model (context_limit.hpp
/// context_limit: its rule, numbers and what the engine does), or nullopt; one text for every command.
/// ideal: "context 100,000 exceeds the model's max_position_embeddings 1,024". With long_context_allowed
/// (the engine's long_context_env given, EngineOptions::long_context_allowed) it says the setting lets the
/// engine take the context instead of what the engine does without it.
std::optional<std::string> context_warning(const ModelSpec& m, Tokens context, Engine engine,
                                           bool long_context_allowed = false);

/// Computes a plan: the exact layout's figures, then one capacity step over the engine's EnginePolicy
/// (gpu_bytes for the users, max_requests at the context, max_context for the users). Validates the
/// model, parallelism, utilisation (finite, in (0, 1]), context and users (positive); throws
/// kvplan::Error naming the field on bad input or overflow.
Plan make_plan(const PlanInputs& in);

/// Re-throws `e`, an error raised while planning `in`: an overflow (units.hpp throw_overflow) as the
/// input that caused it, its key the field and its value first in the reason (Error("context",
/// "10000000000000: the KV cache of one sequence overflows 2^64 B (131,072 B per token x ... tokens)"),
/// Error("users", "N: ...")), instead of core's figure (kv_bytes_per_sequence means nothing to the user);
/// any other error as it is. Every head and dimension is bounded (limits.hpp kMaxDimension), so a token's
/// bytes fit: a sequence that does not is the context's, a total that does not the users'.
[[noreturn]] void rethrow_naming_input(const Error& e, const PlanInputs& in);

/// make_plan; with `with_max_context` false, max_context and ideal_max_context are left empty (not
/// searched for; the engine report's own max_context is still there): for figures swept over many
/// contexts (core/series.cpp).
Plan make_plan(const PlanInputs& in, bool with_max_context);

/// How much of a plan make_plan fills in. Every figure (bytes, tokens, users, fits, limit) is the same
/// in both.
enum class PlanDetail {
  full,     ///< everything: the layer groups, the warnings and the engine's report (rules, log lines, notes)
  figures,  ///< the figures only, for searches (fit, kvplan-bench --planner): Plan::groups and
            ///< Plan::warnings are left empty, Plan::inputs.model is a default ModelSpec (the model is
            ///< not copied), Plan::inputs.gpu keeps the GPU's id and figures but not its name or source
            ///< (no strings copied), and Plan::engine holds only its engine (policy->report is not called)
};

/// make_plan with the model prepared once: the same plan, without the per-model work. `model` must be
/// PreparedModel(in.model) of this very object (throws kvplan::Error("model", ...) when it was prepared
/// from another ModelSpec object). `detail` figures skips the strings and copies a search does not read
/// (PlanDetail); the errors thrown are the same, except those only the engine's report raises (an
/// overflow in a figure that the report alone computes, e.g. vLLM's logged token count).
Plan make_plan(const PreparedModel& model, const PlanInputs& in, bool with_max_context = true,
               PlanDetail detail = PlanDetail::full);

/// floor(memory x utilisation); throws kvplan::Error("gpu_util", ...) unless finite and in (0, 1].
Bytes usable_memory(Bytes memory, double utilization);

/// The memory fraction a plan applied: the user's gpu_memory_utilization, else the engine's default as its
/// budget took it (MemoryBudget::utilization: SGLang's mem_fraction_static for the GPU and layout), else
/// kDefaultGpuUtilization.
double applied_gpu_utilization(const Plan& p);

/// The most sequences one server (one replica; under DP attention one attention rank) of the plan's engine
/// runs at once, or nullopt where kvplan knows no cap. vLLM V1: max_num_seqs, the user's or `vllm serve`'s
/// default for the GPU (vllm/engine/arg_utils.py get_batch_defaults: 1,024 on GPUs of 70 GiB or more but
/// the A100, else 256), at most max_num_batched_tokens (vllm/config/scheduler.py refuses more), as the
/// memory budget took it (MemoryBudget::max_num_seqs) where it is modelled; no GPU and no max_num_seqs
/// given: nullopt. The scheduler admits no more (vllm/v1/core/sched/scheduler.py: running requests up to
/// max_num_seqs); the others wait. llama.cpp: kLlamacppMaxSequences, the slots one llama-server holds (it
/// refuses more at start-up). SGLang, TensorRT-LLM and vLLM V0: nullopt.
std::optional<std::uint64_t> max_running_sequences(const Plan& p, const PlanInputs& in);

/// The most sequences (slots, -np) one llama.cpp context holds: src/llama-cparams.h `#define LLAMA_MAX_SEQ
/// 256`; llama_init_from_model throws "n_seq_max must be <= 256" past it (src/llama-context.cpp).
inline constexpr std::uint64_t kLlamacppMaxSequences = 256;

/// The longest context at which `users` sequences fit in `available` bytes per GPU, exactly
/// (windows included); nullopt when it fits at any length (every cached layer is windowed).
std::optional<Tokens> max_context_for(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                      std::uint64_t users, Bytes available);

}  // namespace kvplan
