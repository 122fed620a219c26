// TypeTable and TypeMatcher against ripgrep's -t/-T/--type-add/--type-clear/--type-list behavior.
#include "ctx/walker/types.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ctx/walker/glob.hpp"

namespace {

using ctx::walker::Glob;
using ctx::walker::GlobOptions;
using ctx::walker::MatchKind;
using ctx::walker::TypeMatcher;
using ctx::walker::TypeSelection;
using ctx::walker::TypeTable;

TypeMatcher build(const TypeTable& table, const std::vector<std::string>& select,
                  const std::vector<std::string>& negate = {}) {
  auto matcher = TypeMatcher::build(table, select, negate);
  REQUIRE(matcher.ok());
  return std::move(matcher).value();
}

std::string build_error(const TypeTable& table, const std::vector<std::string>& select,
                        const std::vector<std::string>& negate = {}) {
  auto matcher = TypeMatcher::build(table, select, negate);
  REQUIRE_FALSE(matcher.ok());
  CHECK(matcher.error().code == ctx::ErrorCode::kInvalidArgument);
  return matcher.error().detail;
}

std::string add_error(TypeTable& table, std::string_view spec) {
  auto status = table.add(spec);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().code == ctx::ErrorCode::kInvalidArgument);
  return status.error().detail;
}

}  // namespace

TEST_CASE("a selected type whitelists matching files and ignores the rest", "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  const TypeMatcher cpp = build(table, {"cpp"});
  CHECK_FALSE(cpp.empty());
  CHECK(cpp.match("foo.cc", false) == MatchKind::kWhitelist);
  CHECK(cpp.match("foo.hpp", false) == MatchKind::kWhitelist);
  CHECK(cpp.match("foo.H", false) == MatchKind::kWhitelist);
  CHECK(cpp.match("foo.cxx.in", false) == MatchKind::kWhitelist);
  CHECK(cpp.match("src/deep/foo.cpp", false) == MatchKind::kWhitelist);
  CHECK(cpp.match("foo.py", false) == MatchKind::kIgnore);
  CHECK(cpp.match("foo.cpp.bak", false) == MatchKind::kIgnore);
  CHECK(cpp.match("foo.Cpp", false) == MatchKind::kIgnore);  // globs are case-sensitive
  CHECK(cpp.match("cpp", false) == MatchKind::kIgnore);
  CHECK(cpp.match("foo.py", true) == MatchKind::kNone);  // directories are never judged
}

TEST_CASE("a negated type ignores its files and has no opinion on the others", "[walker][types]") {
  const TypeMatcher not_js = build(TypeTable::with_defaults(), {}, {"js"});
  CHECK_FALSE(not_js.empty());
  CHECK(not_js.match("a.js", false) == MatchKind::kIgnore);
  CHECK(not_js.match("web/a.mjs", false) == MatchKind::kIgnore);
  CHECK(not_js.match("a.rs", false) == MatchKind::kNone);
  CHECK(not_js.match("a.js", true) == MatchKind::kNone);
}

TEST_CASE("no -t or -T makes an empty matcher with no opinion", "[walker][types]") {
  const TypeMatcher none = build(TypeTable::with_defaults(), {});
  CHECK(none.empty());
  CHECK(none.match("a.rs", false) == MatchKind::kNone);
  CHECK(TypeMatcher{}.match("a.rs", false) == MatchKind::kNone);
}

