// The FGCS 2023 experiments (fgcs section 5) as sweep presets. Settings from fgcs 5.1: one
// V100 (platform v100-fgcs: 960x960 fp32 tiles, 13,393 GFlop/s, 12 GB/s), M = 500 MB (the
// paper's MB are MiB), every scheduler with LRU except HFP with Belady. The HFP variants are
// the paper's legends: "HFP" has all three options (flip, Ready, Belady).
#include "presets/experiments.hpp"

namespace tilelens {
namespace {

const std::vector<PresetPolicy> kReferences = {
    {"EAGER", "eager/lru"}, {"MST", "mst/lru"}, {"RCM", "rcm/lru"}, {"DMDAR", "dmdar/lru"}};

std::vector<PresetPolicy> with_hfp(std::vector<PresetPolicy> extra) {
  std::vector<PresetPolicy> policies = kReferences;
  policies.push_back({"HFP", "hfp/belady"});
  policies.insert(policies.end(), extra.begin(), extra.end());
  return policies;
}

std::map<std::string, double> table(double eager, double mst, double rcm, double dmdar) {
  return {{"EAGER", eager}, {"MST", mst}, {"RCM", rcm}, {"DMDAR", dmdar}};
}

// darts section 6: every scheduler with LRU except DARTS with LUF; AP is left out of LU (the
// paper: DPLASMA's LU has no cuSolver GETRF).
std::vector<PresetPolicy> darts_policies(bool with_ap) {
  std::vector<PresetPolicy> policies = {{"EAGER", "eager/lru"}, {"DMDAS", "dmdas/lru"}, {"LWS", "lws/lru"}};
  if (with_ap) policies.push_back({"AP", "ap/lru"});
  policies.push_back({"DARTS", "darts/luf"});
  return policies;
}

SweepPreset darts_preset(std::string name, std::string figure, std::string title, std::string workload, std::string platform,
                         bool with_ap, std::string claims) {
  SweepPreset preset{std::move(name), std::move(figure), std::move(title), "N",
                     {{"workload", std::move(workload)}, {"platform", std::move(platform)}},
                     darts_policies(with_ap), {}, std::move(claims)};
  preset.highlight = "DARTS";
  preset.references = {"EAGER", "DMDAS", "LWS"};
  if (with_ap) preset.references.push_back("AP");
  return preset;
}

// The 2022 slides (independent tasks on 2 or 4 V100): M = 500 MB, 960 tiles, the V100 node's
// PCIe tree (darts Fig. 5: 12 GB/s per GPU, two GPUs per 22 GB/s switch), EAGER, DMDAR, the
// hMETIS partitioner (ours uses METIS, see docs/schedulers.md), DARTS + LUF and DARTS with OPTI.
SweepPreset slides_preset(std::string name, std::string title, std::string workload, int gpus, std::string memory,
                          std::string claims) {
  SweepPreset preset{std::move(name),
                     "slides (2022)",
                     std::move(title),
                     "N",
                     {{"workload", std::move(workload)},
                      {"platform", "v100-fgcs"},
                      {"gpus", std::to_string(gpus)},
                      {"memory", std::move(memory)},
                      {"bandwidth", "100GB/s"},
                      {"pcie", "2:22GB/s:12GB/s"}},
                     {{"EAGER", "eager/lru"},
                      {"DMDAR", "dmdar/lru"},
                      {"hMETIS+Ready", "partition/lru"},
                      {"DARTS+LUF", "darts/luf"},
                      {"DARTS+LUF OPTI", "darts:first_free=1/luf"}},
                     {},
                     std::move(claims)};
  preset.highlight = "DARTS+LUF";
  preset.references = {"EAGER", "DMDAR", "hMETIS+Ready"};
  return preset;
}

// lahp on a CPU+GPU node (platform k40x4-24c, lahp's K40 machine: 24 cores beside 1 or 4
// K40 of 1 GB each here, so that the larger sizes exceed the memory): Heteroprio,
// LAHeteroprio with each push strategy, DMDAS (on CPUs and GPUs) and DARTS (GPUs only).
SweepPreset lahp_preset(std::string name, std::string title, std::string workload, int gpus, std::string claims,
                        std::string platform = "k40x4-24c") {
  SweepPreset preset{std::move(name),
                     "lahp (2019), Figs. 5-7 setting",
                     std::move(title),
                     "N",
                     {{"workload", std::move(workload)}, {"platform", std::move(platform)}, {"gpus", std::to_string(gpus)}, {"memory", "1GB"}},
                     {{"Heteroprio", "heteroprio/lru"},
                      {"LA WORKER", "laheteroprio:push=worker/lru"},
                      {"LA MC", "laheteroprio:push=mc/lru"},
                      {"LA LS_SDH", "laheteroprio:push=sdh/lru"},
                      {"LA LS_SDH2", "laheteroprio:push=sdh2/lru"},
                      {"LA LS_SDHB", "laheteroprio:push=sdhb/lru"},
                      {"LA LC_SMWB", "laheteroprio:push=smwb/lru"},
                      {"LA AUTO", "laheteroprio/lru"},
                      {"DMDAS", "dmdas/lru"},
                      {"DARTS", "darts/luf"}},
                     {},
                     std::move(claims)};
  preset.highlight = "LA AUTO";
  preset.references = {"Heteroprio", "DMDAS", "DARTS"};
  preset.speedup_over = "Heteroprio";
  preset.counters = true;
  return preset;
}

// lahp Fig. 5: LAHeteroprio (AUTO) at each locality pair (l_CPU, l_GPU) from 1 to 3 against
// Heteroprio, as speedups. lahp ran QrMumps, SpLDLT and StarPU-Stencil; ours is the tiled
// Cholesky, past the GPUs' memory.
SweepPreset lahp_fig5_preset(std::string name, std::string title, std::string platform, int gpus) {
  std::vector<PresetPolicy> policies = {{"Heteroprio", "heteroprio/lru"}};
  for (int cpu = 1; cpu <= 3; ++cpu) {
    for (int gpu = 1; gpu <= 3; ++gpu) {
      policies.push_back({"(" + std::to_string(cpu) + "," + std::to_string(gpu) + ")",
                          "laheteroprio:l_cpu=" + std::to_string(cpu) + ",l_gpu=" + std::to_string(gpu) + "/lru"});
    }
  }
  SweepPreset preset{std::move(name),
                     "lahp Fig. 5",
                     std::move(title),
                     "N",
                     {{"workload", "cholesky:N=20..60:20"}, {"platform", std::move(platform)}, {"gpus", std::to_string(gpus)}, {"memory", "1GB"}},
                     std::move(policies),
                     {},
                     "The locality coefficient matters most on the GPUs (QrMumps best at l_GPU = 3), little on the CPUs; with "
                     "more GPUs its influence decreases, and LAHeteroprio stays faster than Heteroprio at every pair."};
  preset.highlight = "(1,3)";
  preset.references = {"Heteroprio"};
  preset.speedup_over = "Heteroprio";
  return preset;
}

// fgcs 4.1: Cuthill-McKee against its reverse. The paper proves that reversing an order keeps
// its number of loads (with an optimal eviction) and observes that RCM is always faster: its
// loads overlap the computation better.
SweepPreset cm_against_rcm() {
  SweepPreset preset{"fgcs-cm-rcm",
                     "fgcs 4.1",
                     "Cuthill-McKee (CM) against Reverse Cuthill-McKee (RCM) on the 2D product, N from 5 to 90, M = 500 MB",
                     "N",
                     {{"workload", "matmul2d:N=5..90:5"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
                     {{"CM", "cm/lru"}, {"RCM", "rcm/lru"}, {"CM Belady", "cm/belady"}, {"RCM Belady", "rcm/belady"}},
                     {},
                     "Both reach the same amount of data movement (reversing a schedule keeps its loads), yet RCM is always "
                     "better than CM in practice: its loads are better overlapped with the computation."};
  preset.highlight = "RCM";
  preset.references = {"CM"};
  return preset;
}

// An order visualisation: its runs at one size, drawn as the paper draws them.
SweepPreset order_preset(std::string name, std::string figure, std::string title,
                         std::vector<std::pair<std::string, std::string>> options, std::vector<PresetPolicy> policies,
                         OrderFigure layout, std::string claims) {
  SweepPreset preset{std::move(name), std::move(figure), std::move(title), "N", std::move(options), std::move(policies), {},
                     std::move(claims)};
  preset.highlight = preset.policies.back().label;
  preset.references.clear();
  for (std::size_t p = 0; p + 1 < preset.policies.size(); ++p) preset.references.push_back(preset.policies[p].label);
  preset.order_figure = std::move(layout);
  return preset;
}

// fgcs Figs. 8-10 and 13: the 2D product at N = 20 with M = 250 MB, "the same behaviour as the
// eighth point of Fig. 5" at a readable size.
std::vector<std::pair<std::string, std::string>> fgcs_view(std::string workload) {
  return {{"workload", std::move(workload)}, {"memory", "250MiB"}, {"platform", "v100-fgcs"}};
}

// darts Figs. 8, 9, 13: Cholesky N = 40 on V100s limited to 2 GB, 1,000 tasks per colour,
// iterations 1 to 4 of the outer loop.
std::vector<std::pair<std::string, std::string>> darts_view(std::string platform, int gpus) {
  return {{"workload", "cholesky:N=40,b=2880"}, {"platform", std::move(platform)}, {"gpus", std::to_string(gpus)}, {"memory", "2GB"}};
}

OrderFigure chunks(std::uint32_t first_panels, bool per_gpu) {
  OrderFigure layout;
  layout.chunks = true;
  layout.loads = false;
  layout.first_panels = first_panels;
  layout.per_gpu = per_gpu;
  return layout;
}

// How far the heuristics and the lower bound sit from the exact optimum (docs/optimum.md), on
// instances small enough to prove it: the papers' model (Belady on each order where the policy
// has no eviction of its own, no prefetch).
SweepPreset optimum_gap_preset() {
  SweepPreset preset{"optimum-gap",
                     "The exact optimum",
                     "the lower bound, the optimum and the heuristics' loads on small instances, one GPU of 4 or 6 tiles, no prefetch",
                     "N",
                     {{"workload", "matmul2d:N=3..6;matmul2d-random-pairs:N=4..5;matmul3d:N=2;cholesky-tasks:N=3..4;cholesky:N=3..4"},
                      {"memory", "4items,6items"},
                      {"buffer", "1"},
                      {"memory-model", "fgcs"},
                      {"platform", "v100-fgcs"}},
                     {{"OPTIMUM", "optimum/belady"}, {"EAGER", "eager/belady"}, {"DMDAR", "dmdar/lru"}, {"HFP", "hfp/belady"}, {"DARTS", "darts/luf"}},
                     {},
                     "Minimising loads is NP-complete (fgcs section 4); the papers measure their heuristics against a lower bound "
                     "only. Here the exact optimum sits between the two."};
  preset.optimum_gaps = true;
  return preset;
}

}  // namespace

const std::vector<SweepPreset>& sweep_presets() {
  static const std::vector<SweepPreset> presets = {
      {"fgcs-fig5",
       "fgcs Figs. 5 and 7, Table 1",
       "2D matrix product, N from 5 to 90, M = 500 MB: GFlop/s (Fig. 5) and data transferred (Fig. 7)",
       "N",
       {{"workload", "matmul2d:N=5..90:5"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only Belady", "hfp:flip=0,ready=0/belady"},
                 {"HFP only flip", "hfp:ready=0/lru"},
                 {"HFP only Ready", "hfp:flip=0/lru"},
                 {"HFP sched. time + fast start", "hfp:fast_start=1/belady+time"}}),
       table(106.3, 87.6, 72.9, 15.1),
       "EAGER, MST and RCM turn pathological at the red line (M holds one input matrix) in both GFlop/s and "
       "transfers; DMDAR stays good, its transfers rising only for the last five sizes; every HFP variant is "
       "close to the peak, HFP with all options close to the lower bound (about twice it); HFP with scheduling "
       "time loses to DMDAR only between 1,300 and 1,900 MB."},
      {"fgcs-fig6",
       "fgcs Fig. 6",
       "2D matrix product, N = 15 (working set 422 MB), memory from 50 to 500 MB",
       "memory",
       {{"workload", "matmul2d:N=15"},
        {"memory", "50MiB,100MiB,150MiB,200MiB,250MiB,300MiB,350MiB,400MiB,450MiB,500MiB"},
        {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only Belady", "hfp:flip=0,ready=0/belady"},
                 {"HFP only flip", "hfp:ready=0/lru"},
                 {"HFP only Ready", "hfp:flip=0/lru"},
                 {"HFP sched. time + fast start", "hfp:fast_start=1/belady+time"}}),
       {},
       "The dual of Fig. 5: below the working set the heuristics turn pathological; Ready helps most on the "
       "second point; HFP with scheduling time always beats DMDAR."},
      {"fgcs-fig11a",
       "fgcs Fig. 11a-b, Table 2",
       "3D matrix product, N from 2 to 20, M = 500 MB",
       "N",
       {{"workload", "matmul3d:N=2..20:2"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only flip", "hfp:ready=0/lru"}, {"HFP only Belady", "hfp:flip=0,ready=0/belady"}}),
       table(68.3, 64.0, 73.7, 66.5),
       "EAGER and RCM turn pathological once A and B no longer fit (orange line); DMDAR fills the memory with "
       "C by prefetching and then thrashes on A and B; HFP is best, and without Belady it transfers about twice "
       "as much."},
      {"fgcs-fig11c",
       "fgcs Fig. 11c, Table 3",
       "tasks of the tiled Cholesky factorization without dependencies, N from 5 to 50, M = 500 MB",
       "N",
       {{"workload", "cholesky-tasks:N=5..50:5"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only flip", "hfp:ready=0/lru"}, {"HFP only Belady", "hfp:flip=0,ready=0/belady"}}),
       table(66.8, 57.5, 56.3, 65.8),
       "EAGER and RCM turn pathological once the matrix does not fit; DMDAR matches HFP up to a working set of "
       "2.5x the memory (it follows the favourable submission order), HFP wins beyond; Belady is crucial."},
      {"fgcs-fig11d",
       "fgcs Fig. 11d, Table 4",
       "2D matrix product with a random submission order, N from 5 to 80, M = 500 MB",
       "N",
       {{"workload", "matmul2d-random-order:N=5..80:5"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only flip", "hfp:ready=0/lru"}, {"HFP only Belady", "hfp:flip=0,ready=0/belady"}}),
       table(143.5, 109.4, 50.1, 1.2),
       "The random order hurts EAGER and RCM; it helps DMDAR, which now forms squares of C; HFP is poorer than "
       "DMDAR on the first seven sizes and better on the last ones; Belady is crucial."},
      {"fgcs-fig11e",
       "fgcs Fig. 11e, Table 5",
       "random pairs of one block-row of A and one block-column of B, N from 5 to 80, M = 500 MB",
       "N",
       {{"workload", "matmul2d-random-pairs:N=5..80:5"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only flip", "hfp:ready=0/lru"}, {"HFP only Belady", "hfp:flip=0,ready=0/belady"}}),
       table(142.5, 66.4, 18.2, 1.6),
       "EAGER drops once one matrix does not fit; RCM holds better; DMDAR is close to the peak; HFP beats DMDAR "
       "only from the eighth size on."},
      {"fgcs-fig11f",
       "fgcs Fig. 11f, Table 6",
       "sparse 2D matrix product (10% of the tasks), N from 5 to 90, M = 500 MB",
       "N",
       {{"workload", "matmul2d-sparse:N=5..90:5,density=0.1"}, {"memory", "500MiB"}, {"platform", "v100-fgcs"}},
       with_hfp({{"HFP only flip", "hfp:ready=0/lru"}, {"HFP only Belady", "hfp:flip=0,ready=0/belady"}}),
       table(65.9, 55.6, 46.6, 41.6),
       "EAGER lacks locality; RCM and DMDAR find row and column affinities but transfer more than on the dense "
       "product; flipping brings nothing; packing with Belady keeps HFP best once memory is a constraint."},
      darts_preset("darts-fig6", "darts Fig. 6", "Cholesky factorization on one V100 (32 GB), 2880 tiles, N from 15 to 90",
                   "cholesky:N=15..90:15,b=2880", "v100-darts", true,
                   "Once the working set exceeds the GPU memory (green line) DARTS has the fewest transfers and the best "
                   "throughput; the others, EAGER first, transfer far more than the bus can hide."),
      darts_preset("darts-fig11", "darts Figs. 11 and 12", "Cholesky factorization on four V100 (NVLink), 2880 tiles, N from 15 to 90",
                   "cholesky:N=15..90:15,b=2880", "v100x4-darts", true,
                   "The gap between DARTS and the others is larger with four GPUs than with one, especially against AP and "
                   "EAGER: replicating data on several memories multiplies their transfers; DARTS transfers far less."),
      darts_preset("darts-fig11-a100", "darts Figs. 11 and 12 (A100)", "Cholesky factorization on four A100 (NVLink), 2880 tiles, N from 15 to 90",
                   "cholesky:N=15..90:15,b=2880", "a100x4-darts", true,
                   "On the A100s, as on the V100s, DARTS keeps the best throughput once memory is limited; LWS is slightly "
                   "ahead while the data fit (it overlaps more transfers), and EAGER and LWS then transfer far more."),
      darts_preset("darts-fig14", "darts Fig. 14", "LU factorization on four V100 (NVLink), 2880 tiles, N from 12 to 72",
                   "lu:N=12..72:12,b=2880", "v100x4-darts", false,
                   "DARTS keeps the best throughput and the fewest transfers once the cumulated memory is exceeded, within "
                   "about 5x the lower bound on LU."),
      // darts Figs. 10 and 15 compare GPU kinds at two working sets each, one below the
      // memory and one about twice it (the paper's "X/YGB" points; its exact X are not given).
      // darts Fig. 10 compares GPU kinds at two working sets each, one below the memory and one
      // about twice it (the paper's "X/YGB" points; its exact X are not given); the presets sweep
      // from about a quarter of the memory to twice it, so that the curve shows where each
      // scheduler leaves the peak.
      darts_preset("darts-fig10-p100", "darts Fig. 10 (P100)", "Cholesky on one P100 (16 GB), 1920 tiles: 2 to 32 GB of working set",
                   "cholesky:N=20..70:5,b=1920", "p100-darts", false,
                   "At 5 GB the schedulers are comparable; at 32 GB (twice the memory) DARTS is the best strategy (AP is not "
                   "shown on the P100 in the paper)."),
      darts_preset("darts-fig10-v100", "darts Fig. 10 (V100)", "Cholesky on one V100 (32 GB), 2880 tiles: 7 to 64 GB of working set",
                   "cholesky:N=20..65:5,b=2880", "v100-darts", true,
                   "At 16 GB the schedulers are comparable; at 64 GB DARTS is the best, ahead of AP on the V100."),
      darts_preset("darts-fig10-a100", "darts Fig. 10 (A100)", "Cholesky on one A100 (40 GB), 2880 tiles: 11 to 80 GB of working set",
                   "cholesky:N=25..70:5,b=2880", "a100-darts", true,
                   "On the A100 (more memory, a bus per GPU) AP and DARTS are almost equivalent even at 80 GB."),
      darts_preset("darts-fig15a", "darts Fig. 15a", "LU on one V100 (32 GB), 2880 tiles: 16 GB and 64 GB of working set",
                   "lu:N=22|44,b=2880", "v100-darts", false,
                   "Comparable results below the memory; past it DARTS largely outperforms the others."),
      darts_preset("darts-fig15a-p100", "darts Fig. 15a (P100)", "LU on one P100 (16 GB), 1920 tiles: 8 GB and 32 GB of working set",
                   "lu:N=23|47,b=1920", "p100-darts", false,
                   "Comparable results below the memory; past it DARTS largely outperforms the others."),
      darts_preset("darts-fig15a-a100", "darts Fig. 15a (A100)", "LU on one A100 (40 GB), 2880 tiles: 20 GB and 80 GB of working set",
                   "lu:N=25|49,b=2880", "a100-darts", false,
                   "Comparable results below the memory; past it DARTS largely outperforms the others."),
      darts_preset("darts-fig15b", "darts Fig. 15b", "LU on four V100 (128 GB), 2880 tiles: 64 GB and 256 GB of working set",
                   "lu:N=44|88,b=2880", "v100x4-darts", false,
                   "Comparable results below the cumulated memory; past it DARTS largely outperforms the others."),
      darts_preset("darts-fig15b-a100", "darts Fig. 15b (A100)", "LU on four A100 (160 GB), 2880 tiles: 80 GB and 320 GB of working set",
                   "lu:N=49|98,b=2880", "a100x4-darts", false,
                   "Comparable results below the cumulated memory; past it DARTS largely outperforms the others."),
      darts_preset("darts-fig16", "darts Fig. 16", "LU on 12 cores sharing 32 GB, data on a 94 MB/s disk, 2880 tiles, N from 20 to 60",
                   "lu:N=20..60:10,b=2880", "xeon-ooc-darts", false,
                   "While the data fit in the shared memory DARTS is comparable with DMDAS and LWS; past it DARTS alone "
                   "stays close to the best performance, its transfers near the disk-bandwidth limit, while the others drop."),
      lahp_preset("lahp-cholesky-1gpu", "Cholesky on 24 cores and one K40 (1 GB), 960 tiles, N from 10 to 60",
                  "cholesky:N=10..60:10", 1,
                  "LAHeteroprio cuts the memory transfers of Heteroprio by more than half and is faster; LS_SDH2 and "
                  "LS_SDHB do best, LC_SMWB and LS_SDH less so, the worker's node (LaRU) least."),
      lahp_preset("lahp-cholesky-4gpu", "Cholesky on 24 cores and four K40 (1 GB each), 960 tiles, N from 10 to 60",
                  "cholesky:N=10..60:10", 4,
                  "LAHeteroprio cuts the memory transfers of Heteroprio by more than half and is faster; LS_SDH2 and "
                  "LS_SDHB do best, LC_SMWB and LS_SDH less so, the worker's node (LaRU) least."),
      lahp_preset("lahp-lu-1gpu", "LU on 24 cores and one K40 (1 GB), 960 tiles, N from 10 to 50", "lu:N=10..50:10", 1,
                  "As on Cholesky: fewer transfers with locality-aware pushes, written data weighing most."),
      lahp_preset("lahp-lu-4gpu", "LU on 24 cores and four K40 (1 GB each), 960 tiles, N from 10 to 50", "lu:N=10..50:10", 4,
                  "As on Cholesky: fewer transfers with locality-aware pushes, written data weighing most."),
      slides_preset("slides-2d-2gpu", "2D product (outer-product order) on 2 V100 of 500 MB, N from 5 to 60",
                    "matmul2d:N=5..60:5", 2, "500MiB",
                    "EAGER, hMETIS and DARTS meet a pathological size after the red line; DMDAR suffers from the conflict "
                    "between prefetch and eviction; DARTS+LUF outperforms DMDAR even with more transfers: it overlaps them "
                    "better with computation."),
      slides_preset("slides-2d-4gpu", "2D product (outer-product order) on 4 V100 of 500 MB, N from 5 to 60",
                    "matmul2d:N=5..60:5", 4, "500MiB", "As on two GPUs, with DARTS+LUF ahead once memory is tight."),
      slides_preset("slides-cholesky-4gpu", "Cholesky tasks without dependencies on 4 V100 of 500 MB, N from 5 to 40",
                    "cholesky-tasks:N=5..40:5", 4, "500MiB",
                    "OPTI cuts DARTS's scheduling time, which improves performance; DMDAR suffers from a large "
                    "scheduling time."),
      slides_preset("slides-sparse-4gpu", "sparse 2D product (10% of the tasks) on 4 V100 with all their 32 GB, N from 10 to 100",
                    "matmul2d-sparse:N=10..100:10,density=0.1", 4, "32GB",
                    "Without memory limitation DARTS gives the order that best spreads the transfers over time; hMETIS "
                    "pays a significant partitioning cost."),
      slides_preset("slides-gemm-4gpu", "tiled GEMM C = A x B with n x n tiles per matrix on 4 V100 of 500 MB, N from 2 to 16",
                    "matmul3d:N=2..16:2", 4, "500MiB",
                    "The slides show this case (in simulation) without comment; DARTS+LUF is their proposal."),
      lahp_preset("lahp-cholesky-p100", "Cholesky on 24 cores and two P100 (1 GB each), 960 tiles, N from 10 to 60",
                  "cholesky:N=10..60:10", 2,
                  "On the P100 node (two GPUs) the speedups of LAHeteroprio over Heteroprio hold, with LS_SDH2 and LS_SDHB "
                  "best.",
                  "p100x2-24c"),
      lahp_fig5_preset("lahp-fig5-k40", "LAHeteroprio AUTO at each (l_CPU, l_GPU) against Heteroprio: Cholesky on 24 cores and four K40 (1 GB each)",
                       "k40x4-24c", 4),
      lahp_fig5_preset("lahp-fig5-p100", "LAHeteroprio AUTO at each (l_CPU, l_GPU) against Heteroprio: Cholesky on 24 cores and two P100 (1 GB each)",
                       "p100x2-24c", 2),
      cm_against_rcm(),
      order_preset("fgcs-fig8", "fgcs Fig. 8", "RCM's processing order on the 2D product, N = 20, M = 250 MB", fgcs_view("matmul2d:N=20"),
                   {{"RCM", "rcm/lru"}}, {},
                   "Processing C row by row reloads the same columns of B again and again (the solid horizontal lines): "
                   "LRU's pathological case, shared by EAGER and MST."),
      order_preset("fgcs-fig9", "fgcs Fig. 9", "DMDAR's processing order on the 2D product, N = 20, M = 250 MB", fgcs_view("matmul2d:N=20"),
                   {{"DMDAR", "dmdar/lru"}}, {},
                   "DMDAR processes the first column of C, then a block of the second column on a row whose data are loaded "
                   "(Ready), and goes on column by column: no pathological case."),
      order_preset("fgcs-fig10", "fgcs Fig. 10", "HFP's processing order on the 2D product, N = 20, M = 250 MB", fgcs_view("matmul2d:N=20"),
                   {{"HFP", "hfp/belady"}}, {},
                   "HFP's order forms rectangles of C, each computed with few loads, most of them prefetches (dotted)."),
      order_preset("fgcs-fig12", "fgcs Fig. 12", "HFP's processing order on the 3D product with 4 layers, N = 20, M = 250 MB",
                   fgcs_view("matmul3d:N=20,n=4"), {{"HFP", "hfp/belady"}}, {},
                   "HFP gathers tasks forming rectangular blocks on all four layers of C, with good locality between A, B "
                   "and C and most loads done as prefetches."),
      order_preset("fgcs-fig13", "fgcs Fig. 13", "the 2D product with a random submission order, N = 20, M = 250 MB: (a) DMDAR, (b) HFP",
                   fgcs_view("matmul2d-random-order:N=20"), {{"DMDAR", "dmdar/lru"}, {"HFP", "hfp/belady"}},
                   [] {
                     OrderFigure layout;
                     layout.captions = {"(a) DMDAR", "(b) HFP"};
                     return layout;
                   }(),
                   "With the random order DMDAR forms squares of C (Ready completes them); HFP's first packages share rows "
                   "and columns sparsely, then it forms square blocks with most loads prefetched."),
      order_preset("darts-fig8", "darts Fig. 8", "DMDAS's order on iterations 1 to 4 of Cholesky, N = 40, one V100 limited to 2 GB",
                   darts_view("v100-darts", 1), {{"DMDAS", "dmdas/lru"}}, chunks(4, false),
                   "DMDAS follows the submission order and keeps reloading the panel's tiles: the conflict between "
                   "prefetching and eviction."),
      order_preset("darts-fig9", "darts Fig. 9", "DARTS's order on iterations 1 to 4 of Cholesky, N = 40, one V100 limited to 2 GB",
                   darts_view("v100-darts", 1), {{"DARTS", "darts/luf"}}, chunks(4, false),
                   "DARTS starts like DMDAS, then switches to triangle blocks that reuse the loaded tiles."),
      order_preset("darts-fig13", "darts Fig. 13", "DARTS's order on iteration 1 of Cholesky, N = 40, two V100 limited to 2 GB: (a) GPU 1, (b) GPU 2",
                   darts_view("v100x4-darts", 2), {{"DARTS", "darts/luf"}}, chunks(1, true),
                   "Each GPU still forms triangle blocks, and the loads are well spread over the two GPUs."),
      optimum_gap_preset(),
  };
  return presets;
}

const SweepPreset* find_sweep_preset(const std::string& name) {
  for (const auto& preset : sweep_presets()) {
    if (preset.name == name) return &preset;
  }
  if (name == "fgcs-fig7") return find_sweep_preset("fgcs-fig5");  // the same runs, seen by their loads
  return nullptr;
}

std::string scheduler_option(const SweepPreset& preset) {
  std::string option;
  for (const auto& policy : preset.policies) option += (option.empty() ? "" : ",") + policy.entry;
  return option;
}

}  // namespace tilelens
