# Writes ${OUT}: every model file in ${MODELS} (a ;-list of paths) as a row
# {file name, text} of the C++ array kEmbeddedModels.
set(body "")
foreach(MODEL_FILE ${MODELS})
  file(READ ${MODEL_FILE} TEXT)
  get_filename_component(NAME ${MODEL_FILE} NAME)
  string(APPEND body "    EmbeddedModel{\"${NAME}\", R\"redscope_cat(${TEXT})redscope_cat\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from models/*.cat by cmake/embed_models.cmake; do not edit.\n#pragma once\n#include <array>\n#include <string_view>\nnamespace redscope::cat {\nstruct EmbeddedModel {\n  std::string_view file;\n  std::string_view text;\n};\ninline constexpr std::array kEmbeddedModels{\n${body}};\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
