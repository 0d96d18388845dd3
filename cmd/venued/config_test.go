package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "venue.json")
	os.WriteFile(file, []byte(`{"listen": "127.0.0.1:9000", "name": "From File", "store": "/tmp/x.db", "workers": 8}`), 0o644)
	trailing := filepath.Join(dir, "trailing.json")
	os.WriteFile(trailing, []byte(`{"listen": "127.0.0.1:9000"} {"name": "x"}`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"listen": "x", "colour": "blue"}`), 0o644)
	smallAssets := filepath.Join(dir, "assets.json")
	os.WriteFile(smallAssets, []byte(`{"maxContentSize": 8192, "maxUserAssetsBytes": 4096}`), 0o644)
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		args    []string
		env     func(string) string
		check   func(Config) bool
		wantErr string
	}{
		{"defaults", nil, env(), func(c Config) bool { return c.Listen == "127.0.0.1:8080" && c.Store == "" && c.Name == "Venue" }, ""},
		{"file as first argument", []string{file}, env(), func(c Config) bool { return c.Listen == "127.0.0.1:9000" && c.Workers == 8 }, ""},
		{"file with --config", []string{"--config", file}, env(), func(c Config) bool { return c.Name == "From File" }, ""},
		{"env overrides file", []string{file}, env("VENUE_NAME", "From Env", "VENUE_WORKERS", "3"), func(c Config) bool { return c.Name == "From Env" && c.Workers == 3 }, ""},
		{"flags override env", []string{file, "--name", "From Flag", "--store", "postgres://h/db"}, env("VENUE_NAME", "From Env"),
			func(c Config) bool { return c.Name == "From Flag" && c.Store == "postgres://h/db" }, ""},
		{"flags before the file", []string{"--listen", ":0", file}, env(), func(c Config) bool { return c.Listen == ":0" }, ""},
		{"unknown key in the file", []string{bad}, env(), nil, `unknown key "colour": see the configuration table in README.md`},
		{"an unknown key within auth is named with auth", []string{writeFile(t, dir, "auth-typo.json", `{"auth": {"anonymus": "read"}}`)}, env(), nil,
			`unknown key "auth.anonymus": see the configuration table`},
		{"and within an OAuth provider, with the provider", []string{writeFile(t, dir, "oauth-typo.json",
			`{"auth": {"anonymous": "read", "oauth": {"google": {"clientID": "x", "clientSecrt": "s/G"}}}}`)}, env(), nil,
			`unknown key "auth.oauth.google.clientSecrt"`},
		{"and within mcp, with mcp", []string{writeFile(t, dir, "mcp-typo.json", `{"listen": "127.0.0.1:0", "mcp": {"sessionTimeot": "5m"}}`)}, env(), nil,
			`unknown key "mcp.sessionTimeot"`},
		{"an empty file", []string{writeFile(t, dir, "empty.json", " \n")}, env(), nil, "is empty: give one JSON object"},
		{"a key of the wrong type", []string{writeFile(t, dir, "type.json", "{\n  \"maxBodyBytes\": \"big\"}")}, env(), nil,
			"line 2: maxBodyBytes: want a whole number, not a JSON string"},
		{"a syntax error", []string{writeFile(t, dir, "syntax.json", "{\"listen\": \"x\",,}")}, env(), nil, "line 1, column 16: invalid character ','"},
		{"a file cut short", []string{writeFile(t, dir, "short.json", `{"listen": "x"`)}, env(), nil, "the JSON ends too early"},
		{"a URL that is not http(s)", nil, env("VENUE_URL", "ftp://x"), nil, `url: public base URL "ftp://x" must be an absolute http(s) URL`},
		{"a bad MCP duration", []string{writeFile(t, dir, "mcp.json", `{"mcp": {"bridgeTimeout": "soon"}}`)}, env(), nil, `mcp.bridgeTimeout "soon": write a positive duration`},
		{"content larger than the default assets bound", nil, env("VENUE_MAX_CONTENT_SIZE", "21474836480"), nil,
			"maxUserAssetsBytes 10737418240 is below maxContentSize 21474836480"},
		{"missing file", []string{filepath.Join(dir, "none.json")}, env(), nil, "read config"},
		{"a directory for the file", []string{dir}, env(), nil, "config file " + dir + " is a directory: give the path of a JSON file, such as " + filepath.Join(dir, "venue.json")},
		{"unknown flag", []string{"--colour", "blue"}, env(), nil, "usage: venued"},
		{"bad seed", nil, env("VENUE_SEED", "xyz"), nil, "seed: want 64 hex digits"},
		{"bad workers", nil, env("VENUE_WORKERS", "many"), nil, "VENUE_WORKERS"},
		{"bad job timeout", nil, env("VENUE_JOB_TIMEOUT", "soon"), nil, `jobTimeout "soon": want a duration such as 10m or 90s (set by VENUE_JOB_TIMEOUT)`},
		{"bad log level", nil, env("VENUE_LOG_LEVEL", "loud"), nil, "logLevel"},
		{"each bad value names its variable", nil, env("VENUE_BODY_TIMEOUT", "later", "VENUE_LOG_FORMAT", "xml", "VENUE_SEED", "12"), nil,
			`seed: want 64 hex digits (a 32-byte Ed25519 seed) (set by VENUE_SEED)` + "\n" + `bodyTimeout "later": want a duration such as 30s (set by VENUE_BODY_TIMEOUT)`},
		{"a bad anonymous level names its variable", nil, env("VENUE_ANONYMOUS", "all"), nil,
			`auth.anonymous "all": want none, read, invoke or write (set by VENUE_ANONYMOUS)`},
		{"two config files", []string{file, file}, env(), nil, "unexpected arguments"},
		{"something after the object", []string{trailing}, env(), nil, "something follows the JSON object"},
		{"0 from env is the default, as in the file", nil, env("VENUE_WORKERS", "0", "VENUE_MAX_BODY_BYTES", "0"), func(c Config) bool { return c.Workers == 0 }, ""},
		{"a negative number names its key", nil, env("VENUE_WORKERS", "-1"), nil, `VENUE_WORKERS="-1"`},
		{"every bad number and switch is named, in order", nil, env("VENUE_WORKERS", "many", "VENUE_MAX_JOBS", "x", "VENUE_MAX_BODY_BYTES", "big", "VENUE_PPROF", "yes", "VENUE_TEST_OPS", "maybe"), nil,
			`VENUE_MAX_BODY_BYTES="big": want a positive whole number of bytes (or 0 for the default)` + "\n" +
				`VENUE_MAX_JOBS="x": want a positive whole number (or 0 for the default)` + "\n" +
				`VENUE_WORKERS="many": want a positive whole number (or 0 for the default)` + "\n" +
				`VENUE_PPROF="yes": want true or false` + "\n" + `VENUE_TEST_OPS="maybe": want true or false`},
		{"wasm calls that wait for the compile", nil, env("VENUE_WASM_WAIT_COMPILE", "true"), func(c Config) bool { return c.WasmWaitCompile }, ""},
		{"a bad wasm wait switch", nil, env("VENUE_WASM_WAIT_COMPILE", "sometimes"), nil, `VENUE_WASM_WAIT_COMPILE="sometimes": want true or false`},
		{"a retention in days", nil, env("VENUE_JOB_RETENTION", "30d"), func(c Config) bool { return c.jobRetention() == 30*24*time.Hour }, ""},
		{"a retention as a Go duration", nil, env("VENUE_JOB_RETENTION", "90m"), func(c Config) bool { return c.jobRetention() == 90*time.Minute }, ""},
		{"no retention keeps every record", nil, env("VENUE_JOB_RETENTION", "0"), func(c Config) bool { return c.jobRetention() == 0 }, ""},
		{"a retention under a minute", nil, env("VENUE_JOB_RETENTION", "30s"), nil, `jobRetention "30s": want a duration of at least a minute`},
		{"a retention that is not a duration", nil, env("VENUE_JOB_RETENTION", "a month"), nil, `jobRetention "a month"`},
		{"a retention of negative days", nil, env("VENUE_JOB_RETENTION", "-3d"), nil, `jobRetention "-3d"`},
		{"a log format in capitals, as a level may be", nil, env("VENUE_LOG_FORMAT", "JSON", "VENUE_LOG_LEVEL", "DEBUG"), func(c Config) bool { return c.LogFormat == "JSON" }, ""},
		{"no wait for the store", nil, env("VENUE_STORE_WAIT", "0"), func(c Config) bool { return c.storeWait() == 0 }, ""},
		{"the default wait for the store", nil, env(), func(c Config) bool { return c.storeWait() == 30*time.Second }, ""},
		{"a bad wait for the store", nil, env("VENUE_STORE_WAIT", "a while"), nil, `storeWait "a while"`},
		{"a caller's bound above the venue's", nil, env("VENUE_WORKERS", "4", "VENUE_CALLER_WORKERS", "8", "VENUE_MAX_JOBS", "10", "VENUE_MAX_CALLER_JOBS", "20"),
			func(c Config) bool {
				b := c.looseBounds()
				return len(b) == 2 && b[0] == "callerWorkers 8 is above workers 4" && b[1] == "maxCallerJobs 20 is above maxJobs 10"
			}, ""},
		{"bounds within the venue's", nil, env("VENUE_WORKERS", "8", "VENUE_CALLER_WORKERS", "4"), func(c Config) bool { return len(c.looseBounds()) == 0 }, ""},
		{"more processors for uploaded code than Go runs on", nil, env("VENUE_UPLOADED_PROCESSORS", "100000"),
			func(c Config) bool {
				return strings.HasPrefix(c.processorsOver(), "uploadedProcessors 100000 is above the ")
			}, ""},
		{"processors for uploaded code within Go's", nil, env("VENUE_UPLOADED_PROCESSORS", "1"), func(c Config) bool { return c.processorsOver() == "" }, ""},
		{"a connection bound from env", nil, env("VENUE_MAX_CONNECTIONS", "64"), func(c Config) bool { return c.maxConnections() == 64 }, ""},
		{"the default connection bound leaves files over", nil, env(), func(c Config) bool { n := c.maxConnections(); return n >= 16 && n <= 10_000 }, ""},
		{"a bad connection bound", nil, env("VENUE_MAX_CONNECTIONS", "lots"), nil, `VENUE_MAX_CONNECTIONS="lots"`},
		{"a bodies budget from env", nil, env("VENUE_MAX_BODIES_BYTES", "33554432"), func(c Config) bool { return c.MaxBodiesBytes == 32<<20 }, ""},
		{"a bodies budget below the default body", nil, env("VENUE_MAX_BODIES_BYTES", "1048576"), nil, "maxBodiesBytes 1048576 is below maxBodyBytes 16777216"},
		{"a bodies budget below the body set", nil, env("VENUE_MAX_BODIES_BYTES", "1048576", "VENUE_MAX_BODY_BYTES", "2097152"), nil,
			"maxBodiesBytes 1048576 is below maxBodyBytes 2097152"},
		{"a bound on a user's values from env", nil, env("VENUE_MAX_USER_VALUES_BYTES", "1048576"), func(c Config) bool { return c.MaxUserValues == 1<<20 }, ""},
		{"a negative bound on a user's values", nil, env("VENUE_MAX_USER_VALUES_BYTES", "-5"), nil, `VENUE_MAX_USER_VALUES_BYTES="-5"`},
		{"a bound on a user's assets from env", nil, env("VENUE_MAX_USER_ASSETS_BYTES", "2147483648"), func(c Config) bool { return c.MaxUserAssets == 2<<30 }, ""},
		{"a bound on a user's assets below the default content size", nil, env("VENUE_MAX_USER_ASSETS_BYTES", "1048576"), nil,
			"maxUserAssetsBytes 1048576 is below maxContentSize 1073741824: content of the largest size could never be stored"},
		{"a bound on a user's assets below the content size set", []string{smallAssets}, env(), nil, "maxUserAssetsBytes 4096 is below maxContentSize 8192"},
		{"host lists take spaces after commas", nil, env("VENUE_BLOCK_HOSTS", "example.com, 127.0.0.0/8"),
			func(c Config) bool { return len(c.BlockHosts) == 2 && c.BlockHosts[1] == "127.0.0.0/8" }, ""},
		{"a block entry that matches nothing", nil, env("VENUE_BLOCK_HOSTS", "127.0.0.0/33"), nil, `blockHosts: "127.0.0.0/33" is not a host name`},
		{"an allow entry that is a prefix", nil, env("VENUE_ALLOW_HOSTS", "10.0.0.0/8"), nil, `allowHosts: "10.0.0.0/8" is not a host name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadConfig(tc.args, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.check(cfg) {
				t.Fatalf("%+v %v", cfg, err)
			}
		})
	}
}

