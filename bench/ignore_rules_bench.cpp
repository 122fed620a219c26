// Paths per second through IgnoreRules::match for rule sets of growing size (a realistic mix of
// literal names, `*.ext`, anchored paths and `**` globs), the per-entry cost of a walk.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ctx/walker/ignore_rules.hpp"

namespace {

std::string make_rules(std::int64_t n) {
  std::string text;
  for (std::int64_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
        text += "name" + std::to_string(i) + "\n";
        break;
      case 1:
        text += "*.ext" + std::to_string(i) + "\n";
        break;
      case 2:
        text += "/dir" + std::to_string(i) + "/sub\n";
        break;
      case 3:
        text += "**/gen" + std::to_string(i) + "/*.o\n";
        break;
      default:
        text += "!keep" + std::to_string(i) + "[0-9].txt\n";
        break;
    }
  }
  return text;
}

void BM_IgnoreRulesMatch(benchmark::State& state) {
  auto rules = ctx::walker::IgnoreRules::parse(make_rules(state.range(0)), {});
  std::vector<std::string> paths = {"src/main.cpp",   "src/lib/util.h", "build/out/a.o",
                                    "docs/readme.md", "dir2/sub",       "node_modules/x/index.js"};
  std::size_t n = 0;
  for (auto _ : state) {
    for (const auto& p : paths) benchmark::DoNotOptimize(rules.match(p, false));
    n += paths.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(n));
}
BENCHMARK(BM_IgnoreRulesMatch)->RangeMultiplier(10)->Range(10, 10000);

}  // namespace
