package kubesched

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Placement is what the scheduling cycle made of a workload's pods.
type Placement struct {
	// Bound are the pods that landed, in order, Spec.NodeName set.
	Bound []*v1.Pod
	// Refused is the first pod that did not land, nil if all did. Like a
	// Deployment's or a Job's pending pods, the ones after it are the same
	// pod on the same cluster, and are refused the same way.
	Refused *v1.Pod
	// Reasons are the refused pod's reasons on each node (its Diagnosis's
	// NodeToStatus), and Message kube-scheduler's FailedScheduling text.
	Reasons map[string][]string
	Message string
	// Nominated is the node PostFilter (DefaultPreemption) nominated for
	// the refused pod, if any.
	Nominated string
}

// Schedule runs kube-scheduler v1.35.4's scheduling cycle for pods, one
// after another, on nodes that run nothing else, under profile (nil: the
// default profile), as schedule_one.go's schedulingCycle does: the cache's
// snapshot, PreFilter, Filter on every node, PostFilter when none fits,
// PreScore, Score (NormalizeScore and weights included), the top score,
// Reserve, and the pod assumed in the cache, so the next cycle's snapshot
// holds it. The profile's framework is built once and reused by every
// call (cyclefw.go); the cache, snapshot and CycleState are each call's
// own. What it leaves out, and why:
//
//   - Every node is filtered, as percentageOfNodesToScore 100 (gpufleet's
//     binpack profile) does. The default samples nodes past 100, starting
//     where the last cycle stopped, in parallel: which feasible nodes get
//     scored then depends on goroutine timing, whether any exists does not.
//   - Among equal top scores kube-scheduler picks at random; Schedule picks
//     the first in the order of less (by node name if nil). A differential
//     built on it must not depend on that choice.
//   - Permit, PreBind and Bind: the default profile has no Permit plugin,
//     its PreBind plugins act on volumes and ResourceClaims (no class has
//     either), and DefaultBinder only writes the Binding; the cache's
//     AssumePod and AddPod stand for the bind and the informer seeing it.
//   - Nominated pods: none exist, since no pod is ever preempted.
func Schedule(profile *config.KubeSchedulerProfile, pods []*v1.Pod, nodes []*v1.Node, less func(a, b string) bool) (*Placement, error) {
	pending, nodes, err := cycleInputs(pods, nodes)
	if err != nil {
		return nil, err
	}
	f, err := cycleFrameworkFor(profile)
	if err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	// A fresh snapshot each call: the cache fills it, the plugins read it.
	snapshot := schedcache.NewEmptySnapshot()
	// The call's API server holds the pending pods too: DefaultPreemption
	// reads the preemptor back from its lister.
	if err := f.lend(snapshot, pending, nodes); err != nil {
		return nil, err
	}
	out, err := cycle(f.fw, snapshot, pending, nodes, less)
	if lerr := f.lend(schedcache.NewEmptySnapshot(), nil, nil); err == nil {
		err = lerr
	}
	// A nomination means preemption chose victims, which leaves state in
	// DefaultPreemption and writes to the API server: this framework is
	// not reused after it, nor after an error.
	if err != nil || out.Nominated != "" {
		f.forget()
	}
	return out, err
}

// cycleInputs are pods and nodes as the API server stores them, the pods
// unbound and with their cache keys as UIDs.
func cycleInputs(pods []*v1.Pod, nodes []*v1.Node) ([]*v1.Pod, []*v1.Node, error) {
	if len(pods) == 0 || len(nodes) == 0 {
		return nil, nil, fmt.Errorf("no pods or no nodes")
	}
	pending := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		if len(p.Spec.ResourceClaims) > 0 {
			return nil, nil, fmt.Errorf("pod %s: ResourceClaims (DRA) are not supported by this harness", p.Name)
		}
		p = defaultPod(p)
		p.Spec.NodeName = ""
		p.UID = types.UID(fmt.Sprintf("%s/%s", p.Namespace, p.Name)) // the cache's key
		pending[i] = p
	}
	nodes, err := defaultNodes(nodes)
	if err != nil {
		return nil, nil, err
	}
	return pending, nodes, nil
}

