// The error vocabulary shared by every module: an `Error` (a code plus a human detail that names
// the input) and `Result<T>`, a value-or-error shaped like std::expected. Propagate with CTX_TRY
// and CTX_TRY_ASSIGN; nothing throws across a module boundary.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ctx {

enum class ErrorCode {
  kInvalidArgument,  // bad user input (flag, glob, pattern); the detail says which and how to fix
                     // it
  kNotFound,         // a path that does not exist
  kPermissionDenied,
  kIo,  // any other OS error; the detail carries strerror
};

struct [[nodiscard]] Error {
  ErrorCode code;
  std::string detail;  // complete sentence fragment for people: "'foo(': missing )"

  // Builds an error from errno for an operation on `path`: "PATH: No such file or directory (os
  // error 2)".
  static Error from_errno(int err, std::string_view path);
};

// A value or an error. `E` is `Error` everywhere except where a module has a richer error
// vocabulary of its own (agent/'s ToolError); CTX_TRY works with any `E`.
template <typename T, typename E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& {
    assert(!ok());
    return std::get<1>(v_);
  }
  E&& error() && {
    assert(!ok());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, E> v_;
};

template <typename E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): `return Error{...};` is the point
  Result(E error) : error_(std::move(error)), ok_(false) {}
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const& {
    assert(!ok_);
    return error_;
  }
  E&& error() && {
    assert(!ok_);
    return std::move(error_);
  }

 private:
  E error_{};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace ctx

// Returns the error of `expr` (a Result) from the enclosing function.
#define CTX_TRY(expr)                            \
  do {                                           \
    auto ctx_try_result_ = (expr);               \
    if (!ctx_try_result_.ok()) {                 \
      return std::move(ctx_try_result_).error(); \
    }                                            \
  } while (false)

#define CTX_CONCAT_INNER_(a, b) a##b
#define CTX_CONCAT_(a, b) CTX_CONCAT_INNER_(a, b)
// Declares `lhs` from the value of `expr` (a Result), or returns its error.
#define CTX_TRY_ASSIGN(lhs, expr) CTX_TRY_ASSIGN_IMPL_(CTX_CONCAT_(ctx_try_, __LINE__), lhs, expr)
// `lhs` may be a declaration (`auto x`), so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CTX_TRY_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                         \
  if (!tmp.ok()) {                           \
    return std::move(tmp).error();           \
  }                                          \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
