// The fuzz harness's corpora and mutations (tests/fuzz.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fuzz.hpp"
#include "redscope/core/json.hpp"
#include "redscope/dialects/sass/sass.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/report.hpp"

namespace redscope::fuzz {

namespace fs = std::filesystem;

namespace {

// One name and one extension per target, in kTargets' order (the sizes are
// checked: a missing entry would be an empty name).
constexpr std::string_view kNames[] = {"ptx",    "nvtest", "sass",  "sass-asm", "sass-words",
                                       "pto",    "cat",    "merge", "cycle",    "spec",
                                       "report", "api",    "cuda"};
constexpr std::string_view kExtensions[] = {".litmus",  ".test",    ".litmus", ".sass",  ".words",
                                            ".litmus",  ".cat",     ".json",   ".cycle", ".toml",
                                            ".results", ".request", ".litmus"};
static_assert(std::size(kNames) == kTargetCount && std::size(kExtensions) == kTargetCount);

std::size_t ix(Target t) { return static_cast<std::size_t>(t); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    end = end == std::string::npos ? s.size() : end + 1;
    out.push_back(s.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l;
  return s;
}

std::string trimmed(const std::string& l) {
  const auto b = l.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = l.find_last_not_of(" \t\r\n");
  return l.substr(b, e - b + 1);
}

bool condition_line(const std::string& line) {
  const std::string t = trimmed(line);
  for (const char* k : {"exists", "forall", "~exists", "locations", "filter"})
    if (t.rfind(k, 0) == 0) return true;
  return false;
}

// The thread header line ("P0@cta 0,gpu 0 | P1 ;"), or lines.size().
std::size_t header_line(const std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trimmed(lines[i]);  // not an init line "P0:r0 = 1;"
    if (t.rfind("P0", 0) == 0 && t.size() > 2 &&
        std::string_view(" \t@|;").find(t[2]) != std::string_view::npos &&
        t.find(';') != std::string::npos)
      return i;
  }
  return lines.size();
}

// The cells of a table row, trimmed ("a | b ;" -> {"a", "b"}).
std::vector<std::string> row_cells(const std::string& line) {
  std::vector<std::string> out;
  const std::size_t semi = line.rfind(';');
  const std::string row = line.substr(0, semi);
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = row.find('|', start);
    out.push_back(trimmed(row.substr(start, bar == std::string::npos ? bar : bar - start)));
    if (bar == std::string::npos) return out;
    start = bar + 1;
  }
}

void add_words(const std::string& t, std::set<std::string>& tokens) {
  std::string w;
  for (char ch : t) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '|' || ch == ';' || ch == ',') {
      if (!w.empty() && w.size() < 64) tokens.insert(w);
      w.clear();
    } else {
      w += ch;
    }
  }
}

// Every file below `dirs` that some target reads, by target.
void collect(const std::vector<std::string>& dirs, Corpora& c) {
  for (const std::string& d : dirs) {
    std::error_code ec;
    if (!fs::exists(d, ec)) {
      std::cerr << "redscope_fuzz: corpus " << d << " not found, skipped\n";
      continue;
    }
    std::vector<std::string> paths;
    if (fs::is_regular_file(d, ec)) paths.push_back(d);
    for (auto it = fs::recursive_directory_iterator(d, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec)) paths.push_back(it->path().string());
    std::sort(paths.begin(), paths.end());
    for (const std::string& p : paths) {
      const std::string ext = fs::path(p).extension().string();
      if (ext != ".litmus" && ext != ".test" && ext != ".cat" && ext != ".sass" &&
          ext != ".words" && ext != ".json" && ext != ".jsonl" && ext != ".cycle" &&
          ext != ".toml" && ext != ".results" && ext != ".request")
        continue;
      const std::string text = slurp(p);
      if (text.size() > (std::size_t{1} << 20)) continue;
      Corpus& k = c[ix(target_of_file(p, text))];
      k.files.push_back(p);
      k.texts.push_back(text);
    }
  }
}

