package aws

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Capacity Block durations EC2 sells: whole days, 1 to 182
// (PurchaseCapacityBlock's CapacityDurationHours, 24 to 4368).
const (
	blockDay     = 24 * time.Hour
	blockMaxDays = 182
)

// reserved checks a pool's capacity reservations against what EC2,
// eksctl v0.230.0 (pkg/apis/eksctl.io/v1alpha5/validation.go,
// pkg/cfn/builder/managed_nodegroup.go) and Karpenter v1.15.1's
// EC2NodeClass CRD refuse, and what would leave reserved instances no
// node of the pool to become.
func (v validator) reserved(name string, pool spec.Pool, seen map[string]string) {
	if !pool.IsReserved() {
		return
	}
	at := func(i int, field ...string) []string {
		return append(p("pools", name, "reserved", strconv.Itoa(i)), field...)
	}
	zones := pool.Zones
	if len(zones) == 0 {
		zones = v.f.Cluster.Zones
	}
	if pool.Capacity == spec.Spot {
		v.errorf(p("pools", name, "capacity"), "a reserved pool launches on-demand capacity: EC2 launches no spot instance into a capacity reservation; set capacity to \"on-demand\"")
	}
	if pool.Provisioner == spec.Both {
		v.errorf(p("pools", name, "provisioner"), "a reserved pool is provisioned by \"managed\" or \"karpenter\", not \"both\": the managed baseline and Karpenter would draw on one reservation")
	}
	managed := pool.Provisioner != spec.Karpenter && pool.Provisioner != spec.Both
	if managed && len(pool.Reserved) > 1 {
		v.errorf(at(1), "a managed node group's launch template targets one reservation (eksctl capacityReservationTarget): give each reservation a pool of its own, or provisioner \"karpenter\"")
	}
	for i, r := range pool.Reserved {
		switch {
		case r.ID == "" && len(r.Tags) == 0:
			v.errorf(at(i), "a reservation needs id or tags: expected at least one, got none, ['tags', 'id']")
		case r.ID != "" && len(r.Tags) > 0:
			v.errorf(at(i, "tags"), "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term")
		case managed && r.ID == "":
			v.errorf(at(i, "tags"), "a managed node group targets a reservation by its ID (eksctl capacityReservationID): give id, or provisioner \"karpenter\" to select by tags")
		}
		for _, k := range spec.Keys(r.Tags) {
			if strings.ContainsAny(k+r.Tags[k], " ;,=") {
				v.errorf(at(i, "tags", k), "tag %s=%q: gpufleet records a tag selector in an AWS tag value, which takes no space, \";\", \",\" or \"=\" of a selector's own", k, r.Tags[k])
			}
		}
		if r.ID != "" {
			if prev, ok := seen[r.ID]; ok {
				v.errorf(at(i, "id"), "reservation %q is also pool %q's: an instance in it is a node of one pool", r.ID, prev)
			} else {
				seen[r.ID] = name
			}
		}
		if !slices.Contains(pool.InstanceTypes, r.InstanceType) {
			v.errorf(at(i, "instanceType"), "reservation is for %s, which the pool does not list (%s): no node of the pool launches into it", r.InstanceType, strings.Join(pool.InstanceTypes, ", "))
		}
		if !slices.Contains(zones, r.Zone) {
			v.errorf(at(i, "zone"), "reservation is in %s, which is not one of the pool's zones (%s): no node of the pool launches into it", r.Zone, strings.Join(zones, ", "))
		} else if managed && len(zones) > 1 {
			v.errorf(p("pools", name, "zones"), "a managed node group with a reservation in %s spans %s: its instances outside %s never launch into it; set zones to [%q]", r.Zone, strings.Join(zones, ", "), r.Zone, r.Zone)
		}
		if r.WhenExhausted != pool.Reserved[0].WhenExhausted {
			v.errorf(at(i, "whenExhausted"), "whenExhausted is %q here and %q on the pool's first reservation: a NodePool's capacity types are the pool's", r.WhenExhausted, pool.Reserved[0].WhenExhausted)
		}
		if managed && r.WhenExhausted == spec.OnDemand {
			v.errorf(at(i, "whenExhausted"), "a managed node group's launch template targets its reservation and nothing else: falling back to on-demand needs provisioner \"karpenter\"")
		}
		if r.IsBlock() {
			v.block(at(i), name, pool, r, managed)
		} else {
			if r.Price != nil {
				v.errorf(at(i, "price"), "price is a Capacity Block's: EC2 bills an On-Demand Capacity Reservation at the on-demand rate of its instance type (give that in prices)")
			}
			if r.Start != "" {
				v.errorf(at(i, "start"), "start is a Capacity Block's: an On-Demand Capacity Reservation is active from when it is created")
			}
			if r.End != "" {
				if _, err := time.Parse(time.RFC3339, r.End); err != nil {
					v.errorf(at(i, "end"), "end %q is not an RFC 3339 time", r.End)
				}
			}
		}
	}
	if n := pool.ReservedCount(); n > pool.Size.Max {
		v.errorf(p("pools", name, "size", "max"), "max %d launches at most %d of the %d reserved instances: the rest are paid for and never used; raise max to %d", pool.Size.Max, pool.Size.Max, n, n)
	}
	if (pool.EFA || pool.Topology) && spanned(pool.Reserved) {
		v.errorf(p("pools", name, "reserved"), "the pool's reservations span zones: an EFA or topology-aware gang runs in one zone, so the reserved instances of the others cannot join it")
	}
}

