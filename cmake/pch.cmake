# Precompiled headers (option REDSCOPE_PCH): cmake/pch/precompiled.hpp is
# compiled once, by the object library redscope_pch, and every target reuses
# it (REUSE_FROM: same compiler flags, one .gch, or one .pch under emscripten's
# clang). The unit tests reuse redscope_test_pch's, which adds Catch2. A clean
# CI build compiles about 150 files in three trees; the shared headers were
# parsed in each (docs/performance.md "Build time").
option(REDSCOPE_PCH "Precompile the common headers (cmake/pch/)" ON)
if(REDSCOPE_PCH)
  # With <string> from a precompiled header GCC 12 loses the system-header
  # mark of its inlined memcpy and reports it: -Wstringop-overflow and
  # -Warray-bounds false positives in std::string's operator+ (GCC bug 105651).
  # A -DREDSCOPE_PCH=OFF build keeps both warnings.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-stringop-overflow -Wno-array-bounds)
  endif()
  add_library(redscope_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/pch.cpp)
  target_link_libraries(redscope_pch PRIVATE Boost::boost fmt::fmt)
  target_precompile_headers(redscope_pch PRIVATE ${PROJECT_SOURCE_DIR}/cmake/pch/precompiled.hpp)
endif()

# redscope_use_pch(TARGET [TESTS]): TARGET's sources start from the shared
# precompiled header (TESTS: the unit tests' one).
function(redscope_use_pch target)
  if(NOT TARGET redscope_pch)
    return()
  endif()
  if(ARGN STREQUAL "TESTS")
    if(NOT TARGET redscope_test_pch)
      add_library(redscope_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/pch_tests.cpp)
      target_link_libraries(redscope_test_pch PRIVATE Boost::boost fmt::fmt Catch2::Catch2)
      target_precompile_headers(redscope_test_pch PRIVATE
                                ${PROJECT_SOURCE_DIR}/cmake/pch/precompiled_tests.hpp)
    endif()
    target_precompile_headers(${target} REUSE_FROM redscope_test_pch)
  else()
    target_precompile_headers(${target} REUSE_FROM redscope_pch)
  endif()
endfunction()
