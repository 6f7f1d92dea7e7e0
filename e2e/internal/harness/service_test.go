package harness

import (
	"fmt"
	"net"
	"testing"
)

// FreePort's ports are below the kernel's ephemeral range, where no outgoing connection takes
// them, and a server can listen on them.
func TestFreePortIsBelowTheEphemeralRangeAndBindable(t *testing.T) {
	low := ephemeralLow()
	for i := 0; i < 20; i++ {
		p := FreePort()
		if p < 10000 || p >= low {
			t.Fatalf("port %d is outside [10000, %d)", p, low)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		ln.Close()
	}
}
