package nodes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Reservation is one EC2 capacity reservation a group launches into, as
// the provisioners' files record it beside what the tools read (the
// reservation's ID or tag selector in eksctl's capacityReservation and
// Karpenter's capacityReservationSelectorTerms): what it holds, which
// neither tool's file says.
type Reservation struct {
	// Selector is the reservation's ID ("cr-…") or, on a Karpenter pool,
	// its tag selector ("tags:k=v,k2=v2").
	Selector     string
	Block        bool
	InstanceType string
	Zone         string
	Count        int32
	// Start and End are a block's window (RFC 3339), data only; Price its
	// USD per instance-hour as bought ("" when not given).
	Start, End, Price string
}

// Reservation types as the record spells them.
const (
	recordODCR  = "odcr"
	recordBlock = "capacity-block"
)

// FormatReservations records reservations as one tag or annotation value
// ("; "-separated, each "<selector> <type> <instance type> <zone> <count>
// [<start> <end> [<price>]]"): spaces, colons and = are in the characters an AWS
// tag value allows.
func FormatReservations(rs []Reservation) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		typ := recordODCR
		if r.Block {
			typ = recordBlock
		}
		f := []string{r.Selector, typ, r.InstanceType, r.Zone, strconv.Itoa(int(r.Count))}
		if r.Start != "" || r.End != "" || r.Price != "" {
			f = append(f, orDash(r.Start), orDash(r.End))
		}
		if r.Price != "" {
			f = append(f, r.Price)
		}
		out[i] = strings.Join(f, " ")
	}
	return strings.Join(out, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ParseReservations reads FormatReservations' record back.
func ParseReservations(s string) ([]Reservation, error) {
	if s == "" {
		return nil, nil
	}
	var out []Reservation
	for _, rec := range strings.Split(s, "; ") {
		f := strings.Fields(rec)
		if len(f) != 5 && len(f) != 7 && len(f) != 8 {
			return nil, fmt.Errorf("reservation %q: want <selector> <type> <instance type> <zone> <count> [<start> <end> [<price>]]", rec)
		}
		n, err := strconv.ParseInt(f[4], 10, 32)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("reservation %q: count %q is not a positive number", rec, f[4])
		}
		if f[1] != recordODCR && f[1] != recordBlock {
			return nil, fmt.Errorf("reservation %q: type %q is neither %s nor %s", rec, f[1], recordODCR, recordBlock)
		}
		r := Reservation{Selector: f[0], Block: f[1] == recordBlock, InstanceType: f[2], Zone: f[3], Count: int32(n)}
		if len(f) >= 7 {
			r.Start, r.End = strings.TrimPrefix(f[5], "-"), strings.TrimPrefix(f[6], "-")
		}
		if len(f) == 8 {
			if _, err := strconv.ParseFloat(f[7], 64); err != nil {
				return nil, fmt.Errorf("reservation %q: price %q is not a number", rec, f[7])
			}
			r.Price = f[7]
		}
		out = append(out, r)
	}
	return out, nil
}

// TagSelector spells a reservation selected by tags as the record does:
// "tags:k=v,…", by key.
func TagSelector(tags map[string]string) string {
	ks := make([]string, 0, len(tags))
	for k := range tags {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = k + "=" + tags[k]
	}
	return "tags:" + strings.Join(ks, ",")
}
