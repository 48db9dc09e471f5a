/* analysis.h: the door to viewer/analysis/ — what a recording's data means,
 * as pure functions of the model (viewer/model/model.h), without a screen;
 * what they keep of a model is its vw_an (an.h), beside it:
 *   - phases: change-point detection, classes, figures and descriptions,
 *     the cache in the file, the phase table as text (phase.h, report.h);
 *   - topology: the machine tree, values per object from the model, the
 *     sunburst / icicle geometry (topo.h, topo-metric.h);
 *   - roofline: each phase's intensity and FLOP/s under the machine's
 *     measured ceilings, and where the work counts come from (roofline.h);
 *   - compare: two runs' phases matched, deltas judged against noise,
 *     ranked, the report and its CI verdict (compare.h);
 *   - jobs: rank files of a parallel job, one phase structure, per-phase
 *     imbalance and the slowest rank, the job report (job.h);
 *   - the code profile: hot functions of a span, the code row, code
 *     regions for phase detection (hotcode.h); functions named for people,
 *     and how to get missing names (codelabel.h); the call stacks
 *     (stacktab.h): waiting charged to its caller (waitowner.h), a span's
 *     stacks as a tree for the flame graph (flame.h);
 * *   - the threads of a process: useful and sync time each, the OpenMP
 *     load balance and efficiencies (threads.h);
 *   - numbers and times as people read them (fmt.h).
 * Nothing here draws or includes views or the terminal: the views draw what
 * these compute, `mcview --report` prints it, tests call it directly.
 * Files outside this folder include this header only.
 */
#ifndef VW_ANALYSIS_H
#define VW_ANALYSIS_H

#include "an.h"
#include "code/codelabel.h"
#include "compare/compare.h"
#include "code/flame.h"
#include "fmt.h"
#include "code/hotcode.h"
#include "jobs/job.h"
#include "phases/kernels.h"
#include "phases/phase.h"
#include "phases/report.h"
#include "roofline/roofline.h"
#include "code/stacktab.h"
#include "topology/topo-metric.h"
#include "code/threads.h"
#include "topology/topo.h"
#include "code/waitowner.h"

#endif
