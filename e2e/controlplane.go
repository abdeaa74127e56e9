package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// token is the static bearer token of the harness's system:masters user.
const token = "gpufleet-e2e-admin-token"

// ControlPlane is etcd, kube-apiserver and a kube-controller-manager that
// runs only the controllers a cluster without kubelets still needs (see
// startControllerManager). Everything listens on 127.0.0.1.
type ControlPlane struct {
	Dir        string
	Bin        string
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface
	procs      []*proc
	caFile     string // the API server's CA, for kubeconfigs
}

// Start brings up a control plane from the binaries in bin, working in dir.
// On error, whatever was started is stopped again.
func Start(ctx context.Context, bin, dir string) (cp *ControlPlane, err error) {
	cp = &ControlPlane{Dir: dir, Bin: bin}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, cp.Logs(40))
			cp.Stop()
			cp = nil
		}
	}()
	pk, err := newPKI(dir)
	if err != nil {
		return cp, err
	}
	etcdURL, err := cp.startEtcd()
	if err != nil {
		return cp, err
	}
	port, err := cp.startAPIServer(pk, etcdURL)
	if err != nil {
		return cp, err
	}
	host := "https://127.0.0.1:" + strconv.Itoa(port)
	cp.Config = &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: pk.CAPEM},
		QPS:             500,
		Burst:           1000,
		Timeout:         30 * time.Second,
	}
	if cp.Client, err = kubernetes.NewForConfig(cp.Config); err != nil {
		return cp, err
	}
	cp.Kubeconfig = filepath.Join(dir, "kubeconfig")
	cp.caFile = pk.CACert
	if err := writeKubeconfig(cp.Kubeconfig, host, pk.CACert); err != nil {
		return cp, err
	}
	if err := cp.waitReady(ctx); err != nil {
		return cp, err
	}
	if err := cp.startControllerManager(); err != nil {
		return cp, err
	}
	return cp, nil
}

func (cp *ControlPlane) start(name string, args ...string) (*proc, error) {
	p, err := startProc(cp.Dir, name, filepath.Join(cp.Bin, name), args...)
	if err != nil {
		return nil, err
	}
	cp.procs = append(cp.procs, p)
	return p, nil
}

func (cp *ControlPlane) startEtcd() (string, error) {
	client, err := freePort()
	if err != nil {
		return "", err
	}
	peer, err := freePort()
	if err != nil {
		return "", err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	_, err = cp.start("etcd",
		"--name=e2e",
		"--data-dir="+filepath.Join(cp.Dir, "etcd"),
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL,
		// A throwaway store: durability buys nothing and costs seconds.
		"--unsafe-no-fsync",
		"--log-level=warn")
	return clientURL, err
}

func (cp *ControlPlane) startAPIServer(pk *pki, etcdURL string) (int, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	tokens := filepath.Join(cp.Dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+`,gpufleet-e2e,gpufleet-e2e,"system:masters"`+"\n"), 0o600); err != nil {
		return 0, err
	}
	_, err = cp.start("kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+pk.ServingCert, "--tls-private-key-file="+pk.ServingKey,
		"--client-ca-file="+pk.CACert,
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pk.SAPublicKey,
		"--service-account-signing-key-file="+pk.SAPrivateKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		// The kubernetes Service's endpoints would be 127.0.0.1, which
		// Endpoints validation refuses; nothing here needs that Service.
		"--endpoint-reconciler-type=none",
		// As on EKS: the device plugin chart's MPS control daemon is
		// privileged, and the default refuses it.
		"--allow-privileged=true",
		"--cert-dir="+cp.Dir,
		"--profiling=false",
		"--v=1")
	return port, err
}

