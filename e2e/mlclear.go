package e2e

import (
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// clearMLMade deletes what the kind's controller made of the object name
// (it is deleted first, so that its controller makes nothing more), as
// the garbage collector, not run here, would: a TrainJob's JobSet (before
// the JobSet's own), a JobSet's Jobs, a LeaderWorkerSet's StatefulSets
// and ControllerRevisions, the headless Service of either, and their
// pods; and waits until they are gone.
func (fr *fleetRun) clearMLMade(dyn dynamic.Interface, kind, ns, name string) error {
	if !mlPodsMade(kind) && !mlPodsEmulated(kind) {
		return nil
	}
	sel := metav1.ListOptions{LabelSelector: mlSelector(kind, name)}
	zero, bg := int64(0), metav1.DeletePropagationBackground
	apps := fr.cp.Client.AppsV1()
	err := poll(mlControllerPodTimeout, 200*time.Millisecond, func() (bool, error) {
		// Both make a headless Service of the object's name; a TrainJob's
		// JobSet has its name too, and was there if it could be deleted.
		errs := []error{ignoreNotFound(fr.cp.Client.CoreV1().Services(ns).Delete(fr.ctx, name, metav1.DeleteOptions{}))}
		jobSet := false
		if kind == keys.KindTrainJob {
			err := dyn.Resource(mlResources[keys.KindJobSet]).Namespace(ns).Delete(fr.ctx, name, metav1.DeleteOptions{})
			jobSet = err == nil
			errs = append(errs, ignoreNotFound(err))
		}
		if kind == keys.KindLeaderWorkerSet {
			errs = append(errs, apps.StatefulSets(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, sel),
				apps.ControllerRevisions(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, sel))
		} else if mlJobSet(kind) {
			errs = append(errs, fr.cp.Client.BatchV1().Jobs(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, sel))
		}
		errs = append(errs, fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel), fr.releasePods(ns, sel))
		if err := errors.Join(errs...); err != nil {
			return false, err
		}
		owners, err := fr.mlOwners(kind, ns, sel.LabelSelector)
		if err != nil {
			return false, err
		}
		pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, sel)
		if err != nil {
			return false, err
		}
		return !jobSet && len(owners) == 0 && len(pods.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("what the %s controller made of %s/%s did not go: %w", kind, ns, name, err)
	}
	return nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
