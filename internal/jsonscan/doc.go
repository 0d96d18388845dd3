// Package jsonscan reads JSON text by hand, in one pass and without
// reflection, for the venue's quick paths: the invoke body decoder of the
// REST door, the engine's flat schema check and the Wasm host's reading of
// lattice-call arguments; Duplicate, the engine's check that no object in
// an input, a value or a reply gives a member name twice; CaseVariant,
// its check that no member stands in for another by case; and Compacted,
// which spares the engine rewriting JSON that is compact already. A quick
// path uses it to take the inputs it can judge exactly as encoding/json
// would, and hands everything else, valid or not, to encoding/json (or the
// validator). Nothing here answers otherwise than encoding/json; where a
// rule of decoding would need more (escapes, non-ASCII, deep nesting), a
// Cursor declines.
package jsonscan