// TestRedactDSN hides a PostgreSQL password in every place a DSN may hold
// one before the store is logged.
func TestRedactDSN(t *testing.T) {
	for _, tc := range []struct{ name, dsn, want string }{
		{"user info", "postgres://venue:s3cret@db:5432/venue", "postgres://venue:xxxxx@db:5432/venue"},
		{"query", "postgresql://db/venue?sslmode=disable&password=s3cret", "postgresql://db/venue?password=xxxxx&sslmode=disable"},
		{"key=value", "host=db user=venue password=s3cret dbname=venue", "host=db user=venue password=xxxxx dbname=venue"},
		{"key=value without host or dbname", "user=alice password=pw7 sslmode=disable", "user=alice password=xxxxx sslmode=disable"},
		{"key=value quoted, with spaces", `host=db password = 's3 cr\'et' sslpassword=s3cret`, "host=db password = xxxxx sslpassword=xxxxx"},
		{"key=value with a quote left open", "host=db password='s3cret dbname=venue", "host=db password=xxxxx"},
		{"key=value with a quote left open after a backslash", `host=db password='s3cret\`, "host=db password=xxxxx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := redactDSN(tc.dsn); !ok || got != tc.want {
				t.Fatalf("redactDSN(%q) = %q, %v; want %q", tc.dsn, got, ok, tc.want)
			}
		})
	}
	if _, ok := redactDSN("/var/lib/venue/venue.db"); ok {
		t.Fatal("a SQLite path taken for a DSN")
	}
}

func TestIsHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--help"}, true}, {[]string{"-h"}, true}, {[]string{"help"}, true},
		{[]string{"token", "--help"}, true}, {[]string{"--listen", "127.0.0.1:1", "--help"}, true}, {[]string{"help", "--store", "x"}, true},
		{nil, false}, {[]string{"venue.json"}, false}, {[]string{"venue.json", "help"}, false},
		{[]string{"--name", "-h"}, false}, {[]string{"--name=--help"}, false}, {[]string{"--name", "x", "-h"}, true},
	} {
		if got := isHelp(tc.args); got != tc.want {
			t.Errorf("isHelp(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
	if !strings.Contains(helpText, "venued token") || !strings.Contains(helpText, "venued openapi") {
		t.Error("the help text does not name every command")
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigFileErrorNamesNoVariable: a bad value from the file is not said
// to come from a variable, though other VENUE_* variables are set.
func TestConfigFileErrorNamesNoVariable(t *testing.T) {
	file := writeFile(t, t.TempDir(), "timeout.json", `{"jobTimeout": "soon"}`)
	_, err := loadConfig([]string{file}, func(k string) string {
		return map[string]string{"VENUE_NAME": "x", "VENUE_WORKERS": "2"}[k]
	})
	if err == nil || err.Error() != `jobTimeout "soon": want a duration such as 10m or 90s` {
		t.Fatalf("error %v", err)
	}
}
