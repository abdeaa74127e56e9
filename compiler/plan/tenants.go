package plan

import (
	"strings"
)

// tenantChanges are the tenants whose quotas or namespaces moved; a
// tenant is there if it has either.
func tenantChanges(before, after *State) []TenantChange {
	var out []TenantChange
	was, is := tenantSet(before), tenantSet(after)
	for _, t := range union(was, is) {
		tc := TenantChange{Tenant: t, Change: Changed}
		switch {
		case !was[t]:
			tc.Change = Added
		case !is[t]:
			tc.Change = Removed
		}
		tc.Quotas = quotaChanges(before.Quotas[t], after.Quotas[t])
		bn, an := before.Namespaces[t], after.Namespaces[t]
		tc.NamespacesRemoved, tc.NamespacesAdded = setDiff(bn, an), setDiff(an, bn)
		tc.Enforcement = enforcementChange(before.Enforcement[t], after.Enforcement[t])
		if len(tc.Quotas) > 0 || len(tc.NamespacesRemoved)+len(tc.NamespacesAdded) > 0 || tc.Change != Changed || tc.Enforcement != nil {
			out = append(out, tc)
		}
	}
	return out
}

func tenantSet(s *State) map[string]bool {
	out := map[string]bool{}
	for t := range s.Quotas {
		out[t] = true
	}
	for t := range s.Namespaces {
		out[t] = true
	}
	for t := range s.Enforcement {
		out[t] = true
	}
	return out
}

// quotaChanges lists the quotas that differ, in the after tree's order
// then the removed ones; namespaces whose quota moved alike are one line.
func quotaChanges(before, after []Quota) []QuotaChange {
	type key struct{ scope, res string }
	old := map[key]Quota{}
	for _, q := range before {
		old[key{q.Scope, q.Resource}] = q
	}
	var out []QuotaChange
	seen := map[key]bool{}
	for _, q := range after {
		k := key{q.Scope, q.Resource}
		seen[k] = true
		b, ok := old[k]
		if ok && b.Value.Cmp(q.Value) == 0 {
			continue
		}
		qc := QuotaChange{Scope: q.Scope, Resource: q.Resource, After: q.Value.String()}
		if ok {
			qc.Before = b.Value.String()
		}
		out = append(out, qc)
	}
	for _, q := range before {
		if !seen[key{q.Scope, q.Resource}] {
			out = append(out, QuotaChange{Scope: q.Scope, Resource: q.Resource, Before: q.Value.String()})
		}
	}
	return mergeNamespaces(out)
}

// mergeNamespaces joins the changes of namespaces that moved the same
// resource from the same value to the same value.
func mergeNamespaces(in []QuotaChange) []QuotaChange {
	type joined struct {
		names []string
		rest  string // the quota's name, after the namespace
	}
	var out []QuotaChange
	var of []*joined
	at := map[QuotaChange]int{}
	for _, q := range in {
		name, ok := strings.CutPrefix(q.Scope, "namespace ")
		if !ok {
			out, of = append(out, q), append(of, nil)
			continue
		}
		name, rest, _ := strings.Cut(name, " (")
		if rest != "" {
			rest = " (" + rest
		}
		k := q
		k.Scope = rest
		if i, ok := at[k]; ok {
			of[i].names = append(of[i].names, name)
			continue
		}
		at[k] = len(out)
		out, of = append(out, q), append(of, &joined{names: []string{name}, rest: rest})
	}
	for i, j := range of {
		if j != nil && len(j.names) > 1 {
			out[i].Scope = "namespaces " + strings.Join(j.names, ", ") + j.rest
		}
	}
	return out
}
