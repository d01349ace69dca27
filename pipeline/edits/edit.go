package edits

import "strings"

// DeleteMarker is the whole content of a file block that asks for the file
// to be deleted. Surrounding white space is ignored.
const DeleteMarker = "# capsule: delete this file"

// Edit is one file the agent wrote: the path relative to the repository root
// and the whole new content of the file, or DeleteMarker.
type Edit struct {
	Path    string
	Content string
}

// Deletes reports whether the edit asks for its file to be deleted.
func (e Edit) Deletes() bool {
	return strings.TrimSpace(e.Content) == DeleteMarker
}

// Refusal is an edit that Check rejected. Path is the path as the agent wrote
// it and Reason tells the agent, in plain words, why the edit was refused.
// Infrastructure is set when the edit was refused only for being test
// infrastructure (which Rules.AllowTestInfrastructure would allow).
type Refusal struct {
	Path, Reason   string
	Infrastructure bool
}
