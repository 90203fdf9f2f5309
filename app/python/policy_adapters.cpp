// Python classes as schedulers and eviction policies (policy_adapters.hpp). Every call into
// Python takes the GIL, which the module releases while a replay or a sweep runs, so sweep
// threads may call one class in turn. An exception, or an answer of the wrong type, stops the
// class: it is asked nothing more, and the run fails with the exception's text
// (Scheduler::failure, EvictionPolicy::failure).
#include "app/python/policy_adapters.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "core/policies.hpp"

namespace py = pybind11;

namespace tilelens::python {
namespace {

// A registered class, kept for the process's life: a registration never ends, and a
// reference released after the interpreter stopped would crash at exit.
struct HeldClass {
  PolicyClass info;
  PyObject* cls = nullptr;  // a reference never released
  bool needs_future = false;
};

// The workload as plugin.h lays it out (tl_workload's fields, as Python lists), plus the two
// slices a policy reads most.
struct WorkloadView {
  std::uint32_t task_count = 0, data_count = 0;
  py::list kind_names, task_kind, task_flops, task_priority, access_begin, access_data, access_mode, data_bytes, successor_begin,
      successors;

  explicit WorkloadView(const tl_workload& w) : task_count(w.task_count), data_count(w.data_count) {
    for (std::uint32_t k = 0; k < w.kind_count; ++k) kind_names.append(w.kind_names[k]);
    for (std::uint32_t t = 0; t < w.task_count; ++t) {
      task_kind.append(w.task_kind[t]);
      task_flops.append(w.task_flops[t]);
      task_priority.append(w.task_priority[t]);
    }
    for (std::uint32_t t = 0; t <= w.task_count; ++t) {
      access_begin.append(w.access_begin[t]);
      successor_begin.append(w.successor_begin[t]);
    }
    for (std::uint32_t a = 0; a < w.access_begin[w.task_count]; ++a) {
      access_data.append(w.access_data[a]);
      access_mode.append(w.access_mode[a]);
    }
    for (std::uint32_t d = 0; d < w.data_count; ++d) data_bytes.append(w.data_bytes[d]);
    for (std::uint32_t e = 0; e < w.successor_begin[w.task_count]; ++e) successors.append(w.successors[e]);
  }
  void check(std::uint32_t task) const {
    if (task >= task_count) throw py::index_error("task " + std::to_string(task) + " is not below task_count " + std::to_string(task_count));
  }
  py::list accesses(std::uint32_t task) const {
    check(task);
    py::list out;
    for (std::size_t a = access_begin[task].cast<std::size_t>(); a < access_begin[task + 1].cast<std::size_t>(); ++a) {
      out.append(py::make_tuple(access_data[a], access_mode[a]));
    }
    return out;
  }
  py::list successors_of(std::uint32_t task) const {
    check(task);
    py::list out;
    for (std::size_t e = successor_begin[task].cast<std::size_t>(); e < successor_begin[task + 1].cast<std::size_t>(); ++e) out.append(successors[e]);
    return out;
  }
};

// tl_host for Python: the memory states, and the known future where the policy asked for it.
struct HostView {
  const tl_host* host = nullptr;
  std::uint32_t workers = 0, data = 0;
  void check(std::uint32_t worker, std::uint32_t datum) const {
    if (!host) throw py::value_error("the host is asked outside a run");
    if (worker >= workers) throw py::index_error("worker " + std::to_string(worker) + " is not below " + std::to_string(workers));
    if (datum >= data) throw py::index_error("data " + std::to_string(datum) + " is not below data_count " + std::to_string(data));
  }
  int replica_state(std::uint32_t worker, std::uint32_t datum) const {
    check(worker, datum);
    return host->replica_state(host->context, worker, datum);
  }
  double free_bytes(std::uint32_t worker) const {
    check(worker, 0);
    return host->free_bytes(host->context, worker);
  }
  std::uint64_t next_use(std::uint32_t gpu, std::uint32_t datum) const {
    check(gpu, datum);
    if (!host->next_use) throw py::value_error("next_use answers only an eviction policy whose class sets needs_future = True");
    return host->next_use(host->context, gpu, datum);
  }
};

// The executor's test of which replicas may be evicted, callable from Python during one
// choose_victim call.
struct EvictableTest {
  const FunctionRef<bool(DataId)>* test = nullptr;
  std::uint32_t data = 0;
  bool operator()(std::uint32_t datum) const {
    if (!test) throw py::value_error("evictable() is valid only during the choose_victim call that received it");
    if (datum >= data) throw py::index_error("data " + std::to_string(datum) + " is not below data_count " + std::to_string(data));
    return (*test)(datum);
  }
};

// A spec's values bound against the class's declared parameters, and the canonical spec the
// run records: "python.NAME:key=value,...,python.hash=H,python.version=V".
struct BoundValues {
  std::map<std::string, std::string> values;
  std::string canonical;
};
Result<BoundValues> bind_values(const Spec& spec, const PolicyClass& info, std::string_view component) {
  BoundValues bound{info.params, spec.name};
  for (const auto& [key, value] : spec.values) {
    if (key == "python.hash") {
      if (value != info.hash) {
        return make_error(std::string(component) + " '" + spec.name + "' has changed since the run was made (source hash " + value +
                          ", now " + info.hash + ")");
      }
      continue;
    }
    if (key == "python.version") continue;
    if (!info.params.count(key)) {
      std::string declared;
      for (const auto& [name, default_value] : info.params) declared += (declared.empty() ? "" : ", ") + name;
      return make_error(std::string(component) + " '" + spec.name + "' has no parameter '" + key + "' (declared: " +
                        (declared.empty() ? "none" : declared) + ")");
    }
    bound.values[key] = value;
  }
  char separator = ':';
  for (const auto& [key, value] : bound.values) {
    bound.canonical += separator + key + "=" + value;
    separator = ',';
  }
  bound.canonical += std::string(1, separator) + "python.hash=" + info.hash + ",python.version=" + info.version;
  return bound;
}

// Whether a class has the optional method (a handle of None, or none made yet, is absent).
bool present(const py::handle& method) { return method && !method.is_none(); }

// What an adapter shares: the class, its made instance, and the first failure.
class PythonPolicy {
 public:
  PythonPolicy(std::shared_ptr<const HeldClass> cls, std::map<std::string, std::string> values, const char* kind)
      : cls_(std::move(cls)), values_(std::move(values)), kind_(kind) {}
  ~PythonPolicy() {
    const py::gil_scoped_acquire gil;
    methods_.clear();
    self_ = py::object();
    workload_view_ = py::object();
    host_view_ = py::object();
  }
  PythonPolicy(const PythonPolicy&) = delete;
  PythonPolicy& operator=(const PythonPolicy&) = delete;

