// The workload file format; see workload_io.hpp and docs/workload-format.md.
#include "formats/workload_io.hpp"
#include "util/quoted.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <streambuf>
#include <type_traits>
#include <vector>

#include "formats/output_file.hpp"
#include "presets/seed_workloads.hpp"
#include "model/units.hpp"
#include "util/utf8.hpp"

namespace tilelens {
namespace {

// The file form; the generator line carries the file's digest when `with_digest`.
Status write_workload_form(const Workload& w, std::ostream& out, bool with_digest);

std::string number(double value) {
  char buffer[64];
  if (value == std::floor(value) && std::fabs(value) < 9e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
  }
  return buffer;
}

// Spaces, tabs and the carriage returns of files written on Windows separate a line's words.
bool separates_words(char c) {
  constexpr std::uint64_t kSeparators = (1ull << ' ') | (1ull << '\t') | (1ull << '\r');
  const auto byte = static_cast<unsigned char>(c);
  return byte <= ' ' && ((kSeparators >> byte) & 1u) != 0;
}

// The words of a line into `words` (reused from line to line: a file has a line per task).
void split_words(std::string_view line, std::vector<std::string_view>& words) {
  words.clear();
  const char* at = line.data();
  const char* const end = at + line.size();
  while (at < end) {
    while (at < end && separates_words(*at)) ++at;
    const char* const start = at;
    while (at < end && !separates_words(*at)) ++at;
    if (at > start) words.emplace_back(start, static_cast<std::size_t>(at - start));
  }
}

// std::from_chars for a decimal integer, with a shorter way for the short numbers files are made
// of (ids, indices, priorities): while fewer digits than can overflow T follow, each is added
// without the general routine's checks (it costs about 80 instructions a number, and a Cholesky
// of N = 40 has 100,000 of them). Anything else, overflow and errors included, is std::from_chars's.
template <class T>
std::from_chars_result decimal_from_chars(const char* first, const char* last, T& value) {
  const char* at = first;
  const bool negative = std::is_signed_v<T> && at < last && *at == '-';
  if (negative) ++at;
  const char* const digits = at;
  std::uint64_t magnitude = 0;
  while (at < last && at - digits < std::numeric_limits<T>::digits10 && static_cast<unsigned char>(*at - '0') < 10) {
    magnitude = magnitude * 10 + static_cast<std::uint64_t>(*at - '0');
    ++at;
  }
  if (at == digits || (at < last && static_cast<unsigned char>(*at - '0') < 10)) return std::from_chars(first, last, value);
  value = negative ? static_cast<T>(-static_cast<std::int64_t>(magnitude)) : static_cast<T>(magnitude);
  return {at, std::errc()};
}

class LineReader {
 public:
  // `source` outlives the reader (the file's name, for errors).
  LineReader(const std::string& source, std::size_t line) : source_(source), line_(line) {}

  Error error(std::string_view field, const std::string& message) const {
    return make_error(source_ + ":" + std::to_string(line_) + ": " +
                      (field.empty() ? std::string() : "field '" + std::string(field) + "': ") + message);
  }

  template <class T>
  Result<T> integer(std::string_view word, std::string_view field) const {
    T value{};
    auto [ptr, ec] = decimal_from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || ptr != word.data() + word.size()) {
      return error(field, quote_input(word) + " is not a valid integer");
    }
    return value;
  }

  Result<double> real(std::string_view word, std::string_view field) const {
    // A plain number, as files hold, directly; parse_real (the same value) words the errors.
    double plain = 0;
    if (auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), plain);
        ec == std::errc() && ptr == word.data() + word.size() && std::isfinite(plain)) {
      return plain;
    }
    auto value = parse_real(word);
    if (!value || !std::isfinite(*value)) return error(field, quote_input(word) + " is not a valid number");
    return value;
  }

 private:
  const std::string& source_;
  std::size_t line_;
};

// FNV-1a over everything written to it.
class HashingBuffer final : public std::streambuf {
 public:
  std::uint64_t hash = 14695981039346656037ull;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) add(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) add(s[i]);
    return n;
  }

 private:
  void add(char c) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
};

