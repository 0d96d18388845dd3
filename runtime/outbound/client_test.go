package outbound

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

func TestInternal(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		internal bool
	}{
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true},
		{"172.31.255.255", true}, {"192.168.1.1", true}, {"169.254.169.254", true}, {"fe80::1", true},
		{"fc00::1", true}, {"fd00:ec2::254", true}, {"100.64.0.1", true}, {"0.0.0.0", true}, {"::", true},
		{"224.0.0.1", true}, {"255.255.255.255", true}, {"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true},
		{"8.8.8.8", false}, {"172.32.0.1", false}, {"100.128.0.1", false}, {"2606:4700::1111", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if got := internal(netip.MustParseAddr(tc.addr)); got != tc.internal {
				t.Fatalf("internal(%s) = %v", tc.addr, got)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	c := New(Policy{AllowHosts: []string{"localhost:9999"}, BlockHosts: []string{"blocked.example"}})
	for _, tc := range []struct{ name, url, code, want string }{
		{"file scheme", "file:///etc/passwd", venue.EINVALID, "Only HTTP/HTTPS schemes are allowed, got: file"},
		{"gopher scheme", "gopher://x/", venue.EINVALID, "got: gopher"},
		{"no host", "http:///path", venue.EINVALID, "URL has no host"},
		{"blocked host", "https://blocked.example/", venue.EFORBIDDEN, "Host is blocked: blocked.example"},
		{"loopback by address", "http://127.0.0.1:8080/", venue.EFORBIDDEN, "private/internal address: 127.0.0.1"},
		{"loopback by name", "http://localhost/", venue.EFORBIDDEN, "private/internal address: localhost"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", venue.EFORBIDDEN, "private/internal"},
		{"IPv6 loopback", "http://[::1]:80/", venue.EFORBIDDEN, "private/internal"},
		{"unresolvable", "https://no-such-host.invalid/", venue.EINVALID, "Cannot resolve host: no-such-host.invalid"},
		{"allowed by host and port", "http://localhost:9999/", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(tc.url)
			err := c.CheckURL(context.Background(), u)
			if venue.ErrorCode(err) != tc.code || (tc.want != "" && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("CheckURL(%s) = %v, want %s %q", tc.url, err, tc.code, tc.want)
			}
		})
	}
}

// server runs a loopback test server, allowed under its own name, that
// reports the headers it saw.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	return s, u.Host
}

func TestDo_RedirectsAreCheckedAndDropCredentials(t *testing.T) {
	var sawKey, sawAuth string
	_, other := server(t, func(w http.ResponseWriter, r *http.Request) {
		sawKey, sawAuth = r.Header.Get("X-Api-Key"), r.Header.Get("Authorization")
		io.WriteString(w, "landed")
	})
	_, first := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	otherIP := strings.Replace(other, "127.0.0.1", "localhost", 1)
	c := New(Policy{AllowHosts: []string{first, otherIP}})
	req, _ := http.NewRequest("GET", "http://"+first+"/?to=http://"+otherIP+"/", nil)
	req.Header.Set("X-Api-Key", "key-value")
	req.Header.Set("Authorization", "Bearer token")
	resp, err := c.Do(req, []string{"X-Api-Key"})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "landed" || sawKey != "" || sawAuth != "" {
		t.Fatalf("body %q; credentials followed the redirect: key %q auth %q", body, sawKey, sawAuth)
	}

	t.Run("a redirect to an internal address is refused", func(t *testing.T) {
		c := New(Policy{AllowHosts: []string{first}})
		req, _ := http.NewRequest("GET", "http://"+first+"/?to=http://"+otherIP+"/", nil)
		_, err := c.Do(req, nil)
		if venue.ErrorCode(err) != venue.EFORBIDDEN || !strings.Contains(err.Error(), "private/internal") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a redirect to another scheme is refused", func(t *testing.T) {
		req, _ := http.NewRequest("GET", "http://"+first+"/?to=ftp://example.com/", nil)
		_, err := c.Do(req, nil)
		if !strings.Contains(venue.ErrorMessage(err), "Only HTTP/HTTPS") {
			t.Fatalf("%v", err)
		}
	})
}

func TestDo_LimitsResponseAndTime(t *testing.T) {
	_, big := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	_, slow := server(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
	})
	c := New(Policy{AllowHosts: []string{big, slow}, MaxResponse: 1000, Timeout: 100 * time.Millisecond})
	req, _ := http.NewRequest("GET", "http://"+big+"/", nil)
	resp, err := c.Do(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); venue.ErrorCode(err) != venue.ETOOLARGE {
		t.Fatalf("reading past the cap: %v", err)
	}
	req, _ = http.NewRequest("GET", "http://"+slow+"/", nil)
	if _, err := c.Do(req, nil); venue.ErrorCode(err) != venue.ETIMEOUT {
		t.Fatalf("slow server: %v", err)
	}
}
