// Every real config in tests/data/configs/ against the figures worked by hand in expected.json (the working
// and the reference modeling code are recorded beside each case). A case kvplan refuses names the key.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;

TEST_CASE("the config corpus gives its hand-worked figures", "[corpus]") {
  const std::string dir = KVPLAN_CORPUS;
  std::ifstream in(dir + "/expected.json");
  REQUIRE(in);
  const auto table = nlohmann::json::parse(in);
  REQUIRE(table.at("cases").size() >= 40);
  std::size_t recent = 0;
  for (const auto& c : table.at("cases")) {
    const std::string file = c.at("file");
    if (c.contains("year") && c.at("year").is_number() && c.at("year").get<int>() >= 2025) ++recent;
    INFO(file);
    if (c.contains("kvplan_refuses")) {
      const std::string key = c.at("kvplan_refuses");
      try {
        (void)presets::load_model_file(dir + "/" + file);
        FAIL("expected a refusal naming " + key);
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find(key) != std::string::npos);
      }
      continue;
    }
    const ModelSpec m = presets::load_model_file(dir + "/" + file);
    const auto& e = c.at("expected");
    const KvDtypes bf16;  // bf16 K and V; recurrent state at the dtypes the config declares
    CHECK(bytes_per_token(m, bf16).value == e.at("bytes_per_token").get<std::uint64_t>());
    CHECK(full_bytes_per_token(m, bf16).value == e.at("full_bytes_per_token").get<std::uint64_t>());
    CHECK(state_bytes_per_sequence(m, bf16).value == e.value("state_bytes_per_sequence", std::uint64_t{0}));
    CHECK(kv_bytes_per_sequence(m, bf16, Tokens{32768}).value ==
          e.at("kv_bytes_per_sequence_at_32768").get<std::uint64_t>());
  }
  CHECK(recent >= 20);
}