// Whether two workloads have every field write_workload writes equal, doubles bit for bit: then
// their file forms are equal too. Comparing fields skips formatting two whole files, which took
// half the time of reading a Cholesky of N = 40 (11,480 tasks) back.
bool same_file_form(const Workload& a, const Workload& b) {
  const auto same_bits = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  const GeneratorInfo &ga = a.generator(), &gb = b.generator();
  if (a.name() != b.name() || ga.name != gb.name || ga.spec != gb.spec || ga.N != gb.N || ga.n != gb.n || ga.b != gb.b ||
      ga.elem != gb.elem || !same_bits(ga.density, gb.density) || ga.seed != gb.seed || a.kinds() != b.kinds() ||
      a.data_count() != b.data_count() || a.task_count() != b.task_count() || a.submission_order() != b.submission_order()) {
    return false;
  }
  for (DataId d = 0; d < a.data_count(); ++d) {
    const Data &x = a.data()[d], &y = b.data()[d];
    if (x.bytes != y.bytes || x.matrix != y.matrix || x.row != y.row || x.col != y.col || x.name != y.name || x.home != y.home) return false;
  }
  for (TaskId t = 0; t < a.task_count(); ++t) {
    const Task &x = a.tasks()[t], &y = b.tasks()[t];
    if (x.kind != y.kind || !same_bits(x.flops, y.flops) || x.priority != y.priority || x.i != y.i || x.j != y.j || x.k != y.k) return false;
    const auto xa = a.accesses(t), ya = b.accesses(t);
    if (!std::equal(xa.begin(), xa.end(), ya.begin(), ya.end(), [](const Access& p, const Access& q) { return p.data == q.data && p.mode == q.mode; })) {
      return false;
    }
    const auto xp = a.predecessors(t), yp = b.predecessors(t);
    if (!std::equal(xp.begin(), xp.end(), yp.begin(), yp.end())) return false;
  }
  return true;
}

// Whether a workload read from a file is what its generator line's spec generates (nothing),
// or the first line where the two files differ.
Result<std::optional<std::size_t>> first_difference_from_generator(const Workload& read) {
  // The generator line's own fields against its spec's, before generating: a small file whose
  // line claims a huge spec would otherwise cost the whole generation (found by the fuzzer).
  // A seed generator records N, b, elem and seed as its spec gives them, so a field that
  // differs here differs in the generated file's generator line too.
  const GeneratorInfo& recorded = read.generator();
  if (auto spec = parse_spec(recorded.spec)) {
    bool differs = spec->name != recorded.name;
    const std::pair<const char*, std::int64_t> fields[] = {
        {"N", recorded.N}, {"b", recorded.b}, {"elem", recorded.elem}, {"seed", static_cast<std::int64_t>(recorded.seed)}};
    for (const auto& [key, value] : fields) {
      const auto typed = spec->values.find(key);
      if (typed != spec->values.end() && typed->second != std::to_string(value)) differs = true;
    }
    if (differs) {
      std::ostringstream actual;
      if (auto status = write_workload_form(read, actual, false); !status) return status.error();
      std::istringstream lines(actual.str());
      std::string text;
      std::size_t number = 0;
      while (std::getline(lines, text)) {
        ++number;
        if (text.rfind("generator ", 0) == 0) return std::optional<std::size_t>(number);
      }
      return std::optional<std::size_t>(1);
    }
  }
  auto generated = generate_workload(read.generator().spec);
  if (!generated) return generated.error();
  if (same_file_form(*generated, read)) return std::optional<std::size_t>();
  std::ostringstream expected, actual;
  if (auto status = write_workload_form(*generated, expected, false); !status) return status.error();
  if (auto status = write_workload_form(read, actual, false); !status) return status.error();
  if (expected.str() == actual.str()) return std::optional<std::size_t>();
  std::istringstream a(expected.str()), b(actual.str());
  std::string line_a, line_b;
  std::size_t line = 0;
  while (true) {
    ++line;
    const bool more_a = static_cast<bool>(std::getline(a, line_a)), more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a || !more_b || line_a != line_b) return std::optional<std::size_t>(line);
  }
}

// The digest a generated workload's file records on its generator line as digest=N, of the
// file as it would be without that word: reading a file that still has it skips generating the
// spec again to check the file (check_generator_line). 64-bit multiply-xorshift over 8-byte
// words, keyed by the generators' output version; a check against edits and older generators,
// not against forgery.
std::string digest_of(std::string_view text) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(kGeneratorOutputVersion);
  const auto mix = [&](std::uint64_t word) {
    hash = (hash ^ word) * 0xff51afd7ed558ccdull;
    hash ^= hash >> 32;
  };
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    mix(word);
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i + k < text.size(); ++k) tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i + k])) << (8 * k);
  mix(tail);
  mix(text.size());  // so that trailing zero bytes count
  return std::to_string(hash >> 1);  // below 2^63: a reader that does not know the key parses it as an integer and ignores it
}

}  // namespace

