package rest

import (
	"encoding/json"
	"io"

	"github.com/danielgtaylor/huma/v2"
)

// preEncoded is implemented by bodies that already are JSON text. The JSON
// format writes them as they are: encoding/json would re-scan and compact
// them, which costs time on every job record and would change asset
// metadata that must come back byte for byte.
type preEncoded interface{ encoded() []byte }

func (r jobRecord) encoded() []byte     { return r.j.AppendJSON(make([]byte, 0, 512)) }
func (r rawJSON) encoded() []byte       { return r }
func (m assetMetadata) encoded() []byte { return m }

// jsonFormat is Huma's JSON format with the preEncoded shortcut.
var jsonFormat = huma.Format{
	Marshal: func(w io.Writer, v any) error {
		if p, ok := v.(preEncoded); ok {
			_, err := w.Write(p.encoded())
			return err
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	},
	Unmarshal: json.Unmarshal,
}
