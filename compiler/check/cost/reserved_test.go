package cost

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// Reserved capacity is paid for used or not: an ODCR at the on-demand
// rate, a block at its own price for its term; what the classes landing
// on the pool do not take is stranded.
func TestReserved(t *testing.T) {
	prices := catalog.NewPrices(&catalog.PriceTable{OnDemandUSD: map[string]map[string]float64{"us-east-1": {"g6e.12xlarge": 10, "p5.48xlarge": 55}}}, "us-east-1", nil)
	node := func(it, gpus string) sched.Node {
		return sched.Node{InstanceType: it, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"gpufleet.dev/gpu-count": gpus}}}}
	}
	cl := &sched.Cluster{Pools: []sched.Pool{
		{Name: "serve", Nodes: []sched.Node{node("g6e.12xlarge", "4")}, Reserved: []nodes.Reservation{{Selector: "cr-0a", InstanceType: "g6e.12xlarge", Zone: "a", Count: 4}}},
		{Name: "train", Nodes: []sched.Node{node("p5.48xlarge", "8")}, Reserved: []nodes.Reservation{
			{Selector: "cr-0b", Block: true, InstanceType: "p5.48xlarge", Zone: "a", Count: 2, Start: "2026-12-14T11:30:00Z", End: "2026-12-15T11:30:00Z", Price: "30"},
			{Selector: "cr-0c", Block: true, InstanceType: "p5.48xlarge", Zone: "a", Count: 1},
		}},
		{Name: "plain", Nodes: []sched.Node{node("g6e.12xlarge", "4")}},
	}}
	classes := []ClassCost{{Class: "infer", Pool: "serve", Type: "g6e.12xlarge", Nodes: 3}, {Class: "pretrain", Pool: "train", Type: "p5.48xlarge", Nodes: 2}}
	got := reserved(cl, classes, prices)
	if len(got) != 3 {
		t.Fatalf("%d reservations, want 3: %+v", len(got), got)
	}
	odcr, block, unpriced := got[0], got[1], got[2]
	if odcr.Used != 3 || odcr.Stranded != 1 || odcr.GPUs != 16 || *odcr.Hourly != 40 || *odcr.Monthly != 40*730 || odcr.Term != nil {
		t.Errorf("ODCR: %+v", odcr)
	}
	if block.Used != 2 || block.Stranded != 0 || block.GPUs != 16 || *block.Hourly != 60 || *block.Term != 60*24 || block.PriceSource != "spec" {
		t.Errorf("block: %+v", block)
	}
	// The third reserved p5 is what the gang leaves: stranded, and a
	// block without its price is unknown, never the on-demand rate.
	if unpriced.Used != 0 || unpriced.Stranded != 1 || unpriced.Hourly != nil || !strings.Contains(unpriced.Unknown, "give it as the reservation's price") {
		t.Errorf("unpriced block: %+v", unpriced)
	}
}