// block checks a Capacity Block: its window, and what a managed node
// group of it needs (eksctl's managed_nodegroup.go).
func (v validator) block(at []string, name string, pool spec.Pool, r spec.Reservation, managed bool) {
	field := func(f string) []string { return append(append([]string{}, at...), f) }
	if r.InstanceMatchCriteria != "" {
		v.errorf(field("instanceMatchCriteria"), "instanceMatchCriteria is an On-Demand Capacity Reservation's: a Capacity Block is always targeted")
	}
	start, err1 := time.Parse(time.RFC3339, r.Start)
	end, err2 := time.Parse(time.RFC3339, r.End)
	switch {
	case r.Start == "":
		v.errorf(at, "a Capacity Block needs its start (RFC 3339, as EC2's DescribeCapacityBlocks reports it)")
	case err1 != nil:
		v.errorf(field("start"), "start %q is not an RFC 3339 time", r.Start)
	}
	switch {
	case r.End == "":
		v.errorf(at, "a Capacity Block needs its end (RFC 3339): Karpenter drains its nodes before it, and classes must finish by then")
	case err2 != nil:
		v.errorf(field("end"), "end %q is not an RFC 3339 time", r.End)
	}
	if err1 == nil && err2 == nil {
		if d := end.Sub(start); d <= 0 || d%blockDay != 0 || d > blockMaxDays*blockDay {
			v.errorf(field("end"), "a Capacity Block lasts whole days, 1 to %d: %s to %s is %s", blockMaxDays, r.Start, r.End, d)
		}
	}
	if !managed {
		return
	}
	if len(pool.InstanceTypes) > 1 {
		v.errorf(p("pools", name, "instanceTypes"), "cannot specify multiple instance types when using capacity block (eksctl): list only %s", r.InstanceType)
	}
	if pool.Size.Min > 0 || (pool.Size.Desired != nil && *pool.Size.Desired > 0) {
		v.errorf(p("pools", name, "size", "min"), "a Capacity Block's managed node group starts at 0 nodes (EKS launches into the block only while it is active): set min and desired to 0 and scale it up once the block starts")
	}
}

// spanned reports whether reservations lie in more than one zone.
func spanned(rs []spec.Reservation) bool {
	for _, r := range rs {
		if r.Zone != rs[0].Zone {
			return true
		}
	}
	return false
}
