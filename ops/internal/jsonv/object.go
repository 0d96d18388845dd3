package jsonv

// Object is a JSON object that remembers the order of its members.
//
// Most objects are small, and a Go map costs hundreds of bytes even when
// nearly empty, which in a 64 MiB guest limits how large an input it can
// hold: members are a pair of slices, searched in order up to indexFrom
// members and through an index beyond.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // position of each key, once there are indexFrom or more
}

const indexFrom = 16

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// Keys returns the member names in order. The caller must not modify it.
func (o *Object) Keys() []string { return o.keys }

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Get returns the member k.
func (o *Object) Get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Set sets member k to v, appending k if it is new; a repeated key keeps
// its first place and takes the last value, as encoding/json does.
func (o *Object) Set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys, o.vals = append(o.keys, k), append(o.vals, v)
	switch n := len(o.keys); {
	case o.index != nil:
		o.index[k] = n - 1
	case n == indexFrom:
		o.index = make(map[string]int, 2*n)
		for i, key := range o.keys {
			o.index[key] = i
		}
	}
}

func (o *Object) find(k string) int {
	if o.index != nil {
		if i, ok := o.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// MarshalJSON encodes the members in order.
func (o *Object) MarshalJSON() ([]byte, error) { return Append(nil, o), nil }