// SASS listings from the columns of the SASS litmus tests: a column of
// instructions is a `sass encode` listing, a column of words a `sass decode`
// one; each is also translated to the other form.
void derive_sass_listings(Corpora& c) {
  const Corpus& sass = c[ix(Target::Sass)];
  for (std::size_t f = 0; f < sass.texts.size(); ++f) {
    const std::vector<std::string> lines = split_lines(sass.texts[f]);
    std::vector<std::string> columns;
    for (std::size_t i = header_line(lines) + 1; i < lines.size() && !condition_line(lines[i]);
         ++i) {
      if (lines[i].find(';') == std::string::npos) continue;
      const std::vector<std::string> cells = row_cells(lines[i]);
      if (columns.size() < cells.size()) columns.resize(cells.size());
      for (std::size_t k = 0; k < cells.size(); ++k)
        if (!cells[k].empty()) columns[k] += cells[k] + "\n";
    }
    for (const std::string& col : columns) {
      if (col.empty()) continue;
      const bool words = col.rfind("0x", 0) == 0;
      const Target t = words ? Target::SassWords : Target::SassAsm;
      c[ix(t)].files.push_back(sass.files[f]);
      c[ix(t)].texts.push_back(col);
      const sass::Listing other =
          words ? sass::decode_listing(col, "corpus") : sass::encode_listing(col, "corpus");
      if (!other.errors.empty() || other.lines.empty()) continue;
      std::string text;
      for (const std::string& l : other.lines) text += l + "\n";
      const Target o = words ? Target::SassAsm : Target::SassWords;
      c[ix(o)].files.push_back(sass.files[f]);
      c[ix(o)].texts.push_back(text);
    }
  }
}

// The JSON array `redscope run --format json` prints for `files` (RunPrinter
// in src/cli/main.cpp: "[", the items joined by ",\n", "\n]\n").
// `run --format json` over `files`, or with `lines` `--format jsonl`.
std::string run_json(const std::vector<std::string>& files, bool lines) {
  EngineOptions o;
  o.expand.unroll = 1;
  o.max_outcomes = 64;
  o.limits = BudgetLimits{20, 0};
  std::string out = lines ? "" : "[";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const TestResult r = check_file(files[i], o);
    out += lines ? render_json_line(r) : (i ? ",\n" : "\n") + render_json_item(r);
  }
  return lines ? out : out + (files.empty() ? "]\n" : "\n]\n");
}

// The merge corpus's shard `s` (0-based): the last one in JSON Lines.
std::string shard_name(const std::string& dir, std::size_t s) {
  return fmt::format("{}/shard-{}.{}", dir, s + 1, s == 2 ? "jsonl" : "json");
}

// Merge inputs: three shards of a run over a few tests of each litmus target
// (and a missing file, for an error element), two as JSON, one as JSON Lines,
// computed in a child process
// (the engines start threads; the harness forks later) and kept in
// `work_dir`/merge-corpus, where a previous run may have left them.
void derive_merge_inputs(Corpora& c, const std::string& work_dir) {
  const std::string dir = work_dir.empty() ? "merge-corpus" : work_dir + "/merge-corpus";
  std::vector<std::vector<std::string>> shards(3);
  const Target order[] = {Target::Ptx, Target::Sass, Target::Pto, Target::NvTest};
  std::size_t k = 0;
  for (Target t : order)
    for (std::size_t i = 0; i < std::min<std::size_t>(2, c[ix(t)].files.size()); ++i)
      shards[k++ % 3].push_back(c[ix(t)].files[i]);
  shards[2].push_back(dir + "/missing.litmus");
  if (work_dir.empty()) {  // in this process, in memory (unit tests)
    for (std::size_t s = 0; s < shards.size(); ++s) {
      c[ix(Target::Merge)].files.push_back(shard_name(dir, s));
      c[ix(Target::Merge)].texts.push_back(run_json(shards[s], s == 2));
    }
    return;
  }
  fs::create_directories(dir);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid == 0) {
    for (std::size_t s = 0; s < shards.size(); ++s) {
      std::ofstream out(shard_name(dir, s), std::ios::trunc);
      out << run_json(shards[s], s == 2);
    }
    std::_Exit(0);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const std::string p = shard_name(dir, s);
    if (!fs::exists(p)) continue;
    c[ix(Target::Merge)].files.push_back(p);
    c[ix(Target::Merge)].texts.push_back(slurp(p));
  }
}

// `gen cycle` arguments: diy's classic shapes with the GPU annotations
// (docs/cycles.md), one per corpus entry.
void derive_cycles(Corpora& c) {
  static const char* const kCycles[] = {
      "PodWW Rfe PodRR Fre",
      "PodWW[weak,release.gpu] Rfe@cta PodRR[acquire.gpu,weak] Fre",
      "PodWR Fre PodWR Fre",
      "Fence.sc.gpudWR Fre Fence.sc.gpudWR Fre",
      "PodRW Rfe PodRW Rfe",
      "DpDatadW Rfe DpDatadW Rfe",
      "Rfe PodRR Fre Rfe PodRR Fre",
      "Rfe PosRR Fre",
      "PodWW Coe PodWW Coe",
      "Rmw[acq_rel.gpu] Rfe@sys PodRR Fre",
      "PodWW[,shared] Rfe@cta PodRR Fre@cta"};
  for (std::size_t i = 0; i < std::size(kCycles); ++i) {
    c[ix(Target::Cycle)].files.push_back(fmt::format("cycle-{}.cycle", i + 1));
    c[ix(Target::Cycle)].texts.push_back(kCycles[i]);
  }
}

