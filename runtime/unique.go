package runtime

import (
	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// refuseDuplicates answers EINVALID when an object anywhere in v, a valid
// JSON text, gives a member name twice. Readers disagree on which one
// counts (a whole read gives the text as stored, a read of the member one
// of them, and a schema check may see another than the operation), so the
// venue takes no such text in, as it takes none in asset metadata.
func refuseDuplicates(what string, v []byte) error {
	if name, dup, _ := jsonscan.Duplicate(v); dup {
		return venue.Errorf(venue.EINVALID, "%s gives the member %q twice in one object: give each member name once", what, clipRef(name))
	}
	return nil
}