TEST_CASE("default types match names, suffixes and general globs", "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  const TypeMatcher make = build(table, {"make"});
  CHECK(make.match("Makefile", false) == MatchKind::kWhitelist);
  CHECK(make.match("makefile.am", false) == MatchKind::kWhitelist);
  CHECK(make.match("GNUmakefile", false) == MatchKind::kWhitelist);
  CHECK(make.match("gnuMakefile", false) == MatchKind::kIgnore);
  CHECK(make.match("Makefile.linux", false) == MatchKind::kWhitelist);
  CHECK(make.match("rules.mk", false) == MatchKind::kWhitelist);
  CHECK(make.match("Rakefile", false) == MatchKind::kIgnore);

  const TypeMatcher man = build(table, {"man"});
  CHECK(man.match("ls.1", false) == MatchKind::kWhitelist);
  CHECK(man.match("printf.3p", false) == MatchKind::kWhitelist);
  CHECK(man.match("x.n", false) == MatchKind::kWhitelist);
  CHECK(man.match("x.1z", false) == MatchKind::kIgnore);

  const TypeMatcher license = build(table, {"license"});
  CHECK(license.match("COPYING", false) == MatchKind::kWhitelist);
  CHECK(license.match("LICENSE-MIT", false) == MatchKind::kWhitelist);
  CHECK(license.match("licence.txt", false) == MatchKind::kWhitelist);
  CHECK(license.match("APACHE-2.0.txt", false) == MatchKind::kWhitelist);
  CHECK(license.match("THIRD-PARTY-LICENSE.md", false) == MatchKind::kWhitelist);
  CHECK(license.match("LICENSES", false) == MatchKind::kIgnore);
  CHECK(license.match("MIT", false) == MatchKind::kIgnore);

  const TypeMatcher sh = build(table, {"sh"});
  CHECK(sh.match(".bashrc", false) == MatchKind::kWhitelist);
  CHECK(sh.match("home/.zshrc", false) == MatchKind::kWhitelist);
  CHECK(sh.match("x.bashrc", false) == MatchKind::kWhitelist);
  CHECK(sh.match(".sh", false) == MatchKind::kWhitelist);  // `*` may match nothing
  CHECK(sh.match("bashrcx", false) == MatchKind::kIgnore);

  const TypeMatcher docker = build(table, {"docker"});
  CHECK(docker.match("Dockerfile", false) == MatchKind::kWhitelist);
  CHECK(docker.match("app.Dockerfile.dev", false) == MatchKind::kWhitelist);
  CHECK(docker.match("dockerfile", false) == MatchKind::kIgnore);
}

TEST_CASE("--type-add defines a new type that -t can select", "[walker][types]") {
  TypeTable table = TypeTable::with_defaults();
  REQUIRE(table.add("foo:*.foo").ok());
  REQUIRE(table.add("bar:*.bar").ok());
  CHECK(table.has("foo"));
  CHECK(table.list().find("\nfoo: *.foo\n") != std::string::npos);
  const TypeMatcher foo = build(table, {"foo"});
  CHECK(foo.match("x.foo", false) == MatchKind::kWhitelist);
  CHECK(foo.match("x.bar", false) == MatchKind::kIgnore);  // defined but not selected

  // Adding to an existing type appends.
  REQUIRE(table.add("rust:*.rs.in").ok());
  CHECK(table.list().find("\nrust: *.rs, *.rs.in\n") != std::string::npos);
  CHECK(build(table, {"rust"}).match("lib.rs.in", false) == MatchKind::kWhitelist);
}

TEST_CASE("--type-add takes several globs and brace alternatives", "[walker][types]") {
  TypeTable table;
  REQUIRE(table.add("foo:*.a,*.{b,c},x[,]y").ok());
  CHECK(table.globs("foo") == std::vector<std::string>{"*.a", "*.{b,c}", "x[,]y"});
  CHECK(table.list() == "foo: *.a, *.{b,c}, x[,]y\n");
  const TypeMatcher foo = build(table, {"foo"});
  CHECK(foo.match("z.a", false) == MatchKind::kWhitelist);
  CHECK(foo.match("z.b", false) == MatchKind::kWhitelist);
  CHECK(foo.match("z.c", false) == MatchKind::kWhitelist);
  CHECK(foo.match("x,y", false) == MatchKind::kWhitelist);
  CHECK(foo.match("z.{b,c}", false) == MatchKind::kIgnore);
  CHECK(foo.match("z.d", false) == MatchKind::kIgnore);

  // Nested groups and empty branches, as globset: `{,x}` is `x`.
  REQUIRE(table.add("bar:*.{t{ar,gz},,zip}").ok());
  const TypeMatcher bar = build(table, {"bar"});
  CHECK(bar.match("a.tar", false) == MatchKind::kWhitelist);
  CHECK(bar.match("a.tgz", false) == MatchKind::kWhitelist);
  CHECK(bar.match("a.zip", false) == MatchKind::kWhitelist);
  CHECK(bar.match("a.", false) == MatchKind::kIgnore);
  CHECK(bar.match("a.t", false) == MatchKind::kIgnore);
}

