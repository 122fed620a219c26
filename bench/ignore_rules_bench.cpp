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

// The glob lines of GitHub's C and Python .gitignore templates (the shapes a real root
// .gitignore holds: `*.[aos]`-style classes, `*.py[cod]`, `lib*`, `[Dd]ebug`), matched against
// ordinary source file names: the per-entry cost a walk of a typical project pays.
constexpr const char* kTemplateRules =
    "*.d\n*.o\n*.ko\n*.obj\n*.elf\n*.ilk\n*.map\n*.exp\n*.gch\n*.pch\n*.lib\n*.a\n*.la\n"
    "*.lo\n*.dll\n*.so\n*.so.*\n*.dylib\n*.exe\n*.out\n*.app\n*.i*86\n*.x86_64\n*.hex\n"
    "*.dSYM/\n*.su\n*.idb\n*.pdb\n*.mod*\n*.cmd\n.tmp_versions/\nmodules.order\n"
    "Module.symvers\nMkfile.old\ndkms.conf\n__pycache__/\n*.py[cod]\n*$py.class\n*.[aos]\n"
    "*.sw[a-p]\n[Dd]ebug/\n[Rr]elease/\nlib*.so\n*.egg-info/\n.Python\nbuild/\n"
    "develop-eggs/\ndist/\n*.manifest\n*.spec\npip-log.txt\n.coverage\n.coverage.*\n"
    "*.cover\n*.py,cover\n.hypothesis/\n*.mo\n*.pot\n*.log\n*.sage.py\n.env\n.venv\n"
    "env/\nvenv/\n*~\n.#*\n\\#*\\#\n*.[0-9]\n";

void BM_IgnoreRulesTemplate(benchmark::State& state) {
  auto rules = ctx::walker::IgnoreRules::parse(kTemplateRules, {});
  std::vector<std::string> paths = {
      "src/main.cpp", "src/util.h",      "README.md",    "setup.py",     "lib/parse.c",
      "lib/parse.o",  "pkg/__init__.py", "pkg/core.pyc", "docs/conf.py", "Makefile",
      "tests",        "include/ctx.hpp", "debug",        "a.out",        "notes.txt"};
  std::size_t n = 0;
  for (auto _ : state) {
    for (const auto& p : paths) benchmark::DoNotOptimize(rules.match(p, p == "tests"));
    n += paths.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(n));
}
BENCHMARK(BM_IgnoreRulesTemplate);

}  // namespace
