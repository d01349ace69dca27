package job

// DefaultMaxCIRounds is the operator's maximum of ci_rounds when the
// operator sets none: twice the repository's default.
const DefaultMaxCIRounds = 4

// maxCIRounds is the operator's maximum of ci_rounds; 0 when CI rounds
// are off.
func (r *Runner) maxCIRounds() int {
	switch {
	case r.MaxCIRounds < 0:
		return 0
	case r.MaxCIRounds == 0:
		return DefaultMaxCIRounds
	}
	return r.MaxCIRounds
}
