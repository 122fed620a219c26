// Files searched through another program, as ripgrep does: --pre COMMAND (the file's path as the
// argument, the file as stdin) and -z/--search-zip (gzip, bzip2, xz, lz4, brotli, zstd and
// uncompress, for the extensions ripgrep knows, when they are on PATH). The program's stdout is
// what gets searched.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/result.hpp"

namespace ctx::cli {

// The bytes of stdout kept from one program; past this the program is killed and the file is
// reported instead of searched.
constexpr std::size_t kMaxPipedBytes = std::size_t{1} << 30;

// The decompressor for `path` under -z (ripgrep's table: *.gz *.tgz gzip, *.bz2 *.tbz2 bzip2,
// *.xz *.txz xz, *.lz4 lz4, *.lzma xz --format=lzma, *.br brotli, *.zst *.zstd zstd, *.Z
// uncompress), its program resolved on PATH; empty when there is none (the file is searched as
// it is, as in ripgrep).
std::vector<std::string> decompressor_for(std::string_view path);

// Runs `argv` (argv[0] looked up on PATH unless it holds a '/') with stdin from `stdin_fd` and
// stdout read into `out` (cleared first). The program always ends before this returns: it is
// waited for, and killed when its output passes kMaxPipedBytes. Errors: it could not start
// (kNotFound / kIo, saying so); it exited with a failure status or a signal (kIo, with what it
// wrote on stderr between two lines of dashes, as ripgrep shows it); its output was too large.
// `out` then still holds what it wrote. `how` (when given) says which of these it was.
enum class RunEnd { kSucceeded, kNotStarted, kFailed, kTooLarge };
Status run_and_capture(const std::vector<std::string>& argv, int stdin_fd, std::string& out,
                       RunEnd* how = nullptr);

// The error of a failed program that wrote nothing on stderr (ripgrep's words).
constexpr std::string_view kEmptyStderr = "<stderr is empty>";

// `argv` quoted for messages, as ripgrep's Command debug form: "gzip" "-d" "-c" "x.gz".
std::string quoted_command(const std::vector<std::string>& argv);

}  // namespace ctx::cli
