package main

import "strings"

// helpText is what venued -h prints: the commands, and where the full
// table of settings is.
const helpText = `venued: a grid venue (README.md has the walk-through and the table of every setting;
the venue also serves its API documentation at /swagger, /redoc and /openapi).

usage:
  venued [config.json] [--config file] [--listen addr] [--store path|postgres://...] [--url base] [--name name]
      serve the venue. Settings come from the JSON config file (--config file, or the first
      argument: one JSON object whose keys are the settings, such as {"workers": 8}), then
      VENUE_* environment variables (maxBodyBytes is VENUE_MAX_BODY_BYTES; README's table names
      the variable of each setting), then flags.
      --listen addr   address to listen on (default 127.0.0.1:8080)
      --store s       empty: SQLite in a temporary directory; a file path: durable SQLite;
                      postgres://...: PostgreSQL, which several venues may share
      --url base      public base URL, from which the venue's did:web DID derives
      --name name     venue name
  venued token [--url base] [--seed hex] [--ttl 24h]
      print DID=, SEED= and TOKEN= lines (shell assignments) for a new did:key identity, or
      the one --seed gives, to call the venue as a signed-in user; the token is for --url,
      else $VENUE_URL, else the venue $VENUE_LISTEN names, else http://127.0.0.1:8080
  venued openapi
      print the OpenAPI document and exit
  venued version
      print the venue's release, the commit it was built from and the Go release
  venued help
      print this text

exit codes: 0 after a normal stop; 2 for a bad setting or argument (the message says which);
1 when the venue could not start or could not stop cleanly (its log says why), or a second
signal cut its stop short.
`

// isHelp reports whether args ask for help rather than a venue: the help
// command, or -h or --help anywhere (venued token --help too) but as the
// value of a flag (--name -h names the venue "-h").
func isHelp(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case i == 0 && a == "help", a == "-h", a == "-help", a == "--help":
			return true
		case valueFlags[strings.TrimLeft(a, "-")] && strings.HasPrefix(a, "-"):
			i++ // its value follows
		}
	}
	return false
}

// valueFlags are the flags of venued and venued token that take a value.
var valueFlags = map[string]bool{"config": true, "listen": true, "store": true, "url": true, "name": true, "seed": true, "ttl": true}
