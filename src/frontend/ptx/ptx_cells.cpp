// Every cell of a PTX litmus test with redscope's verdict on it
// (redscope/frontend/ptx_cells.hpp): the container reads the test with an
// instruction parser that records each cell, runs the PTX instruction
// parser on it and keeps going after a rejection.
#include "redscope/frontend/ptx_cells.hpp"

#include <algorithm>

#include "redscope/frontend/container.hpp"
#include "redscope/frontend/ptx/ptx_instructions.hpp"

namespace redscope {

namespace {

CellWord::Kind word_kind(detail::Tok k) {
  switch (k) {
    case detail::Tok::Ident: return CellWord::Kind::Word;
    case detail::Tok::Number: return CellWord::Kind::Number;
    default: return CellWord::Kind::Punct;
  }
}

// The source lines of `text`, for the cells' own spelling.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      std::string_view l = text.substr(start, i - start);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines.push_back(l);
      start = i + 1;
    }
  return lines;
}

}  // namespace

PtxCells ptx_cells(std::string_view text, const std::string& file) {
  PtxCells out;
  const std::vector<std::string_view> lines = split_lines(text);
  bool have_test = false;
  const detail::InstructionParser record = [&](const detail::InstructionCell& cell,
                                               ThreadCode& thread) {
    if (!have_test) {  // the header, init block and thread row, once
      out.test.file = cell.test.file;
      out.test.arch = cell.test.arch;
      out.test.name = cell.test.name;
      out.test.metadata = cell.test.metadata;
      out.test.target_sm = cell.test.target_sm;
      out.test.init = cell.test.init;
      out.test.aliases = cell.test.aliases;
      for (const ThreadCode& tc : cell.test.threads) {
        ThreadCode named;
        named.name = tc.name;
        named.place = tc.place;
        named.loc = tc.loc;
        out.test.threads.push_back(std::move(named));
      }
      have_test = true;
    }
    PtxCell c;
    c.thread = static_cast<std::size_t>(&thread - cell.test.threads.data());
    const detail::Token& first = cell.toks.front();
    c.loc = first.loc;
    for (const detail::Token& t : cell.toks)
      if (t.kind != detail::Tok::End) c.words.push_back(CellWord{word_kind(t.kind), t.text, t.loc});
    // The cell's text as written: from its first token to the end of its last.
    const CellWord& last = c.words.back();
    const auto line = static_cast<std::size_t>(first.loc.line);
    if (line >= 1 && line <= lines.size() && last.loc.line == first.loc.line) {
      const std::string_view l = lines[line - 1];
      const auto from = static_cast<std::size_t>(std::max(first.loc.col - 1, 0));
      const std::size_t to = static_cast<std::size_t>(last.loc.col - 1) + last.text.size();
      if (from < l.size()) c.text = std::string(l.substr(from, std::min(to, l.size()) - from));
    }
    if (c.text.empty())
      for (const CellWord& w : c.words) c.text += (c.text.empty() ? "" : " ") + w.text;
    const std::size_t before = thread.code.size();
    try {
      detail::parse_ptx_instruction(cell, thread);
      if (thread.code.size() > before) {
        c.label = thread.code.back().kind == InstrKind::Label;
        c.instruction = thread.code.back();
      }
    } catch (const InputError& e) {
      c.error = e.diagnostic();
    }
    out.cells.push_back(std::move(c));
  };
  try {
    LitmusTest t = detail::parse_container(text, file, record);
    detail::check_references(t);
  } catch (const InputError& e) {
    out.container_error = e.diagnostic();
  }
  if (!have_test) out.test.file = file;
  return out;
}

}  // namespace redscope
