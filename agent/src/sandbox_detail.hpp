// Test hooks of the sandbox (private to agent/ and its tests): force the portable fallback that
// kernels without openat2 use, and the reopen used without /proc, so every containment test can
// run on each code path.
#pragma once

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

}  // namespace ctx::agent::detail