// startControllerManager runs nine controllers: the namespace controller,
// so that deleting a fleet's namespaces finishes; the resource-quota
// controller, because quota admission refuses every pod until a quota has
// a status, and only the controller gives the quota back when pods go; the
// service-account controller, which creates the "default" account that
// admission requires of every pod; the Deployment, ReplicaSet, StatefulSet
// and Job controllers, which make the pods of the classes' workloads (and
// of the Jobs Kueue admits) as a real cluster does, FailedCreate included;
// the DaemonSet controller, which decides where the device plugin
// chart's daemon pods go; and the resourceclaim controller, which makes
// each pod's ResourceClaims from its templates (DRA classes). The node lifecycle controller stays off: with no
// kubelet to heartbeat, it would taint every node unreachable. The garbage
// collector stays off too (it would need every API's discovery to settle),
// so the harness deletes ReplicaSets and pods itself.
//
// The quota controller's full resync runs every 10 s, not every 5 min:
// quota admission charges a pod before storage writes it, so a create
// storage refuses (a StatefulSet's pod name still taken by a pod being
// deleted) stays charged until the next full sync, and a cleared
// namespace would wait minutes for its quota to read zero.
func (cp *ControlPlane) startControllerManager() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	_, err = cp.start("kube-controller-manager",
		"--kubeconfig="+cp.Kubeconfig,
		"--authentication-kubeconfig="+cp.Kubeconfig,
		"--authorization-kubeconfig="+cp.Kubeconfig,
		"--controllers=namespace-controller,resourcequota-controller,serviceaccount-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller,daemonset-controller,resourceclaim-controller",
		"--resource-quota-sync-period=10s",
		// Each controller under its own service account, as kubeadm and
		// EKS run it: the admission policies take a controller
		// ownerReference only from the controllers (derive.Controllers).
		"--use-service-account-credentials=true",
		"--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--v=1")
	return err
}

// waitReady waits for /readyz, failing early if a process died.
func (cp *ControlPlane) waitReady(ctx context.Context) error {
	rt, err := rest.TransportFor(cp.Config)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: rt, Timeout: 5 * time.Second}
	return poll(90*time.Second, 250*time.Millisecond, func() (bool, error) {
		for _, p := range cp.procs {
			if done, err := p.exited(); done {
				return false, fmt.Errorf("%s %w early: %v", p.name, errExited, err)
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cp.Config.Host+"/readyz", nil)
		if err != nil {
			return false, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// Alive returns an error naming the first control-plane process that died.
func (cp *ControlPlane) Alive() error {
	for _, p := range cp.procs {
		if done, err := p.exited(); done {
			return fmt.Errorf("%s %w: %v\n%s", p.name, errExited, err, p.tail(30))
		}
	}
	return nil
}

// Stop stops every process, newest first, each within a bounded wait.
func (cp *ControlPlane) Stop() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].stop(10 * time.Second)
	}
}

// Logs is the tail of each process's log, for failure reports.
func (cp *ControlPlane) Logs(n int) string {
	var b strings.Builder
	for _, p := range cp.procs {
		fmt.Fprintf(&b, "--- %s (%s), last %d lines:\n%s\n", p.name, p.log, n, p.tail(n))
	}
	return b.String()
}

func writeKubeconfig(path, host, caFile string) error {
	return writeKubeconfigToken(path, host, caFile, token)
}

// writeKubeconfigAs writes a kubeconfig of the harness's user acting as
// user (a controller's service account) in system:masters: the API server
// authenticates its requests as user, which the admission policies read,
// while RBAC, not judged here, allows it all.
func writeKubeconfigAs(path, host, caFile, user string) error {
	return writeKubeconfigUser(path, host, caFile, token, fmt.Sprintf("\n    as: %s\n    as-groups: [system:masters]", user))
}

func writeKubeconfigToken(path, host, caFile, bearer string) error {
	return writeKubeconfigUser(path, host, caFile, bearer, "")
}

func writeKubeconfigUser(path, host, caFile, bearer, as string) error {
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: user
  user:
    token: %s%s
contexts:
- name: e2e
  context: {cluster: e2e, user: user}
current-context: e2e
`, host, caFile, bearer, as)
	return os.WriteFile(path, []byte(kc), 0o600)
}
