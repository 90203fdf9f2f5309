// tilelens: the command-line tool. Everything lives in run_cli (commands.cpp).
#include <exception>
#include <iostream>
#include <new>

#include "app/cli/commands.hpp"
#include "app/cli/heap_pages.hpp"

int main(int argc, char** argv) {
  tilelens::cli::prefer_huge_heap_pages();
  std::vector<std::string> args(argv + 1, argv + argc);
  // The libraries report errors as values; what still escapes as an exception (memory
  // exhausted beyond what the size checks foresaw) ends the command with a message and
  // status 1, never with a signal.
  try {
    const int status = tilelens::cli::run_cli(args, std::cout, std::cerr);
    // Output that could not be written (a full disk, a closed pipe) is a failure, not a 0.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "tilelens: writing to the standard output failed (disk full, or the reader went away)\n";
      return status == 0 ? 1 : status;
    }
    return status;
  } catch (const std::bad_alloc&) {
    std::cerr << "tilelens: out of memory; nothing was stored for the run in progress (give it a smaller workload or more memory)\n";
  } catch (const std::exception& error) {
    std::cerr << "tilelens: internal error: " << error.what() << "\n";
  }
  return 1;
}
