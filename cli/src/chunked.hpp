// One large file searched on several threads: line-aligned chunks are searched in parallel and
// their lines reach the sink in file order, as one engine::search_buffer call over the whole file
// would give them. ripgrep searches a file on one thread; a multi-gigabyte log is where that shows.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "ctx/base/result.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "ctx/walker/per_thread.hpp"

namespace ctx::cli {

// Per-thread scratch space of one PatternSet for the chunks' searches (never the one the sink
// itself uses: the sink runs on the calling thread while chunks are searched elsewhere).
using ChunkScratches = walker::PerThread<std::optional<engine::PatternSet::Scratch>>;

struct ChunkedLimits {
  int threads = 0;  // threads that may search one file (-j; 0: one per core)
  std::size_t chunk_bytes = std::size_t{1} << 20;  // a chunk ends at the first line end past this
  std::size_t min_file_bytes = std::size_t{8} << 20;  // smaller files: one search_buffer call
  // Lines one chunk records before the caller takes over the rest of it (bounds the memory of a
  // file where nearly every line is reported).
  std::size_t max_chunk_lines = std::size_t{1} << 13;
};

// Whether `hay`, a whole file, may be searched in chunks under `options` (what the caller asks of
// the output is its part: no context lines, no -m, no stats; see the caller). True when: the file
// is large, `limits.threads` allows more than one thread, the search is whole-file and line by line
// (not multiline, lines end in '\n', the patterns never run over the buffer), the file starts with
// no BOM and is not decoded, and its first 64 KiB hold no NUL byte (so binary data can only be
// noticed in a reported line, which a chunk sees alone).
bool can_search_in_chunks(const engine::PatternSet& set, const engine::SearchOptions& options,
                          std::string_view hay, const ChunkedLimits& limits = {});

// Searches `hay` (mapped or held by `buffer`) in chunks on the current task arena's threads and
// gives `sink` exactly the calls search_buffer(set, ..., options, hay, sink) would (on_haystack
// first, on_finish last), on the calling thread. The chunks' searches borrow `buffer`'s mapping
// (FileBuffer::Borrow). Memory: at most four chunks per thread are recorded ahead of the sink.
Status search_in_chunks(const engine::PatternSet& set, ChunkScratches& scratches,
                        const engine::SearchOptions& options, std::string_view hay,
                        const engine::FileBuffer& buffer, engine::LineSink& sink,
                        const ChunkedLimits& limits = {});

}  // namespace ctx::cli
