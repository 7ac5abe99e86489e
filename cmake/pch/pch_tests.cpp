// Compiles cmake/pch/precompiled_tests.hpp once; the unit tests reuse it (cmake/pch.cmake).