// Result files of a matrix (`report --matrix` inputs): the run of four cells
// of a 2 x 2 matrix, as JSON and as JSON Lines, and its atomicity report.
void derive_report_inputs(Corpora& c, const std::string& work_dir) {
  const std::string dir = work_dir.empty() ? "report-corpus" : work_dir + "/report-corpus";
  std::vector<std::string> cells;
  for (const char* sem : {"relaxed", "weak"})
    for (const char* scope : {"cta", "gpu"}) {
      const std::string st =
          std::string(sem) == "weak" ? "st.weak" : fmt::format("st.{}.{}", sem, scope);
      cells.push_back(
          fmt::format("PTX m+{0}+{1}\nMatrix=m\nCell=sem={0},scope={1}\n{{\nx=0;\n}}\n P0 | P1 ;\n"
                      " {2} x, 1 | {2} x, 2 ;\nexists (x == 1)\n",
                      sem, scope, st));
    }
  auto results = [&](bool lines) {
    EngineOptions o;
    o.limits = BudgetLimits{20, 0};
    std::string out = lines ? "" : "[";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const TestResult r = check_text(cells[i], fmt::format("{}/cell-{}.litmus", dir, i), o);
      out += lines ? render_json_line(r) : (i ? ",\n" : "\n") + render_json_item(r);
    }
    return lines ? out : out + "\n]\n";
  };
  const std::string names[] = {dir + "/run.results", dir + "/run-lines.results"};
  if (work_dir.empty()) {
    for (int k = 0; k < 2; ++k) {
      c[ix(Target::Report)].files.push_back(names[k]);
      c[ix(Target::Report)].texts.push_back(results(k == 1));
    }
    return;
  }
  fs::create_directories(dir);
  std::cout.flush();
  const pid_t pid = fork();  // the engines start threads; the harness forks later
  if (pid == 0) {
    for (int k = 0; k < 2; ++k) std::ofstream(names[k], std::ios::trunc) << results(k == 1);
    std::_Exit(0);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  for (const std::string& p : names) {
    if (!fs::exists(p)) continue;
    c[ix(Target::Report)].files.push_back(p);
    c[ix(Target::Report)].texts.push_back(slurp(p));
  }
}

// Requests to the JSON API (docs/playground.md): every command, on the first
// tests of the PTX, .test and PTO corpora and a cat model, each with a small
// budget and the enumerator (a mutant that drops them still runs a small test).
std::string quote(std::string_view s) { return "\"" + json_escape(s) + "\""; }

void derive_api_requests(Corpora& c) {
  const std::string opts =
      R"("options": {"engine": "enum", "timeout_ms": 5000, "max_outcomes": 64})";
  std::vector<std::string> reqs = {R"({"command": "version"})", R"({"command": "models"})"};
  for (Target t : {Target::Ptx, Target::NvTest, Target::Pto}) {
    const Corpus& k = c[ix(t)];
    for (std::size_t i = 0; i < std::min<std::size_t>(2, k.texts.size()); ++i) {
      const std::string test = fmt::format(R"("test": {}, "file": {})", quote(k.texts[i]),
                                           quote(fs::path(k.files[i]).filename().string()));
      reqs.push_back(fmt::format(R"({{"command": "run", {}, {}}})", test, opts));
      reqs.push_back(fmt::format(
          R"({{"command": "atomicity", {}, "options": {{"engine": "enum", "timeout_ms": 5000}}}})",
          test));
      reqs.push_back(fmt::format(
          R"({{"command": "explain", {}, "options": {{"condition": true, "engine": "enum", )"
          R"("timeout_ms": 5000}}}})",
          test));
    }
  }
  for (std::size_t i = 0; i < std::min<std::size_t>(2, c[ix(Target::Cat)].texts.size()); ++i)
    reqs.push_back(fmt::format(R"({{"command": "check_model", "model_text": {}}})",
                               quote(c[ix(Target::Cat)].texts[i])));
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    c[ix(Target::Api)].files.push_back(fmt::format("api-{}.request", i + 1));
    c[ix(Target::Api)].texts.push_back(reqs[i]);
  }
}

