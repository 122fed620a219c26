// Test hooks of the sandbox (private to agent/ and its tests): force the portable fallback that
// kernels without openat2 use, so every containment test runs on both code paths.
#pragma once

namespace ctx::agent::detail {

// While true, Sandbox::open_beneath behaves as if openat2 returned ENOSYS and resolves paths with
// its component-by-component O_NOFOLLOW walk. Process-wide; tests set it around a section.
void set_force_openat2_fallback(bool force);
bool force_openat2_fallback();

// Whether this kernel has openat2 (probed once). False also when the fallback is forced.
bool openat2_available();

}  // namespace ctx::agent::detail
