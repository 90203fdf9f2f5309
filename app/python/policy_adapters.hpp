// Python classes as schedulers and eviction policies: the adapters between tilelens's Scheduler
// and EvictionPolicy interfaces and a Python object with the methods of include/tilelens/plugin.h
// (push, pop, task_started, ...; inserted, used, removed, choose_victim). A class registered
// here is made by name ("python.CLASS") anywhere a spec is read, sweeps included.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace tilelens::python {

// What the Python layer (tilelens/__init__.py) says of a class before it is registered: its
// registered name ("python.MyEager"), the parameters it declares with their defaults, and its
// identity (a hash of its source, its version), which the run key records so that an edited
// class never counts as "already stored".
struct PolicyClass {
  std::string name;
  std::map<std::string, std::string> params;
  std::string hash, version;
};

void register_scheduler_class(const PolicyClass& info, pybind11::object cls);
void register_eviction_class(const PolicyClass& info, pybind11::object cls, bool needs_future);

// The Python views a class's constructor gets, defined once in the module: the workload (the
// fields of tl_workload), the platform (tl_platform) and the host (tl_host).
void define_policy_views(pybind11::module_& module);

}  // namespace tilelens::python
