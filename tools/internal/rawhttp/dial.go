package rawhttp

import (
	"net"
	"net/url"
)

// Dial opens a TCP connection to the host of rawURL, and returns the URL
// parsed, for the request line (RequestURI) and the Host header.
func Dial(rawURL string) (net.Conn, *url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, nil, err
	}
	return conn, u, nil
}
