package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws/pricelist"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// maxPriceFile bounds a price file read: a region's whole EC2 Linux
// on-demand price list, unfiltered, is far less.
const maxPriceFile = 256 << 20

var regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

func newPricesCmd(stdout io.Writer) *cobra.Command {
	var region, out, pkg string
	var onDemand, spot []string
	cmd := &cobra.Command{
		Use:   "prices --region REGION [--on-demand FILE]... [--spot FILE]...",
		Short: "Import AWS price JSON into a prices file the spec unifies with",
		Long: `Prices reads the JSON the AWS CLI writes for EC2's prices in one region and
writes a prices file (CUE, or JSON for an -o ending in .json) that sets
prices.instanceTypes: put it beside the fleet's spec and pass both (or
their directory) to every command, and the report prices those types.

--on-demand takes 'aws pricing get-products' output, read as
karpenter-provider-aws's pricing provider reads the same API: Linux,
shared tenancy (or dedicated bare metal), used capacity, USD per hour.
--spot takes 'aws ec2 describe-spot-price-history' output: each type's
latest Linux/UNIX price in each zone of the region, and of those the
dearest zone's, since the spec holds one spot price per type.`,
		Example: `  aws pricing get-products --region us-east-1 --service-code AmazonEC2 \
    --filters Type=TERM_MATCH,Field=regionCode,Value=us-west-2 \
              Type=TERM_MATCH,Field=operatingSystem,Value=Linux \
              Type=TERM_MATCH,Field=preInstalledSw,Value=NA \
              Type=TERM_MATCH,Field=capacitystatus,Value=Used \
              Type=TERM_MATCH,Field=tenancy,Value=Shared > on-demand.json
  aws ec2 describe-spot-price-history --region us-west-2 \
    --product-descriptions Linux/UNIX --start-time "$(date -u +%FT%TZ)" > spot.json
  gpufleet prices --region us-west-2 --on-demand on-demand.json --spot spot.json -o fleet/prices.cue`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if !regionName.MatchString(region) {
				return usageError(c, "--region %q: want an AWS region such as us-west-2", region)
			}
			if len(onDemand)+len(spot) == 0 {
				return usageError(c, "give --on-demand or --spot files")
			}
			l := pricelist.New(region)
			for _, f := range onDemand {
				if err := readPriceFile(f, "aws pricing get-products", l.ReadProducts); err != nil {
					return &exitError{code: ExitInvalid, err: err}
				}
			}
			for _, f := range spot {
				if err := readPriceFile(f, "aws ec2 describe-spot-price-history", l.ReadSpotHistory); err != nil {
					return &exitError{code: ExitInvalid, err: err}
				}
			}
			if len(l.Types()) == 0 {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: no %s price in the files: check --region and the calls' filters", c.CommandPath(), region)}
			}
			var text []byte
			if strings.HasSuffix(out, ".json") {
				text = pricesJSON(l)
			} else {
				text = pricesCUE(l, pkg, onDemand, spot)
			}
			if out == "" || out == "-" {
				_, err := stdout.Write(text)
				return err
			}
			if err := writeFileAtomic(out, text); err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %v", c.CommandPath(), err)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&region, "region", "", "the region the prices are for (required)")
	cmd.Flags().StringArrayVar(&onDemand, "on-demand", nil, "'aws pricing get-products' output (repeatable)")
	cmd.Flags().StringArrayVar(&spot, "spot", nil, "'aws ec2 describe-spot-price-history' output (repeatable)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the prices file here (default: standard output)")
	cmd.Flags().StringVar(&pkg, "package", "fleet", "the CUE package of the fleet's spec")
	return cmd
}

// readPriceFile reads one bounded file into read, placing a JSON error
// at its line and column.
func readPriceFile(name, call string, read func([]byte) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPriceFile+1))
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	at := diag.Pos{File: name}
	switch {
	case len(data) > maxPriceFile:
		return fmt.Errorf("%s: larger than %d MiB", at, maxPriceFile>>20)
	case len(bytes.TrimSpace(data)) == 0:
		return fmt.Errorf("%s: empty: want the JSON of '%s'", at, call)
	}
	if err := read(data); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			at = offsetPos(name, data, syn.Offset-1)
		case errors.As(err, &typ):
			at = offsetPos(name, data, valueStart(data, typ.Offset))
		}
		return fmt.Errorf("%s: %v: want the JSON of '%s'", at, err, call)
	}
	return nil
}

// valueStart is where the scalar value that ends at end begins: a type
// error's offset is after the value; an object or array stays at its end.
func valueStart(data []byte, end int64) int64 {
	i := int(min(end, int64(len(data))))
	if i == 0 || data[i-1] == '}' || data[i-1] == ']' {
		return end - 1
	}
	for i > 0 && !bytes.ContainsRune([]byte(":[,"), rune(data[i-1])) {
		i--
	}
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return int64(i)
}

func offsetPos(name string, data []byte, off int64) diag.Pos {
	o := int(max(0, min(off, int64(len(data)))))
	before := data[:o]
	return diag.Pos{File: name, Line: bytes.Count(before, []byte("\n")) + 1, Column: o - bytes.LastIndexByte(before, '\n')}
}

func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// pricesCUE is the prices file in CUE, one line per type, sorted.
func pricesCUE(l *pricelist.PriceList, pkg string, onDemand, spot []string) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by gpufleet prices. DO NOT EDIT.\n//\n")
	fmt.Fprintf(&b, "// EC2's hourly prices in %s, USD.\n", l.Region)
	for _, f := range onDemand {
		fmt.Fprintf(&b, "// On-demand: %s ('aws pricing get-products').\n", filepath.ToSlash(f))
	}
	for _, f := range spot {
		fmt.Fprintf(&b, "// Spot: %s ('aws ec2 describe-spot-price-history'), the dearest zone's latest.\n", filepath.ToSlash(f))
	}
	fmt.Fprintf(&b, "package %s\n\nprices: instanceTypes: {\n", pkg)
	for _, it := range l.Types() {
		var fields []string
		if v, ok := l.OnDemand[it]; ok {
			fields = append(fields, "onDemand: "+usd(v))
		}
		if v, ok := l.Spot[it]; ok {
			fields = append(fields, "spot: "+usd(v))
		}
		fmt.Fprintf(&b, "\t%q: {%s}\n", it, strings.Join(fields, ", "))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// pricesJSON is the prices file in JSON, for a YAML or JSON spec.
func pricesJSON(l *pricelist.PriceList) []byte {
	types := map[string]spec.InstancePrice{}
	for _, it := range l.Types() {
		var p spec.InstancePrice
		if v, ok := l.OnDemand[it]; ok {
			p.OnDemand = &v
		}
		if v, ok := l.Spot[it]; ok {
			p.Spot = &v
		}
		types[it] = p
	}
	b, _ := json.MarshalIndent(map[string]any{"prices": map[string]any{"instanceTypes": types}}, "", "  ")
	return append(b, '\n')
}