// cycle schedules pending on nodes with fw, whose SharedLister reads
// snapshot: each pod's cycle starts by updating snapshot from a cache
// of this call's own.
func cycle(fw framework.Framework, snapshot *schedcache.Snapshot, pending []*v1.Pod, nodes []*v1.Node, less func(a, b string) bool) (*Placement, error) {
	if less == nil {
		less = func(a, b string) bool { return a < b }
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	// The cache's cleanup goroutine records metrics from its first run.
	registerMetrics.Do(metrics.Register)
	// No API dispatcher (SchedulerAsyncAPICalls' calls are the binder's,
	// which the cycle does not run), and pod groups as the scheduler
	// tracks them when GenericWorkload is on.
	cache := schedcache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload))
	for _, n := range nodes {
		cache.AddNode(logger, n)
	}

	out := &Placement{}
	for _, pod := range pending {
		if err := cache.UpdateSnapshot(logger, snapshot); err != nil {
			return nil, err
		}
		state := framework.NewCycleState()
		feasible, diagnosis, err := fitting(ctx, fw, state, pod, snapshot)
		if err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		if len(feasible) == 0 {
			fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(nodes), Diagnosis: diagnosis}
			if fw.HasPostFilterPlugins() {
				res, status := fw.RunPostFilterPlugins(ctx, state, pod, diagnosis.NodeToStatus)
				if status.Code() == fwk.Error {
					return nil, fmt.Errorf("pod %s: PostFilter: %w", pod.Name, status.AsError())
				}
				fitErr.Diagnosis.PostFilterMsg = status.Message()
				if res != nil && res.NominatingInfo != nil {
					out.Nominated = res.NominatedNodeName
				}
			}
			out.Refused, out.Message = pod, fitErr.Error()
			out.Reasons = make(map[string][]string, len(nodes))
			for _, n := range nodes {
				out.Reasons[n.Name] = diagnosis.NodeToStatus.Get(n.Name).Reasons()
			}
			return out, nil
		}
		host, err := best(ctx, fw, state, pod, feasible, less)
		if err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		if s := fw.RunReservePluginsReserve(ctx, state, pod, host); !s.IsSuccess() {
			return nil, fmt.Errorf("pod %s: Reserve on %s: %w", pod.Name, host, s.AsError())
		}
		bound := pod.DeepCopy()
		bound.Spec.NodeName = host
		if err := cache.AssumePod(logger, bound); err != nil {
			return nil, err
		}
		if err := cache.AddPod(logger, bound); err != nil {
			return nil, err
		}
		out.Bound = append(out.Bound, bound)
	}
	return out, nil
}

// fitting is findNodesThatFitPod without sampling, extenders or nominated
// nodes: PreFilter (a rejection is every node's status, a
// PreFilterResult rules the other nodes out), then Filter on each node.
func fitting(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, snapshot *schedcache.Snapshot) ([]fwk.NodeInfo, framework.Diagnosis, error) {
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	all, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, diagnosis, err
	}
	preRes, s, unschedulable := fw.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulable
	if !s.IsSuccess() {
		if !s.IsRejected() {
			return nil, diagnosis, s.AsError()
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
		return nil, diagnosis, nil
	}
	nodes := all
	if !preRes.AllNodes() {
		nodes = nil
		for _, n := range all {
			if preRes.NodeNames.Has(n.Node().Name) {
				nodes = append(nodes, n)
			}
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulable))))
	}
	var feasible []fwk.NodeInfo
	for _, n := range nodes {
		status := fw.RunFilterPlugins(ctx, state, pod, n)
		switch {
		case status.IsSuccess():
			feasible = append(feasible, n)
		case status.IsRejected():
			diagnosis.NodeToStatus.Set(n.Node().Name, status)
			diagnosis.AddPluginStatus(status)
		default:
			return nil, diagnosis, fmt.Errorf("node %s: %w", n.Node().Name, status.AsError())
		}
	}
	return feasible, diagnosis, nil
}

// best is prioritizeNodes and the top of its heap: the only feasible node,
// or PreScore and Score over the feasible ones and the highest total,
// ties broken by less.
func best(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, feasible []fwk.NodeInfo, less func(a, b string) bool) (string, error) {
	if len(feasible) == 1 {
		return feasible[0].Node().Name, nil
	}
	if s := fw.RunPreScorePlugins(ctx, state, pod, feasible); !s.IsSuccess() {
		return "", fmt.Errorf("PreScore: %w", s.AsError())
	}
	scores, s := fw.RunScorePlugins(ctx, state, pod, feasible)
	if !s.IsSuccess() {
		return "", fmt.Errorf("Score: %w", s.AsError())
	}
	top := slices.MaxFunc(scores, func(a, b fwk.NodePluginScores) int {
		switch {
		case a.TotalScore != b.TotalScore:
			return cmp.Compare(a.TotalScore, b.TotalScore)
		case less(a.Name, b.Name):
			return 1
		case less(b.Name, a.Name):
			return -1
		}
		return 0
	})
	return top.Name, nil
}
