package edits

// FileChange sums up what the edits do to one file, for the attempt log.
type FileChange struct {
	Path   string
	Status string // StatusAdded, StatusModified or StatusDeleted
	// Added and Removed count lines, as in the patch.
	Added, Removed int
}

// Summary returns one FileChange for each file section that Diff writes for
// the same edits, in the same order. Edits that Diff cannot render are left
// out; Diff reports them.
func Summary(edits []Edit, repoDir string) []FileChange {
	changes, _ := load(repoDir, edits) // what failed is left out, as documented
	out := make([]FileChange, 0, len(changes))
	for _, c := range changes {
		added, removed := c.counts()
		out = append(out, FileChange{Path: c.path, Status: c.status, Added: added, Removed: removed})
	}
	return out
}