void index_words(Corpus& k) {
  std::set<std::string> tokens, cells;
  for (const std::string& t : k.texts) {
    add_words(t, tokens);
    const std::vector<std::string> lines = split_lines(t);
    for (std::size_t i = header_line(lines) + 1; i < lines.size() && !condition_line(lines[i]); ++i)
      if (lines[i].find('|') != std::string::npos)
        for (const std::string& cell : row_cells(lines[i]))
          if (!cell.empty()) cells.insert(cell);
  }
  k.tokens.assign(tokens.begin(), tokens.end());
  k.cells.assign(cells.begin(), cells.end());
}

}  // namespace

std::string_view name(Target t) { return kNames[ix(t)]; }
std::string_view extension(Target t) { return kExtensions[ix(t)]; }

std::optional<Target> target_named(std::string_view n) {
  for (Target t : kTargets)
    if (name(t) == n) return t;
  return std::nullopt;
}

Target target_of_file(const std::string& path, std::string_view text) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".test") return Target::NvTest;
  if (ext == ".cat") return Target::Cat;
  if (ext == ".json" || ext == ".jsonl") return Target::Merge;
  if (ext == ".cycle") return Target::Cycle;
  if (ext == ".toml") return Target::Spec;
  if (ext == ".results") return Target::Report;
  if (ext == ".request") return Target::Api;
  if (ext == ".sass") return Target::SassAsm;
  if (ext == ".words") return Target::SassWords;
  const Dialect* d = dialect_for(fs::path("x.litmus"), text.substr(0, kDialectHeadBytes));
  if (d && d->name == "sass-litmus") return Target::Sass;
  if (d && d->name == "pto-litmus") return Target::Pto;
  if (d && d->name == "cuda-litmus") return Target::Cuda;
  return Target::Ptx;
}

Corpora load_corpora(const std::vector<std::string>& dirs, const std::string& work_dir) {
  Corpora c;
  collect(dirs, c);
  derive_sass_listings(c);
  derive_merge_inputs(c, work_dir);
  derive_cycles(c);
  derive_report_inputs(c, work_dir);
  derive_api_requests(c);
  for (Corpus& k : c) index_words(k);
  return c;
}

// ---- mutation --------------------------------------------------------------

