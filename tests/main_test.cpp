// The one Catch2 main of ctx_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