  // Makes the instance: cls(workload, platform, host, **params).
  void create(const Workload& workload, const Platform& platform, const MemoryView* memory, const TaskFuture* future, bool offers_future) {
    workload_ = std::make_unique<PluginWorkload>(workload);
    platform_ = plugin_platform(platform);
    host_.reset(memory, future, offers_future);
    failure_.clear();
    call([&] {
      methods_.clear();  // the previous instance's (a Belady round prepares again)
      workload_view_ = py::cast(WorkloadView(workload_->view()));
      host_view_ = py::cast(HostView{host_.view(), platform_.gpus + platform_.cpus, workload_->view().data_count});
      py::dict kwargs;
      for (const auto& [key, value] : values_) kwargs[py::str(key)] = value;
      self_ = py::reinterpret_borrow<py::object>(cls_->cls)(workload_view_, platform_, host_view_, **kwargs);
    });
  }
  // The bound method, or None for an optional one the class lacks (a required one it lacks
  // fails the run).
  py::object method(const char* name, bool required) {
    py::object found = py::none();
    call([&] {
      if (py::hasattr(self_, name)) {
        found = self_.attr(name);
      } else if (required) {
        failure_ = std::string(kind_) + " '" + cls_->info.name + "' has no method " + name + "()";
      }
    });
    methods_.push_back(found);
    return found;
  }
  // Runs `f` under the GIL unless the class failed already; an exception ends the class.
  template <class F>
  bool call(F&& f) {
    if (!failure_.empty()) return false;
    const py::gil_scoped_acquire gil;
    try {
      f();
      return true;
    } catch (const py::error_already_set& e) {
      // "RuntimeError: why", without the stack pybind11 appends (Python prints its own).
      std::string what = e.what();
      what = what.substr(0, what.find("\n\nAt:"));
      failure_ = std::string(kind_) + " '" + cls_->info.name + "' raised: " + what;
    } catch (const std::exception& e) {
      failure_ = std::string(kind_) + " '" + cls_->info.name + "' raised: " + e.what();
    }
    return false;
  }
  const std::string& failure() const { return failure_; }
  bool alive() const { return failure_.empty() && self_; }
  std::uint32_t data_count() const { return workload_ ? workload_->view().data_count : 0; }

