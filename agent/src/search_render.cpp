// render_search_page: one page of search results within the token budget. A page is planned by
// charging each piece's count (header, match line, context lines) against the budget, rendered,
// and the whole text counted once; a counter whose counts are not additive can make that whole
// count exceed the budget, and the page is then planned again with fewer items, so the items the
// structured output and the cursor claim are exactly the items the text shows.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "json_writer.hpp"
#include "search_results.hpp"
#include "tool_common.hpp"

namespace ctx::agent {
namespace {

struct Item {
  std::uint32_t file;
  std::uint32_t rank;  // the rank-th match of the file (content mode), else 0
};

// Up to `n` items of the canonical order from `offset`. Content: round r holds the r-th match of
// every file that has more than r, in path order. Other modes: files in path order.
std::vector<Item> canonical_slice(const SearchResults& results, std::uint64_t offset,
                                  std::size_t n) {
  std::vector<Item> out;
  const auto& files = results.files;
  if (results.mode != SearchMode::kContent) {
    for (std::uint64_t i = offset; i < files.size() && out.size() < n; ++i) {
      out.push_back({static_cast<std::uint32_t>(i), 0});
    }
    return out;
  }
  std::vector<std::size_t> counts;
  counts.reserve(files.size());
  for (const SearchFileHits& f : files) counts.push_back(f.matches.size());
  std::sort(counts.begin(), counts.end());
  // Skip whole rounds: round r has as many items as files with more than r matches.
  std::size_t round = 0;
  std::size_t below = 0;  // counts[0..below) <= round
  for (;;) {
    while (below < counts.size() && counts[below] <= round) ++below;
    const std::size_t in_round = counts.size() - below;
    if (in_round == 0) return out;
    if (offset < in_round) break;
    offset -= in_round;
    ++round;
  }
  std::vector<std::uint32_t> active;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].matches.size() > round) active.push_back(static_cast<std::uint32_t>(i));
  }
  std::size_t at = static_cast<std::size_t>(offset);
  while (out.size() < n && !active.empty()) {
    for (; at < active.size() && out.size() < n; ++at) {
      out.push_back({active[at], static_cast<std::uint32_t>(round)});
    }
    if (out.size() >= n) break;
    ++round;
    std::erase_if(active, [&](std::uint32_t f) { return files[f].matches.size() <= round; });
    at = 0;
  }
  return out;
}

std::string header_piece(std::string_view path) { return fmt::format("\n{}\n", text_path(path)); }
std::string match_piece(const SearchLine& line) {
  return fmt::format("{}:{}\n", line.number, line.text);
}
std::string context_piece(const SearchLine& line) {
  return fmt::format("{}-{}\n", line.number, line.text);
}
std::string item_piece(const SearchResults& results, const SearchFileHits& f) {
  if (results.mode == SearchMode::kCount) {
    return fmt::format("{}:{}\n", text_path(f.path), f.count);
  }
  return fmt::format("{}\n", text_path(f.path));
}

// Indices in `f.lines` of the context lines of match line `mi`: the contiguous non-matching
// lines within `context` lines before and after it.
void context_indices(const SearchFileHits& f, std::size_t mi, std::size_t context,
                     std::vector<std::size_t>& before, std::vector<std::size_t>& after) {
  before.clear();
  after.clear();
  const std::uint64_t number = f.lines[mi].number;
  for (std::size_t j = mi; j > 0; --j) {
    const SearchLine& l = f.lines[j - 1];
    if (l.is_match || l.number + 1 != f.lines[j].number || number - l.number > context) break;
    before.push_back(j - 1);
  }
  std::reverse(before.begin(), before.end());
  for (std::size_t j = mi + 1; j < f.lines.size(); ++j) {
    const SearchLine& l = f.lines[j];
    if (l.is_match || l.number != f.lines[j - 1].number + 1 || l.number - number > context) break;
    after.push_back(j);
  }
}

struct Page {
  std::vector<Item> items;          // in canonical order
  std::vector<bool> with_context;   // per item
  std::size_t context_omitted = 0;  // items whose context did not fit
  bool cut_by_budget = false;       // the next item did not fit the tokens (or bytes)
  bool cut_by_max_results = false;
  std::size_t refused_tokens = 0;  // what the first item that did not fit costs
};

