#include "kvplan/plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kvplan/format.hpp"
#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
/// Largest per-rank bytes of one sequence (KV + state) over the pipeline stages.
Bytes fullest_stage(const std::vector<StageBytes>& stages) {
  Bytes most{0};
  for (const auto& s : stages) most = std::max(most, s.kv_bytes + s.state_bytes);
  return most;
}

/// Whether `users` sequences of `context` tokens fit in `available` per GPU; false on overflow.
bool fits_at(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, std::uint64_t users,
             Bytes available, Tokens context) {
  try {
    return fullest_stage(per_gpu_sequence_bytes(m, t, context, p)) * users <= available;
  } catch (const Error&) {
    return false;
  }
}
}  // namespace

Gpu custom_gpu(Bytes memory) {
  Gpu g;
  g.id = "custom";
  g.name = "custom GPU";
  g.memory = memory;
  return g;
}

Bytes usable_memory(Bytes memory, double utilization) {
  if (!std::isfinite(utilization) || utilization <= 0.0 || utilization > 1.0)
    throw Error("gpu-util", "must be in (0, 1]");
  const long double v =
      std::floor(static_cast<long double>(memory.value) * static_cast<long double>(utilization));
  return Bytes{std::min<std::uint64_t>(memory.value, static_cast<std::uint64_t>(v))};
}

std::optional<Tokens> max_context_for(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                      std::uint64_t users, Bytes available) {
  if (users == 0) throw Error("users", "must be positive");
  // Every cached layer windowed: the cache stops growing at the largest window.
  if (full_bytes_per_token(m, t) == Bytes{0}) {
    std::uint64_t widest = 0;
    for (const auto& g : m.layers) widest = std::max(widest, g.attention.window);
    if (fits_at(m, t, p, users, available, Tokens{std::max<std::uint64_t>(widest, 1)})) return std::nullopt;
  }
  // The largest L with fits_at(L); memory needed is non-decreasing in L. Doubling from 1 brackets it
  // (the first failing length needs at most twice the memory of a fitting one, so below 2^63 bytes
  // available it is reached before the bytes overflow and nothing is thrown on the way, which the GUI's
  // series depend on for speed), then a binary search narrows the bracket. Lengths up to the top of uint64
  // are considered, so no cap is reported as a limit.
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  if (!fits_at(m, t, p, users, available, Tokens{1})) return Tokens{0};
  std::uint64_t lo = 1, hi = top;  // fits_at(lo); hi fails unless hi == top and it was never tested
  while (lo <= top / 2) {
    if (!fits_at(m, t, p, users, available, Tokens{lo * 2})) {
      hi = lo * 2;
      break;
    }
    lo *= 2;
  }
  if (hi == top && fits_at(m, t, p, users, available, Tokens{top})) return Tokens{top};
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits_at(m, t, p, users, available, Tokens{mid}) ? lo : hi) = mid;
  }
  return Tokens{lo};
}

namespace {
/// Under an engine that reports whole requests (vLLM, SGLang, TRT-LLM): the longest context at which
/// the engine's max_requests x replicas still reaches the users, the test make_plan's `fits` applies
/// at the given context; nullopt when it does at any length, which only a
/// model with every layer windowed (`windowed`: the engine found no limit for one request) can do.
/// Concurrency does not grow with the context, so doubling then bisecting finds it.
std::optional<Tokens> engine_max_context(const PlanInputs& in, Bytes available, bool windowed) {
  const Parallelism& par = in.deployment.parallel;
  const auto fits = [&](std::uint64_t context) {
    try {
      const EngineResult r = apply_engine(in.model, in.kv, par, Tokens{context}, 1, in.engine, available);
      return r.max_requests && checked_mul(*r.max_requests, par.dp, "max_users") >= in.users;
    } catch (const Error&) {
      return false;  // the bytes of this length overflow: it does not fit
    }
  };
  // 2^62 tokens: a request that still fits there fits at any length (its bytes stopped growing at
  // its windows); for any other model the bytes overflow long before (fits is then false).
  constexpr std::uint64_t top = std::uint64_t{1} << 62;
  if (!fits(1)) return Tokens{0};
  std::uint64_t lo = 1, hi = top;
  while (lo < top) {
    if (!fits(lo * 2)) {
      hi = lo * 2;
      break;
    }
    lo *= 2;
  }
  if (lo == top) return windowed ? std::nullopt : std::optional<Tokens>(Tokens{top});
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return Tokens{lo};
}
}  // namespace

Plan make_plan(const PlanInputs& in) { return make_plan(in, true); }

