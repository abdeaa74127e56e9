package check

// AdmitsMemo answers as Kueue's checks decide admission, from the memo:
// for a class and a flavor, the verdict, and whether the memo held one
// (else it was decided anew).
func AdmitsMemo(m *KueueModel, cl *Cluster, queues []QueueIntent) func(c *Class, flavor string) (ok bool, reason string, held bool) {
	memo := newAdmitMemo(m, cl, queues)
	return func(c *Class, f string) (bool, string, bool) {
		_, held := memo[c.Name][f]
		ok, reason := memo.admitter(m, c)(f)
		return ok, reason, held
	}
}
