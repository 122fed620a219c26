// `ctxsearch PATTERN [PATH...]`: compiles the patterns, walks, searches each file on the worker
// that found it (or, sorted, in a parallel pipeline with in-order output) and prints in ripgrep's
// standard formats. Returns the exit code.
#pragma once

#include "args.hpp"

namespace ctx::cli {

int run_search(Args& args);

}  // namespace ctx::cli
