// Runs every file of the given corpus directories through the fuzz target once: how CI
// replays the checked-in corpora without libFuzzer (which needs clang). A target reports a
// broken property by aborting; the input at fault is named first.
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size);

namespace {

char current[4096];  // the input being run, for the abort handler (which may only write(2))

extern "C" void name_the_input(int signal) {
  const char prefix[] = "corpus input at fault: ";
  [[maybe_unused]] auto a = write(2, prefix, sizeof prefix - 1);
  [[maybe_unused]] auto b = write(2, current, std::strlen(current));
  [[maybe_unused]] auto c = write(2, "\n", 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGABRT, name_the_input);
  std::signal(SIGSEGV, name_the_input);
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      const std::string path = entry.path().string();
      std::strncpy(current, path.c_str(), sizeof current - 1);
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes(std::istreambuf_iterator<char>(in), {});
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  std::cout << "ran " << inputs << " corpus inputs\n";
  return inputs > 0 ? 0 : 1;  // an empty corpus is a broken test, not a pass
}
