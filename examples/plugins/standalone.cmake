# The example plugins built outside tilelens's tree, against an installed tilelens: installed as
# share/doc/tilelens/examples/plugins/CMakeLists.txt beside eager.c and lru.c.
#   cmake -S share/doc/tilelens/examples/plugins -B build -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build
cmake_minimum_required(VERSION 3.25)
project(tilelens_example_plugins C)
find_package(tilelens REQUIRED)
foreach(example eager lru)
  add_library(${example}_plugin MODULE ${example}.c)
  target_link_libraries(${example}_plugin PRIVATE tilelens::plugin)
  set_target_properties(${example}_plugin PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
endforeach()