namespace {

const std::vector<std::string> kBoundary = {"0",
                                            "1",
                                            "-1",
                                            "2",
                                            "7",
                                            "8",
                                            "15",
                                            "16",
                                            "31",
                                            "32",
                                            "63",
                                            "64",
                                            "127",
                                            "128",
                                            "255",
                                            "256",
                                            "65535",
                                            "65536",
                                            "2147483647",
                                            "2147483648",
                                            "-2147483648",
                                            "-2147483649",
                                            "4294967295",
                                            "4294967296",
                                            "9223372036854775807",
                                            "9223372036854775808",
                                            "-9223372036854775808",
                                            "18446744073709551615",
                                            "18446744073709551616",
                                            "99999999999999999999999",
                                            "-99999999999999999999999",
                                            "99999999999999999999999999",
                                            "0x7fffffff",
                                            "0xffffffff",
                                            "0x8000000000000000",
                                            "0xffffffffffffffff",
                                            "0x10000000000000000",
                                            "0xfffffffffffffffffffff",
                                            "0x",
                                            "0x1p",
                                            "1e308",
                                            "1e309",
                                            "1e999999",
                                            "-0.0",
                                            "0.0",
                                            "nan",
                                            "-nan",
                                            "inf",
                                            "-inf",
                                            "3.4028235e38",
                                            "1.4e-45",
                                            "5e-324",
                                            "0.1",
                                            "1.5",
                                            "65504",
                                            "65520",
                                            "00",
                                            "-",
                                            "+1",
                                            "1.",
                                            ".5",
                                            "0x7ffffffc",
                                            "0x100000",
                                            "1048576",
                                            "000000000000000000000000001"};

// Bytes a file should not hold, or holds only in strings.
const std::vector<std::string> kHostileBytes = {std::string(1, '\0'),
                                                "\xff",
                                                "\xfe\xff",
                                                "\xef\xbb\xbf",
                                                "\r",
                                                "\xc0\x80",
                                                "\xed\xa0\x80",
                                                "\x7f",
                                                "\x01",
                                                "\\u0000",
                                                "\\uZZZZ",
                                                "\\ud800",
                                                "\\",
                                                "\"",
                                                "\t",
                                                "\xe2\x80\xae",
                                                "\x1b[2J"};

struct Knobs {
  std::string alphabet;
  std::vector<std::string> openers;  // deep nesting
  std::vector<std::string> chains;   // long chains: "%s" is the previous text
};

const Knobs& knobs(Target t) {
  static const Knobs litmus{";|,{}[]()\n0123456789.:=~/\\ -@+*&!<>rPxyLCabz\"\t$%#",
                            {"(", "~", "~(", "[", "{", "\"", "!"},
                            {" /\\ x=0", " \\/ 0:r0=1", " /\\ ~(x=1)"}};
  static const Knobs nvtest{"$|;,{}[]()\n0123456789.: -rdbtx=!#",
                            {"(", "{", "[", "$"},
                            {" | st [x]", " $0", "; fence.proxy.surface"}};
  static const Knobs sass{
      ";,[]{}()\n0123456789.:+-!@RPxEATOMBRLSX \t", {"[", "(", "{", "@"}, {".E", " + R1", ".ADD"}};
  static const Knobs words{"0123456789abcdefxX \n;", {"0x"}, {"0"}};
  static const Knobs pto{
      "%{}[]()<>:=,\n0123456789.\"!- xfbipto_", {"(", "{", "<", "["}, {" + 1", ", %c0"}};
  static const Knobs cat{"|&;*+?~^-1()[]{}\n_\"= letrcanduiofhs\\",
                         {"(", "[", "~", "(~"},
                         {" | po", " ; po", "^-1", "+", "*", " & rf", " \\ co"}};
  static const Knobs json{"[]{}:,\"\\\n0123456789.-+eEtrufalsn u",
                          {"[", "{\"a\":", "[{\"x\":"},
                          {",0", ",[]", ",\"a\"", ",{}"}};
  static const Knobs cycle{"PodsWRFecfiRmwDpDataCtrlAddr[],.@ctagpusysclusteracquirereleasewak*",
                           {"[", "[,"},
                           {" PodWW", " Rfe", " Fre@cta", " Fence.sc.gpu"}};
  static const Knobs spec{
      "[]{}=,\"'\n0123456789.-+$abelnmxtu_#",
      {"[", "{ a = ", "[[axis]]\n"},
      {"\n[[axis]]\nname = \"a\"\nlabels = [\"x+y\", \"x\"]", ", \"l+\"", "${a}"}};
  switch (t) {
    case Target::Cycle: return cycle;
    case Target::Spec: return spec;
    case Target::Report:
    case Target::Api: return json;
    case Target::NvTest: return nvtest;
    case Target::SassAsm: return sass;
    case Target::SassWords: return words;
    case Target::Pto: return pto;
    case Target::Cat: return cat;
    case Target::Merge: return json;
    default: return litmus;
  }
}

enum Op : std::uint8_t {
  DelBytes,
  InsByte,
  SetByte,
  Hostile,
  Truncate,
  CopySpan,
  DupLine,
  DelLine,
  SwapLines,
  Token,
  Boundary,
  Splice,
  Nest,
  Chain,
  LongLine,
  Cell,
  AddColumn,
  LocalChain,
  FlipBits,
  RandomWord,
  CatHostile
};

// Mutants stay below this size (the CLI reads at most 16 MiB by default):
// each growing edit is cut to the room left, so that edits that multiply
// (a long line duplicated 5000 times) stay bounded.
constexpr std::size_t kMaxInputBytes = std::size_t{6} << 20;

class Mutator {
 public:
  Mutator(const Corpora& c, Target t, std::mt19937_64& rng)
      : all_(c),
        c_(c[ix(t)]),
        t_(t),
        k_(knobs(t)),
        rng_(rng) {}

  Input next() {
    const std::size_t f = pick(c_.texts.size());
    Input in{t_, c_.texts[f], fs::path(c_.files[f]).filename().string()};
    const int edits = chance(60) ? 1 : chance(60) ? 2 : 3 + static_cast<int>(pick(2));
    for (int e = 0; e < edits; ++e) {
      in.how += " " + mutate(in.text);
      if (in.text.size() > kMaxInputBytes) in.text.resize(kMaxInputBytes);
    }
    return in;
  }

