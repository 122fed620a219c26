// What the CPU offers, read once for the engine's vector code.
#pragma once

namespace ctx::engine::detail {

// Whether the CPU has AVX2. Set before main (the CPU's features read first, as a constructor may
// run before libgcc's).
inline const bool cpu_has_avx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

}  // namespace ctx::engine::detail
