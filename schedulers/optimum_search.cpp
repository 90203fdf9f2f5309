// A* over (tasks done, data in each GPU's memory) for the least loads of any schedule
// (optimum_search.hpp); docs/optimum.md says what it reaches.
//
// A step runs one ready task on one GPU: its absent inputs are loaded (the step's cost), and if
// memory overflows, the search branches over which data to drop. States that the 2D product's
// renaming of rows and columns, or a swap of the two GPUs, maps onto each other are one
// (Canonical). Three rules keep the space small
// without losing the optimum:
// - eviction is free, so a state that keeps more data dominates one that keeps less: data are
//   dropped only when the task's data do not fit otherwise, and then exactly as many as needed;
// - data no remaining task accesses are dropped at once (dead data), so states that differ
//   only by them are one;
// - the estimate of the loads still to come counts each datum some remaining task reads that
//   is not in memory (it must be loaded at least once), which never overestimates: A* then
//   proves the first complete order it takes from its queue optimal.
#include "schedulers/optimum_search.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <bit>
#include <chrono>
#include <queue>
#include <unordered_map>

namespace tilelens {
namespace {

// The tasks done and each GPU's memory (the second stays empty on one GPU).
struct State {
  std::uint64_t done = 0;
  std::array<std::uint64_t, 2> memory{};
  bool operator==(const State&) const = default;
  auto operator<=>(const State&) const = default;
};
struct StateHash {
  std::size_t operator()(const State& s) const {
    std::uint64_t h = s.done * 0x9E3779B97F4A7C15ull;
    h ^= (s.memory[0] + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
    h ^= (s.memory[1] + 0x94D049BB133111EBull + (h << 6) + (h >> 2));
    return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};
// How a state was reached at its best: from `parent`.
struct Reached {
  std::uint32_t loads = 0;
  State parent;
};
struct Open {
  std::uint32_t estimate = 0;  // loads so far + the estimate to come
  std::uint32_t loads = 0;
  State state;
  // The least estimate first; among equals the deepest (more loads paid, less to come), so that
  // complete orders come out early.
  bool operator<(const Open& other) const {
    return estimate != other.estimate ? estimate > other.estimate : loads < other.loads;
  }
};

std::uint64_t all_tasks(const OptimumProblem& p) { return p.tasks == 64 ? ~0ull : (1ull << p.tasks) - 1; }

// The 2D product's symmetry (fgcs 5.1): when every task reads one datum of a set A and one of a
// set B, and every pair of A x B is a task (a complete bipartite graph, as matmul2d's rows and
// columns), renaming the A data among themselves and the B data among themselves maps the
// instance onto itself. States that differ by such a renaming cost the same, so the search
// keeps one of them: the canonical one, whose A data are ordered by an invariant (ties tried
// every way) and whose B data are then sorted by what they hold.
class PairSymmetry {
 public:
  static std::optional<PairSymmetry> of(const OptimumProblem& p) {
    if (p.tasks < 2) return std::nullopt;
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
      if (p.preds[t] != 0 || std::popcount(p.needs[t]) != 2 || p.reads[t] != p.needs[t]) return std::nullopt;
    }
    // Two-colour the data graph from the first task's data.
    std::vector<int> side(p.data, -1);
    bool changed = true;
    side[static_cast<std::size_t>(std::countr_zero(p.needs[0]))] = 0;
    while (changed) {
      changed = false;
      for (std::uint32_t t = 0; t < p.tasks; ++t) {
        const auto a = static_cast<std::size_t>(std::countr_zero(p.needs[t]));
        const auto b = static_cast<std::size_t>(63 - std::countl_zero(p.needs[t]));
        if (side[a] >= 0 && side[b] < 0) side[b] = 1 - side[a], changed = true;
        if (side[b] >= 0 && side[a] < 0) side[a] = 1 - side[b], changed = true;
        if (side[a] >= 0 && side[a] == side[b]) return std::nullopt;
      }
    }
    PairSymmetry s;
    for (std::uint32_t d = 0; d < p.data; ++d) {
      if (side[d] == 0) s.a_.push_back(d);
      else if (side[d] == 1) s.b_.push_back(d);
      else return std::nullopt;  // a datum no task reads, or a second component
    }
    if (s.a_.size() > s.b_.size()) std::swap(s.a_, s.b_);  // the smaller side is permuted
    if (s.a_.size() > 8 || s.a_.size() * s.b_.size() != p.tasks) return std::nullopt;
    s.task_.assign(s.a_.size() * s.b_.size(), UINT32_MAX);
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
      std::size_t i = 0, j = 0;
      while (i < s.a_.size() && !((p.needs[t] >> s.a_[i]) & 1u)) ++i;
      while (j < s.b_.size() && !((p.needs[t] >> s.b_[j]) & 1u)) ++j;
      if (i == s.a_.size() || j == s.b_.size() || s.task_[i * s.b_.size() + j] != UINT32_MAX) return std::nullopt;
      s.task_[i * s.b_.size() + j] = t;
    }
    return s;
  }

