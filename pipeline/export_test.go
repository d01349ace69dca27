package pipeline

// WithoutLayers returns s with the static scan for special-casing, the
// tripwire, or both turned off, so that a test shows the proof's other
// defences holding on their own.
func WithoutLayers(s Settings, scan, tripwire bool) Settings {
	s.withoutScan, s.withoutTripwire = scan, tripwire
	return s
}
