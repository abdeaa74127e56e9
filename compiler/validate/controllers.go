package validate

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// saPrefix begins a service account's username, as the API server
// authenticates its tokens (k8s.io/apiserver
// pkg/authentication/serviceaccount, ServiceAccountUsernamePrefix).
const saPrefix = "system:serviceaccount:"

// controllers checks cluster.controllers: usernames, each once; a service
// account's as system:serviceaccount:<namespace>:<name>, both valid.
func (c *checker) controllers() {
	for i, u := range c.f.Cluster.Controllers {
		np := p("cluster", "controllers", strconv.Itoa(i))
		if slices.Index(c.f.Cluster.Controllers, u) < i {
			c.errorf(np, "controller %q is listed twice", u)
		}
		if !utf8.ValidString(u) || strings.ContainsFunc(u, unicode.IsControl) {
			c.errorf(np, "controller %q is not a username: it holds control characters or invalid UTF-8", u)
			continue
		}
		rest, ok := strings.CutPrefix(u, saPrefix)
		if !ok {
			continue
		}
		ns, name, ok := strings.Cut(rest, ":")
		if !ok {
			c.errorf(np, "controller %q is not a service account's username: want system:serviceaccount:<namespace>:<name>", u)
			continue
		}
		for _, msg := range validation.IsDNS1123Label(ns) {
			c.errorf(np, "controller %q: namespace %q is invalid: %s", u, ns, msg)
		}
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			c.errorf(np, "controller %q: service account %q is invalid: %s", u, name, msg)
		}
	}
}
