package outbound

import "testing"

func TestCheckHosts(t *testing.T) {
	for _, tc := range []struct {
		name, entry  string
		allow, block bool // valid in an allow list, in a block list
	}{
		{"a name", "example.com", true, true},
		{"a name with a final dot", "Example.COM.", true, true},
		{"host:port", "localhost:9000", true, true},
		{"an address", "127.0.0.1", true, true},
		{"an IPv6 address", "[::1]", true, true},
		{"an address and port", "[::1]:8080", true, true},
		{"a prefix", "10.0.0.0/8", false, true},
		{"a prefix too long", "127.0.0.0/33", false, false},
		{"a port out of range", "example.com:99999", false, false},
		{"spaces", "not a host!", false, false},
		{"empty", "", false, false},
		{"a URL", "https://example.com", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckHosts([]string{tc.entry}, false) == nil; got != tc.allow {
				t.Errorf("as an allow entry: valid = %v, want %v", got, tc.allow)
			}
			if got := CheckHosts([]string{tc.entry}, true) == nil; got != tc.block {
				t.Errorf("as a block entry: valid = %v, want %v", got, tc.block)
			}
		})
	}
}