 private:
  std::size_t pick(std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  bool chance(int percent) { return static_cast<int>(pick(100)) < percent; }
  template <class T>
  const T& any(const std::vector<T>& v) {
    return v[pick(v.size())];
  }
  // A length: mostly small, now and then hostile.
  std::size_t length(std::size_t small, std::vector<std::size_t> big) {
    return chance(85) ? 1 + pick(small) : any(big);
  }
  // At most `k` copies of `unit` bytes, and at least one, within the room
  // `s` leaves below kMaxInputBytes.
  static std::size_t fit(std::size_t k, std::size_t unit, const std::string& s) {
    const std::size_t room = s.size() < kMaxInputBytes ? kMaxInputBytes - s.size() : 0;
    return std::max<std::size_t>(1, std::min(k, room / std::max<std::size_t>(unit, 1)));
  }

  Op choose() {
    static const std::vector<Op> bytes = {DelBytes, InsByte, SetByte, Hostile, Truncate, CopySpan};
    std::vector<Op> ops = {DupLine,  DelLine, SwapLines, Token, Token,   Boundary,
                           Boundary, Splice,  Nest,      Chain, LongLine};
    if (t_ == Target::Ptx || t_ == Target::Sass)
      ops.insert(ops.end(), {Cell, Cell, AddColumn, LocalChain, LocalChain});
    if (t_ == Target::NvTest) ops.insert(ops.end(), {Cell, DupLine, Boundary});
    if (t_ == Target::SassWords) ops.insert(ops.end(), {FlipBits, FlipBits, FlipBits, RandomWord});
    if (t_ == Target::Cat) ops.insert(ops.end(), {CatHostile, CatHostile, Chain});
    return chance(25) ? any(bytes) : any(ops);
  }

  // A line of the instruction table (after the header, before the
  // condition), or any line.
  std::size_t code_line(const std::vector<std::string>& lines) {
    std::vector<std::size_t> code;
    for (std::size_t i = header_line(lines) + 1; i < lines.size() && !condition_line(lines[i]); ++i)
      if (lines[i].find(';') != std::string::npos || lines[i].find('|') != std::string::npos)
        code.push_back(i);
    return code.empty() ? pick(lines.size()) : any(code);
  }

  // Replaces column `col` of a table row by `cell`.
  static std::string with_cell(const std::string& line, std::size_t col, const std::string& cell) {
    std::vector<std::size_t> bars{static_cast<std::size_t>(-1)};
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|') bars.push_back(i);
    const std::size_t end_all =
        line.find(';') == std::string::npos ? line.find_last_not_of("\r\n") + 1 : line.rfind(';');
    col %= bars.size();
    const std::size_t b = bars[col] + 1;
    const std::size_t e = col + 1 < bars.size() ? bars[col + 1] : end_all;
    if (b > e || e > line.size()) return line;
    return line.substr(0, b) + " " + cell + " " + line.substr(e);
  }

  std::string mutate(std::string& s);
  std::string mutate_bytes(std::string& s, Op op);
  std::string mutate_lines(std::string& s, Op op);
  std::string mutate_words(std::string& s, Op op);
  std::string mutate_hostile(std::string& s, Op op);
  std::string add_column(std::vector<std::string>& lines);

  const Corpora& all_;
  const Corpus& c_;
  Target t_;
  const Knobs& k_;
  std::mt19937_64& rng_;
};

std::string Mutator::mutate(std::string& s) {
  if (s.empty()) {
    s = c_.texts.empty() ? "x" : any(c_.texts);
    return "reset";
  }
  const Op op = choose();
  switch (op) {
    case DelBytes:
    case InsByte:
    case SetByte:
    case Hostile:
    case Truncate:
    case CopySpan: return mutate_bytes(s, op);
    case DupLine:
    case DelLine:
    case SwapLines:
    case Splice:
    case Cell:
    case AddColumn:
    case LocalChain: return mutate_lines(s, op);
    case Token:
    case Boundary:
    case FlipBits:
    case RandomWord: return mutate_words(s, op);
    default: return mutate_hostile(s, op);
  }
}

std::string Mutator::mutate_bytes(std::string& s, Op op) {
  const std::size_t p = pick(s.size());
  switch (op) {
    case DelBytes: s.erase(p, 1 + pick(std::min<std::size_t>(8, s.size() - p))); return "del-bytes";
    case InsByte: s.insert(p, 1, k_.alphabet[pick(k_.alphabet.size())]); return "ins-byte";
    case SetByte: s[p] = k_.alphabet[pick(k_.alphabet.size())]; return "set-byte";
    case Hostile: {
      const std::size_t h = pick(kHostileBytes.size());
      s.insert(p, kHostileBytes[h]);
      return fmt::format("hostile-byte#{}", h);
    }
    case Truncate: s.resize(p); return "truncate";
    default: {  // copy a random span elsewhere
      const std::size_t n = 1 + pick(std::min<std::size_t>(64, s.size() - p));
      s.insert(pick(s.size()), s.substr(p, n));
      return "copy-span";
    }
  }
}

std::string Mutator::mutate_lines(std::string& s, Op op) {
  std::vector<std::string> lines = split_lines(s);
  std::string how;
  switch (op) {
    case DupLine: {  // now and then many times
      const std::size_t l = code_line(lines);
      const std::size_t k = fit(length(3, {20, 200, 5000}), lines[l].size(), s);
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), k, lines[l]);
      how = fmt::format("dup-line*{}", k);
      break;
    }
    case DelLine:
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
      how = "del-line";
      break;
    case SwapLines:
      std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
      how = "swap-lines";
      break;
    case Splice: {  // a prefix of this file, a suffix of another of the target
      const std::vector<std::string> other = split_lines(any(c_.texts));
      if (other.empty()) return "noop";
      const std::size_t a = pick(lines.size() + 1), b = pick(other.size());
      lines.resize(a);
      lines.insert(lines.end(), other.begin() + static_cast<std::ptrdiff_t>(b), other.end());
      how = "splice";
      break;
    }
    case Cell: {  // a cell of a table row becomes a cell of the corpus
      if (c_.cells.empty()) return "noop";
      const std::size_t l = code_line(lines);
      lines[l] = with_cell(lines[l], pick(4), any(c_.cells));
      how = "cell";
      break;
    }
    case AddColumn: how = add_column(lines); break;
    default: {  // a chain of corpus cells (dependent local operations) in one column
      static const std::vector<std::string> ptx_ops = {
          "add r0, r0, 1",  "add r0, r0, r0",    "mul r1, r1, r0",
          "sub r2, r2, r0", "@p0 add r0, r0, 1", "add.f32 r0, r0, r0",
          "mov r0, r1",     "mov r1, r0",        "setp.eq.s32 p0, r0, 1"};
      const std::size_t l = code_line(lines);
      const std::size_t k = fit(length(8, {64, 1200, 20000}), lines[l].size() + 64, s);
      const std::size_t col = pick(4);
      std::vector<std::string> chain;
      for (std::size_t i = 0; i < k; ++i)
        chain.push_back(with_cell(lines[l], col, t_ == Target::Ptx ? any(ptx_ops) : any(c_.cells)));
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), chain.begin(), chain.end());
      how = fmt::format("chain-rows*{}", k);
    }
  }
  s = join_lines(lines);
  return how;
}

