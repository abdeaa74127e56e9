package e2e

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// TestTrainerMade holds trainerMade to JobSets as Trainer's JobSet plugin
// owns them (the TrainJob its controller) and as it does not: a JobSet of
// the TrainJob's name made by someone else, or by a TrainJob of the same
// name before it, is no proof that Trainer made the pods.
func TestTrainerMade(t *testing.T) {
	const uid = types.UID("tj-uid")
	yes := true
	jobSet := func(refs ...metav1.OwnerReference) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace("ml")
		u.SetName("tj-kq")
		u.SetOwnerReferences(refs)
		return u
	}
	for _, tc := range []struct {
		name string
		js   *unstructured.Unstructured
		ok   bool
	}{
		{"controlled by its TrainJob", jobSet(metav1.OwnerReference{Kind: keys.KindTrainJob, Name: "tj-kq", UID: uid, Controller: &yes}), true},
		{"owned, not controlled, by another beside its TrainJob", jobSet(
			metav1.OwnerReference{Kind: "ConfigMap", Name: "x", UID: "cm"},
			metav1.OwnerReference{Kind: keys.KindTrainJob, Name: "tj-kq", UID: uid, Controller: &yes}), true},
		{"made by hand", jobSet(), false},
		{"of an earlier TrainJob of its name", jobSet(metav1.OwnerReference{Kind: keys.KindTrainJob, Name: "tj-kq", UID: "old", Controller: &yes}), false},
		{"owned by its TrainJob, controlled by nothing", jobSet(metav1.OwnerReference{Kind: keys.KindTrainJob, Name: "tj-kq", UID: uid}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := trainerMade(tc.js, uid); (err == nil) != tc.ok {
				t.Fatalf("trainerMade: %v, want ok %v", err, tc.ok)
			}
		})
	}
}
