package kueuemodel

import (
	"fmt"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// readNamespaces reads the LimitRanges and ResourceQuotas of the tree's
// namespaces into m.
func (m *Model) readNamespaces(tr tree.Typed) error {
	for _, p := range namespaceFiles(tr) {
		switch path.Base(p) {
		case tree.LimitRangesFile:
			var lrs []corev1.LimitRange
			if err := readback.DecodeAll(tr, p, &lrs); err != nil {
				return fmt.Errorf("check: %s: %w", p, err)
			}
			byNamespace(m.LimitRanges, lrs, func(lr *corev1.LimitRange) string { return lr.Namespace })
		case tree.ResourceQuotasFile:
			var rqs []corev1.ResourceQuota
			if err := readback.DecodeAll(tr, p, &rqs); err != nil {
				return fmt.Errorf("check: %s: %w", p, err)
			}
			byNamespace(m.ResourceQuotas, rqs, func(rq *corev1.ResourceQuota) string { return rq.Namespace })
		}
	}
	return nil
}

// byNamespace adds a file's objects to m by namespace, in order. A run of
// them in a namespace m has none of yet is kept as decoded, not copied:
// a big fleet has thousands of namespaces, each with its own file.
func byNamespace[T any](m map[string][]T, objs []T, ns func(*T) string) {
	for i := 0; i < len(objs); {
		k, j := ns(&objs[i]), i+1
		for j < len(objs) && ns(&objs[j]) == k {
			j++
		}
		if len(m[k]) == 0 {
			m[k] = objs[i:j:j] // appending to it later copies it
		} else {
			m[k] = append(m[k], objs[i:j]...)
		}
		i = j
	}
}

// namespaceFiles are the paths of the tree's LimitRange and ResourceQuota
// files, sorted, without sorting the tens of thousands of others.
func namespaceFiles(tr tree.Typed) []string {
	var ps []string
	for p := range tr.Tree {
		if b := path.Base(p); b == tree.LimitRangesFile || b == tree.ResourceQuotasFile {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}