std::string Mutator::add_column(std::vector<std::string>& lines) {
  const std::size_t h = header_line(lines);
  for (std::size_t i = h; i < lines.size() && !condition_line(lines[i]); ++i) {
    std::string& l = lines[i];
    const std::size_t semi = l.rfind(';');
    if (semi == std::string::npos) continue;
    if (i == h) {
      l.insert(semi, fmt::format("| P{} ", std::count(l.begin(), l.end(), '|') + 1));
      continue;
    }
    const std::size_t bar = l.rfind('|', semi);
    l.insert(semi, "| " + l.substr(bar == std::string::npos ? 0 : bar + 1,
                                   bar == std::string::npos ? semi : semi - bar - 1));
  }
  return "add-column";
}

std::string Mutator::mutate_words(std::string& s, Op op) {
  const std::size_t p0 = pick(s.size());
  if (op == Token) {  // a word becomes a word of the corpus (of any target, now and then)
    const Corpus& from = chance(90) ? c_ : all_[pick(kTargetCount)];
    if (from.tokens.empty()) return "noop";
    const std::size_t p = s.find_first_not_of(" \t\n|;,", p0);
    if (p == std::string::npos) return "noop";
    std::size_t e = s.find_first_of(" \t\n|;,", p);
    s.replace(p, (e == std::string::npos ? s.size() : e) - p, any(from.tokens));
    return "token";
  }
  if (op == Boundary) {  // a number becomes a boundary value
    std::size_t p = s.find_first_of("0123456789", p0);
    if (p == std::string::npos) p = s.find_first_of("0123456789");
    if (p == std::string::npos) return "noop";
    std::size_t e = s.find_first_not_of("0123456789.xXabcdefABCDEF", p);
    if (e == std::string::npos) e = s.size();
    if (p > 0 && s[p - 1] == '-') --p;
    const std::string& b = any(kBoundary);
    s.replace(p, e - p, b);
    return "boundary:" + b;
  }
  // SASS words: flip bits of a word, or replace a line by a random word.
  std::vector<std::string> lines = split_lines(s);
  const std::size_t l = pick(lines.size());
  std::uint64_t w = rng_();
  if (op == FlipBits) {
    const std::string t = trimmed(lines[l]);
    std::uint64_t v = 0;
    if (std::sscanf(t.c_str(), "%lx", &v) != 1) return "noop";
    w = v;
    for (std::size_t i = 0, n = 1 + pick(3); i < n; ++i) w ^= std::uint64_t{1} << pick(64);
  }
  lines[l] = sass::word_text(w) + "\n";
  s = join_lines(lines);
  return op == FlipBits ? "flip-bits" : "random-word";
}