std::string workload_file_digest(std::string_view text) { return digest_of(text); }

std::string workload_content_hash(const Workload& workload) {
  HashingBuffer buffer;
  std::ostream out(&buffer);
  (void)write_workload_form(workload, out, false);  // a hashing buffer takes every byte: it cannot fail
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(buffer.hash));
  return std::string(text);
}

std::string workload_identity(const Workload& workload) {
  if (!workload.generator().spec.empty()) return workload.generator().spec;
  return "content:" + workload_content_hash(workload);
}

namespace {

void write_body(const Workload& w, std::ostream& out) {
  for (const auto& kind : w.kinds()) out << "kind " << kind << "\n";
  for (const Data& d : w.data()) {
    out << "data " << d.bytes << ' ' << d.matrix << ' ' << d.row << ' ' << d.col << ' ' << d.name << (d.home ? " home" : "") << "\n";
  }
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    out << "task " << w.kinds()[task.kind] << ' ' << number(task.flops) << ' ' << task.priority << ' ' << task.i << ' '
        << task.j << ' ' << task.k;
    for (const Access& a : w.accesses(t)) out << ' ' << to_string(a.mode) << ':' << a.data;
    out << "\n";
  }
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (TaskId p : w.predecessors(t)) out << "dep " << p << ' ' << t << "\n";
  }
  const auto& order = w.submission_order();
  bool natural = true;
  for (std::size_t i = 0; i < order.size(); ++i) natural &= order[i] == i;
  if (!natural) {
    for (std::size_t i = 0; i < order.size(); i += 16) {
      out << "order";
      for (std::size_t j = i; j < std::min(order.size(), i + 16); ++j) out << ' ' << order[j];
      out << "\n";
    }
  }
}

Status write_workload_form(const Workload& w, std::ostream& out, bool with_digest) {
  if (with_digest && !w.generator().name.empty()) {
    std::ostringstream plain;
    if (auto status = write_workload_form(w, plain, false); !status) return status;
    const std::string text = std::move(plain).str();
    const std::size_t generator_line = text.find("\ngenerator ");
    const std::size_t at = text.find('\n', generator_line + 1);
    out.write(text.data(), static_cast<std::streamsize>(at));
    out << " digest=" << digest_of(text);
    out.write(text.data() + at, static_cast<std::streamsize>(text.size() - at));
    if (!out) return make_error("could not write the workload");
    return Status::success();
  }
  out << "tilelens-workload " << kWorkloadFormatVersion << "\n";
  out << "name " << w.name() << "\n";
  const GeneratorInfo& g = w.generator();
  if (g.name.empty()) {
    write_body(w, out);
  } else {
    out << "generator " << g.name << " N=" << g.N << " n=" << g.n << " b=" << g.b << " elem=" << g.elem
        << " density=" << number(g.density) << " seed=" << g.seed << " spec=" << g.spec << "\n";
    write_body(w, out);
  }
  if (!out) return make_error("could not write the workload");
  return Status::success();
}

}  // namespace

Status write_workload(const Workload& w, std::ostream& out) { return write_workload_form(w, out, true); }

Status save_workload(const Workload& workload, const std::string& path) {
  return write_output_file(path, [&](std::ostream& out) { return write_workload(workload, out); });
}