  State canonical(const State& state) const {
    const std::size_t na = a_.size(), nb = b_.size();
    // Each A datum's invariant: which memories hold it, its tasks done, and the same summed over its partners.
    std::array<std::uint64_t, 8> key{};
    std::array<std::uint32_t, 64> b_done{};
    for (std::size_t j = 0; j < nb; ++j) {
      for (std::size_t i = 0; i < na; ++i) b_done[j] += done(state, i, j) ? 1u : 0u;
    }
    std::array<std::size_t, 8> order{};
    for (std::size_t i = 0; i < na; ++i) {
      std::uint64_t degree = 0, partners = 0;
      for (std::size_t j = 0; j < nb; ++j) {
        if (!done(state, i, j)) continue;
        ++degree;
        partners += (static_cast<std::uint64_t>(b_done[j]) << 2) | held(state, b_[j]);
      }
      key[i] = (held(state, a_[i]) << 60) | (degree << 48) | partners;
      order[i] = i;
    }
    std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(na), [&](std::size_t x, std::size_t y) {
      return key[x] != key[y] ? key[x] < key[y] : x < y;
    });
    // Every order of A that keeps the invariant sorted: permute within runs of equal keys.
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (std::size_t i = 0; i < na;) {
      std::size_t k = i + 1;
      while (k < na && key[order[k]] == key[order[i]]) ++k;
      if (k - i > 1) runs.emplace_back(i, k);
      i = k;
    }
    std::array<std::uint64_t, 64> best{}, signature{};
    bool have = false;
    std::array<std::size_t, 8> best_order{};
    while (true) {
      // B data sorted by (which memories hold them, which A positions they are done with).
      for (std::size_t j = 0; j < nb; ++j) {
        std::uint64_t sig = held(state, b_[j]) << 61;
        for (std::size_t i = 0; i < na; ++i) sig |= static_cast<std::uint64_t>(done(state, order[i], j)) << i;
        signature[j] = sig;
      }
      std::sort(signature.begin(), signature.begin() + static_cast<std::ptrdiff_t>(nb));
      if (!have || std::lexicographical_compare(signature.begin(), signature.begin() + static_cast<std::ptrdiff_t>(nb), best.begin(),
                                                best.begin() + static_cast<std::ptrdiff_t>(nb))) {
        best = signature;
        best_order = order;
        have = true;
      }
      // The next permutation within the runs (an odometer over them).
      std::size_t r = 0;
      for (; r < runs.size(); ++r) {
        auto first = order.begin() + static_cast<std::ptrdiff_t>(runs[r].first);
        auto last = order.begin() + static_cast<std::ptrdiff_t>(runs[r].second);
        if (std::next_permutation(first, last)) break;  // wrapped runs are back in sorted order
      }
      if (r == runs.size()) break;
    }
    // The state as its canonical relabelling: A position i is a_[i], B position j is b_[j].
    State out;
    for (std::size_t i = 0; i < na; ++i) {
      for (std::size_t g = 0; g < 2; ++g) out.memory[g] |= ((state.memory[g] >> a_[best_order[i]]) & 1u) << a_[i];
    }
    for (std::size_t j = 0; j < nb; ++j) {
      for (std::size_t g = 0; g < 2; ++g) out.memory[g] |= ((best[j] >> (61 + g)) & 1u) << b_[j];
      for (std::size_t i = 0; i < na; ++i) {
        if ((best[j] >> i) & 1u) out.done |= 1ull << task_[i * nb + j];
      }
    }
    return out;
  }

