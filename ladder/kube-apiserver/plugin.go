// Package kubeapiserver runs the API server's own ValidatingAdmissionPolicy
// plugin (k8s.io/apiserver v0.36.5, pkg/admission/plugin/policy/validating)
// over the admission policies gpufleet writes, as kube-apiserver wires it:
// policies, bindings and namespaces from informers, the
// dispatcher matching by namespace selector, each policy compiled by the
// plugin's compilePolicy with its CEL environment.
package kubeapiserver

import (
	"context"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Admitter is the plugin, started over a tree's objects.
type Admitter struct {
	plugin *validating.Plugin
	scheme *runtime.Scheme
	stop   chan struct{}
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// Mapper is a REST mapper of the built-in kinds, as the API server's.
func Mapper() meta.RESTMapper { return testrestmapper.TestOnlyStaticRESTMapper(clientgoscheme.Scheme) }

// Start starts the plugin over the policies, bindings and namespaces, and
// waits until its informers have synced. The policies take no params:
// namespaceObject, which the plugin reads from its namespace informer,
// carries the tenant's parameters.
func Start(policies []*admissionv1.ValidatingAdmissionPolicy, bindings []*admissionv1.ValidatingAdmissionPolicyBinding, namespaces []*corev1.Namespace) (*Admitter, error) {
	var objs []runtime.Object
	for _, p := range policies {
		objs = append(objs, p)
	}
	for _, b := range bindings {
		objs = append(objs, b)
	}
	for _, n := range namespaces {
		objs = append(objs, n)
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	dyn := dynamicfake.NewSimpleDynamicClient(clientgoscheme.Scheme)
	p, err := validating.NewPlugin(nil)
	if err != nil {
		return nil, err
	}
	a := &Admitter{plugin: p, scheme: clientgoscheme.Scheme, stop: make(chan struct{})}
	p.SetExternalKubeClientSet(client)
	p.SetExternalKubeInformerFactory(factory)
	p.SetDynamicClient(dyn)
	p.SetRESTMapper(Mapper())
	p.SetAuthorizer(allowAll{})
	p.SetDrainedNotification(a.stop)
	if err := p.ValidateInitialization(); err != nil {
		return nil, err
	}
	factory.Start(a.stop)
	factory.WaitForCacheSync(a.stop)
	deadline := time.Now().Add(30 * time.Second)
	for !p.WaitForReady() {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the plugin's informers did not sync")
		}
	}
	return a, nil
}

// Stop stops the plugin's informers.
func (a *Admitter) Stop() { close(a.stop) }

// Admit asks the plugin to admit the creation of obj (a Pod, Deployment,
// StatefulSet or Job) in its namespace by the user, or its update from old
// when old is not nil: nil, or the API server's error.
func (a *Admitter) Admit(obj, old runtime.Object, resource, username string) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: resource}
	op, opts := admission.Create, runtime.Object(&metav1.CreateOptions{})
	if old != nil {
		op, opts = admission.Update, &metav1.UpdateOptions{}
	}
	attrs := admission.NewAttributesRecord(obj, old, gvk, m.GetNamespace(), m.GetName(), gvr, "", op,
		opts, false, &user.DefaultInfo{Name: username})
	return a.plugin.Validate(context.Background(), attrs, admission.NewObjectInterfacesFromScheme(a.scheme))
}
