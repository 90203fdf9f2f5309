// Catch2's main for the tilelens test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