Plan make_plan(const PlanInputs& in, bool with_max_context) {
  const ModelSpec& m = in.model;
  validate(m);
  const Parallelism& par = in.deployment.parallel;
  validate_parallelism(m, par);
  if (in.context.value == 0) throw Error("context", "must be positive");
  if (in.users == 0) throw Error("users", "must be positive");

  Plan p;
  p.inputs = in;
  p.layers = num_layers(m);
  p.gpus = checked_mul(checked_mul(par.tp, par.pp, "gpus"), par.dp, "gpus");

  // An overflow names the figure it happened in (its --json key), not the arithmetic's generic "bytes".
  const auto figure = [](const char* name, const auto& compute) {
    try {
      return compute();
    } catch (const Error& e) {
      if (e.field() != "bytes") throw;
      throw Error(name, e.reason());
    }
  };
  std::uint64_t first = 0;
  for (const auto& g : m.layers) {
    GroupFigures f;
    f.group = g;
    f.first_layer = first;
    f.bytes_per_token_per_layer =
        figure("bytes_per_token", [&] { return layer_bytes_per_token(g.attention, in.kv); });
    f.bytes_per_token = figure("bytes_per_token", [&] { return f.bytes_per_token_per_layer * g.count; });
    f.kv_bytes_per_sequence = figure(
        "kv_bytes_per_sequence", [&] { return f.bytes_per_token * cached_tokens(g.attention, in.context); });
    f.state_bytes_per_sequence =
        figure("state_bytes_per_sequence", [&] { return layer_state_bytes(g.attention, in.kv) * g.count; });
    p.groups.push_back(f);
    first += g.count;
  }

  p.bytes_per_token = figure("bytes_per_token", [&] { return bytes_per_token(m, in.kv); });
  p.full_bytes_per_token = figure("full_bytes_per_token", [&] { return full_bytes_per_token(m, in.kv); });
  p.kv_bytes_per_sequence =
      figure("kv_bytes_per_sequence", [&] { return kv_bytes_per_sequence(m, in.kv, in.context); });
  p.state_bytes_per_sequence =
      figure("state_bytes_per_sequence", [&] { return state_bytes_per_sequence(m, in.kv); });
  p.kv_bytes_total =
      figure("kv_bytes_total", [&] { return replica_sequence_bytes(m, in.kv, in.context, par) * in.users; });
  p.stages = figure("kv_bytes_total", [&] { return per_gpu_sequence_bytes(m, in.kv, in.context, par); });

  for (const auto& w : m.warnings) p.warnings.push_back(w);
  // Weights read from the checkpoint (GGUF tensor infos, safetensors headers) stand as given; --weights
  // still wins.
  const std::optional<Bytes> given = in.deployment.weights ? in.deployment.weights : m.weights_bytes;
  p.weights_from_architecture = !given.has_value();
  if (!m.weights_unknown.empty()) {
    // KV figures never need the MLP or the vocabulary; capacity does need the weights.
    if (!given && in.gpu && !in.kv_memory)
      throw Error("--weights", "the model's weights are unknown (" + m.weights_unknown +
                                   "): give the weights' size (--weights SIZE) for a capacity plan");
    if (!given)
      p.warnings.push_back("the model's weights are unknown (" + m.weights_unknown +
                           "): counted as 0 B; pass --weights");
    p.weights_bytes = given.value_or(Bytes{0});
  } else {
    p.parameters = parameter_count(m);
    p.active_parameters = active_parameter_count(m);
    p.weights_bytes = given.value_or(model_weight_bytes(m));
    if (!given && m.hidden_size == 0)
      p.warnings.push_back(
          "the model's weights are unknown (no hidden_size): counted as 0 B; pass --weights");
  }

  PerGpu& g = p.per_gpu;
  g.users = ceil_div(in.users, par.dp);
  g.bytes_per_sequence = fullest_stage(p.stages);
  g.kv_bytes_total = figure("per_gpu.kv_bytes_total", [&] { return g.bytes_per_sequence * g.users; });
  g.weights_bytes = Bytes{ceil_div(p.weights_bytes.value, checked_mul(par.tp, par.pp, "gpus"))};
  g.reserve_bytes = in.deployment.reserve;

  if (m.max_position_embeddings > 0 && in.context.value > m.max_position_embeddings)
    p.warnings.push_back("context " + format_count(in.context.value) +
                         " exceeds the model's max_position_embeddings " +
                         format_count(m.max_position_embeddings));

  if (!in.gpu && !in.kv_memory) {
    p.limit = "no GPU given: capacity not computed";
    p.engine = apply_engine(m, in.kv, par, in.context, g.users, in.engine, std::nullopt);
    return p;
  }
  p.has_gpu = true;
  if (in.kv_memory) {
    g.available_kv_bytes = *in.kv_memory;  // as the engine logs it: weights and reserve already out
  } else {
    g.usable_bytes = usable_memory(in.gpu->memory, in.deployment.gpu_memory_utilization);
    const Bytes fixed = figure("per_gpu.weights_bytes", [&] { return g.weights_bytes + g.reserve_bytes; });
    if (fixed > g.usable_bytes) {
      g.available_kv_bytes = Bytes{0};
      p.fits = false;
      p.max_users = 0;
      p.max_context = Tokens{0};
      p.limit = "weights (" + format_bytes(g.weights_bytes, UnitSystem::iec) + ") and reserve (" +
                format_bytes(g.reserve_bytes, UnitSystem::iec) + ") exceed the usable memory (" +
                format_bytes(g.usable_bytes, UnitSystem::iec) +
                ") per GPU: add GPUs (tp/pp) or use a smaller weight dtype";
      p.engine = apply_engine(m, in.kv, par, in.context, g.users, in.engine, std::nullopt);
      return p;
    }
    g.available_kv_bytes = g.usable_bytes - fixed;
  }
  p.fits = g.kv_bytes_total <= g.available_kv_bytes;
  g.free_bytes = p.fits ? g.available_kv_bytes - g.kv_bytes_total : Bytes{0};
  p.max_users =
      g.bytes_per_sequence == Bytes{0}
          ? 0
          : checked_mul(g.available_kv_bytes.value / g.bytes_per_sequence.value, par.dp, "max_users");
  if (with_max_context) p.max_context = max_context_for(m, in.kv, par, g.users, g.available_kv_bytes);
  p.ideal_max_users = p.max_users;
  p.ideal_max_context = p.max_context;

  // Each replica runs its own server: llama.cpp gets the users of one replica as its sequences.
  p.engine = apply_engine(m, in.kv, par, in.context, g.users, in.engine, g.available_kv_bytes);
  const EngineResult& e = p.engine;
  if (in.engine.engine == Engine::llamacpp) {
    // llama.cpp allocates what it is asked: the users' slots fit or not; max users by its own buffers,
    // which are also the KV per GPU (its padding, and --swa-full's full-size sliding caches, included).
    g.kv_bytes_total = e.kv_bytes_total;
    p.fits = e.kv_bytes_total <= g.available_kv_bytes;
    g.free_bytes = p.fits ? g.available_kv_bytes - e.kv_bytes_total : Bytes{0};
    const auto fits_users = [&](std::uint64_t n) {
      try {
        return apply_engine(m, in.kv, par, in.context, n, in.engine, std::nullopt).kv_bytes_total <=
               g.available_kv_bytes;
      } catch (const Error&) {
        return false;
      }
    };
    std::uint64_t lo = 0, hi = 1;
    while (hi < (1ULL << 63) && fits_users(hi)) hi *= 2;  // 2^63 users never fit: each needs cells
    if (fits_users(hi))
      lo = hi;
    else {
      if (hi > 1) lo = hi / 2;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fits_users(mid) ? lo : hi) = mid;
      }
    }
    p.max_users = checked_mul(lo, par.dp, "max_users");
    p.max_context = e.max_context ? std::optional<Tokens>(Tokens{*e.max_context}) : std::nullopt;
    // Every buffer of every replica (each device's share under a layer split).
    Bytes buffers{0};
    for (const auto& c : e.caches) buffers += c.k_bytes + c.v_bytes;
    p.kv_bytes_total = buffers * par.dp;
  } else if (in.engine.engine != Engine::ideal && e.max_requests) {
    // Whole requests, each in whole blocks (the engine's printed concurrency is tokens / context).
    p.max_users = checked_mul(*e.max_requests, par.dp, "max_users");
    p.fits = p.max_users >= in.users;
    // The KV per GPU is the engine's for the users (whole pages; vLLM's window reserve included).
    g.kv_bytes_total = figure("per_gpu.kv_bytes_total", [&] { return e.kv_bytes_total * g.users; });
    g.free_bytes =
        g.kv_bytes_total <= g.available_kv_bytes ? g.available_kv_bytes - g.kv_bytes_total : Bytes{0};
    // The same whole-request test as fits, at every length; for one request it agrees with the
    // engine's own longest request (EngineResult::max_context, e.g. vLLM's estimate_max_model_len).
    p.max_context = with_max_context ? engine_max_context(in, g.available_kv_bytes, e.max_context_unbounded)
                                     : std::nullopt;
  }
  const std::string where = in.kv_memory ? "KV memory" : "available per GPU";
  if (p.fits)
    p.limit =
        "fits: " + format_count(in.users) + " users x " + format_count(in.context.value) + " tokens within " +
        format_bytes(g.available_kv_bytes, UnitSystem::iec) + " " + where +
        (in.engine.engine == Engine::ideal ? "" : " (" + std::string(name(in.engine.engine)) + " rules)");
  else if (in.engine.engine == Engine::ideal)
    p.limit = "KV cache: " + format_count(in.users) + " users x " + format_count(in.context.value) +
              " tokens need " + format_bytes(g.kv_bytes_total, UnitSystem::iec) + " per GPU, only " +
              format_bytes(g.available_kv_bytes, UnitSystem::iec) + " " + where;
  else
    p.limit = "KV cache: under " + std::string(name(in.engine.engine)) + " rules only " +
              format_count(p.max_users) + (p.max_users == 1 ? " request of " : " requests of ") +
              format_count(in.context.value) + " tokens fit in " +
              format_bytes(g.available_kv_bytes, UnitSystem::iec) + " " + where + ", " +
              format_count(in.users) + " asked";
  return p;
}

}  // namespace kvplan
