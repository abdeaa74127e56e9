package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// defaultSchedulerConfig is the control plane's own kube-scheduler: the
// default profile, as EKS runs it. gpufleet's profiles run beside it.
const defaultSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
`

// StartScheduler runs kube-scheduler with config (a
// KubeSchedulerConfiguration in YAML), pointed at this control plane with
// the credentials of kubeconfig, and waits until it serves /healthz and, if
// it elects a leader, holds the lease. The name tells its log apart.
func (cp *ControlPlane) StartScheduler(ctx context.Context, name string, config []byte, kubeconfig string) (*proc, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("scheduler %s: config: %w", name, err)
	}
	// The only change to the emitted configuration: where the API server is.
	cfg["clientConnection"] = map[string]any{"kubeconfig": kubeconfig}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(cp.Dir, name+".yaml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		return nil, err
	}
	lease, leaseNS := leaseOf(cfg)
	if lease != "" {
		// A lease left by the previous fleet's scheduler would make this one
		// wait out its duration.
		err := cp.Client.CoordinationV1().Leases(leaseNS).Delete(ctx, lease, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := startProc(cp.Dir, name, filepath.Join(cp.Bin, "kube-scheduler"),
		"--config="+file,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--v=2")
	if err != nil {
		return nil, err
	}
	// kube-scheduler serves with a self-signed certificate on loopback.
	hc := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	err = poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		if done, err := p.exited(); done {
			return false, fmt.Errorf("scheduler %s %w: %v\n%s", name, errExited, err, p.tail(30))
		}
		resp, err := hc.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, nil
		}
		if lease == "" {
			return true, nil
		}
		l, err := cp.Client.CoordinationV1().Leases(leaseNS).Get(ctx, lease, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", err
	})
	if err != nil {
		p.stop(10 * time.Second)
		return nil, fmt.Errorf("scheduler %s not ready: %w\n%s", name, err, p.tail(30))
	}
	return p, nil
}

// leaseOf is the Lease a configuration elects its leader with, if any.
func leaseOf(cfg map[string]any) (name, namespace string) {
	le, _ := cfg["leaderElection"].(map[string]any)
	if on, ok := le["leaderElect"].(bool); ok && !on {
		return "", ""
	}
	name, _ = le["resourceName"].(string)
	namespace, _ = le["resourceNamespace"].(string)
	if name == "" {
		name = "kube-scheduler"
	}
	if namespace == "" {
		namespace = "kube-system"
	}
	return name, namespace
}

// ServiceAccountKubeconfig writes a kubeconfig that authenticates as the
// ServiceAccount namespace/name, with a token from the TokenRequest API, as
// the account's pods would: what runs with it has the account's RBAC, not
// an administrator's.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	ttl := int64(3600)
	tr, err := cp.Client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	path := filepath.Join(cp.Dir, "kubeconfig-"+namespace+"-"+name)
	return path, writeKubeconfigToken(path, cp.Config.Host, cp.caFile, tr.Status.Token)
}