 private:
  bool done(const State& s, std::size_t i, std::size_t j) const { return (s.done >> task_[i * b_.size() + j]) & 1u; }
  // Which memories hold datum d: bit 0 for GPU 0, bit 1 for GPU 1.
  static std::uint64_t held(const State& s, std::uint32_t d) { return ((s.memory[0] >> d) & 1u) | (((s.memory[1] >> d) & 1u) << 1); }
  std::vector<std::uint32_t> a_, b_;
  std::vector<std::uint32_t> task_;  // the task of (A position i, B position j)
};

class Search {
 public:
  explicit Search(const OptimumProblem& problem) : p_(problem), all_(all_tasks(problem)) {}

  // The data some task in `remaining` accesses.
  std::uint64_t accessed_by(std::uint64_t remaining) const {
    std::uint64_t out = 0;
    for (std::uint64_t r = remaining; r; r &= r - 1) out |= p_.needs[static_cast<std::size_t>(std::countr_zero(r))];
    return out;
  }
  std::uint32_t estimate(const State& s) const {
    std::uint64_t read = 0;
    for (std::uint64_t r = all_ & ~s.done; r; r &= r - 1) read |= p_.reads[static_cast<std::size_t>(std::countr_zero(r))];
    return static_cast<std::uint32_t>(std::popcount(read & ~(s.memory[0] | s.memory[1])));
  }
  bool ready(std::uint32_t t, std::uint64_t done) const { return (p_.preds[t] & ~done) == 0; }
  std::uint32_t tasks() const { return p_.tasks; }
  std::uint32_t gpus() const { return p_.gpus; }

  // Every successor of `from` by running task t on GPU g: (state, step loads). The other GPU
  // drops the data no remaining task accesses too (the two-GPU search takes read-only tasks:
  // nothing is invalidated).
  template <class Visit>
  void successors(const State& from, std::uint32_t t, std::uint32_t g, Visit&& visit) const {
    const std::uint64_t need = p_.needs[t];
    const auto step = static_cast<std::uint32_t>(std::popcount(p_.reads[t] & ~from.memory[g]));
    const std::uint64_t done = from.done | (1ull << t);
    const std::uint64_t live = accessed_by(all_ & ~done);
    const std::uint64_t kept = from.memory[g] & ~need & live;  // what may stay beside the task's data
    State next;
    next.done = done;
    next.memory[1 - g] = from.memory[1 - g] & live;
    const int room = static_cast<int>(p_.memory) - std::popcount(need);
    const int excess = std::popcount(kept) - room;
    const std::uint64_t after = need & live;  // the task's data stay only while someone needs them
    if (excess <= 0) {
      next.memory[g] = kept | after;
      visit(next, step);
      return;
    }
    // Drop exactly `excess` of the kept data, every way.
    std::vector<std::uint64_t> bits;
    for (std::uint64_t k = kept; k; k &= k - 1) bits.push_back(k & (~k + 1));
    const int n = static_cast<int>(bits.size());
    std::vector<int> pick(static_cast<std::size_t>(excess));
    for (int i = 0; i < excess; ++i) pick[static_cast<std::size_t>(i)] = i;
    while (true) {
      std::uint64_t dropped = 0;
      for (int i : pick) dropped |= bits[static_cast<std::size_t>(i)];
      next.memory[g] = (kept & ~dropped) | after;
      visit(next, step);
      int i = excess - 1;
      while (i >= 0 && pick[static_cast<std::size_t>(i)] == n - excess + i) --i;
      if (i < 0) break;
      ++pick[static_cast<std::size_t>(i)];
      for (int j = i + 1; j < excess; ++j) pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
    }
  }

