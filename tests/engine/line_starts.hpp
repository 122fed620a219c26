// The line starts PatternSet::find_line reports over a haystack (the prefiltered path of the
// searcher), for the engine tests that compare one matching path with another.
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"

namespace ctx::testing {

// Every matching line's start, in order. `include_end`: also a match found at hay.size() (the
// empty line after a final line feed); without it the search stops before that position.
inline std::vector<std::size_t> line_starts(const ctx::engine::PatternSet& set,
                                            std::string_view hay, bool include_end = false) {
  ctx::engine::PatternSet::Scratch scratch = set.make_scratch();
  std::vector<std::size_t> starts;
  std::size_t from = 0;
  while (include_end ? from <= hay.size() : from < hay.size()) {
    auto found = set.find_line(hay, from, scratch);
    REQUIRE(found.ok());
    if (!*found || (!include_end && (*found)->start >= hay.size())) break;
    starts.push_back((*found)->start);
    from = (*found)->end + 1;
  }
  return starts;
}

}  // namespace ctx::testing
