// The precompiled header of the unit tests (cmake/pch.cmake): the common one
// and Catch2's single header. tests/main.cpp, which defines CATCH_CONFIG_MAIN
// before including it, is compiled without.
#pragma once

#include "precompiled.hpp"

#include <catch2/catch.hpp>
