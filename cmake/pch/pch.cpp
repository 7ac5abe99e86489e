// Compiles cmake/pch/precompiled.hpp once; the native targets reuse it (cmake/pch.cmake).