class Planner {
 public:
  Planner(const SearchResults& results, const PageRequest& request, const CallContext& context,
          std::size_t reserve_tokens, std::size_t reserve_bytes)
      : results_(results), request_(request), counter_(context.counter) {
    max_tokens_ = request.max_tokens > reserve_tokens ? request.max_tokens - reserve_tokens : 0;
    const std::size_t max_bytes = context.config.limits.max_output_bytes;
    max_bytes_ = max_bytes > reserve_bytes ? max_bytes - reserve_bytes : 0;
  }

  // The page of at most `limit` items that fits.
  Page plan(const std::vector<Item>& candidates, std::size_t limit) {
    Page page;
    tokens_ = 0;
    bytes_ = 0;
    std::set<std::uint32_t> files_on_page;
    for (const Item& item : candidates) {
      if (page.items.size() >= limit) {
        page.cut_by_max_results = true;
        break;
      }
      const SearchFileHits& f = results_.files[item.file];
      std::size_t t = 0;
      std::size_t b = 0;
      auto charge = [&](const std::string& piece) {
        t += counter_.count(piece);
        b += piece.size();
      };
      if (results_.mode == SearchMode::kContent) {
        const bool first = !files_on_page.contains(item.file);
        if (first) charge(header_piece(f.path));
        if (!first && request_.context > 0) charge("--\n");
        charge(match_piece(f.lines[f.matches[item.rank]]));
      } else {
        charge(item_piece(results_, f));
      }
      if (!take(t, b)) {
        page.cut_by_budget = true;
        page.refused_tokens = t;
        break;
      }
      files_on_page.insert(item.file);
      page.items.push_back(item);
    }
    page.with_context.assign(page.items.size(), false);
    if (results_.mode != SearchMode::kContent || request_.context == 0) return page;
    // Context lines, match by match in canonical order, while they fit; a line shared by two
    // matches is charged once.
    std::map<std::uint32_t, std::set<std::size_t>> shown;  // file -> line indices on the page
    for (const Item& item : page.items) {
      shown[item.file].insert(results_.files[item.file].matches[item.rank]);
    }
    std::vector<std::size_t> before, after;
    for (std::size_t i = 0; i < page.items.size(); ++i) {
      const Item& item = page.items[i];
      const SearchFileHits& f = results_.files[item.file];
      context_indices(f, f.matches[item.rank], request_.context, before, after);
      if (before.empty() && after.empty()) {
        page.with_context[i] = true;
        continue;
      }
      std::set<std::size_t>& lines = shown[item.file];
      std::size_t t = 0;
      std::size_t b = 0;
      for (const auto* list : {&before, &after}) {
        for (std::size_t j : *list) {
          if (lines.contains(j)) continue;
          std::string piece = context_piece(f.lines[j]);
          t += counter_.count(piece);
          b += piece.size();
        }
      }
      if (!take(t, b)) {
        ++page.context_omitted;
        continue;
      }
      page.with_context[i] = true;
      lines.insert(before.begin(), before.end());
      lines.insert(after.begin(), after.end());
    }
    return page;
  }

 private:
  bool take(std::size_t t, std::size_t b) {
    if (tokens_ + t > max_tokens_ || bytes_ + b > max_bytes_) return false;
    tokens_ += t;
    bytes_ += b;
    return true;
  }

  const SearchResults& results_;
  const PageRequest& request_;
  const TokenCounter& counter_;
  std::size_t max_tokens_ = 0;
  std::size_t max_bytes_ = 0;
  std::size_t tokens_ = 0;
  std::size_t bytes_ = 0;
};

