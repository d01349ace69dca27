package edits

import "strings"

// DeleteMarker is the whole content of a file block that asks for the file
// to be deleted, in the answer format. Surrounding white space is ignored.
// Resolve reads it into Edit.Delete; nothing after it sees the marker.
const DeleteMarker = "# capsule: delete this file"

// Edit is one file the agent wrote: the path relative to the repository root
// and the whole new content of the file, or its deletion.
type Edit struct {
	Path    string
	Content string // empty when Delete is set
	Delete  bool
}

// asksDelete reports whether content, the whole content of a file in an
// answer, is DeleteMarker: the one place the marker is read.
func asksDelete(content string) bool {
	return strings.TrimSpace(content) == DeleteMarker
}

// answerEdit is the edit of a file whose whole content an answer gives.
func answerEdit(path, content string) Edit {
	if asksDelete(content) {
		return Edit{Path: path, Delete: true}
	}
	return Edit{Path: path, Content: content}
}

// Refusal is an edit that Check rejected. Path is the path as the agent wrote
// it and Reason tells the agent, in plain words, why the edit was refused.
// Infrastructure is set when the edit was refused only for being test
// infrastructure (which Rules.AllowTestInfrastructure would allow).
type Refusal struct {
	Path, Reason   string
	Infrastructure bool
}
