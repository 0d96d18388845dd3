package outbound

import (
	"context"
	"io"
	"net"
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
		{"0.1.2.3", true}, {"192.0.0.8", true}, {"198.18.0.1", true}, {"240.0.0.1", true}, {"fec0::1", true},
		{"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::a00:1", true}, {"64:ff9b:1::7f00:1", true}, {"2002:7f00:1::1", true},
		{"2002:a9fe:a9fe::1", true}, {"::7f00:1", true}, {"2001::1", true},
		{"192.0.2.2", true}, {"198.51.100.7", true}, {"203.0.113.255", true}, {"192.88.99.1", true},
		{"::ffff:192.0.2.2", true}, {"64:ff9b::c000:202", true}, {"2001:db8::1", true}, {"3fff::1", true},
		{"100::1", true}, {"100:0:0:1::1", true}, {"2001:2::1", true}, {"2001:1::1", true}, {"5f00::1", true},
		{"192.0.3.1", false}, {"198.51.101.1", false}, {"203.0.114.1", false}, {"2001:db9::1", false}, {"2001:200::1", false},
		{"8.8.8.8", false}, {"172.32.0.1", false}, {"100.128.0.1", false}, {"2606:4700::1111", false},
		{"64:ff9b::808:808", false}, {"2002:808:808::1", false},
		{"64:ff9b:1:a9fe:a9:fe00:808:808", true}, // local-use NAT64 (/48 format) of 169.254.169.254
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if got := internal(netip.MustParseAddr(tc.addr)); got != tc.internal {
				t.Fatalf("internal(%s) = %v", tc.addr, got)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	c := New(Policy{AllowHosts: []string{"localhost:9999", "[::1]:9998"},
		BlockHosts: []string{"blocked.example", "8.8.8.0/24", "1.1.1.1", "[2606:4700::1111]", "[2606:4700::1001]:8443", "::ffff:9.9.9.0/120", "1.1.1.2:443"}})
	for _, tc := range []struct{ name, url, code, want string }{
		{"file scheme", "file:///etc/passwd", venue.EINVALID, "Only HTTP/HTTPS schemes are allowed, got: file"},
		{"gopher scheme", "gopher://x/", venue.EINVALID, "got: gopher"},
		{"no host", "http:///path", venue.EINVALID, "URL has no host"},
		{"blocked host", "https://blocked.example/", venue.EFORBIDDEN, "Host is blocked: blocked.example"},
		{"blocked host in other case with a final dot", "https://BLOCKED.example./", venue.EFORBIDDEN, "Host is blocked"},
		{"blocked prefix, mapped", "http://[::ffff:8.8.8.8]/", venue.EFORBIDDEN, "Host is blocked"},
		{"blocked prefix, in hex", "http://[::ffff:808:804]/", venue.EFORBIDDEN, "Host is blocked"},
		{"blocked address", "http://1.1.1.1:8080/", venue.EFORBIDDEN, "Host is blocked"},
		{"blocked IPv6 address", "http://[2606:4700::1111]/", venue.EFORBIDDEN, "Host is blocked"},
		{"NAT64 of the metadata address", "http://[64:ff9b::a9fe:a9fe]/", venue.EFORBIDDEN, "private/internal"},
		{"loopback by address", "http://127.0.0.1:8080/", venue.EFORBIDDEN, "private/internal address: 127.0.0.1"},
		{"loopback by name", "http://localhost/", venue.EFORBIDDEN, "private/internal address: localhost"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", venue.EFORBIDDEN, "private/internal"},
		{"IPv6 loopback", "http://[::1]:80/", venue.EFORBIDDEN, "private/internal"},
		{"unresolvable", "https://no-such-host.invalid/", venue.EINVALID, "Cannot resolve host: no-such-host.invalid"},
		{"allowed by host and port", "http://localhost:9999/", "", ""},
		{"allowed by a bracketed IPv6 address and port", "http://[::1]:9998/", "", ""},
		{"blocked by a bracketed IPv6 address and port", "https://[2606:4700::1001]:8443/", venue.EFORBIDDEN, "Host is blocked"},
		{"blocked by an IPv4-mapped prefix", "http://9.9.9.9/", venue.EFORBIDDEN, "Host is blocked"},
		{"a blocked address and port written another way", "https://[2606:4700:0::1001]:8443/", venue.EFORBIDDEN, "Host is blocked"},
		{"a blocked port with a leading zero", "https://[2606:4700::1001]:08443/", venue.EFORBIDDEN, "Host is blocked"},
		{"a blocked address and port, mapped", "https://[::ffff:1.1.1.2]:443/", venue.EFORBIDDEN, "Host is blocked"},
		{"a blocked address and port by its default port", "https://1.1.1.2/", venue.EFORBIDDEN, "Host is blocked"},
		{"another port of a blocked address and port", "http://1.1.1.2:8443/", "", ""},
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

// TestCheckURL_OwnAddresses checks the venue host's own addresses are
// refused like loopback, in every form, unless allowHosts names them.
func TestCheckURL_OwnAddresses(t *testing.T) {
	c := New(Policy{AllowHosts: []string{"8.8.4.4:8443"}})
	c.own = []netip.Addr{netip.MustParseAddr("8.8.4.4"), netip.MustParseAddr("2606:4700:4700::64")}
	for _, tc := range []struct{ name, url, code string }{
		{"an own address", "http://8.8.4.4:29148/login", venue.EFORBIDDEN},
		{"an own address, mapped", "http://[::ffff:8.8.4.4]:29148/", venue.EFORBIDDEN},
		{"an own address through NAT64", "http://[64:ff9b::808:404]/", venue.EFORBIDDEN},
		{"an own IPv6 address", "https://[2606:4700:4700::64]/", venue.EFORBIDDEN},
		{"an own address allowed with its port", "http://8.8.4.4:8443/", ""},
		{"another public address", "http://8.8.8.8/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(tc.url)
			err := c.CheckURL(context.Background(), u)
			if venue.ErrorCode(err) != tc.code || err != nil && !strings.Contains(err.Error(), "the venue's own host") {
				t.Fatalf("CheckURL(%s) = %v, want %q", tc.url, err, tc.code)
			}
		})
	}
}

// TestNew_ReadsOwnAddresses checks a client knows every interface address.
func TestNew_ReadsOwnAddresses(t *testing.T) {
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	c := New(Policy{})
	for _, ia := range ifaddrs {
		a, ok := netip.AddrFromSlice(ia.(*net.IPNet).IP)
		if ok && !c.isOwn(a) {
			t.Errorf("%s (of %v) is not known as the host's own", a, ifaddrs)
		}
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
	if _, err := io.ReadAll(resp.Body); venue.ErrorCode(err) != venue.ETOOLARGE || !strings.Contains(err.Error(), "limit of 1000 bytes") {
		t.Fatalf("reading past the cap: %v", err)
	}
	req, _ = http.NewRequest("GET", "http://"+slow+"/", nil)
	if _, err := c.Do(req, nil); venue.ErrorCode(err) != venue.ETIMEOUT {
		t.Fatalf("slow server: %v", err)
	}
}

// TestDo_RedirectsNeverCarrySecretsAway checks the ways a redirect could
// take a credential somewhere it was not meant for: the previous URL as a
// Referer, a detour through another host back to the first, and a fall
// from https to http on the same host.
func TestDo_RedirectsNeverCarrySecretsAway(t *testing.T) {
	type seen struct{ referer, key, auth string }
	var got []seen
	record := func(r *http.Request) {
		got = append(got, seen{r.Header.Get("Referer"), r.Header.Get("X-Key"), r.Header.Get("Authorization")})
	}
	var a, b string
	_, b = server(t, func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if r.URL.Path == "/bounce" {
			http.Redirect(w, r, "http://"+a+"/admin", http.StatusTemporaryRedirect)
		}
	})
	_, a = server(t, func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
		}
	})
	c := New(Policy{AllowHosts: []string{a, b}})
	send := func(t *testing.T, u string) {
		t.Helper()
		got = nil
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("X-Key", "key-value")
		req.Header.Set("Authorization", "Bearer token")
		resp, err := c.Do(req, []string{"X-Key", "Authorization"})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	t.Run("no Referer, credentials kept on the same host", func(t *testing.T) {
		send(t, "http://"+a+"/v1/key-value/items?to=/landed")
		if len(got) != 2 || got[1] != (seen{"", "key-value", "Bearer token"}) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("a detour through another host drops them for good", func(t *testing.T) {
		send(t, "http://"+a+"/?to=http://"+b+"/bounce")
		if len(got) != 3 || got[1] != (seen{}) || got[2] != (seen{}) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("https to http on the same host drops them", func(t *testing.T) {
		sh := secretHeaders{scheme: "https", host: a}
		down, _ := url.Parse("http://" + a + "/plain")
		if sh.keeps(down, nil) {
			t.Fatal("kept credentials on a fall from https to http")
		}
		up := secretHeaders{scheme: "http", host: a}
		secure, _ := url.Parse("https://" + a + "/")
		if !up.keeps(secure, nil) {
			t.Fatal("dropped credentials on a rise from http to https on the same host")
		}
	})
}

// TestDo_BodyTimeoutIsATimeout checks a body cut off by the timeout fails
// as a timeout, not as an internal error.
func TestDo_BodyTimeoutIsATimeout(t *testing.T) {
	_, drip := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first"))
		w.(http.Flusher).Flush()
		time.Sleep(500 * time.Millisecond)
	})
	c := New(Policy{AllowHosts: []string{drip}, Timeout: 150 * time.Millisecond})
	req, _ := http.NewRequest("GET", "http://"+drip+"/", nil)
	resp, err := c.Do(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); venue.ErrorCode(err) != venue.ETIMEOUT {
		t.Fatalf("reading a body cut off by the timeout: %v", err)
	}
}

// rawServer answers every connection on loopback with answer, as written,
// and closes it.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 4096))
			io.WriteString(c, answer)
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// TestDo_TransportErrorsAreWordedWhole checks a transport failure is worded
// in the venue's words when its kind is known, and otherwise whole: the
// server's text quoted in it is never cut (a cut at its last ": " left the
// tail of a credential the server echoed, which the masker did not know).
func TestDo_TransportErrorsAreWordedWhole(t *testing.T) {
	refused, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := refused.Addr().String()
	refused.Close()
	for _, tc := range []struct{ name, scheme, addr, want string }{
		{"a Content-Length quoting a value with a colon", "http", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: Bearer abcd: efghijkl\r\n\r\n"),
			`bad Content-Length "Bearer abcd: efghijkl"`},
		{"a NUL in a header", "http", rawServer(t, "HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok"),
			`malformed MIME header line: "X-A: a\x00b"`},
		{"a Transfer-Encoding quoting a value", "http", rawServer(t, "HTTP/1.1 200 OK\r\nTransfer-Encoding: Bearer abcd: efghijkl\r\n\r\n"),
			`unsupported transfer encoding: "Bearer abcd: efghijkl"`},
		{"closed without an answer", "http", rawServer(t, ""), "the server closed the connection without answering"},
		{"refused", "http", closedAddr, "connection refused: nothing listens at that address and port"},
		{"https to a plain server", "https", rawServer(t, "HTTP/1.1 400 Bad Request\r\n\r\n"), "http: server gave HTTP response to HTTPS client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Policy{AllowHosts: []string{tc.addr}, Timeout: 5 * time.Second})
			req, _ := http.NewRequest("GET", tc.scheme+"://"+tc.addr+"/", nil)
			_, err := c.Do(req, nil)
			want := "Request to 127.0.0.1 failed: " + tc.want
			if venue.ErrorCode(err) != venue.EUNAVAILABLE || venue.ErrorMessage(err) != want {
				t.Fatalf("got %v\nwant %s", err, want)
			}
		})
	}
	t.Run("a body cut short", func(t *testing.T) {
		addr := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
		c := New(Policy{AllowHosts: []string{addr}})
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		resp, err := c.Do(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		if want := "Request to 127.0.0.1 failed: the server closed the connection before the end of its answer"; venue.ErrorMessage(err) != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	})
}