 private:
  const OptimumProblem& p_;
  std::uint64_t all_;
};

// A complete schedule from a prefix: each step the ready task, and the GPU, with the fewest
// absent inputs (then the GPU with fewer tasks, then the lowest task), memory kept as least
// recently used; its cost is Belady's on it. The search starts from it, and completes the
// states it expands now and then, to keep its best schedule within reach when a limit comes.
OptimumSchedule greedy_schedule(const OptimumProblem& p, OptimumSchedule schedule) {
  std::uint64_t done = 0;
  std::array<std::uint64_t, 2> memory{};
  std::array<std::uint32_t, 2> count{};
  std::vector<std::uint64_t> last_use(p.data, 0);
  const auto run = [&](TaskId task, std::uint32_t g, std::uint32_t step) {
    done |= 1ull << task;
    ++count[g];
    memory[g] |= p.needs[task];
    for (std::uint64_t d = p.needs[task]; d; d &= d - 1) last_use[static_cast<std::size_t>(std::countr_zero(d))] = step + 1;
    while (std::popcount(memory[g]) > static_cast<int>(p.memory)) {
      int victim = -1;
      for (std::uint64_t d = memory[g] & ~p.needs[task]; d; d &= d - 1) {
        const int i = std::countr_zero(d);
        if (victim < 0 || last_use[static_cast<std::size_t>(i)] < last_use[static_cast<std::size_t>(victim)]) victim = i;
      }
      memory[g] &= ~(1ull << victim);
    }
  };
  std::uint32_t step = 0;
  for (; step < schedule.order.size(); ++step) run(schedule.order[step], schedule.gpu[step], step);
  for (; step < p.tasks; ++step) {
    std::uint32_t best = p.tasks, best_gpu = 0;
    int best_loads = 65;
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
      if ((done >> t) & 1u || (p.preds[t] & ~done) != 0) continue;
      for (std::uint32_t g = 0; g < p.gpus; ++g) {
        const int loads = std::popcount(p.reads[t] & ~memory[g]);
        if (loads < best_loads || (loads == best_loads && t == best && count[g] < count[best_gpu])) best = t, best_gpu = g, best_loads = loads;
      }
    }
    schedule.order.push_back(best);
    schedule.gpu.push_back(best_gpu);
    run(best, best_gpu, step);
  }
  return schedule;
}

}  // namespace

Result<OptimumProblem> optimum_problem(const Workload& w, const Platform& platform) {
  if (platform.gpus < 1 || platform.gpus > 2 || platform.cpus != 0 || platform.workers_per_memory != 1) {
    return make_error("the exact optimum is searched on one or two GPUs, each with its own memory, without CPU workers (the papers' "
                      "model); this platform has " + std::to_string(platform.gpus) + " GPUs, " + std::to_string(platform.cpus) +
                      " CPU workers and " + std::to_string(platform.workers_per_memory) + " workers per memory");
  }
  if (w.task_count() > kOptimumMaxTasks || w.data_count() > kOptimumMaxData) {
    return make_error("the exact optimum is searched for at most " + std::to_string(kOptimumMaxTasks) + " tasks and " +
                      std::to_string(kOptimumMaxData) + " data; this workload has " + std::to_string(w.task_count()) + " tasks and " +
                      std::to_string(w.data_count()) + " data");
  }
  OptimumProblem p;
  p.gpus = platform.gpus;
  p.tasks = static_cast<std::uint32_t>(w.task_count());
  p.data = static_cast<std::uint32_t>(w.data_count());
  std::uint64_t item = 0;
  int widest = 0;
  for (TaskId t = 0; t < p.tasks; ++t) {
    std::uint64_t need = 0, read = 0, preds = 0;
    for (const Access& access : w.accesses(t)) {
      const std::uint64_t bytes = w.data()[access.data].bytes;
      if (item == 0) item = bytes;
      if (bytes != item) {
        return make_error("the exact optimum is searched for data of one size (the papers' model); data '" + w.data()[access.data].name +
                          "' has " + std::to_string(bytes) + " bytes where others have " + std::to_string(item));
      }
      need |= 1ull << access.data;
      if (reads(access.mode)) read |= 1ull << access.data;
      if (writes(access.mode) && p.gpus > 1) {
        return make_error("the exact optimum on two GPUs is searched for tasks that only read (no copy is invalidated); task " +
                          w.task_label(t) + " writes '" + w.data()[access.data].name + "'");
      }
    }
    for (TaskId pred : w.predecessors(t)) preds |= 1ull << pred;
    p.needs.push_back(need);
    p.reads.push_back(read);
    p.preds.push_back(preds);
    widest = std::max(widest, std::popcount(need));
  }
  const double items = item > 0 ? platform.memory_bytes / static_cast<double>(item) : 64;
  p.memory = static_cast<std::uint32_t>(std::min(64.0, items));
  if (static_cast<int>(p.memory) < widest) {
    return make_error("a memory of " + std::to_string(p.memory) + " items cannot hold one task's " + std::to_string(widest) + " data");
  }
  return p;
}