TEST_CASE("an include definition copies the globs of other types", "[walker][types]") {
  TypeTable table = TypeTable::with_defaults();
  REQUIRE(table.add("foo:*.foo").ok());
  REQUIRE(table.add("bar:include:foo,cpp").ok());
  const TypeMatcher bar = build(table, {"bar"});
  CHECK(bar.match("x.foo", false) == MatchKind::kWhitelist);
  CHECK(bar.match("y.cpp", false) == MatchKind::kWhitelist);
  CHECK(bar.match("y.rs", false) == MatchKind::kIgnore);

  // The copy is taken at definition time: clearing foo later leaves bar whole.
  table.clear("foo");
  CHECK(build(table, {"bar"}).match("x.foo", false) == MatchKind::kWhitelist);

  CHECK(add_error(table, "baz:include:cpp,nope") ==
        "invalid type definition 'baz:include:cpp,nope': unrecognized file type: nope "
        "(see --type-list)");
  CHECK_FALSE(table.has("baz"));  // nothing added on error
}

TEST_CASE("--type-clear removes a type and lets it be redefined", "[walker][types]") {
  TypeTable table = TypeTable::with_defaults();
  table.clear("rust");
  CHECK_FALSE(table.has("rust"));
  CHECK(table.list().find("\nrust:") == std::string::npos);
  CHECK(build_error(table, {"rust"}) == "unrecognized file type: rust (see --type-list)");
  table.clear("no-such-type");  // harmless

  REQUIRE(table.add("rust:*.rsx").ok());
  CHECK(table.list().find("\nrust: *.rsx\n") != std::string::npos);
  const TypeMatcher rust = build(table, {"rust"});
  CHECK(rust.match("a.rsx", false) == MatchKind::kWhitelist);
  CHECK(rust.match("a.rs", false) == MatchKind::kIgnore);
}

TEST_CASE("malformed type definitions are rejected with the spec and the form", "[walker][types]") {
  TypeTable table = TypeTable::with_defaults();
  const std::string before = table.list();
  const std::string form = "expected name:glob or name:include:type[,type...]";
  CHECK(add_error(table, "foo") == "invalid type definition 'foo': " + form);
  CHECK(add_error(table, "foo:") == "invalid type definition 'foo:': " + form);
  CHECK(add_error(table, ":*.foo") == "invalid type definition ':*.foo': " + form);
  CHECK(add_error(table, "foo:*.a,,*.b") == "invalid type definition 'foo:*.a,,*.b': " + form);
  CHECK(add_error(table, "foo:bar:baz") == "invalid type definition 'foo:bar:baz': " + form);
  CHECK(add_error(table, "foo:include:") == "invalid type definition 'foo:include:': " + form);
  CHECK(add_error(table, "a:b:c:d") == "invalid type definition 'a:b:c:d': " + form);
  const std::string naming = "a type name is letters and digits, and not 'all'";
  CHECK(add_error(table, "all:*.x") == "invalid type definition 'all:*.x': " + naming);
  CHECK(add_error(table, "my-type:*.x") == "invalid type definition 'my-type:*.x': " + naming);
  CHECK(table.list() == before);
  CHECK(table.add("t\xc3\xa9st2:*.x").ok());  // Unicode letters are fine
}

TEST_CASE("an unknown type name is an error that points at --type-list", "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  CHECK(build_error(table, {"nope"}) == "unrecognized file type: nope (see --type-list)");
  CHECK(build_error(table, {"rust"}, {"nada"}) == "unrecognized file type: nada (see --type-list)");
}

TEST_CASE("malformed globs fail when their type is selected, as in ripgrep", "[walker][types]") {
  TypeTable table;
  REQUIRE(table.add("class:*.[ch").ok());
  REQUIRE(table.add("open:*.{a").ok());
  REQUIRE(table.add("close:a}").ok());
  REQUIRE(table.add("range:*.[z-a]").ok());
  REQUIRE(table.add("escape:a\\").ok());
  REQUIRE(table.add("fine:*.[]-]").ok());
  CHECK(build_error(table, {"class"}) ==
        "error parsing glob '*.[ch': unclosed character class; missing ']'");
  CHECK(build_error(table, {"open"}) ==
        "error parsing glob '*.{a': unclosed alternate group; missing '}' (maybe escape '{' with "
        "'[{]'?)");
  CHECK(build_error(table, {"close"}) ==
        "error parsing glob 'a}': unopened alternate group; missing '{' (maybe escape '}' with "
        "'[}]'?)");
  CHECK(build_error(table, {"range"}) == "error parsing glob '*.[z-a]': invalid range; 'z' > 'a'");
  CHECK(build_error(table, {"escape"}) == "error parsing glob 'a\\': dangling '\\'");
  CHECK(build(table, {"fine"}).match("x.]", false) == MatchKind::kWhitelist);
  CHECK(build(table, {"fine"}).match("x.-", false) == MatchKind::kWhitelist);
  // Unselected, a malformed glob does no harm.
  CHECK(TypeMatcher::build(table, {"fine"}, {}).ok());
}

