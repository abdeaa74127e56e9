package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	kueuewire "github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// kueue is Kueue's controller manager, built from the pinned module
// (built from ladder/kueue), running against the control plane.
type kueue struct {
	p           *proc
	fairSharing bool
	dra         string // mappingsKey of its deviceClassMappings
}

// StartKueue runs Kueue v0.19.2's manager with the Job, pod, Deployment
// and StatefulSet integrations (kueueFrameworks), no leader election,
// webhook and probes on loopback, and fair sharing as the fleet needs it;
// then registers its webhooks with kube-apiserver (registerWebhooks), as a
// real install does, so that the workloads of those kinds are suspended
// or gated on create. With its internal certificate management off, Kueue
// reads its metrics certificate from the fixed path /etc/kueue/metrics/
// certs; a private mount namespace lays an overlay on /etc that holds it,
// so nothing on the host changes.
func (cp *ControlPlane) StartKueue(ctx context.Context, fairSharing bool, dra []kueuewire.DeviceClassMapping) (*kueue, error) {
	name := "kueue"
	if fairSharing {
		name = "kueue-fair-sharing"
	}
	// A fresh directory each start: the overlay's upper layer keeps what
	// the last one wrote.
	dir, err := os.MkdirTemp(cp.Dir, name+"-")
	if err != nil {
		return nil, err
	}
	certs := filepath.Join(dir, "certs")
	for _, d := range []string{certs, filepath.Join(dir, "upper"), filepath.Join(dir, "work")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	caPEM, err := selfSigned(certs)
	if err != nil {
		return nil, err
	}
	webhook, err := freePort()
	if err != nil {
		return nil, err
	}
	health, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"apiVersion":                 "config.kueue.x-k8s.io/v1beta2",
		"kind":                       "Configuration",
		"namespace":                  "kueue-system",
		"manageJobsWithoutQueueName": false,
		"internalCertManagement":     map[string]any{"enable": false},
		"leaderElection":             map[string]any{"leaderElect": false},
		"webhook":                    map[string]any{"host": "127.0.0.1", "port": webhook, "certDir": certs},
		"health":                     map[string]any{"healthProbeBindAddress": "127.0.0.1:" + strconv.Itoa(health)},
		"metrics":                    map[string]any{"bindAddress": "0"},
		"integrations":               map[string]any{"frameworks": kueueFrameworks},
		// As the webhooks' namespaceSelector: the system pods are not Kueue's.
		"managedJobsNamespaceSelector": map[string]any{"matchExpressions": []any{
			map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": unmanagedNamespaces},
		}},
	}
	if fairSharing {
		// Kueue's v1beta2 Configuration turns fair sharing on by the
		// stanza's presence.
		cfg["fairSharing"] = map[string]any{"preemptionStrategies": []string{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}}
	}
	if len(dra) > 0 {
		// The tree's kueue/dra-config.yaml, merged as its users would.
		cfg["resources"] = map[string]any{"deviceClassMappings": dra}
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		return nil, err
	}
	bin := filepath.Join(cp.Bin, "kueue")
	script := strings.Join([]string{
		fmt.Sprintf("mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,workdir=%s /etc", filepath.Join(dir, "upper"), filepath.Join(dir, "work")),
		"mkdir -p /etc/kueue/metrics",
		"ln -s " + certs + " /etc/kueue/metrics/certs",
		fmt.Sprintf("exec %s --config=%s --kubeconfig=%s --feature-gates=VisibilityOnDemand=false --zap-log-level=2", bin, file, cp.Kubeconfig),
	}, " && ")
	args := []string{"--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		args = append(args, "--map-root-user")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, fmt.Errorf("kueue: %w (util-linux's unshare gives Kueue its private /etc)", err)
	}
	p, err := startProc(cp.Dir, filepath.Base(dir), unshare, append(args, "sh", "-c", script)...)
	if err != nil {
		return nil, err
	}
	err = waitReadyz(p, "kueue", health)
	if err == nil {
		err = cp.registerWebhooks(ctx, webhook, caPEM)
	}
	if err != nil {
		p.stop(5 * time.Second)
		return nil, fmt.Errorf("kueue: %w\n%s", err, p.tail(30))
	}
	return &kueue{p: p, fairSharing: fairSharing, dra: mappingsKey(dra)}, nil
}

// waitReadyz waits until the controller manager p (a controller-runtime
// manager) answers its readiness probe on 127.0.0.1:port.
func waitReadyz(p *proc, name string, port int) error {
	hc := &http.Client{Timeout: 3 * time.Second}
	return poll(90*time.Second, 250*time.Millisecond, func() (bool, error) {
		if done, err := p.exited(); done {
			return false, fmt.Errorf("%s %w: %v\n%s", name, errExited, err, p.tail(30))
		}
		resp, err := hc.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// kueues keeps one Kueue running, restarted when a fleet needs the other
// fair-sharing mode or other deviceClassMappings (settings of the whole
// manager).
type kueues struct {
	cp  *ControlPlane
	cur *kueue
}

func (k *kueues) get(ctx context.Context, fairSharing bool, dra []kueuewire.DeviceClassMapping) (*kueue, error) {
	if k.cur != nil && k.cur.fairSharing == fairSharing && k.cur.dra == mappingsKey(dra) {
		if done, err := k.cur.p.exited(); done {
			return nil, fmt.Errorf("kueue %w: %v\n%s", errExited, err, k.cur.p.tail(30))
		}
		return k.cur, nil
	}
	k.stop()
	cur, err := k.cp.StartKueue(ctx, fairSharing, dra)
	if err != nil {
		return nil, err
	}
	k.cur = cur
	return cur, nil
}

// stop stops the manager, its webhooks first: kube-apiserver would refuse
// every create they match while nothing answers them.
func (k *kueues) stop() {
	if k.cur != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := k.cp.unregisterWebhooks(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "kueue: webhooks: %v\n", err)
		}
		k.cur.p.stop(10 * time.Second)
		k.cur = nil
	}
}

// selfSigned writes tls.crt and tls.key for 127.0.0.1 into dir, for
// Kueue's webhook and metrics servers, and returns the certificate's PEM:
// its own CA, which kube-apiserver trusts for the webhooks (caBundle).
func selfSigned(dir string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kueue"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o600); err != nil {
		return nil, err
	}
	return crt, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// mappingsKey tells deviceClassMappings apart.
func mappingsKey(dra []kueuewire.DeviceClassMapping) string {
	var b strings.Builder
	for _, m := range dra {
		fmt.Fprintf(&b, "%s=%s;", m.Name, strings.Join(m.DeviceClassNames, ","))
	}
	return b.String()
}