 private:
  std::shared_ptr<const HeldClass> cls_;
  std::map<std::string, std::string> values_;
  const char* kind_;
  std::unique_ptr<PluginWorkload> workload_;
  tl_platform platform_{};
  PluginHost host_;
  py::object self_, workload_view_, host_view_;
  std::vector<py::object> methods_;
  std::string failure_;
};

class PythonScheduler final : public Scheduler {
 public:
  PythonScheduler(std::shared_ptr<const HeldClass> cls, std::map<std::string, std::string> values)
      : policy_(std::move(cls), std::move(values), "scheduler") {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    policy_.create(workload, platform, context.memory, nullptr, false);
    push_ = policy_.method("push", true);
    pop_ = policy_.method("pop", true);
    started_ = policy_.method("task_started", false);
    done_ = policy_.method("task_done", false);
    loaded_ = policy_.method("data_loaded", false);
    evicted_ = policy_.method("data_evicted", false);
  }
  std::string failure() const override { return policy_.failure(); }
  void push(TaskId task) override {
    policy_.call([&] { push_(task); });
  }
  std::optional<TaskId> pop(GpuId worker) override {
    std::optional<TaskId> task;
    policy_.call([&] {
      const py::object answer = pop_(worker);
      if (!answer.is_none()) task = answer.cast<TaskId>();
    });
    return task;
  }
  void on_task_started(GpuId worker, TaskId task) override { hook(started_, worker, task); }
  void on_task_done(GpuId worker, TaskId task) override { hook(done_, worker, task); }
  void on_data_loaded(GpuId worker, DataId data) override { hook(loaded_, worker, data); }
  void on_data_evicted(GpuId worker, DataId data) override { hook(evicted_, worker, data); }
  bool follows_replicas() const override { return present(loaded_) || present(evicted_); }

 private:
  void hook(const py::handle& method, std::uint32_t worker, std::uint32_t id) {
    if (present(method)) policy_.call([&] { method(worker, id); });
  }
  PythonPolicy policy_;
  // Owned by policy_ (released under the GIL with it); copies here only for the calls.
  py::handle push_, pop_, started_, done_, loaded_, evicted_;
};

class PythonEviction final : public EvictionPolicy {
 public:
  PythonEviction(std::shared_ptr<const HeldClass> cls, std::map<std::string, std::string> values)
      : needs_future_(cls->needs_future), policy_(std::move(cls), std::move(values), "eviction policy") {}
  ~PythonEviction() override {
    const py::gil_scoped_acquire gil;
    evictable_ = py::object();
  }

  Status attach(const EvictionContext& context) override {
    policy_.create(*context.workload, *context.platform, context.memory, context.future, needs_future_);
    inserted_ = policy_.method("inserted", false);
    used_ = policy_.method("used", false);
    removed_ = policy_.method("removed", false);
    choose_ = policy_.method("choose_victim", true);
    policy_.call([&] { evictable_ = py::cast(EvictableTest{}); });
    if (!policy_.failure().empty()) return make_error(policy_.failure());
    return Status::success();
  }
  std::string failure() const override { return policy_.failure(); }
  void on_inserted(GpuId memory, DataId data) override { hook(inserted_, memory, data); }
  void on_used(GpuId memory, DataId data) override { hook(used_, memory, data); }
  void on_removed(GpuId memory, DataId data) override { hook(removed_, memory, data); }
  bool follows_future() const override { return needs_future_; }
  std::optional<DataId> choose_victim(GpuId memory, const VictimRequest& request) override {
    std::optional<DataId> victim;
    policy_.call([&] {
      auto& test = evictable_.cast<EvictableTest&>();
      test.test = &request.evictable;
      test.data = policy_.data_count();
      struct Clear {
        EvictableTest& test;
        ~Clear() { test.test = nullptr; }
      } clear{test};
      const py::object answer = choose_(memory, request.for_task, request.prefetch, evictable_);
      if (!answer.is_none()) victim = answer.cast<DataId>();
    });
    return victim;
  }

