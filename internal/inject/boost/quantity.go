package boost

import (
	"fmt"
	"math/big"
	"regexp"
)

// quantityRE is a Kubernetes resource quantity: a decimal number with a binary (Ki..Ei) or
// decimal (n..E) suffix, or an exponent.
var quantityRE = regexp.MustCompile(`^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$`)

var binarySuffix = map[string]int64{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
var decimalSuffix = map[string]int64{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// quantity reads a resource quantity exactly, to compare two spellings of one amount (1Gi and
// 1024Mi, 1 and 1000m), as the API server compares them.
func quantity(s string) (*big.Rat, error) {
	m := quantityRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("%q is not a Kubernetes quantity", s)
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return nil, fmt.Errorf("%q is not a Kubernetes quantity", s)
	}
	pow := func(base, exp int64) *big.Rat {
		if exp < 0 {
			return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(base), big.NewInt(-exp), nil))
		}
		return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil))
	}
	suffix := m[2]
	switch {
	case binarySuffix[suffix] != 0:
		r.Mul(r, pow(2, binarySuffix[suffix]))
	case len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E'):
		var exp int64
		if _, err := fmt.Sscan(suffix[1:], &exp); err != nil || exp > 18 || exp < -9 {
			return nil, fmt.Errorf("%q: exponent out of range", s)
		}
		r.Mul(r, pow(10, exp))
	default:
		r.Mul(r, pow(10, decimalSuffix[suffix]))
	}
	return r, nil
}

// sameQuantity: both unset, or both set to the same amount.
func sameQuantity(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	x, err1 := quantity(a)
	y, err2 := quantity(b)
	return err1 == nil && err2 == nil && x.Cmp(y) == 0
}