namespace {

// What a workload file's reader keeps between lines.
struct WorkloadFileState {
  WorkloadBuilder* builder = nullptr;
  std::optional<WorkloadBuilder> storage;
  std::vector<TaskId> order;
  std::set<std::string, std::less<>> kind_names;  // looked up by every task line
  std::string last_kind;                          // the kind of the task line before, and its id:
  KindId last_kind_id = 0;                        // tasks of a kind often come in runs
  std::vector<Access> accesses;                   // a task line's, reused
  std::uint64_t total_bytes = 0;
  std::string digest;                             // the generator line's digest=, if any,
  std::size_t digest_begin = 0, digest_end = 0;   // and where " digest=N" lies in the text
};

// "generator NAME key=value...": the parameters it was made with.
Status read_generator_line(const LineReader& at, const std::vector<std::string_view>& words, WorkloadFileState& state) {
    if (words.size() < 2) return at.error("generator", "missing generator name");
    GeneratorInfo info;
    info.name = std::string(words[1]);
    for (std::size_t i = 2; i < words.size(); ++i) {
      const auto equal = words[i].find('=');
      if (equal == std::string_view::npos) return at.error("generator", quote_input(words[i]) + " is not key=value");
      const auto key = words[i].substr(0, equal);
      const auto value = words[i].substr(equal + 1);
      if (key == "spec") { info.spec = std::string(value); continue; }
      if (key == "digest") { state.digest = std::string(value); continue; }
      if (key == "density") {
        auto density = at.real(value, "density");
        if (!density) return density.error();
        info.density = *density;
        continue;
      }
      auto parsed = at.integer<std::int64_t>(value, key);
      if (!parsed) return parsed.error();
      if (key == "N") info.N = *parsed;
      else if (key == "n") info.n = *parsed;
      else if (key == "b") info.b = *parsed;
      else if (key == "elem") info.elem = *parsed;
      else if (key == "seed") info.seed = static_cast<std::uint64_t>(*parsed);
      // unknown keys are ignored so that later versions can add parameters
    }
    state.builder->set_generator(info);
  return Status::success();
}

// "data BYTES MATRIX ROW COL NAME [home]".
Status read_data_line(const LineReader& at, const std::vector<std::string_view>& words, WorkloadFileState& state) {
    if (words.size() < 6) return at.error("data", "expected 'data BYTES MATRIX ROW COL NAME [home]'");
    if (words.size() > 7 || (words.size() == 7 && words[6] != "home")) {
      const std::string_view extra = words[6] == "home" ? words[7] : words[6];
      return at.error("data", "expected 'data BYTES MATRIX ROW COL NAME [home]', and " + quote_input(extra) +
                                  (words[6] == "home" ? " follows 'home'" : " follows the name (a name is one word; only 'home' may follow it)"));
    }
    auto bytes = at.integer<std::uint64_t>(words[1], "bytes");
    if (!bytes) return bytes.error();
    if (*bytes == 0) return at.error("bytes", "a data must have a size greater than zero");
    if (*bytes > kMaxWorkloadBytes - state.total_bytes) {
      return at.error("bytes", std::to_string(*bytes) + " bytes take the workload's data past 2^62 bytes (4 EiB), more than tilelens can count");
    }
    state.total_bytes += *bytes;
    if (words[2].size() != 1) return at.error("matrix", "expected one character, got " + quote_input(words[2]));
    auto row = at.integer<std::int32_t>(words[3], "row");
    if (!row) return row.error();
    auto col = at.integer<std::int32_t>(words[4], "col");
    if (!col) return col.error();
    Data data;
    data.bytes = *bytes;
    data.matrix = words[2][0];
    data.row = *row;
    data.col = *col;
    data.name = std::string(words[5]);
    data.home = words.size() == 7;
    state.builder->add_data(std::move(data));
  return Status::success();
}

// "task KIND FLOPS PRIORITY I J K [MODE:DATA...]".
Status read_task_line(const LineReader& at, const std::vector<std::string_view>& words, WorkloadFileState& state) {
    // A task without accesses computes only (imported runs hold them: docs/starpu-import.md).
    if (words.size() < 7) return at.error("task", "expected 'task KIND FLOPS PRIORITY I J K [MODE:DATA...]'");
    if (words[1] != state.last_kind) {
      if (state.kind_names.find(words[1]) == state.kind_names.end()) return at.error("kind", "kind " + quote_input(words[1]) + " is not declared by a 'kind' line above");
      state.last_kind = std::string(words[1]);
      state.last_kind_id = state.builder->kind(state.last_kind);
    }
    auto flops = at.real(words[2], "flops");
    if (!flops) return flops.error();
    if (*flops < 0) return at.error("flops", "must not be negative");
    if (*flops > kMaxTaskFlops) return at.error("flops", quote_input(words[2]) + " is more than the 1e21 flops a task may have");
    auto priority = at.integer<std::int64_t>(words[3], "priority");
    if (!priority) return priority.error();
    auto i = at.integer<std::int32_t>(words[4], "i");
    if (!i) return i.error();
    auto j = at.integer<std::int32_t>(words[5], "j");
    if (!j) return j.error();
    auto k = at.integer<std::int32_t>(words[6], "k");
    if (!k) return k.error();
    std::vector<Access>& accesses = state.accesses;
    accesses.clear();
    for (std::size_t a = 7; a < words.size(); ++a) {
      const auto colon = words[a].find(':');
      if (colon == std::string_view::npos) return at.error("access", quote_input(words[a]) + " is not MODE:DATA (e.g. R:3)");
      auto mode = access_mode_from(words[a].substr(0, colon));
      if (!mode) return at.error("access", "mode " + quote_input(words[a].substr(0, colon)) + " is not R, W or RW");
      auto data = at.integer<DataId>(words[a].substr(colon + 1), "access");
      if (!data) return data.error();
      if (*data >= state.builder->data_count()) {
        return at.error("access", "data " + std::to_string(*data) + " is not declared (" + std::to_string(state.builder->data_count()) +
                                      " data so far)");
      }
      accesses.push_back({*data, *mode});
    }
    state.builder->add_task(state.last_kind_id, accesses, *flops, *i, *j, *k, *priority);
  return Status::success();
}

// A file with a generator line must be what that spec generates: its bounds and run keys follow the spec.
// A file whose digest is the one its generator line records was written, unchanged since, from
// what the spec generated: only another file needs the spec generated again to compare.
Status check_generator_line(const Workload& workload, const std::string& source, std::string_view undigested, const std::string& recorded_digest) {
  if (workload.generator().name.empty()) return Status::success();
  if (!recorded_digest.empty() && !undigested.empty() && recorded_digest == digest_of(undigested)) return Status::success();
  const std::string& spec = workload.generator().spec;
  auto difference = first_difference_from_generator(workload);
  if (!difference) {
    return make_error(source + ": the generator line's spec '" + spec + "' does not generate a workload: " + difference.error().message +
                      "; delete the generator line to use the file as it is");
  }
  if (*difference) {
    return make_error(source + ": the file is not what its generator line's spec '" + spec +
                      "' generates (their file forms first differ at line " + std::to_string(**difference) +
                      "); the bounds and run keys would follow that line, so delete it to use the file as it is");
  }
  return Status::success();
}

}  // namespace