 private:
  void hook(const py::handle& method, std::uint32_t memory, std::uint32_t data) {
    if (present(method)) policy_.call([&] { method(memory, data); });
  }
  bool needs_future_;
  PythonPolicy policy_;
  py::handle inserted_, used_, removed_, choose_;
  py::object evictable_;  // released under the GIL: see ~PythonEviction
};

std::shared_ptr<const HeldClass> hold(const PolicyClass& info, py::object cls, bool needs_future) {
  auto held = std::make_shared<HeldClass>();
  held->info = info;
  held->cls = cls.release().ptr();
  held->needs_future = needs_future;
  return held;
}

}  // namespace

void register_scheduler_class(const PolicyClass& info, py::object cls) {
  auto held = hold(info, std::move(cls), false);
  embedded_schedulers().add(info.name, [held](const Spec& spec) -> Result<MadeScheduler> {
    auto bound = bind_values(spec, held->info, "scheduler");
    if (!bound) return bound.error();
    return MadeScheduler{std::make_unique<PythonScheduler>(held, std::move(bound->values)), bound->canonical};
  });
}

void register_eviction_class(const PolicyClass& info, py::object cls, bool needs_future) {
  auto held = hold(info, std::move(cls), needs_future);
  embedded_evictions().add(info.name, [held](const Spec& spec) -> Result<MadeEviction> {
    auto bound = bind_values(spec, held->info, "eviction policy");
    if (!bound) return bound.error();
    return MadeEviction{std::make_unique<PythonEviction>(held, std::move(bound->values)), bound->canonical};
  });
}

void define_policy_views(py::module_& m) {
  py::class_<WorkloadView>(m, "Workload", "A run's workload as include/tilelens/plugin.h lays it out (tl_workload), ids 0-based")
      .def_readonly("task_count", &WorkloadView::task_count)
      .def_readonly("data_count", &WorkloadView::data_count)
      .def_readonly("kind_names", &WorkloadView::kind_names)
      .def_readonly("task_kind", &WorkloadView::task_kind)
      .def_readonly("task_flops", &WorkloadView::task_flops)
      .def_readonly("task_priority", &WorkloadView::task_priority)
      .def_readonly("access_begin", &WorkloadView::access_begin)
      .def_readonly("access_data", &WorkloadView::access_data)
      .def_readonly("access_mode", &WorkloadView::access_mode)
      .def_readonly("data_bytes", &WorkloadView::data_bytes)
      .def_readonly("successor_begin", &WorkloadView::successor_begin)
      .def_readonly("successors", &WorkloadView::successors)
      .def("accesses", &WorkloadView::accesses, "(data, mode) pairs of a task's accesses")
      .def("successors_of", &WorkloadView::successors_of, "the tasks that depend on a task");
  py::class_<tl_platform>(m, "Platform", "The run's platform (tl_platform)")
      .def_readonly("gpus", &tl_platform::gpus)
      .def_readonly("cpus", &tl_platform::cpus)
      .def_readonly("memory_nodes", &tl_platform::memory_nodes)
      .def_readonly("memory_bytes", &tl_platform::memory_bytes)
      .def_readonly("bus_bandwidth", &tl_platform::bus_bandwidth);
  py::class_<HostView>(m, "Host", "The executor's memory states (tl_host), valid during the run")
      .def("replica_state", &HostView::replica_state, "ABSENT, LOADING or RESIDENT", py::arg("worker"), py::arg("data"))
      .def("free_bytes", &HostView::free_bytes, py::arg("worker"))
      .def("next_use", &HostView::next_use, "the position of the next use in the scheduler's known future, or NEVER",
           py::arg("gpu"), py::arg("data"));
  py::class_<EvictableTest>(m, "EvictableTest", "evictable(data): whether a replica may be evicted now")
      .def("__call__", &EvictableTest::operator(), py::arg("data"));
  m.attr("READ") = static_cast<int>(TL_READ);
  m.attr("WRITE") = static_cast<int>(TL_WRITE);
  m.attr("READ_WRITE") = static_cast<int>(TL_READ_WRITE);
  m.attr("ABSENT") = static_cast<int>(TL_ABSENT);
  m.attr("LOADING") = static_cast<int>(TL_LOADING);
  m.attr("RESIDENT") = static_cast<int>(TL_RESIDENT);
  m.attr("NEVER") = py::int_(static_cast<std::uint64_t>(TL_NEVER));
}

}  // namespace tilelens::python