std::string Mutator::mutate_hostile(std::string& s, Op op) {
  const std::size_t p = pick(s.size() + 1);
  if (op == Nest) {  // deep nesting, balanced or not
    const std::string& o = any(k_.openers);
    const std::size_t k = fit(length(20, {300, 5000, 10000, 100000}), 2 * o.size(), s);
    std::string ins;
    ins.reserve(o.size() * k);
    for (std::size_t i = 0; i < k; ++i) ins += o;
    s.insert(p, ins);
    if (chance(50)) {
      const char close = o.back() == '['   ? ']'
                         : o.back() == '{' ? '}'
                         : o.back() == '<' ? '>'
                                           : ')';
      s.insert(std::min(s.size(), p + ins.size() + pick(20)), std::string(k, close));
    }
    return fmt::format("nest:{}*{}", o, k);
  }
  if (op == Chain) {  // a long chain of one operator after a word
    const std::string& c = any(k_.chains);
    const std::size_t k = fit(length(30, {1000, 20000, 200000}), c.size(), s);
    std::string ins;
    ins.reserve(c.size() * k);
    for (std::size_t i = 0; i < k; ++i) ins += c;
    std::size_t at = s.find_first_of(" \t\n;|,)", p);
    s.insert(at == std::string::npos ? s.size() : at, ins);
    return fmt::format("chain:{}*{}", c, k);
  }
  if (op == LongLine) {  // a line of 100 kB and more (a word or a cell repeated)
    const std::size_t k = length(100, {10000, 100000});
    std::string w = c_.tokens.empty() ? "x" : any(c_.tokens);
    std::string ins;
    for (std::size_t i = 0, n = fit(k, w.size() + 1, s); i < n; ++i) ins += w + " ";
    s.insert(p, ins);
    return fmt::format("long-line*{}", k);
  }
  // Cat models: statements that recursion, includes and lets get wrong.
  static const std::vector<std::string> stmts = {"\nlet rec r = ~r\n",
                                                 "\nlet rec a = b | po and b = a ; po\n",
                                                 "\nlet rec q = q\n",
                                                 "\ninclude \"mutant.cat\"\n",
                                                 "\ninclude \"ptx.cat\"\ninclude \"ptx.cat\"\n",
                                                 "\ninclude \"\"\n",
                                                 "\ninclude \"/dev/zero\"\n",
                                                 "\ninclude \"no-such.cat\"\n",
                                                 "\nacyclic po as\n",
                                                 "\nlet po = po\n",
                                                 "\nflag ~empty rf as F\n",
                                                 "\nempty 0 as Z\n",
                                                 "\nirreflexive _ as U\n",
                                                 "\nlet x = if \"sm6x\" then po else rf\n"};
  const std::size_t k = chance(80) ? 1 : any(std::vector<std::size_t>{100, 20000});
  std::string ins;
  const std::string& st = any(stmts);
  for (std::size_t i = 0, n = fit(k, st.size() + 8, s); i < n; ++i)
    ins += k > 1 && st.rfind("\nlet ", 0) == 0 ? fmt::format("\nlet v{} = po\n", i) : st;
  s.insert(p, ins);
  return fmt::format("cat-stmt*{}", k);
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Input make_input(const Corpora& c, const std::vector<Target>& targets, std::uint64_t seed,
                 std::uint64_t index) {
  const Target t = targets[index % targets.size()];
  const Corpus& k = c[ix(t)];
  const std::uint64_t round = index / targets.size();
  if (round < std::min<std::size_t>(16, k.texts.size()))
    return {t, k.texts[round], fs::path(k.files[round]).filename().string() + " (unchanged)"};
  std::mt19937_64 rng(mix(seed ^ mix(index)));
  return Mutator(c, t, rng).next();
}

}  // namespace redscope::fuzz
