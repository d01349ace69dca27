package edits

// diffLines computes a shortest edit script from a to b: it marks the lines
// of a to delete and the lines of b to insert, so that the unmarked lines of
// both, in order, are a longest common subsequence.
//
// Lines that occur on one side only can never be kept, so they are marked
// first and Myers' algorithm runs on the rest, which is often much shorter.
func diffLines(a, b []string) (del, ins []bool) {
	del, ins = make([]bool, len(a)), make([]bool, len(b))
	ids := make(map[string]int)
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	inA, inB := make([]bool, len(ids)), make([]bool, len(ids))
	for _, id := range x {
		inA[id] = true
	}
	for _, id := range y {
		inB[id] = true
	}
	xs, xi := shared(x, inB, del)
	ys, yi := shared(y, inA, ins)

	m := newMyers(xs, ys)
	m.compare(0, len(xs), 0, len(ys))
	for k, d := range m.del {
		del[xi[k]] = d
	}
	for k, d := range m.ins {
		ins[yi[k]] = d
	}
	return del, ins
}

// shared returns the lines of seq that also occur on the other side, with
// their indexes in seq, and marks the others as changed.
func shared(seq []int, other []bool, changed []bool) (lines, index []int) {
	for i, id := range seq {
		if other[id] {
			lines = append(lines, id)
			index = append(index, i)
		} else {
			changed[i] = true
		}
	}
	return lines, index
}

// myers is the linear-space variant of Myers' O(ND) difference algorithm
// ("An O(ND) Difference Algorithm and Its Variations", 1986, section 4b):
// find a point on a shortest edit path by running the search from both ends
// until the two meet, then solve the two halves the same way.
type myers struct {
	a, b     []int
	del, ins []bool
	vf, vb   []int // furthest x reached on each diagonal, forward and backward
}

func newMyers(a, b []int) *myers {
	n := 2*((len(a)+len(b)+1)/2) + 3
	return &myers{
		a: a, b: b,
		del: make([]bool, len(a)), ins: make([]bool, len(b)),
		vf: make([]int, n), vb: make([]int, n),
	}
}

// compare marks the changes between a[aLo:aHi] and b[bLo:bHi].
func (m *myers) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && m.a[aLo] == m.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && m.a[aHi-1] == m.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	switch {
	case aLo == aHi:
		for j := bLo; j < bHi; j++ {
			m.ins[j] = true
		}
	case bLo == bHi:
		for i := aLo; i < aHi; i++ {
			m.del[i] = true
		}
	default:
		x, y := m.split(aLo, aHi, bLo, bHi)
		m.compare(aLo, x, bLo, y)
		m.compare(x, aHi, y, bHi)
	}
}

// unset marks a diagonal that no path of the current length reaches.
const unset = -1

// split returns a point (x, y), strictly between (aLo, bLo) and (aHi, bHi),
// through which a shortest edit path from one to the other passes. Both
// ranges must be non-empty and differ in their first and last elements.
//
// Points are local to the ranges; diagonal k holds the points with
// x-y = k. The forward search starts at (0, 0); the backward search runs
// the same algorithm on both ranges reversed, so its diagonal k is the
// forward diagonal delta-k and its x is n minus the forward x.
func (m *myers) split(aLo, aHi, bLo, bHi int) (int, int) {
	a, b := m.a[aLo:aHi], m.b[bLo:bHi]
	n, nb := len(a), len(b)
	maxD := (n + nb + 1) / 2
	off := maxD + 1
	vf, vb := m.vf[:2*off+1], m.vb[:2*off+1]
	for i := range vf {
		vf[i], vb[i] = unset, unset
	}
	delta := n - nb
	odd := delta%2 != 0
	fwd := func(i, j int) bool { return a[i] == b[j] }
	bwd := func(i, j int) bool { return a[n-1-i] == b[nb-1-j] }
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			x, ok := step(vf, off, d, k, n, nb, fwd)
			if !ok || !odd {
				continue
			}
			// The backward search has made d-1 moves.
			if kb := delta - k; -d < kb && kb < d && vb[off+kb] != unset && x+vb[off+kb] >= n {
				return m.checked(aLo, aHi, bLo, bHi, x, x-k)
			}
		}
		for k := -d; k <= d; k += 2 {
			x, ok := step(vb, off, d, k, n, nb, bwd)
			if !ok || odd {
				continue
			}
			// The forward search has made d moves.
			if kf := delta - k; -d <= kf && kf <= d && vf[off+kf] != unset && vf[off+kf]+x >= n {
				fx := vf[off+kf]
				return m.checked(aLo, aHi, bLo, bHi, fx, fx-kf)
			}
		}
	}
	panic("edits: the diff searches did not meet")
}

// checked turns the local point (x, y) into an absolute one and makes sure
// it splits the problem, which the algorithm guarantees.
func (m *myers) checked(aLo, aHi, bLo, bHi, x, y int) (int, int) {
	x, y = aLo+x, bLo+y
	if (x == aLo && y == bLo) || (x == aHi && y == bHi) {
		panic("edits: the diff split point is a corner")
	}
	return x, y
}

// step extends the furthest path with d moves on diagonal k of an n by nb
// grid, given the furthest paths with d-1 moves on the diagonals next to it
// in v, and follows the snake of equal lines from there. It returns the x
// reached, or false when no path with d moves reaches diagonal k.
func step(v []int, off, d, k, n, nb int, equal func(i, j int) bool) (int, bool) {
	x := unset
	if d == 0 {
		x = 0
	} else {
		// Down from diagonal k+1: x stays, y grows.
		if k < d {
			if px := v[off+k+1]; px != unset && px-k <= nb {
				x = px
			}
		}
		// Right from diagonal k-1: x grows.
		if k > -d {
			if px := v[off+k-1]; px != unset && px+1 <= n && px+1 > x {
				x = px + 1
			}
		}
	}
	if x == unset {
		v[off+k] = unset
		return 0, false
	}
	for y := x - k; x < n && y < nb && equal(x, y); y++ {
		x++
	}
	v[off+k] = x
	return x, true
}