std::uint64_t belady_loads(const OptimumProblem& p, const OptimumSchedule& schedule) {
  // next[k][d]: the position of d's next access after position k on the GPU of position k.
  const std::size_t n = schedule.order.size();
  std::vector<std::vector<std::uint32_t>> next(n + 1, std::vector<std::uint32_t>(p.data, UINT32_MAX));
  std::array<std::vector<std::uint32_t>, 2> ahead{std::vector<std::uint32_t>(p.data, UINT32_MAX), std::vector<std::uint32_t>(p.data, UINT32_MAX)};
  for (std::size_t k = n; k-- > 0;) {
    const std::uint32_t g = schedule.gpu[k];
    next[k + 1] = ahead[g];  // what comes after k on its GPU
    for (std::uint64_t d = p.needs[schedule.order[k]]; d; d &= d - 1) ahead[g][static_cast<std::size_t>(std::countr_zero(d))] = static_cast<std::uint32_t>(k);
  }
  std::array<std::uint64_t, 2> memory{};
  std::uint64_t loads = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const TaskId t = schedule.order[k];
    std::uint64_t& held = memory[schedule.gpu[k]];
    loads += static_cast<std::uint64_t>(std::popcount(p.reads[t] & ~held));
    held |= p.needs[t];
    while (std::popcount(held) > static_cast<int>(p.memory)) {
      int victim = -1;
      for (std::uint64_t d = held & ~p.needs[t]; d; d &= d - 1) {
        const int i = std::countr_zero(d);
        if (victim < 0 || next[k + 1][static_cast<std::size_t>(i)] > next[k + 1][static_cast<std::size_t>(victim)]) victim = i;
      }
      held &= ~(1ull << victim);
    }
  }
  return loads;
}

std::uint64_t belady_loads(const OptimumProblem& p, const std::vector<TaskId>& order) {
  return belady_loads(p, OptimumSchedule{order, std::vector<std::uint32_t>(order.size(), 0)});
}

namespace {

// The representative the search keeps of a state: the same state with its GPUs swapped costs the
// same, and so does its renaming under the 2D product's symmetry; the least of them.
class Canonical {
 public:
  Canonical(std::optional<PairSymmetry> symmetry, std::uint32_t gpus) : symmetry_(std::move(symmetry)), gpus_(gpus) {}
  bool symmetric() const { return symmetry_.has_value(); }
  State operator()(const State& s) const {
    State best = symmetry_ ? symmetry_->canonical(s) : s;
    if (gpus_ == 2) {
      State swapped = s;
      std::swap(swapped.memory[0], swapped.memory[1]);
      if (symmetry_) swapped = symmetry_->canonical(swapped);
      best = std::min(best, swapped);
    }
    return best;
  }

