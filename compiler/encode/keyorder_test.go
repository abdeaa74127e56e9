package encode

import (
	"math/rand/v2"
	"testing"
)

// keyLessASCII is keyLess on ASCII keys, digits and zeros included.
func TestKeyLessASCII(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aAbz09180_-./:"
	key := func() string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 200000 {
		a, b := key(), key()
		if got, want := keyLessASCII([]byte(a), []byte(b)), keyLess(a, b); got != want {
			t.Fatalf("keyLessASCII(%q, %q) = %v, keyLess %v", a, b, got, want)
		}
	}
}
