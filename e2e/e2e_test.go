package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestEndToEnd runs every example fleet, and every broken one with the
// checker's verdict ignored, against a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler on loopback. `make e2e` builds the binaries and runs it.
func TestEndToEnd(t *testing.T) {
	bin := os.Getenv("E2E_BIN")
	if bin == "" {
		t.Fatal("E2E_BIN is not set: run `make e2e`, which builds the control-plane binaries and sets it")
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kueue", "karpenter-kwok", "jobset", "lws"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			t.Fatalf("%s: %v (run `make e2e`)", b, err)
		}
	}
	// Kueue's CRDs, and the CRDs Karpenter's AWS chart installs (its
	// NodePool is core's plus AWS label rules), from the pinned releases.
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := upstream.Kueue.Glob(upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	karpenter, err := upstream.KarpenterAWS.Glob(upstream.KarpenterCRDs)
	if err != nil {
		t.Fatal(err)
	}
	crds = append(crds, karpenter...)
	// What Karpenter's kwok provider needs beside (karpenter.go).
	for _, f := range []string{upstream.KWOKNodeClassCRD, upstream.NodeOverlayCRD, upstream.CapacityBufferCRD} {
		p, err := upstream.Karpenter.File(f)
		if err != nil {
			t.Fatal(err)
		}
		crds = append(crds, p)
	}
	// The ML kinds' CRDs (issue 52), so that their classes' examples are
	// stored as the tree applies them; Trainer's TrainingRuntime, which
	// Kueue's trainjob integration indexes on start; and the LWS manager's
	// DisaggregatedSet: the JobSet, LeaderWorkerSet and Trainer
	// controllers run (mlcontrollers.go), Ray's and the training-operator's
	// do not (mlemulate.go).
	for _, f := range append(slices.Clone(upstream.MLKindCRDs),
		upstream.File{Module: upstream.Trainer, Path: upstream.TrainingRuntimeCRD},
		upstream.File{Module: upstream.LeaderWorkerSet, Path: disaggregatedSetCRD}) {
		p, err := f.Module.File(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		crds = append(crds, p)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cp, err := Start(ctx, bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	failed := true
	rec := &recap{}
	defer func() {
		if failed || t.Failed() {
			t.Logf("control-plane logs:\n%s", cp.Logs(60))
		}
		// Last, so that the end of a CI log says what failed.
		if r := rec.String(); r != "" {
			t.Logf("the fleets' failures, again:\n%s", r)
		}
	}()
	a, err := cp.Applier()
	if err != nil {
		t.Fatal(err)
	}
	n, err := cp.InstallCRDs(ctx, a, crds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane up in %s; %d CRDs Established", dir, n)
	mlStart := time.Now()
	if err := cp.StartMLControllers(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("the JobSet, LeaderWorkerSet and Trainer controllers up, their webhooks answering, in %s", time.Since(mlStart).Round(100*time.Millisecond))
	def, err := cp.StartScheduler(ctx, "kube-scheduler", []byte(defaultSchedulerConfig), cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	defer def.stop(10 * time.Second)

	fleets, err := exampleFleets(repo)
	if err != nil {
		t.Fatal(err)
	}
	broken, err := brokenFleets(repo, filepath.Join(dir, "broken"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kueue-system"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kq := &kueues{cp: cp}
	defer kq.stop()
	st := &Stats{ByController: map[string]int{}, Queued: map[string]int{}, Admitted: map[string]int{}, UnitPods: map[string]int{}}
	all, err := shard(append(fleets, broken...), os.Getenv("E2E_SHARD"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range all {
		t.Run(fc.name, func(t *testing.T) {
			runFleet(&fleetT{TB: t, fleet: fc.name, rec: rec}, ctx, cp, a, def, kq, fc, st)
		})
		if fc.name == mutantFleet {
			err := karpenterMutant(t, func(tb testing.TB) {
				runFleet(&fleetT{TB: tb, fleet: fc.name + " (mutant)", rec: &recap{}}, ctx, cp, a, def, kq, fc, &Stats{ByController: map[string]int{}, Queued: map[string]int{}, Admitted: map[string]int{}, UnitPods: map[string]int{}})
			})
			if err != nil {
				t.Error(err)
			}
		}
	}
	// The API server refuses exactly what plan calls refused: on the
	// control plane of the shard with the least work, once its fleets are
	// done (planrefused.go).
	if lightestShard(append(fleets, broken...), os.Getenv("E2E_SHARD")) {
		testPlanRefusals(t, ctx, a, repo)
	}
	failed = false
	kinds := []string{keys.KindJob, keys.KindStatefulSet, keys.KindDeployment}
	sum := func(m map[string]int) int {
		n := 0
		for _, v := range m {
			n += v
		}
		return n
	}
	t.Logf("e2e: %d fleets, %d objects applied, %d classes, pods made by controllers from a user workload plus the class Component: Deployment %d, StatefulSet %d, Job %d (%d queued workloads held by Kueue); %d pods placed, %d left Pending, %d refused by quota admission, %d hostile pods and ML workloads refused by the tenants' admission policies, %d class×pool probes; "+
		"Kueue: %d tenant×class workloads through its webhooks and controllers (Job %d, StatefulSet %d, Deployment %d; %d Workloads), %d admitted (Job %d, StatefulSet %d, Deployment %d), %d left pending, each as the checker said; their controllers made %d pods of the admitted ones (Job %d, StatefulSet %d, Deployment %d): %d bound to their flavor's pool, %d Pending, %d left gated, as the checker's units said; preemption: %d ClusterQueues let a higher-priority class preempt a lower one and Kueue did, %d protect the lower one and Kueue preempted none; "+
		"Kueue's topology-aware scheduling on the standing nodes of TAS pools, labelled with EC2's network layers: %d workloads admitted with a topology assignment, their pods bound in its domains, %d never admitted where KueueTopology said so, %d refused by its flavor matching for TAS where KueueFlavor said so, each as the checker said; %d Jobs not queued ran in waves, %d pods bound at once, as their units said; %d tenants' Kueue admitted pods their ResourceQuota refused, as KueueResourceQuota said; the real device plugin chart's DaemonSet reached %d GPU nodes (its MPS control daemon %d MPS nodes), the NVIDIA DRA driver chart's kubelet plugin %d DRA nodes (each publishing its ResourceSlice), and eksctl's EFA device plugin %d EFA nodes, as the checker said; %d ResourceClaims made by the resourceclaim controller and allocated by kube-scheduler for DRA classes' bound pods, as the checker's allocator said; gpufleet drift found no drift on %d Node objects, and each mutated copy; %d spot Jobs survived an eviction (and failed without their podFailurePolicy); the tree's own scheduler Deployment: %d pods bound or Unschedulable as SystemLands said (%d classes then never scheduled, as it says); Deployment rollouts at max size: %d completed, %d stalled where Rollout or RolloutQuota said; from the standing fleet, cluster-autoscaler's scale-up (restated in e2e/scaleup, not the component) grew managed node groups %d times, adding %d nodes (%d classes it could not help then judged at max size), and counted %d nodes unready for their GPUs, as AutoscalerGPUReady said; the real Karpenter (kwok provider) launched %d nodes from zero in %d rounds for NodePools' Unschedulable pods (%d of the type the checker credits, %d of another), %d pods bound on them, and launched nothing for some pod of %d classes (%d for DRA claims, which it does not support, then judged at max size; %d where KarpenterLaunch says it never launches for them)",
		st.Fleets, st.Objects, st.Classes, st.ByController[keys.KindDeployment], st.ByController[keys.KindStatefulSet], st.ByController[keys.KindJob], st.Held, st.Placed, st.Refused, st.Forbidden, st.Hostile, st.Probes,
		sum(st.Queued), st.Queued[kinds[0]], st.Queued[kinds[1]], st.Queued[kinds[2]], st.Workloads, sum(st.Admitted), st.Admitted[kinds[0]], st.Admitted[kinds[1]], st.Admitted[kinds[2]], sum(st.Queued)-sum(st.Admitted),
		sum(st.UnitPods), st.UnitPods[kinds[0]], st.UnitPods[kinds[1]], st.UnitPods[kinds[2]], st.UnitBound, st.UnitPending, st.UnitGated, st.Preempted, st.Protected,
		st.TASAdmitted, st.TASRefused, st.TASUnmatched, st.Waves, st.WavesBound, st.OverQuota, st.DevicePluginNodes, st.MPSNodes, st.DRANodes, st.EFANodes, st.DRAClaims, st.DriftNodes, st.Evictions, st.SystemPods, st.NoScheduler, st.Rollouts, st.RolloutsStalled, st.CAScaleUps, st.CANodes, st.CAMaxSize, st.CAUnready, st.KarpenterNodes, st.KarpenterLaunches, st.KarpenterTypeAgrees, st.KarpenterTypeDiffers, st.KarpenterBound, st.KarpenterRefused, st.KarpenterDRA, st.KarpenterLaunch)
	var ml []string
	for _, k := range slices.Sorted(maps.Keys(st.Queued)) {
		if _, ok := mlResources[k]; ok {
			ml = append(ml, fmt.Sprintf("%s %d (%d admitted)", k, st.Queued[k], st.Admitted[k]))
		}
	}
	if len(ml) == 0 {
		ml = []string{"none in this shard's fleets"}
	}
	t.Logf("e2e: ML kinds' workloads through the running Kueue's own integrations, each admitted whole or not at all and each PodSet to its flavor as the checker said: %s; a checker giving every role its first role's flavor disagrees on %d of the %d admitted with several pod sets", strings.Join(ml, ", "), st.MLCaught, st.MLCompared)
	t.Logf("e2e: pods of the ML workloads, made by their kinds' real controllers (JobSet v0.12.0's, then kube-controller-manager's Job controller: %d; LeaderWorkerSet v0.9.0's, then its StatefulSet controller: %d; a TrainJob's by Kubeflow Trainer v2.2.1's, its JobSet's by the JobSet controller, then the Job controller: %d) or, where the operator does not run, by the harness from the admitted object's pod templates as Kueue left them (RayJob %d, RayCluster %d, PyTorchJob %d), admitted by Kueue and bound by kube-scheduler, each pod set's in its flavor's pool as the checker's unit said (an unqueued one's where its role's row lands); the deliberate bugs (every role on the first role's pool; a LeaderWorkerSet group without its leader; a TrainJob of one pod per replicated job) were caught on %d of %d comparisons",
		st.UnitPods[keys.KindJobSet], st.UnitPods[keys.KindLeaderWorkerSet], st.UnitPods[keys.KindTrainJob], st.UnitPods[keys.KindRayJob], st.UnitPods[keys.KindRayCluster], st.UnitPods[keys.KindPyTorchJob], st.MLPodsCaught, st.MLPodsCompared)
	if st.MLPodsCaught < st.MLPodsCompared {
		t.Errorf("%d of the %d deliberate bugs in the ML kinds' pods went unnoticed", st.MLPodsCompared-st.MLPodsCaught, st.MLPodsCompared)
	}
	if st.MLCompared > 0 && st.MLCaught == 0 {
		t.Error("a checker giving every role of an ML kind its first role's flavor went unnoticed")
	}
}

func runFleet(t *fleetT, ctx context.Context, cp *ControlPlane, a *Applier, def *proc, kq *kueues, fc fleetCase, st *Stats) {
	ph := newPhases()
	defer func() { t.Logf("phases: %s", ph) }()
	res, err := compiler.Compile([]string{fc.path})
	if err != nil {
		t.Fatal(err)
	}
	switch errs := res.Report.Errors(); {
	case fc.broken && errs == 0:
		t.Fatalf("%s is meant to be broken, but the checker finds no error", fc.path)
	case !fc.broken && errs > 0:
		t.Fatalf("the checker finds %d errors in an example fleet: %v", errs, res.Report.Findings)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	st.Fleets++
	mappings, err := draMappings(res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kq.get(ctx, derive.FairSharing(res.Fleet.Spec), mappings)
	if err != nil {
		t.Fatal(err)
	}
	ph.mark("compile and Kueue")
	fr := &fleetRun{t: t, ctx: ctx, cp: cp, a: a, res: res, cl: cl, st: st, kueue: k, scheds: []*proc{def}, probeNS: map[string]bool{}, unscheduled: map[string]bool{}}
	if fr.region, fr.infra, err = readInfra(res.Tree); err != nil {
		t.Fatal(err)
	}
	if tf, err := readTerraform(res.Tree); err != nil {
		t.Fatal(err)
	} else if d := sameNodes(fr.infra, tf); d != "" {
		t.Errorf("the Terraform node groups would launch other nodes than eksctl's: %s", d)
	}
	for _, p := range fr.infra {
		fr.kwok = fr.kwok || p.karpenter && len(p.types) > 0
	}
	if got, want := poolNames(fr.infra), checkerPools(cl); got != want {
		t.Fatalf("the infrastructure files declare pools [%s], the checker read [%s]", got, want)
	}
	if d := overMax(fr.infra, res.Fleet.Spec.Pools); d != "" {
		t.Errorf("the infrastructure files launch other than the spec's max: %s", d)
	}
	if d := standingDiff(fr.infra, cl); d != "" {
		t.Errorf("the infrastructure files stand at other nodes than the checker's (Kueue's topology-aware scheduling places on those): %s", d)
	}
	if fr.sharing, err = deviceplugin.SharingProfiles(res.Tree[tree.DevicePluginConfigPath]); err != nil {
		t.Fatal(err)
	}
	applied := fr.apply()
	defer func() { fr.cleanup(applied); ph.mark("cleanup") }()
	if _, dra := res.Tree[dradriver.ValuesPath]; dra {
		stop := fr.startClaimCollector()
		defer stop()
	}
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range applied {
		if o.GetKind() != "Namespace" {
			continue
		}
		if err := waitServiceAccount(ctx, cp, o.GetName()); err != nil {
			t.Fatalf("namespace %s: no default ServiceAccount: %v", o.GetName(), err)
		}
		if err := waitQuotasReady(ctx, cp, o.GetName()); err != nil {
			t.Fatalf("namespace %s: quotas have no status: %v", o.GetName(), err)
		}
	}
	ph.mark("apply")
	fr.clearExamples(dyn)
	fr.devicePlugin()
	defer func() { fr.removeSlices(); fr.removeDevicePlugin(fr.agents); ph.mark("agents removed") }()

	ph.mark("agents")
	bound := fr.systemPods()
	if raw, ok := res.Tree[tree.SchedulerConfigPath]; ok {
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(raw, &cm); err != nil {
			t.Fatal(err)
		}
		// The second scheduler runs as the tree's pod of it, once
		// kube-scheduler bound that pod (systemPods): under the tree's
		// ServiceAccount for it, so its RBAC (its own lease above all) is
		// the tree's.
		if !bound[schedconfig.Namespace+"/"+schedconfig.Name] {
			var cfg schedconfig.Config
			if err := yaml.UnmarshalStrict([]byte(cm.Data[schedconfig.ConfigKey]), &cfg); err != nil {
				t.Fatal(err)
			}
			for _, p := range cfg.Profiles {
				fr.unscheduled[p.SchedulerName] = true
			}
		} else {
			kc, err := cp.ServiceAccountKubeconfig(ctx, schedconfig.Namespace, schedconfig.Name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := cp.StartScheduler(ctx, fc.name+"-scheduler", []byte(cm.Data[schedconfig.ConfigKey]), kc)
			if err != nil {
				t.Fatal(err)
			}
			fr.scheds = append(fr.scheds, p)
			fr.own = append(fr.own, p)
		}
	}
	ph.mark("system pods")
	if !fc.broken {
		fr.drift()
		ph.mark("drift")
	}
	fr.admission()
	ph.mark("admission")
	fr.hostile()
	ph.mark("hostile pods")
	if !fc.broken {
		fr.survivesEviction()
		ph.mark("eviction")
		fr.preemption(dyn)
		ph.mark("preemption")
	}
	for i := range cl.Classes {
		if !mlKind(&cl.Classes[i]) {
			fr.class(&cl.Classes[i])
		}
	}
	for _, c := range fr.mlUnqueued() {
		fr.mlPlace(dyn, c)
	}
	ph.mark("classes")
}
