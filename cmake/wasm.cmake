# The WebAssembly build (docs/architecture.md "The WebAssembly build";
# scripts/build-wasm.sh runs it): Debian's emscripten (emcmake) with
# -DREDSCOPE_WASM=ON, which implies REDSCOPE_WITH_Z3=OFF. Boost.Graph, fmt
# (header-only) and toml++ are header libraries: emcc sees them through a
# folder of three symlinks, never the host's whole /usr/include (whose libc
# headers are not emscripten's). No thread library: the module runs one test
# on the page's Worker (cmake/wasm/libcxx_compat.hpp).
set(REDSCOPE_WASM_INCLUDE ${CMAKE_BINARY_DIR}/wasm-include)
file(MAKE_DIRECTORY ${REDSCOPE_WASM_INCLUDE})
foreach(lib boost fmt toml++)
  if(NOT EXISTS /usr/include/${lib})
    message(FATAL_ERROR "/usr/include/${lib} is missing (scripts/setup.sh installs it)")
  endif()
  file(CREATE_LINK /usr/include/${lib} ${REDSCOPE_WASM_INCLUDE}/${lib} SYMBOLIC)
endforeach()
add_library(Boost::boost INTERFACE IMPORTED)
target_include_directories(Boost::boost SYSTEM INTERFACE ${REDSCOPE_WASM_INCLUDE})
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt SYSTEM INTERFACE ${REDSCOPE_WASM_INCLUDE})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(Threads::Threads INTERFACE IMPORTED)
set(TOMLPP_INCLUDE_DIR ${REDSCOPE_WASM_INCLUDE})
# C++ exceptions carry every located error (InputError): emscripten turns
# catching them off unless asked.
add_compile_options(-fexceptions
                    "SHELL:-include ${PROJECT_SOURCE_DIR}/cmake/wasm/libcxx_compat.hpp")
add_link_options(-fexceptions)
