package plan

func classChanges(before, after *State, components map[string]bool) []ClassChange {
	was, is := setOf(before.Report.Classes), setOf(after.Report.Classes)
	var out []ClassChange
	for _, class := range union(was, is) {
		c := ClassChange{Class: class, Change: Changed}
		switch {
		case !was[class]:
			c.Change = Added
		case !is[class]:
			c.Change = Removed
		}
		bl, al := before.Report.Lands[class], after.Report.Lands[class]
		for _, pool := range union(bl, al) {
			b, bok := bl[pool]
			a, aok := al[pool]
			if bok == aok && b.Capacity == a.Capacity {
				continue
			}
			pp := PoolPods{Pool: pool}
			if bok {
				pp.Before = ptr(b.Capacity)
			}
			if aok {
				pp.After = ptr(a.Capacity)
			}
			if bok && (!aok || a.Capacity < b.Capacity) && c.Change == Changed {
				c.Lost = true
			}
			c.Pools = append(c.Pools, pp)
		}
		bu, bok := before.Report.Units[class]
		au, aok := after.Report.Units[class]
		if bok != aok || bu.AtOnce != au.AtOnce {
			c.AtOnce = &Count{}
			if bok {
				c.AtOnce.Before = ptr(bu.AtOnce)
			}
			if aok {
				c.AtOnce.After = ptr(au.AtOnce)
			}
			if bok && aok && au.AtOnce < bu.AtOnce {
				c.Lost = true
			}
		}
		be, ae := before.Examples[class], after.Examples[class]
		if c.Change == Changed && be.Scheduler != ae.Scheduler {
			c.Scheduler = &Text{Before: be.Scheduler, After: ae.Scheduler}
		}
		if c.Change == Changed && be.Priority != ae.Priority {
			c.Priority = &Text{Before: be.Priority, After: ae.Priority}
		}
		if c.Change != Changed || c.Pools != nil || c.AtOnce != nil || c.Scheduler != nil || c.Priority != nil || components[class] {
			out = append(out, c)
		}
	}
	return out
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// Pending is how many pods of the class's unit that ran at once no longer
// do (negative: more run at once).
func (c ClassChange) Pending() int64 {
	if c.AtOnce == nil || c.AtOnce.Before == nil || c.AtOnce.After == nil {
		return 0
	}
	return *c.AtOnce.Before - *c.AtOnce.After
}
