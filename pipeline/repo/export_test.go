package repo

// WithoutLayers returns plan with the static scan for special-casing, the
// tripwire, or both turned off, so that a test shows the proof's other
// defences holding on their own.
func WithoutLayers(plan Plan, scan, tripwire bool) Plan {
	plan.withoutScan, plan.withoutTripwire = scan, tripwire
	return plan
}