 private:
  std::optional<PairSymmetry> symmetry_;
  std::uint32_t gpus_;
};

// The schedule of a path of (canonical) states, in the instance's own names: each step is the
// task and GPU whose successor of the actual state has the path's next state as its canonical
// form, at the path's cost.
OptimumSchedule replay_path(const Search& search, const Canonical& canonical, const std::unordered_map<State, Reached, StateHash>& reached,
                            const std::vector<State>& path) {
  OptimumSchedule schedule;
  State actual;
  std::uint32_t loads = 0;
  for (const State& target : path) {
    const std::uint32_t cost = reached.at(target).loads - loads;
    bool found = false;
    for (std::uint32_t t = 0; !found && t < search.tasks(); ++t) {
      if ((actual.done >> t) & 1u || !search.ready(t, actual.done)) continue;
      for (std::uint32_t g = 0; !found && g < search.gpus(); ++g) {
        search.successors(actual, t, g, [&](const State& next, std::uint32_t step) {
          if (found || step != cost || canonical(next) != target) return;
          schedule.order.push_back(t);
          schedule.gpu.push_back(g);
          actual = next;
          found = true;
        });
      }
    }
    loads += cost;
  }
  return schedule;
}

}  // namespace

OptimumResult solve_optimum(const OptimumProblem& p, const OptimumLimits& limits) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  OptimumResult result;
  result.schedule = greedy_schedule(p, {});
  result.loads = result.greedy_loads = belady_loads(p, result.schedule);
  const Search search(p);
  const Canonical canonical(limits.symmetry ? PairSymmetry::of(p) : std::nullopt, p.gpus);
  const State root;
  result.lower_bound = search.estimate(root);
  result.symmetric = canonical.symmetric();
  const std::uint64_t all = all_tasks(p);
  const auto path_to = [&](const std::unordered_map<State, Reached, StateHash>& reached, State s) {
    std::vector<State> path;
    for (; s.done != 0; s = reached.at(s).parent) path.push_back(s);
    std::reverse(path.begin(), path.end());
    return replay_path(search, canonical, reached, path);
  };

  std::unordered_map<State, Reached, StateHash> reached;
  std::priority_queue<Open> open;
  reached.emplace(root, Reached{0, root});
  open.push({static_cast<std::uint32_t>(result.lower_bound), 0, root});
  while (!open.empty()) {
    const Open node = open.top();
    if (node.estimate >= result.loads) {  // nothing left can beat the incumbent: it is optimal
      result.lower_bound = result.loads;
      result.proven = true;
      break;
    }
    result.lower_bound = std::max<std::uint64_t>(result.lower_bound, node.estimate);
    open.pop();
    if (reached.at(node.state).loads < node.loads) continue;  // reached more cheaply since
    if (node.state.done == all) {                             // the first complete schedule out of the queue is optimal
      result.schedule = path_to(reached, node.state);
      result.loads = belady_loads(p, result.schedule);
      result.lower_bound = result.loads;
      result.proven = true;
      break;
    }
    if ((++result.expanded & 1023u) == 0 && (elapsed() > limits.seconds || reached.size() + open.size() > limits.states)) break;
    if ((result.expanded & 4095u) == 0) {  // complete this state greedily: a better schedule to beat, maybe
      OptimumSchedule completed = greedy_schedule(p, path_to(reached, node.state));
      if (const std::uint64_t loads = belady_loads(p, completed); loads < result.loads) {
        result.loads = loads;
        result.schedule = std::move(completed);
      }
    }
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
      if ((node.state.done >> t) & 1u || !search.ready(t, node.state.done)) continue;
      for (std::uint32_t g = 0; g < p.gpus; ++g) {
        search.successors(node.state, t, g, [&](const State& successor, std::uint32_t step) {
          const State next = canonical(successor);
          const std::uint32_t loads = node.loads + step;
          auto [it, inserted] = reached.try_emplace(next, Reached{loads, node.state});
          if (!inserted) {
            if (it->second.loads <= loads) return;
            it->second = Reached{loads, node.state};
          }
          open.push({loads + search.estimate(next), loads, next});
        });
      }
    }
  }
  result.seconds = elapsed();
  return result;
}

}  // namespace tilelens
