# Writes ${OUT}: models/ptx.cat as a C++ raw string constant kPtxCatText.
file(READ ${IN} TEXT)
file(WRITE ${OUT}.tmp "// Generated from models/ptx.cat by cmake/embed_model.cmake; do not edit.\n#pragma once\n#include <string_view>\nnamespace redscope::cat {\ninline constexpr std::string_view kPtxCatText = R\"redscope_cat(${TEXT})redscope_cat\";\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