TEST_CASE("all selects or negates every type", "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  const TypeMatcher all = build(table, {"all"});
  CHECK(all.match("main.rs", false) == MatchKind::kWhitelist);
  CHECK(all.match("Makefile", false) == MatchKind::kWhitelist);
  CHECK(all.match("README", false) == MatchKind::kWhitelist);
  CHECK(all.match("data.qqqq", false) == MatchKind::kIgnore);
  CHECK(all.match("src", true) == MatchKind::kNone);

  const TypeMatcher none = build(table, {}, {"all"});
  CHECK(none.match("main.rs", false) == MatchKind::kIgnore);
  CHECK(none.match("data.qqqq", false) == MatchKind::kNone);

  CHECK(build(TypeTable{}, {"all"}).empty());  // nothing to select
}

TEST_CASE("the last matching glob decides between a selected and a negated type",
          "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  // c has `*.[chH]`, cpp has `*.[ChH]`: both claim foo.h.
  const TypeMatcher c_not_cpp = build(table, {"c"}, {"cpp"});  // -t first, then -T
  CHECK(c_not_cpp.match("foo.h", false) == MatchKind::kIgnore);
  CHECK(c_not_cpp.match("foo.c", false) == MatchKind::kWhitelist);
  CHECK(c_not_cpp.match("foo.cc", false) == MatchKind::kIgnore);
  CHECK(c_not_cpp.match("foo.rs", false) == MatchKind::kIgnore);

  auto ordered = TypeMatcher::build(table, {TypeSelection{"cpp", true}, TypeSelection{"c", false}});
  REQUIRE(ordered.ok());
  CHECK(ordered->match("foo.h", false) == MatchKind::kWhitelist);
  CHECK(ordered->match("foo.cc", false) == MatchKind::kIgnore);

  // The order holds across fast paths: an extension glob against a later general glob.
  TypeTable custom;
  REQUIRE(custom.add("ext:*.x").ok());
  REQUIRE(custom.add("pre:f?*").ok());
  const TypeMatcher ext_then_pre = build(custom, {"ext"}, {"pre"});
  CHECK(ext_then_pre.match("f1.x", false) == MatchKind::kIgnore);
  CHECK(ext_then_pre.match("g.x", false) == MatchKind::kWhitelist);
  const TypeMatcher pre_then_ext = build(custom, {"pre"}, {"ext"});
  CHECK(pre_then_ext.match("f1.x", false) == MatchKind::kIgnore);
  CHECK(pre_then_ext.match("f1.y", false) == MatchKind::kWhitelist);
  auto reversed =
      TypeMatcher::build(custom, {TypeSelection{"ext", true}, TypeSelection{"pre", false}});
  REQUIRE(reversed.ok());
  CHECK(reversed->match("f1.x", false) == MatchKind::kWhitelist);
}

TEST_CASE("paths without a file name match no glob", "[walker][types]") {
  const TypeMatcher rust = build(TypeTable::with_defaults(), {"rust"});
  CHECK(rust.match("", false) == MatchKind::kIgnore);
  CHECK(rust.match("foo.", false) == MatchKind::kIgnore);
  CHECK(rust.match("src/..", false) == MatchKind::kIgnore);
  CHECK(rust.match("a.rs/b.txt", false) == MatchKind::kIgnore);
  const TypeMatcher not_rust = build(TypeTable::with_defaults(), {}, {"rust"});
  CHECK(not_rust.match("foo.", false) == MatchKind::kNone);
}

