package kubeapi

import (
	"fmt"
	"math/big"
	"regexp"
)

// quantity is a Kubernetes resource quantity as CPU is written: a decimal number with an
// optional decimal SI suffix (500m, 2, 1.5, 2k). Binary suffixes and exponents, which no one
// writes for CPU, are refused rather than guessed.
var quantity = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(n|u|m|k|M|G|T|P|E)?$`)

var siScale = map[string]int64{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// MaxMilliCPU bounds what ParseCPU accepts: 1,000,000 cores is no node's CPU.
const MaxMilliCPU = 1_000_000_000

// ParseCPU reads a CPU quantity ("500m", "2", "1.5") as millicores, rounded up as the API
// server rounds a CPU quantity finer than 1m.
func ParseCPU(s string) (int64, error) {
	m := quantity.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q: expected a CPU quantity such as 500m, 1 or 1.5", s)
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return 0, fmt.Errorf("%q: expected a CPU quantity such as 500m, 1 or 1.5", s)
	}
	// milli = value × 10^(scale+3)
	exp := siScale[m[2]] + 3
	ten := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(exp)), nil))
	if exp >= 0 {
		r.Mul(r, ten)
	} else {
		r.Quo(r, ten)
	}
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() || q.Int64() > MaxMilliCPU {
		return 0, fmt.Errorf("%q: more CPU than any node has", s)
	}
	return q.Int64(), nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// FormatCPU writes millicores as the API server does: whole cores without a suffix, else m.
func FormatCPU(milli int64) string {
	if milli%1000 == 0 {
		return fmt.Sprintf("%d", milli/1000)
	}
	return fmt.Sprintf("%dm", milli)
}
