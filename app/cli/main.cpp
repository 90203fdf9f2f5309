// tilelens: the command-line tool. Everything lives in run_cli (commands.cpp).
#include <iostream>

#include "app/cli/commands.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tilelens::cli::run_cli(args, std::cout, std::cerr);
}