TEST_CASE("--type-list prints ripgrep's default table sorted by name", "[walker][types]") {
  const TypeTable table = TypeTable::with_defaults();
  const std::string list = table.list();
  CHECK(table.size() == 224);
  CHECK(std::count(list.begin(), list.end(), '\n') == 224);
  CHECK(list.starts_with("ada: *.adb, *.ads\nagda: *.agda, *.lagda\n"));
  CHECK(
      list.ends_with("\nzsh: *.zsh, .zlogin, .zlogout, .zprofile, .zshenv, .zshrc, zlogin, "
                     "zlogout, zprofile, zshenv, zshrc\nzstd: *.zst, *.zstd\n"));
  for (const char* line : {
           "\nrust: *.rs\n",
           "\npy: *.py, *.pyi\npython: *.py, *.pyi\n",
           "\ncpp: *.[ChH], *.[ChH].in, *.[ch]pp, *.[ch]pp.in, *.[ch]xx, *.[ch]xx.in, *.cc, "
           "*.cc.in, *.hh, *.hh.in, *.inl\n",
           "\nmake: *.mak, *.mk, Makefile.*, [Gg][Nn][Uu]makefile, [Gg][Nn][Uu]makefile.am, "
           "[Gg][Nn][Uu]makefile.in, [Mm]akefile, [Mm]akefile.am, [Mm]akefile.in\n",
           "\nts: *.cts, *.mts, *.ts, *.tsx\n",
           "\nvim: *.vim, .gvimrc, .vimrc, _gvimrc, _vimrc, gvimrc, vimrc\n",
       }) {
    INFO(line);
    CHECK(list.find(line) != std::string::npos);
  }
  // Names sort bytewise, as ripgrep's BTreeMap.
  const std::vector<std::string> names = table.names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(TypeTable{}.list().empty());
}

TEST_CASE("the indexed matcher agrees with matching every glob in order", "[walker][types]") {
  // Prefilter then confirm: the hash maps and literal prefilters must never change a verdict.
  const TypeTable table = TypeTable::with_defaults();
  std::vector<TypeSelection> selections;
  std::vector<std::pair<Glob, bool>> reference;  // every selected glob in order, negated?
  std::vector<std::string> names = {"Makefile",
                                    "Makefile.in",
                                    "makefile.am",
                                    "LICENSE",
                                    "LICENSE-MIT",
                                    "COPYING.txt",
                                    "README.md",
                                    "README",
                                    "x.tar.gz",
                                    ".bashrc",
                                    "x.bashrc",
                                    "Dockerfile",
                                    "a.rs",
                                    "a.h",
                                    "a.hpp",
                                    "a.cpp.in",
                                    "x.1",
                                    "x.3p",
                                    "no_ext",
                                    ".hidden",
                                    "a.b.c",
                                    "CMakeLists.txt",
                                    "gpl-3.0.txt",
                                    "x.d.ts",
                                    "Cargo.lock",
                                    "a.aspx.cs",
                                    "docker-compose.prod.yml",
                                    "x",
                                    "..x"};
  const std::vector<std::string> type_names = table.names();
  for (std::size_t i = 0; i < type_names.size(); ++i) {
    const bool negated = i % 3 == 1;
    selections.push_back({type_names[i], negated});
    for (const auto& glob : table.globs(type_names[i])) {
      reference.emplace_back(Glob::compile(glob, GlobOptions{.pathname = false}), negated);
      // A name each glob matches, and near misses.
      std::string name;
      for (std::size_t k = 0; k < glob.size(); ++k) {
        if (glob[k] == '*') {
          name += "q";
        } else if (glob[k] == '[') {
          name += glob[k + 1];
          k = glob.find(']', k + 2);
        } else {
          name += glob[k];
        }
      }
      names.push_back(name);
      names.push_back(name + "z");
      names.push_back("z" + name);
      names.push_back(name.substr(1));
    }
  }
  auto matcher = TypeMatcher::build(table, selections);
  REQUIRE(matcher.ok());
  for (const auto& name : names) {
    MatchKind expected = MatchKind::kIgnore;  // something is selected
    for (const auto& [glob, negated] : reference) {
      if (glob.matches(name)) expected = negated ? MatchKind::kIgnore : MatchKind::kWhitelist;
    }
    if (name.empty() || name.back() == '.') expected = MatchKind::kIgnore;
    INFO(name);
    CHECK(matcher->match(name, false) == expected);
  }
}