namespace {

Result<Workload> read_workload_text(std::string_view text, const std::string& source) {
  std::size_t number_of_line = 0;
  WorkloadFileState state;
  WorkloadBuilder*& builder = state.builder;
  std::optional<WorkloadBuilder>& storage = state.storage;
  std::set<std::string, std::less<>>& kind_names = state.kind_names;
  bool header = false;
  std::vector<std::string_view> words;
  // Checked whole, in one pass: the first bad byte is reported when its line comes, as a line
  // by line check would (no line before it has one, and a newline ends any sequence).
  const std::size_t first_bad_byte = invalid_utf8_at(text);
  for (std::size_t next = 0; next < text.size();) {
    const char* const newline = static_cast<const char*>(std::memchr(text.data() + next, '\n', text.size() - next));
    const std::size_t end = newline ? static_cast<std::size_t>(newline - text.data()) : text.size();
    const std::string_view line = text.substr(next, end - next);
    const std::size_t line_start = next;
    next = newline ? end + 1 : text.size();
    ++number_of_line;
    LineReader at(source, number_of_line);
    if (first_bad_byte != std::string_view::npos && first_bad_byte < next) {
      return at.error("", "byte " + std::to_string(first_bad_byte - line_start + 1) + " is not valid UTF-8 (names are UTF-8 text)");
    }
    // The commonest line of a DAG's file, "dep BEFORE AFTER" as write_workload writes it, parsed
    // at once; any other form of it takes the general way below, which words the errors.
    if (header && line.starts_with("dep ")) {
      TaskId before = 0, after = 0;
      const char* const stop = line.data() + line.size();
      const auto first = decimal_from_chars(line.data() + 4, stop, before);
      if (first.ec == std::errc() && first.ptr < stop && *first.ptr == ' ') {
        const auto second = decimal_from_chars(first.ptr + 1, stop, after);
        if (second.ec == std::errc() && second.ptr == stop && before < builder->task_count() && after < builder->task_count()) {
          builder->add_dependency(before, after);
          continue;
        }
      }
    }
    const auto hash = line.find('#');
    const std::string_view content = line.substr(0, hash);
    split_words(content, words);
    if (words.empty()) continue;
    if (!header) {
      if (words[0] != "tilelens-workload" || words.size() != 2) {
        return at.error("", "not a tilelens workload file (the first line must be 'tilelens-workload " +
                                std::to_string(kWorkloadFormatVersion) + "')");
      }
      auto version = at.integer<int>(words[1], "version");
      if (!version) return version.error();
      if (*version != kWorkloadFormatVersion) {
        return at.error("version", "format version " + std::to_string(*version) + " is not supported (this tilelens reads version " +
                                       std::to_string(kWorkloadFormatVersion) + ")");
      }
      header = true;
      storage.emplace("unnamed");
      builder = &*storage;
      continue;
    }
    const std::string_view keyword = words[0];
    if (keyword == "name") {
      const auto start = content.find("name") + 4;
      std::string_view name = content.substr(start);
      while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.remove_suffix(1);
      WorkloadBuilder renamed{std::string(name)};
      if (builder->task_count() || builder->data_count() || !kind_names.empty()) return at.error("name", "the name must come before kinds, data and tasks");
      storage.emplace(std::move(renamed));
      builder = &*storage;
    } else if (keyword == "generator") {
      if (auto status = read_generator_line(at, words, state); !status) return status.error();
      if (!state.digest.empty()) {
        if (const auto word = line.find(" digest="); word != std::string_view::npos) {
          state.digest_begin = static_cast<std::size_t>(line.data() - text.data()) + word;
          state.digest_end = state.digest_begin + 8 + state.digest.size();
        }
      }
    } else if (keyword == "kind") {
      if (words.size() != 2) return at.error("kind", "expected 'kind NAME'");
      builder->kind(std::string(words[1]));
      if (kind_names.size() == std::numeric_limits<KindId>::max() && !kind_names.count(words[1])) {
        return at.error("kind", "more than " + std::to_string(std::numeric_limits<KindId>::max()) + " kinds");
      }
      kind_names.emplace(words[1]);
    } else if (keyword == "data") {
      if (auto status = read_data_line(at, words, state); !status) return status.error();
    } else if (keyword == "task") {
      if (auto status = read_task_line(at, words, state); !status) return status.error();
    } else if (keyword == "dep") {
      if (words.size() != 3) return at.error("dep", "expected 'dep BEFORE AFTER'");
      auto before = at.integer<TaskId>(words[1], "before");
      if (!before) return before.error();
      auto after = at.integer<TaskId>(words[2], "after");
      if (!after) return after.error();
      if (*before >= builder->task_count() || *after >= builder->task_count()) {
        return at.error("dep", "names a task not declared above");
      }
      builder->add_dependency(*before, *after);
    } else if (keyword == "order") {
      for (std::size_t i = 1; i < words.size(); ++i) {
        auto task = at.integer<TaskId>(words[i], "order");
        if (!task) return task.error();
        state.order.push_back(*task);
      }
    } else {
      return at.error("", "unknown record " + quote_input(keyword) + " (expected name, generator, kind, data, task, dep or order)");
    }
  }
  if (!header) return make_error(source + ": empty file, not a tilelens workload");
  if (!state.order.empty()) builder->set_submission_order(std::move(state.order));
  auto workload = std::move(*builder).finish();
  if (!workload) return make_error(source + ": " + workload.error().message);
  // The file without its " digest=N": what its digest was taken of, if nothing changed.
  std::string undigested;
  if (state.digest_end > state.digest_begin && text.substr(state.digest_begin + 8, state.digest.size()) == state.digest) {
    undigested.reserve(text.size());
    undigested.append(text.substr(0, state.digest_begin)).append(text.substr(state.digest_end));
  }
  if (auto status = check_generator_line(*workload, source, undigested, state.digest); !status) return status.error();
  return workload;
}

}  // namespace

Result<Workload> read_workload(std::istream& in, const std::string& source) {
  std::ostringstream text;
  text << in.rdbuf();
  return read_workload_text(text.view(), source);
}



Result<Workload> load_workload(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot open workload file '" + path + "'");
  // Read whole: the lines are then views into it, not copies.
  std::string text;
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (in && in.peek() != std::ifstream::traits_type::eof()) {  // not a regular file, or it grew
    std::ostringstream rest;
    rest << in.rdbuf();
    text += rest.view();
  }
  if (in.bad()) return make_error("cannot read workload file '" + path + "'");
  return read_workload_text(text, path);
}

Result<Workload> resolve_workload(const std::string& argument) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(argument, ec)) return load_workload(argument);
  if (argument.find('/') != std::string::npos || argument.ends_with(".workload")) {
    return make_error("workload file '" + argument + "' does not exist");
  }
  return generate_workload(argument);
}

}  // namespace tilelens
