// Test hooks of the sandbox (private to agent/ and its tests): force the portable fallback that
// kernels without openat2 use, and the reopen used without /proc, so every containment test can
// run on each code path.
#pragma once

#include <string_view>

namespace ctx::agent::detail {

// While true, Sandbox::open_beneath behaves as if openat2 returned ENOSYS and resolves paths with
// its component-by-component O_NOFOLLOW walk. Process-wide; tests set it around a section.
void set_force_openat2_fallback(bool force);
bool force_openat2_fallback();

// Whether this kernel has openat2 (probed once). False also when the fallback is forced.
bool openat2_available();

// While true, Sandbox::open_beneath behaves as if /proc were not mounted: canonical paths come
// from the component walk and regular files are reopened by path with an inode check instead of
// through /proc/self/fd. Process-wide; tests set it around a section.
void set_force_no_proc(bool force);

// Called by search_files with each walked file's root-relative path just before it opens the file
// (nullptr, the default: nothing), so a test can swap the file in the window between the walk and
// the open. Process-wide.
using WalkOpenHook = void (*)(std::string_view path);
void set_walk_open_hook(WalkOpenHook hook);
WalkOpenHook walk_open_hook();

}  // namespace ctx::agent::detail
