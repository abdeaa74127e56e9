//go:build !unix

package load

func addressSpaceLimit() (uint64, bool) { return 0, false }
