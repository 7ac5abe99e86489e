// The precompiled header of every native target (option REDSCOPE_PCH,
// cmake/pch.cmake): the standard, fmt and Boost.Graph headers that most
// translation units include, parsed once per build tree instead of once per
// file. Only the build uses it: each source still includes what it uses, and
// a build with -DREDSCOPE_PCH=OFF checks that it does.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