// The page's body text (without the footer) and its structured items.
void render_body(const SearchResults& results, const PageRequest& request, const Page& page,
                 std::string& text, JsonWriter& w) {
  // Group by file (path order), matches in line order.
  std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, bool>>> by_file;
  for (std::size_t i = 0; i < page.items.size(); ++i) {
    by_file[page.items[i].file].emplace_back(page.items[i].rank, page.with_context[i]);
  }
  if (results.mode != SearchMode::kContent) {
    w.key(results.mode == SearchMode::kCount ? "counts" : "files").begin_array();
    for (const auto& [file, ranks] : by_file) {
      const SearchFileHits& f = results.files[file];
      text += item_piece(results, f);
      if (results.mode == SearchMode::kCount) {
        w.begin_object().key("path");
        write_path(w, f.path);
        w.field("count", f.count).end_object();
      } else {
        write_path(w, f.path);
      }
    }
    w.end_array();
    return;
  }
  w.key("matches").begin_array();
  std::vector<std::size_t> before, after;
  bool first_file = true;
  for (auto& [file, ranks] : by_file) {
    const SearchFileHits& f = results.files[file];
    std::sort(ranks.begin(), ranks.end());
    std::set<std::size_t> lines;
    for (const auto& [rank, with_context] : ranks) {
      const std::size_t mi = f.matches[rank];
      lines.insert(mi);
      if (with_context && request.context > 0) {
        context_indices(f, mi, request.context, before, after);
        lines.insert(before.begin(), before.end());
        lines.insert(after.begin(), after.end());
      }
    }
    // The first file's header has no blank line before it (its budget charge had one).
    text += first_file ? fmt::format("{}\n", text_path(f.path)) : header_piece(f.path);
    first_file = false;
    std::uint64_t previous = 0;
    for (std::size_t j : lines) {
      const SearchLine& l = f.lines[j];
      if (request.context > 0 && previous != 0 && l.number != previous + 1) text += "--\n";
      text += l.is_match ? match_piece(l) : context_piece(l);
      previous = l.number;
    }
    for (const auto& [rank, with_context] : ranks) {
      const std::size_t mi = f.matches[rank];
      const SearchLine& l = f.lines[mi];
      w.begin_object().key("path");
      write_path(w, f.path);
      w.field("line", l.number).field("text", l.text);
      if (!l.spans.empty()) {
        w.key("submatches").begin_array();
        for (const engine::MatchSpan& s : l.spans) {
          w.begin_object()
              .field("start", static_cast<std::uint64_t>(s.start))
              .field("end", static_cast<std::uint64_t>(s.end))
              .end_object();
        }
        w.end_array();
      }
      if (with_context && request.context > 0) {
        context_indices(f, mi, request.context, before, after);
        if (!before.empty()) {
          w.key("context_before").begin_array();
          for (std::size_t j : before) w.string(f.lines[j].text);
          w.end_array();
        }
        if (!after.empty()) {
          w.key("context_after").begin_array();
          for (std::size_t j : after) w.string(f.lines[j].text);
          w.end_array();
        }
      }
      w.end_object();
    }
  }
  w.end_array();
}

// "1 file", "2,000 files".
std::string count_of(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", grouped(n), n == 1 ? one : many);
}

std::string_view partial_reason(const SearchResults& r) {
  if (r.cancelled) return kReasonCancelled;
  if (r.timed_out) return kReasonDeadline;
  if (r.visit_capped) return kReasonVisitCap;
  if (r.capped) return "max_collected_matches";
  if (r.regex_limit.count > 0) return "regex_limit";
  return {};
}

std::string skip_text(std::string_view one, std::string_view many, const SkipCount& s,
                      bool examples) {
  if (s.count == 0) return {};
  std::string out = count_of(s.count, one, many);
  if (examples && !s.examples.empty()) {
    out += " (";
    for (std::size_t i = 0; i < s.examples.size(); ++i) {
      out += (i > 0 ? ", " : "") + text_path(s.examples[i]);
    }
    out += s.count > s.examples.size() ? ", ...)" : ")";
  }
  return out;
}

// "[skipped: ...]\n", or "" when nothing was skipped.
std::string skipped_line(const SearchResults& r, const CallContext& context, bool examples) {
  std::vector<std::string> parts;
  auto add = [&](std::string s) {
    if (!s.empty()) parts.push_back(std::move(s));
  };
  const std::string limit = grouped(context.config.limits.max_search_file_bytes);
  add(skip_text("binary file that matches, not shown", "binary files that match, not shown",
                r.binary, examples));
  add(skip_text(fmt::format("file over {} bytes, not searched", limit),
                fmt::format("files over {} bytes, not searched", limit), r.too_large, examples));
  add(skip_text("file not searched before the deadline", "files not searched before the deadline",
                r.timeout, examples));
  add(skip_text("unreadable file or directory", "unreadable files or directories", r.unreadable,
                examples));
  add(
      skip_text("file searched only in part: the regex backtracks too much there (simplify it, "
                "or search with literal=true)",
                "files searched only in part: the regex backtracks too much there (simplify it, "
                "or search with literal=true)",
                r.regex_limit, examples));
  if (parts.empty()) return {};
  std::string out = "[skipped: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "; " : "") + parts[i];
  return out + "]\n";
}

struct FooterState {
  std::uint64_t offset = 0;
  std::size_t shown = 0;
  bool more = false;
  std::uint64_t next = 0;
  bool cut_by_budget = false;
  bool cut_by_max_results = false;
  std::size_t context_omitted = 0;
  std::size_t tokens_for_next = 0;  // a max_tokens that fits the next item (when none fit)
};

