# Writes ${OUT}: the model file ${IN} as a C++ raw string constant ${VAR}.
file(READ ${IN} TEXT)
get_filename_component(NAME ${IN} NAME)
file(WRITE ${OUT}.tmp "// Generated from models/${NAME} by cmake/embed_model.cmake; do not edit.\n#pragma once\n#include <string_view>\nnamespace redscope::cat {\ninline constexpr std::string_view ${VAR} = R\"redscope_cat(${TEXT})redscope_cat\";\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
