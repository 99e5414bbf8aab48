// Tests for core/streaming.hpp: StreamingLLM's sink + recent cap on full-attention layers.
#include <catch2/catch.hpp>

#include "kvplan/kv.hpp"
#include "kvplan/streaming.hpp"
#include "test_support.hpp"

using namespace kvplan;

TEST_CASE("attention sinks cap full layers at sink + recent tokens", "[streaming]") {
  // 2 full layers and 2 sliding (window 512) layers, 8 KV heads x 128, bf16: 8 x 128 x 2 x 2 B = 4,096 B
  // per layer per token.
  const ModelSpec m =
      test::model({{test::gqa(32, 8, 128), 2}, {test::gqa(32, 8, 128, AttentionKind::sliding, 512), 2}});
  const ModelSpec s = with_attention_sinks(m, 4, 1020);
  KvDtypes t;
  // At 32,768 tokens: full layers keep 4 + 1,020 = 1,024 tokens, sliding ones 512:
  // 2 x 4,096 x 1,024 + 2 x 4,096 x 512 = 8,388,608 + 4,194,304 = 12,582,912 B.
  CHECK(kv_bytes_per_sequence(s, t, Tokens{32768}) == Bytes{12'582'912});
  // Below the cap nothing changes: 2 x 4,096 x 100 x 2 groups = 1,638,400 B.
  CHECK(kv_bytes_per_sequence(s, t, Tokens{100}) == kv_bytes_per_sequence(m, t, Tokens{100}));
  CHECK(kv_bytes_per_sequence(s, t, Tokens{100}) == Bytes{1'638'400});
  // Nothing grows past the cap any more.
  CHECK(full_bytes_per_token(s, t) == Bytes{0});
  CHECK(s.warnings.empty());
}

TEST_CASE("attention sinks leave MLA layers and say so; bad values name the flag", "[streaming]") {
  const ModelSpec m = test::model({{test::mla(16, 512, 64), 3}});
  const ModelSpec s = with_attention_sinks(m, 4, 1020);
  CHECK(s.layers == m.layers);
  REQUIRE(s.warnings.size() == 2);
  CHECK_THAT(s.warnings[0], Catch::Contains("MLA layers are not capped"));
  CHECK_THROWS_WITH(with_attention_sinks(m, 4, 0), Catch::StartsWith("recent_window:"));
  CHECK_THROWS_WITH(with_attention_sinks(m, ~0ULL, 2), Catch::StartsWith("sink_tokens:"));
}