std::string footer_text(const SearchResults& r, const PageRequest& request,
                        const CallContext& context, const FooterState& s, bool compact) {
  const std::string cursor = encode_cursor(request.key, s.next);
  const std::string more =
      fmt::format("more: call search_files with the same arguments and cursor=\"{}\"", cursor);
  const bool lower_bound = r.partial();
  std::string partial;
  if (r.timed_out) {
    partial = fmt::format(
        "; the search stopped at the {} ms deadline, so results are partial: narrow path or "
        "glob, or simplify the pattern",
        grouped(context.config.limits.deadline_ms));
  } else if (r.cancelled) {
    partial = "; the search was cancelled, so results are partial";
  } else if (r.visit_capped) {
    partial = fmt::format("; the search stopped after visiting {} files, so results are partial",
                          grouped(context.config.limits.max_visited));
  } else if (r.capped) {
    partial = fmt::format(
        "; the search stopped collecting at {} matches (more exist): narrow pattern, path or "
        "glob",
        grouped(context.config.limits.max_collected_matches));
  } else if (r.regex_limit.count > 0) {
    partial = "; some files were searched only in part (see skipped), so results are partial";
  }
  if (compact) {
    // Nothing fit: a cursor would name the same page again; the budget that fits does not.
    if (s.more && s.shown == 0) {
      return fmt::format("[shown 0 of {}{}; call again with max_tokens={}]",
                         lower_bound ? ">=" : "", grouped(r.item_count()), s.tokens_for_next);
    }
    return s.more ? fmt::format("[shown {} of {}{}; cursor=\"{}\"]", s.shown,
                                lower_bound ? ">=" : "", grouped(r.item_count()), cursor)
                  : fmt::format("[shown {} of {}]", s.shown, grouped(r.item_count()));
  }
  if (r.item_count() == 0) {
    return fmt::format("[no matches for {} ({} searched){}]", quoted(request.pattern),
                       count_of(r.files_searched, "file", "files"), partial);
  }
  std::string noun;
  std::string of_total =
      fmt::format("{}{}", lower_bound ? "at least " : "", grouped(r.item_count()));
  switch (r.mode) {
    case SearchMode::kContent:
      noun = fmt::format("{} {} in {}", of_total, r.item_count() == 1 ? "match" : "matches",
                         count_of(r.files.size(), "file", "files"));
      break;
    case SearchMode::kFilesWithMatches:
      noun = fmt::format("{} {} with matches", of_total, r.item_count() == 1 ? "file" : "files");
      break;
    case SearchMode::kCount:
      noun = fmt::format("{} {} ({})", of_total, r.item_count() == 1 ? "file" : "files",
                         count_of(r.total_matches, "matching line", "matching lines"));
      break;
  }
  if (s.offset == 0 && !s.more && s.context_omitted == 0) {
    return fmt::format("[{}{}]", noun, partial);
  }
  std::string range = s.offset == 0 ? fmt::format("{}", grouped(s.shown))
                      : s.shown == 0
                          ? std::string("0 more")
                          : fmt::format("{} more ({}-{})", grouped(s.shown), grouped(s.offset + 1),
                                        grouped(s.offset + s.shown));
  std::string why;
  if (s.more && s.shown == 0) {
    why = fmt::format(
        "; max_tokens={} is too small for the next item (call again with "
        "max_tokens={})",
        request.max_tokens, s.tokens_for_next);
  } else if (s.more && s.cut_by_budget) {
    why = fmt::format("; cut at max_tokens={}", request.max_tokens);
  } else if (s.more && s.cut_by_max_results) {
    why = fmt::format("; cut at max_results={}", request.max_results);
  }
  if (s.more) why += request.max_results_note;
  if (s.context_omitted > 0) {
    why += fmt::format("; context lines left out for {} matches to fit max_tokens",
                       grouped(s.context_omitted));
  }
  return fmt::format("[shown {} of {}{}{}; {}]", range, noun, why, partial,
                     s.more        ? more
                     : lower_bound ? std::string("no more pages of what was found")
                                   : std::string("end of results"));
}

}  // namespace

