// What a long-lived server keeps between calls (SessionState::Impl).
#pragma once

#include <mutex>

#include "ctx/agent/tools.hpp"

namespace ctx::agent {

struct SessionState::Impl {
  std::mutex mutex;
};

}  // namespace ctx::agent