ToolOutput render_search_page(const SearchResults& results, const PageRequest& request,
                              const CallContext& context, bool* paged) {
  const std::uint64_t total = results.item_count();
  const std::uint64_t offset = std::min<std::uint64_t>(request.offset, total);
  const std::size_t limit = std::max<std::size_t>(request.max_results, 1);
  const std::vector<Item> candidates = canonical_slice(results, offset, limit + 1);

  // The footer block is reserved at its longest: every number at its largest.
  FooterState worst;
  worst.offset = total;
  worst.shown = static_cast<std::size_t>(std::min<std::uint64_t>(total, limit));
  worst.more = true;
  worst.next = total;
  worst.cut_by_budget = true;
  worst.context_omitted = worst.shown;
  worst.tokens_for_next = 1'000'000;
  std::string skipped = skipped_line(results, context, true);
  const std::string worst_footer = footer_text(results, request, context, worst, false);
  std::size_t reserve_tokens =
      context.counter.count(skipped) + context.counter.count(worst_footer) + 2;
  if (reserve_tokens > request.max_tokens) {  // drop the examples, then the whole skipped line
    skipped = skipped_line(results, context, false);
    reserve_tokens = context.counter.count(skipped) + context.counter.count(worst_footer) + 2;
    if (reserve_tokens > request.max_tokens) {
      skipped.clear();
      reserve_tokens = context.counter.count(worst_footer) + 2;
    }
  }
  const std::size_t reserve_bytes = skipped.size() + worst_footer.size() + 1;
  Planner planner(results, request, context, reserve_tokens, reserve_bytes);

  std::size_t cap = limit;
  for (;;) {
    Page page = planner.plan(candidates, cap);
    FooterState s;
    s.offset = offset;
    s.shown = page.items.size();
    s.next = offset + page.items.size();
    s.more = s.next < total;
    s.cut_by_budget = page.cut_by_budget;
    s.cut_by_max_results = page.cut_by_max_results;
    s.context_omitted = page.context_omitted;
    // The refused item, the footer block and a quarter more for a counter that is not additive.
    s.tokens_for_next = (page.refused_tokens + reserve_tokens) * 5 / 4 + 1;

    std::string text;
    JsonWriter w;
    w.begin_object().field("mode", results.mode == SearchMode::kContent ? "content"
                                   : results.mode == SearchMode::kCount ? "count"
                                                                        : "files_with_matches");
    render_body(results, request, page, text, w);
    if (!text.empty()) text += '\n';
    text += skipped;
    std::string footer = footer_text(results, request, context, s, false);
    std::string whole = text + footer;
    if (context.counter.count(whole) > request.max_tokens) {
      if (!page.items.empty() && cap > 0) {
        // The counter is not additive here: show fewer items and check again.
        cap = std::min(cap, page.items.size()) - 1;
        continue;
      }
      footer = footer_text(results, request, context, s, true);
    }
    BudgetWriter writer(context.counter, request.max_tokens, 0);
    writer.append(text);
    ToolOutput out;
    out.text = writer.finish(footer);
    if (writer.trimmed() && !page.items.empty() && cap > 0) {
      cap = std::min(cap, page.items.size()) - 1;
      continue;
    }
    out.tokens = context.counter.count(out.text);
    // A search stopped early is cut as surely as a page is: a model that checks only
    // `truncated` must not take a partial list for the whole one.
    out.truncated = s.more || page.context_omitted > 0 || results.partial();
    if (paged != nullptr) *paged = s.more || page.context_omitted > 0;
    out.policy_hidden = results.policy_hidden;

    const std::string_view reason = partial_reason(results);
    w.field("total", static_cast<std::uint64_t>(results.total_matches))
        .field("total_files", static_cast<std::uint64_t>(results.files.size()))
        .field("total_is_lower_bound", results.partial())
        .field("offset", offset)
        .field("shown", static_cast<std::uint64_t>(page.items.size()))
        .field("truncated", out.truncated);
    w.key("next_cursor");
    s.more ? w.string(encode_cursor(request.key, s.next)) : w.null();
    w.field("partial", results.partial());
    w.key("partial_reason");
    reason.empty() ? w.null() : w.string(reason);
    w.field("context_omitted", static_cast<std::uint64_t>(page.context_omitted));
    w.field("files_searched", results.files_searched);
    w.key("skipped").begin_object();
    auto skip = [&](std::string_view name, const SkipCount& c) {
      w.key(name).begin_object().field("count", c.count).key("examples").begin_array();
      for (const std::string& e : c.examples) write_path(w, e);
      w.end_array().end_object();
    };
    skip("binary", results.binary);
    skip("too_large", results.too_large);
    skip("timeout", results.timeout);
    skip("unreadable", results.unreadable);
    skip("regex_limit", results.regex_limit);
    w.end_object().end_object();
    out.structured = w.take();
    return out;
  }
}

}  // namespace ctx::agent
